"""A vote spent on a seat only slow does not stall the table (protocol.md 11.5), in process over
the real tables.  Each seat votes once a round; a seat that voted against a seat that was slow,
not gone, had no vote left for a seat really lost, and where every vote was needed the table
waited for good (a loaded run of tests/test_net_vacancies.py: seat 0's bots voted against seat 1
after 0.3 s, then seat 2 was lost).  A vote lapses when the seat it names sends a deal step, a
move or an approval after it: it counts toward no bar, and its voter may vote again.  The
table finishes, the lost seat charged once, the slow one nothing, every party alike,
clients/simple_bot.py's replica (written from the protocol alone) included."""

from __future__ import annotations

import pytest

from shanghai_net.table.disputes import ALIVE_BODIES, Disputes
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm

from test_table_roster import Roster, vote_gone
from test_table_silence import follow, simple_bot_follower
from test_table_vacancies import (THREE_CONTRACTS, assert_finished_alike, lose_at_deal, silent,
                                  stand_ins)

SLOW, LOST = 1, 2


def slow_and_lost_at_deal(t):
    """As the next round's deal begins, `LOST` is gone for good and `SLOW` holds what it owes
    (its outbox is not polled: a loaded machine); play on until the table waits for them
    alone.  What lets `SLOW` send again."""
    deal, deliver, box = t.host.round, t.deliver, t.boxes[SLOW]
    held = box.poll

    def deliver_then_lose(msg):
        msg = deliver(msg)
        if t.host.round > deal and LOST not in t.gone:
            t.gone.add(LOST)
            t.boxes[LOST].deal.clear()
            box.poll = lambda: None
        return msg

    t.deliver = deliver_then_lose
    t.run_until(lambda: t.host.round > deal and set(t.host.owed()) == {SLOW, LOST})
    t.deliver = deliver
    return lambda: setattr(box, "poll", held)


def vote_on_the_slow_seat_then_lose_the_other(t):
    """Seat 0 votes against `SLOW`, which then sends what it owed; the host times `LOST` out
    as silent and `SLOW` votes against it.  The round the votes name."""
    release = slow_and_lost_at_deal(t)
    round_no = t.host.void_target
    vote_gone(t, SLOW, [0])
    release()
    while t.step(play=False):
        pass
    assert set(t.host.owed()) == {LOST}, "the slow seat sent what it owed"
    silent(t, LOST)
    vote_gone(t, LOST, [SLOW])
    assert t.host.vacant == {}, "one vote of the two seats that can vote is not more than half"
    return round_no


def test_without_the_lapse_no_vote_can_carry_and_the_table_waits_for_good(monkeypatch):
    """The stall, with the rule taken out: both seats that can vote have spent their vote of
    the round (a second is refused, whomever it names), and the host has no seat left to time
    out; nothing can ever move the table."""
    monkeypatch.setattr(Disputes, "_lapse", lambda self, author, body: None, raising=False)
    t = Roster(3, preset="davis", seed=71, rules=THREE_CONTRACTS)
    round_no = vote_on_the_slow_seat_then_lose_the_other(t)
    assert t.host.void_votes[round_no] == {0, SLOW}
    for voter in (0, SLOW):
        for seat in range(3):
            vote = t.sign(voter, t.ids[voter].sign_key, wm.VoidRound(round=round_no, seat=seat))
            with pytest.raises(RemoteProtocolError, match="second vote"):
                t.host.admit(vote)
    assert t.host.stalled_by() == {LOST} and t.host.silenced.keys() == {LOST}, \
        "the one seat the table waits for is timed out already"
    assert not t.step(play=False) and t.host.left == []


def test_a_vote_against_a_seat_that_then_sends_what_it_owed_lapses_and_the_table_finishes():
    t = Roster(3, preset="davis", seed=71, rules=THREE_CONTRACTS)
    replica = simple_bot_follower(t.host.start_game)
    round_no = vote_on_the_slow_seat_then_lose_the_other(t)
    # seat 0's vote lapsed at the slow seat's commitment: it counts nowhere, and seat 0 votes
    assert t.host.void_votes[round_no] == {SLOW}
    assert t.host.gone_votes.get((round_no, SLOW), set()) == set()
    read = follow(replica, t.stream, 0)
    assert replica.voters[round_no] == {SLOW} and not replica.votes.get((round_no, SLOW))
    vote_gone(t, LOST, [0])
    assert t.host.left == [(round_no, LOST)] and t.host.vacant == {LOST: round_no}
    for table in t.seats:
        assert table.fault is None and table.vacant == t.host.vacant
    read = follow(replica, t.stream, read)
    assert replica.vacant == t.host.vacant and replica.scores == t.host.public.scores
    stand_ins(t, [LOST])
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {LOST: 1})  # the slow seat pays nothing
    follow(replica, t.stream, read)
    assert replica.finished and replica.scores == list(t.host.public.result.totals)


def test_a_seat_that_holds_the_table_up_cannot_make_the_votes_against_it_lapse_by_voting():
    """A vote (or a hand-over, a complaint, a protest) shows nothing the table waited for, and
    a seat sends it at will: if it made the votes against its author lapse, a seat holding
    the table up would vote, vote again once its target voted back (its vote lapsing), and
    dodge every vote against it for good.  The votes against it stand through its vote and
    carry; it pays."""
    t = Roster(3, preset="davis", seed=72, rules=THREE_CONTRACTS)
    lose_at_deal(t, [LOST])
    round_no = t.host.void_target
    vote_gone(t, LOST, [0])
    t.deliver(t.sign(LOST, t.ids[LOST].sign_key, wm.VoidRound(round=round_no, seat=0)))
    assert t.host.gone_votes[(round_no, LOST)] == {0}, "its own vote makes none lapse"
    vote_gone(t, LOST, [SLOW])
    assert t.host.left == [(round_no, LOST)] and t.host.vacant == {LOST: round_no}
    stand_ins(t, [LOST])
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {LOST: 1})
    assert not any(issubclass(kind, ALIVE_BODIES)
                   for kind in (wm.VoidRound, wm.HandOver, wm.Complaint, wm.Protest))
