"""Votes that can never carry, or that carried already, leave their voters a vote (protocol.md
11.5; soak seed 10, game 10-7), in process over the real tables, every party alike,
clients/simple_bot.py's replica (written from the protocol alone) included.  Four seats,
sharing off, two lost at once in the first-dealer pick: each lost seat is voted out and pays
once.

- A vote lapses when the host times the seat it names out as silent while that seat owes
  nothing (idle-silent): such a vote could carry only by the table's majority, and the live
  seats, no majority, had spent their one vote of the round on it.
- A void spends every vote of its round: the pick started again after a void of round 0 is
  still round 0, and the votes that carried left their voters none there.
- The pick held again after a void of round 0 waits until every seat is played: a stand-in
  approved is seated at its start and takes part in it, as the round's next pick with fresh
  nonces (protocol.md 11.3); with sharing on too, where a seat voted gone in round 0 is not
  rebuilt.  Before, it started at once naming the vacant seat, whose replacement was seated
  only at round 1's deal, and the table waited for good (soak 10-7, the third way)."""

from __future__ import annotations

import pytest

from shanghai_net.engine.events import RoundVoided
from shanghai_net.table.verify import verify
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

from test_table_dropout_silent import shared
from test_table_handover import hand_over
from test_table_roster import Roster, newcomer, vote_gone
from test_table_silence import follow, simple_bot_follower
from test_table_vacancies import assert_finished_alike, silent, stand_ins

RULES = {"contracts": [[2, 0], [1, 1]]}


def steps(t, step) -> set[int]:
    return {m.author for m in t.stream if isinstance(m.body, Deal) and m.body.step == step}


def assert_votes_alike(t, replica) -> None:
    """The host, every seat and simple_bot's replica count the same standing votes and vacant
    seats."""
    follow(replica, t.stream, replica.read)
    replica.read = len(t.stream)
    for table in t.seats:
        assert table.fault is None
        assert table.gone_votes == t.host.gone_votes and table.vacant == t.host.vacant
    standing = {key: votes for key, votes in t.host.gone_votes.items() if votes}
    assert {key: votes for key, votes in replica.votes.items() if votes} == standing
    assert replica.vacant == t.host.vacant


def table_with_replica(seed):
    t = Roster(4, seed=seed, rules=RULES)
    replica = simple_bot_follower(t.host.start_game)
    replica.read = 0
    return t, replica


def assert_charged(t, replica, leavers) -> None:
    """Each of ``leavers`` left round 0 and paid once, at every party alike, the replica too
    (the last is vacant still: the pick held again waits for it)."""
    paid = [e.leaver for e in t.host.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert sorted(paid) == sorted(leavers) and t.host.vacant == {t.host.left[-1][1]: 0}
    assert [seat for _, seat in t.host.left] == paid
    for table in t.seats:
        assert table.fault is None and table.public.scores == t.host.public.scores
    assert replica.scores == t.host.public.scores


def test_votes_on_a_seat_timed_out_as_idle_lapse_and_its_voters_vote_out_the_staller():
    """Seat 1 dies before its ``pick_commit``; seat 2 quits after its own, and seats 0 and 3
    vote it gone at once (2 of 4: no majority).  The host times out seat 1 (owing its commit),
    then seat 2 (owing nothing: idle).  At that timeout the votes against seat 2 lapse, and
    seats 0 and 3, the two seats that can vote, vote seat 1 out: the pick is void.  The new
    pick waits for seat 1 to be played, its stand-in's approval on seat 2; the host times it
    out and the two vote it out in turn."""
    t, replica = table_with_replica(101)
    t.gone.add(1)
    t.run_until(lambda: steps(t, "pick_commit") == {0, 2, 3}, play=False)
    t.gone.add(2)
    vote_gone(t, 2, [0, 3])
    silent(t, 1)
    assert t.host.gone_votes[(0, 2)] == {0, 3}, "the table waits on a silent seat: they stand"
    silent(t, 2)  # idle: owes nothing, its link down
    assert t.host.idle_silenced == {2}
    assert not t.host.gone_votes.get((0, 2)) and not t.host.void_votes.get(0), \
        "the votes against the idle seat lapsed: they could carry by the majority alone"
    assert_votes_alike(t, replica)
    vote_gone(t, 1, [0, 3])
    assert t.host.left == [(0, 1)] and t.host.void_target == 0, "the pick is void, still round 0"
    assert_votes_alike(t, replica)
    stand_ins(t, [1])  # the new pick waits for seat 1 to be played, and its stand-in on seat 2
    t.run_until(lambda: t.host.stalled_by() == {2}, play=False)
    silent(t, 2)
    vote_gone(t, 2, [0, 3])
    assert t.host.left == [(0, 1), (0, 2)]
    assert_votes_alike(t, replica)
    assert_charged(t, replica, [1, 2])


def test_a_void_of_the_pick_spends_its_votes_and_the_new_pick_is_voted_on_afresh():
    """Seats 1 and 3 die after their ``pick_commit``; seats 0 and 2 vote seat 3 gone, and with
    both timed out as silent the votes carry: round 0 is void, and the pick is held again under
    the same round number once seat 3 is played.  The votes that carried are spent with it:
    seat 3's stand-in waits for the approval of seat 1, silent still, and seats 0 and 2 vote it
    out."""
    t, replica = table_with_replica(102)
    t.run_until(lambda: steps(t, "pick_commit") == {0, 1, 2, 3}, play=False)
    t.gone.update({1, 3})
    t.run_until(lambda: steps(t, "pick_reveal") == {0, 2}, play=False)
    vote_gone(t, 3, [0, 2])
    silent(t, 1)
    silent(t, 3)
    assert t.host.left == [(0, 3)] and t.host.void_target == 0
    assert not any(key[0] == 0 for key in t.host.gone_votes) and not t.host.void_votes.get(0), \
        "every vote of the voided pick is spent"
    assert_votes_alike(t, replica)
    stand_ins(t, [3])  # the new pick waits for seat 3 to be played, and its stand-in on seat 1
    t.run_until(lambda: t.host.stalled_by() == {1}, play=False)
    assert t.host.still_silent() == {1}
    vote_gone(t, 1, [0, 2])
    assert t.host.left == [(0, 3), (0, 1)]
    assert_votes_alike(t, replica)
    assert_charged(t, replica, [1, 3])


def table_of(sharing: bool, seed: int):
    """Four seats, sharing off, or on at ``t`` = 3: a seat voted gone in round 0 is not rebuilt
    there (the first-dealer pick draws its nonces, no seed gives them), its pick is void."""
    if sharing:
        return shared(table=Roster, seed=seed)
    return Roster(4, seed=seed, rules=RULES, verifiable=True)


def nonces(t) -> dict[tuple[int, int], bytes]:
    """(pick, seat) -> the nonce the seat revealed for that pick of round 0."""
    return {(m.body.data["pick"], m.author): m.body.data["nonce"] for m in t.stream
            if isinstance(m.body, Deal) and m.body.step == "pick_reveal"
            and m.body.data["round"] == 0}


def assert_played_to_the_end(t, leavers: list[int]) -> None:
    """Every party finishes the game alike, each of ``leavers`` charged once; `verify` reads
    the record to the same end."""
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, dict.fromkeys(leavers, 1))
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()
    assert report.left == tuple((0, seat) for seat in leavers)


SHARING = pytest.mark.parametrize("sharing", [False, True], ids=["sharing_off", "sharing_on"])


@SHARING
def test_a_seat_voted_gone_before_its_pick_commit_is_played_by_its_stand_in(sharing):
    """Seat 3 never commits; the others vote it gone (a majority): round 0 is void, and the
    pick is held again only once a stand-in plays seat 3, which takes part in it."""
    t = table_of(sharing, 104)
    t.gone.add(3)
    t.run_until(lambda: steps(t, "pick_commit") == {0, 1, 2}, play=False)
    vote_gone(t, 3, [0, 1, 2])
    assert t.host.left == [(0, 3)] and t.host.lost == []
    t.run_until(lambda: not t.step(False), play=False)
    assert t.host.owed() == {} and t.host.vacant == {3: 0}, "no pick begins while 3 is vacant"
    stand_ins(t, [3])
    assert_played_to_the_end(t, [3])
    assert {seat for pick, seat in nonces(t) if pick == 1} == {0, 1, 2, 3}


@SHARING
def test_a_seat_voted_gone_in_the_first_dealer_pick_is_played_by_its_stand_in(sharing):
    """Seat 3 commits, then goes; the others reveal and vote it gone.  The pick is held again
    as pick 1 once seat 3's stand-in is seated: every party draws a fresh nonce for it (the
    voided pick's were revealed, and a party drawing fresh against them could choose the first
    dealer).  Before, the pick started again at once naming the vacant seat, a replacement
    was seated only at a round's first shuffle, and nothing timed the vacant seat out: the
    table stalled for good (soak 10-7)."""
    t = table_of(sharing, 103)
    t.run_until(lambda: steps(t, "pick_commit") == {0, 1, 2, 3}, play=False)
    t.gone.add(3)
    t.run_until(lambda: steps(t, "pick_reveal") == {0, 1, 2}, play=False)
    vote_gone(t, 3, [0, 1, 2])
    assert t.host.left == [(0, 3)] and t.host.lost == []
    stand_ins(t, [3])
    assert_played_to_the_end(t, [3])
    revealed = nonces(t)
    assert all(revealed[(1, seat)] != revealed[(0, seat)] for seat in (0, 1, 2))


@SHARING
def test_a_seat_gone_after_its_pick_reveal_is_voted_out_while_the_pick_waits(sharing):
    """Seat 1 dies after its commit; seat 3 reveals, then quits (it owes nothing).  Seats 0
    and 2 vote seat 1 out (timed out as silent): round 0 is void.  Seat 1's stand-in waits for
    seat 3's approval, so the host times seat 3 out and the two vote it out too; each stand-in
    is seated, and the pick held again among all four."""
    t = table_of(sharing, 105)
    t.run_until(lambda: steps(t, "pick_commit") == {0, 1, 2, 3}, play=False)
    t.gone.add(1)
    t.run_until(lambda: steps(t, "pick_reveal") == {0, 2, 3}, play=False)
    t.gone.add(3)
    silent(t, 1)
    vote_gone(t, 1, [0, 2])
    assert t.host.left == [(0, 1)]
    stand_ins(t, [1])
    t.run_until(lambda: t.host.stalled_by() == {3}, play=False)  # its approval of the stand-in
    silent(t, 3)
    vote_gone(t, 3, [0, 2])
    assert t.host.left == [(0, 1), (0, 3)] and t.host.vacant == {3: 0}
    stand_ins(t, [3])
    assert_played_to_the_end(t, [1, 3])
    revealed = nonces(t)
    assert all(revealed[(1, seat)] != revealed[(0, seat)] for seat in (0, 2, 3))


def test_simple_bot_s_replica_seats_a_stand_in_before_the_pick_held_again():
    t, replica = table_with_replica(104)
    t.gone.add(3)
    t.run_until(lambda: steps(t, "pick_commit") == {0, 1, 2}, play=False)
    vote_gone(t, 3, [0, 1, 2])
    stand_ins(t, [3])
    t.run_until(lambda: steps(t, "commit"), play=False)  # round 1's deal has begun
    assert_votes_alike(t, replica)
    t.run_until(lambda: t.host.finished)
    follow(replica, t.stream, replica.read)
    assert replica.finished and replica.scores == t.host.public.scores


def test_a_seat_handed_over_in_the_pick_then_voted_gone_is_sealed_to_its_stand_in():
    """Seat 3 hands itself over after its commitment, and its successor never plays; the seat
    is voted gone and its stand-in seated as the pick is held again.  The stand-in's box key is
    the seat's from round 1's deal: the hand-over still waiting is dropped with the seating
    (else round 1 sealed the seat's key shares to the successor's box key, which the stand-in
    cannot open)."""
    t = table_of(False, 106)
    t.run_until(lambda: steps(t, "pick_commit") == {0, 1, 2, 3}, play=False)
    t.gone.add(3)
    t.deliver(hand_over(t, 3, newcomer(106)))
    t.run_until(lambda: steps(t, "pick_reveal") == {0, 1, 2}, play=False)
    vote_gone(t, 3, [0, 1, 2])
    stand_ins(t, [3])
    t.run_until(lambda: t.host.round == 1)
    stand_in = [m.body for m in t.stream if isinstance(m.body, wm.Replace)][-1]
    for table in [t.host, *t.seats]:
        assert table.handovers == {} and table.holders[3].box_key == stand_in.box_key
    assert_played_to_the_end(t, [3])
