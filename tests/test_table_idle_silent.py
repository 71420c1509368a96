"""Two seats of three lost at once, one of which holds nothing up (protocol.md 11.5, v10), in
process over the real tables.  The seat to move is timed out as silent; the other owes nothing,
so it was never timed out and still counted as a voter: the one seat left was no more than half
of the seats that could vote against the silent one, and the table waited for good.  Once every
seat the table waits on is silent, the host may time out a seat whose link is down that owes
nothing: it votes no more while that lasts, so the seat left votes the silent seat gone, and
then the other in its turn.  A host that uses that timeout against a live seat gains no vote
against it: the bar against a seat timed out so is the table's majority, and the timeout ends
with the round.  Every party agrees, clients/simple_bot.py's replica (written from the
protocol alone) included."""

from __future__ import annotations

import pytest

from shanghai_net.engine import Phase
from shanghai_net.table.fault import Fault
from shanghai_net.table.watch import HostWatch
from shanghai_net.wire import messages as wm

from test_table_roster import Roster, vote_gone
from test_table_silence import follow, simple_bot_follower
from test_table_vacancies import THREE_CONTRACTS, assert_finished_alike, silent, stand_ins


def lost_at_a_turn(seed):
    """Three seats, the deal settled and a turn begun: (the table, the seat left, the seat to
    move, the other seat) with the last two lost at once (their links down: they send
    nothing); the table waits on the seat to move alone."""
    t = Roster(3, seed=seed, rules=THREE_CONTRACTS)
    t.run_until(lambda: t.host.settled and t.host.public.phase is Phase.DRAW and
                len(t.host.stalled_by()) == 1 and t.host.open_window() is None)
    mover, = t.host.stalled_by()
    live, idle = [s for s in range(3) if s != mover]
    t.gone.update({mover, idle})
    while t.step(play=False):  # what the live seat had on its way
        pass
    assert t.host.stalled_by() == {mover}
    return t, live, mover, idle


def test_the_seat_left_votes_out_a_silent_seat_once_the_other_lost_seat_is_timed_out_idle():
    t, live, mover, idle = lost_at_a_turn(70)
    replica = simple_bot_follower(t.host.start_game)
    silent(t, mover)
    before = t.host.void_target
    vote_gone(t, mover, [live])
    assert t.host.vacant == {}, "one of the two seats that can vote is not more than half"
    silent(t, idle)  # every seat the table waits on is silent: the host may time the other out
    assert t.host.vacant == {mover: before} and t.host.left == [(before, mover)]
    read = follow(replica, t.stream, 0)
    assert replica.vacant == t.host.vacant and replica.scores == t.host.public.scores
    assert t.host.silenced == {}, "the idle seat's timeout spoke of the voided deal"
    # the stand-in's approval waits for the other lost seat: timed out, it is voted gone
    stand_ins(t, [mover])
    while t.step(play=False):
        pass
    assert t.host.waiting_for() == {idle} and t.host.still_silent() == set()
    vote_gone(t, idle, [live])
    assert idle not in t.host.vacant, "not silent since this deal: the bar is the table's"
    silent(t, idle)
    assert t.host.vacant == {idle: before + 1}
    stand_ins(t, [idle])
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {mover: 1, idle: 1})
    deals = len(t.host.public.result.rounds) + len(t.host.left)
    assert deals == t.host.rules.rounds + 2 <= t.host.rules.rounds + 3 + 2
    follow(replica, t.stream, read)
    assert replica.finished and replica.scores == t.host.public.scores


def test_a_host_that_times_out_a_live_seat_idle_gains_no_vote_against_it():
    """The host times out seat ``idle`` as silent though its link is up (the table cannot
    tell): a vote against it still needs the table's majority (it is no silent seat the
    table waits on), it pays nothing, and the host cannot time it out again."""
    t, live, mover, idle = lost_at_a_turn(71)
    t.gone.discard(idle)
    silent(t, mover)
    silent(t, idle)
    vote_gone(t, idle, [live])
    assert t.host.vacant == {} and t.host.left == []
    assert t.host.still_silent() == {mover} and t.host.voters(mover) == {live}
    with pytest.raises(Fault, match="timed out already"):
        t.host_says(wm.Timeout(seat=idle, what="silent"))


def test_a_vote_against_a_seat_timed_out_idle_needs_the_table_s_majority_at_the_next_deal():
    t, live, mover, idle = lost_at_a_turn(74)
    t.gone.discard(idle)
    silent(t, mover)
    silent(t, idle)
    vote_gone(t, mover, [live])
    assert mover in t.host.vacant
    stand_ins(t, [mover])  # the approval the next deal waits for: the idle seat's first
    vote_gone(t, idle, [live])  # sequenced before its approval
    assert idle not in t.host.vacant and t.host.still_silent() == set()
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {mover: 1})


def test_an_idle_timeout_while_the_table_waits_on_a_seat_not_silent_names_the_host():
    """The table waits on the seat to move, not timed out: a ``silent`` timeout of a seat that
    owes nothing names the host at every party, as before version 10."""
    t, live, mover, idle = lost_at_a_turn(73)
    said = t.relay(t.host.chain.sign(t.host_id.sign_key, wm.HOST_AUTHOR,
                                     wm.Timeout(seat=idle, what="silent")))
    assert all(f is not None and f.culprit == wm.HOST_AUTHOR and "not silent" in f.reason
               for f in said)


def test_a_live_seat_timed_out_idle_protests_and_votes_again():
    """The host says seat ``idle``'s link is down and times it out while it owes nothing; the
    seat, here after all, protests (`HostWatch`): its message ends the timeout, and the seat
    left alone can no longer vote the silent seat gone: ``idle``'s vote counts again."""
    t, live, mover, idle = lost_at_a_turn(75)
    t.gone.discard(idle)
    silent(t, mover)
    timeout = silent(t, idle)
    protest = HostWatch(t.seats[idle], t.boxes[idle]).judge(timeout, None, 0.0)
    assert protest is not None and protest.claim is None and protest.seq == timeout.seq
    t.deliver(t.sign(idle, t.ids[idle].sign_key, protest))
    assert t.host.silenced.keys() == {mover} and t.host.voters(mover) == {live, idle}
    vote_gone(t, mover, [live])
    assert t.host.vacant == {}, "one of two seats that can vote"
    vote_gone(t, mover, [idle])
    assert mover in t.host.vacant
    assert HostWatch(t.seats[live], t.boxes[live]).judge(timeout, None, 0.0) is None
