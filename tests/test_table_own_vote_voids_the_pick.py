"""A seat's own vote that voids round 0, the first-dealer pick (protocol.md 11.3), in process:
the round keeps its number when the pick is held again, so what a seat queued of the voided pick
behind its vote is told from the pick held again by its pick number (`PeerTable.deal_over`,
`StreamTable._dropped`): dropped, not signed for the host to refuse (protocol.md 9, "A client's
own vote is no such race"; issue 38)."""

from __future__ import annotations

from shanghai_net.wire.messages import VoidRound

from test_net_table import Table

VOTER, OTHER, QUITTER = 0, 1, 2


def test_a_seat_signs_nothing_of_the_first_dealer_pick_its_own_vote_voids():
    """Seat 0 votes that seat 2 left; before its vote comes back, seat 2's commitment, the
    pick's last (then seat 2 sends nothing more), makes seat 0's nonce due, and seat 1's vote
    comes in.  The nonce waits behind the vote, and once the vote voids round 0 (it carries
    with seat 1's) it is dropped: pick 0 is over, and the pick held again is pick 1."""
    t = Table(3, seed=3)
    box = t.boxes[VOTER]
    commits = {seat: t.boxes[seat].poll() for seat in range(3)}
    assert all(msg.body.step == "pick_commit" for msg in commits.values())
    t.deliver(commits[VOTER])
    t.deliver(commits[OTHER])
    box.push([VoidRound(round=0, seat=QUITTER)])
    vote = box.poll()
    t.deliver(commits[QUITTER])  # every commitment in: seat 0's nonce of pick 0 is due
    assert [body.step for body in box.deal] == ["pick_reveal"]
    assert box.poll() is None, "signed after the seat's own vote, which voids the round"
    t.boxes[OTHER].push([VoidRound(round=0, seat=QUITTER)])  # seat 2 sends nothing more
    while not isinstance(t.deliver(t.boxes[OTHER].poll()).body, VoidRound):
        pass  # (seat 1's nonce first)
    t.deliver(vote)
    assert t.host.vacant == {QUITTER: 0} and t.host.round == 0  # the pick is void
    assert box.poll() is None and not box.deal and not box.flying
    assert [(body.KIND, body.step, body.data["pick"]) for body in box.dropped] == \
        [("deal", "pick_reveal", 0)]
