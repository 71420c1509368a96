"""The dropout-tolerant deal's R2 wired into the table, in process over our real classes
(docs/dealing.md, "R2, silent at its seeds"): at a table whose start_game sets
``share_threshold`` (no host offers it yet), a seat whose seeds the host times out is rebuilt
from the shares in the others' seeds, and every party (each seat, the host's public table,
``shanghai verify``) audits the round in full: nobody is charged and the round stands, or a deal
cheat of the silent seat is named."""

from __future__ import annotations

import dataclasses

import pytest

import test_net_table
from shanghai_net.deal.messages import PassOutput, SeedReveal, SharedCommitment, SharedSeedReveal
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.verify import verify
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

from test_deal_dropout_silent import marking
from test_table_roster import newcomer, vote_gone
from test_table_silence import Muted
from dropout_helpers import changing, dealing

def shared(players=4, t=3, table=Muted, **kwargs):
    """``table``, `Muted` (test_table_silence.py) or a subclass, at a table whose start_game
    sets ``share_threshold``."""
    plain = test_net_table.StartGame
    test_net_table.StartGame = lambda **fields: plain(**fields, share_threshold=t)
    try:
        return table(players, verifiable=True, rules={"contracts": [[2, 0], [1, 1]]}, **kwargs)
    finally:
        test_net_table.StartGame = plain


def seat_playing(participant_type):
    """A PeerTable whose deal is played by ``participant_type`` (a cheat of dropout_helpers.py)."""
    class Seat(PeerTable):
        def _participant(self, round_no):
            return participant_type(self.seat, self.roster, self.game_id, round_no, self._box_key,
                                    self._random, self.rules.shuffle_proof, self.share_threshold)
    return Seat


MARKING = seat_playing(changing(PassOutput, marking))


def silent_at_first_audit(t, *silent):
    """The seeds of the seats ``silent`` never reach the host, which times them out; every
    party then audits round 1."""
    t.muted.update(silent)
    others = set(range(len(t.seats))) - set(silent)
    t.run_until(lambda: t.host.waiting_audit and t.host.seeds_from == others)
    for seat in silent:
        t.host_says(wm.Timeout(seat=seat, what="seeds"))
    t.muted.difference_update(silent)


def parties(t):
    return [t.host, *t.seats]


def test_a_seat_silent_at_its_seeds_is_rebuilt_and_its_round_stands():
    t = shared()
    silent_at_first_audit(t, 2)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, party.fault
        assert party.left == [] and party.silent == set() and party.audited == 1
        assert party.public.scores == list(party.public.results[0].points)
    assert t.host.rounds_audited == 1  # the round replayed with every card known
    assert all(seat.verdicts[1].clean for seat in t.seats)
    rebuilt = t.seats[0].participant  # the next round's: the rebuild was round 1's
    assert rebuilt.round == 2
    t.run_until(lambda: t.host.finished)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()
    assert report.silent == frozenset() and report.left == () and report.rounds == 2


def test_a_planted_cheat_of_a_seat_silent_at_its_seeds_is_named_by_every_party_and_verify():
    t = shared(kinds={2: MARKING})
    silent_at_first_audit(t, 2)
    for party in parties(t):
        assert party.verdict is not None and party.verdict.culprit == 2, party.verdict
        assert "pass 1 output is not its key times the permuted input" in party.verdict.reason
        assert party.finished and party.left == []
    report = verify([t.host.start_game, *t.stream])
    assert report.fault.culprit == 2 and report.voided == 1 and report.left == ()
    assert "pass 1 output is not its key times the permuted input" in report.fault.reason


def test_below_t_shares_a_silent_seat_stays_absent_as_in_version_8():
    t = shared()
    silent_at_first_audit(t, 1, 2)
    for party in parties(t):
        assert party.fault is None and party.verdict is None
        assert {seat for _, seat in party.left} == {1, 2}  # both pay; the round is dealt again
        assert party.public.results == []


def assert_named(t, culprit, why):
    for party in parties(t):
        assert party.verdict is not None and party.verdict.culprit == culprit, party.verdict
        assert why in party.verdict.reason
    report = verify([t.host.start_game, *t.stream])
    assert report.fault.culprit == culprit and why in report.fault.reason


def wrong_share_of(dealer):
    def change(participant, reveal):
        return dataclasses.replace(reveal, shares=tuple(
            (d, (int.from_bytes(y, "little") + 1).to_bytes(32, "little") if d == dealer else y)
            for d, y in reveal.shares))
    return seat_playing(changing(SharedSeedReveal, change))


def test_a_wrong_share_in_seeds_names_its_author_when_it_rebuilds_a_silent_seat():
    t = shared(kinds={3: wrong_share_of(2)})
    silent_at_first_audit(t, 2)
    assert_named(t, 3, "published a share of seat 2's seed")


def test_seeds_without_the_shares_they_owe_are_refused_and_named_if_sequenced():
    keeping = seat_playing(changing(SharedSeedReveal,
                                    lambda self, r: SeedReveal(r.context, r.author, r.seed)))
    t = shared(kinds={1: keeping})
    t.muted.add(1)  # its seeds are held here, to be offered to the host by hand
    t.run_until(lambda: t.host.waiting_audit and t.host.seeds_from == {0, 2, 3})
    (seeds,) = [m for m in t.boxes[1].unplaced.values()
                if isinstance(m.body, Deal) and m.body.step == "seeds"]
    assert "shares" not in seeds.body.data
    with pytest.raises(RemoteProtocolError, match="bad_message.*seat 1's seeds of generation 0 "
                                                  r"refused: they carry shares of seats None"):
        t.host.admit(seeds)
    said = t.relay(seeds)  # a lying host sequences them anyway
    for seat in (0, 2, 3):
        assert said[seat].culprit == 1 and "seeds of generation 0 refused" in said[seat].reason
    report = verify([t.host.start_game, *t.stream])
    assert report.fault.culprit == 1 and "refused: they carry shares" in report.fault.reason


def test_a_dealer_that_sealed_a_bad_share_is_named_after_its_holder_complains_and_stops():
    t = shared(kinds={3: seat_playing(dealing(wrong_for=1))})
    t.run_until(lambda: t.host.finished)
    (complaint,) = [m for m in t.stream if isinstance(m.body, wm.Complaint)]
    assert complaint.author == 1
    assert complaint.body.share == (wm.ShareComplained(dealer=3, generation=0),)
    assert not [m for m in t.stream if m.author == 1 and isinstance(m.body, Deal)
                and m.body.step == "pass"], "the complainer sent a pass of the generation"
    (seeds,) = [m for m in t.stream if m.author == 1 and isinstance(m.body, Deal)
                and m.body.step == "seeds"]
    assert [(s["dealer"], s["share"] is None) for s in seeds.body.data["shares"]] == \
        [(0, False), (2, False), (3, True)]  # nil for the share complained of alone
    assert_named(t, 3, "seat 3's share for seat 1 is off its commitments")


@pytest.mark.parametrize("t, dealer", [(None, 3), (3, 1)])
def test_a_complaint_of_a_share_its_author_does_not_hold_is_refused(t, dealer):
    table = shared(t=t)  # sharing off: no one holds a share; on: no seat holds its own
    table.run_until(lambda: table.host.round == 1 and table.host._all_committed(0))
    body = wm.Complaint(round=1, reason="bad share",
                        share=(wm.ShareComplained(dealer=dealer, generation=0),))
    with pytest.raises(RemoteProtocolError, match=f"out_of_turn.*seat {dealer}'s seed share of "
                                                  "generation 0, which seat 1 does not hold"):
        table.host.admit(table.sign(1, table.ids[1].sign_key, body))
    said = table.relay(table.sign(1, table.ids[1].sign_key, body))  # a lying host relays it
    assert [fault.culprit for fault in said[:1] + said[2:]] == [1, 1, 1]


def test_a_commit_whose_sharing_is_not_the_table_s_shape_is_refused_and_named_if_sequenced():
    short = seat_playing(changing(SharedCommitment,
                                  lambda self, c: dataclasses.replace(c, feldman=c.feldman[:2])))
    t = shared(kinds={1: short})
    t.muted.add(1)
    commits = []
    t.deliver = lambda msg, deliver=t.deliver: commits.append(msg) if (
        msg.author == 1 and isinstance(msg.body, Deal) and msg.body.step == "commit") \
        else deliver(msg)
    t.run_until(lambda: commits)
    with pytest.raises(RemoteProtocolError, match="bad_message.*seat 1's commit of generation 0 "
                                                  "refused: 2 share commitments, not the "
                                                  "table's 3"):
        t.host.admit(commits[0])
    said = t.relay(commits[0])  # a lying host sequences it anyway
    assert [fault.culprit for fault in said[:1] + said[2:]] == [1, 1, 1]
    report = verify([t.host.start_game, *t.stream])
    assert report.fault.culprit == 1 and "2 share commitments" in report.fault.reason


def test_a_replacement_holds_no_share_and_is_rebuilt_when_it_is_silent_at_its_seeds():
    """Seat 4 is voted gone in round 1, rebuilt, and a newcomer takes it mid-round (R1): no
    holder (rule 4), it is dealt no share in round 2 and its seeds carry none; its own seed is
    dealt to the four holders, so when its seeds are timed out it is rebuilt and the round
    stands."""
    t = shared(players=5)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone.add(4)
    vote_gone(t, 4, [0, 1, 2])
    old, who = t.seats[4], newcomer(4)
    t.follow(4, who, yields=True)
    t.propose(4, who)
    t.run_until(lambda: t.seats[4] is not old, play=False)  # seated mid-round, round 1
    t.gone.discard(4)
    assert t.host.round == 1 and t.host.lost == [(1, 4)]
    t.run_until(lambda: t.host.round == 2 and t.host._all_committed(0))
    commits = {m.author: m.body.data for m in t.stream if isinstance(m.body, Deal)
               and m.body.step == "commit" and m.body.data["round"] == 2}
    assert {seat: [box["to"] for box in data["shares"]] for seat, data in commits.items()} == {
        0: [1, 2, 3], 1: [0, 2, 3], 2: [0, 1, 3], 3: [0, 1, 2], 4: [0, 1, 2, 3]}
    silent_at_first_audit(t, 4)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, party.fault
        assert party.lost == [(1, 4)] and party.left == [] and party.silent == set()
        assert party.audited == 2
    (seeds,) = [m for m in t.boxes[4].unplaced.values()
                if isinstance(m.body, Deal) and m.body.step == "seeds"]
    assert seeds.body.data["shares"] == []  # the replacement holds none
    t.run_until(lambda: t.host.finished)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()
