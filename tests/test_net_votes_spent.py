"""Two seats lost at once in the first-dealer pick, with sharing off (soak seed 10, game 10-7,
twice, two ways), in process over our real classes.

The first play: seat 1 dies before its ``pick_commit``, seat 2 quits (the lobby says it left)
after its own.
Seats 0 and 3 vote seat 2 gone at once (2 of 4: no majority), and the host times both out as
silent: seat 1 owing its commit, seat 2 owing nothing (idle, which never lowers the bar against
it).  Seat 1's voters are seats 0 and 3, but each has spent its one vote of the round on seat 2,
which lapses only when seat 2 signs again, and seat 2 is gone: no vote can carry, and the table
waits for good (the soak's 330 s ran out at message 7).

The second play (the same seed on the fixed branch): both seats die after their
``pick_commit``; seats 0 and 2 vote seat 3 gone, and with both timed out as silent (each owing
its ``pick_reveal``) the vote carries: round 0 is void and the pick starts again, still round 0.
Votes are one a seat a round, and the votes that carried still stand for round 0: seats 0 and 2
cannot vote seat 1 gone in the pick that follows, and it waits for good (message 15).  (The
pick that follows waits, since session 19, until seat 3 is played; seat 1 holds it up by the
approval its stand-in waits for.)"""

from __future__ import annotations

from shanghai_net.wire import ProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

from test_table_roster import Roster, vote_gone
from test_table_vacancies import stand_ins


def steps(t, step) -> set[int]:
    return {m.author for m in t.stream if isinstance(m.body, Deal) and m.body.step == step}


def refusals(t, seat, voters) -> list[str]:
    """Each of ``voters`` votes that ``seat`` left; the host's refusals, said."""
    refused = []
    for voter in voters:
        try:
            vote_gone(t, seat, [voter])
        except ProtocolError as error:
            refused.append(f"seat {voter}: {error}")
    return refused


def test_votes_spent_on_a_seat_that_owes_nothing_leave_the_staller_to_be_voted_gone():
    t = Roster(4, verifiable=True, rules={"contracts": [[2, 0]]})
    t.gone.add(1)  # dead before its pick_commit
    t.run_until(lambda: steps(t, "pick_commit") == {0, 2, 3}, play=False)
    t.gone.add(2)  # quits: the lobby says so, and the others vote at once
    vote_gone(t, 2, [0, 3])
    assert t.host.left == [] and t.host.stalled_by() == {1}
    t.host_says(wm.Timeout(seat=1, what="silent"))
    t.host_says(wm.Timeout(seat=2, what="silent"))  # idle: owes nothing, its link down
    assert t.host.left == []
    refused = refusals(t, 1, (0, 3))
    assert t.host.left and t.host.left[0][1] in (1, 2), refused


def test_the_voters_of_a_voided_pick_may_vote_again_in_the_pick_that_follows():
    t = Roster(4, verifiable=True, rules={"contracts": [[2, 0]]})
    t.run_until(lambda: steps(t, "pick_commit") == {0, 1, 2, 3}, play=False)
    t.gone.update({1, 3})  # both die after their commits
    t.run_until(lambda: steps(t, "pick_reveal") == {0, 2}, play=False)
    vote_gone(t, 3, [0, 2])
    t.host_says(wm.Timeout(seat=1, what="silent"))
    t.host_says(wm.Timeout(seat=3, what="silent"))  # silent: the votes against 3 carry
    assert t.host.left == [(0, 3)] and t.host.void_target == 0
    stand_ins(t, [3])  # the pick is held again once seat 3 is played: its stand-in waits for
    t.run_until(lambda: t.host.stalled_by() == {1}, play=False)  # seat 1's approval
    refused = refusals(t, 1, (0, 2))
    assert refused == [] and t.host.left == [(0, 3), (0, 1)], refused
