"""How long the host waits for the share holders' votes that lose a seat mid-round (R1), sharing
on (docs/dealing.md, "When the host times the vote out"), over real sockets with our own `Host`
and `Peer` classes.  Soak 13-5 and 14-7: the reference bots vote ``void_after`` (180 s) after the
stall they read, and, against a seat to move, only after the host's ``silent`` timeout of it;
the host timed the vote out ``audit_timeout`` (90 s) after the vote that reached protocol.md
11.5's bar.  Wherever the ``t`` holders' votes needed a bot's and quicker voters (persons at
the console) had reached the bar, the seat was never lost and its round void: a played round R1
could have saved.  Here the seats that vote at once are the test's, as persons pressing V; the
bot's wait (``void_after``) and the host's (``holder_votes_wait``) are a few seconds, for
``BOT_VOID_AFTER``'s three minutes.  And soak 13-5 in process: a seat whose ``t`` holders' votes
can never come (a holder replaced earlier) has its vote timed out at once, not after 90 s."""

from __future__ import annotations

from types import SimpleNamespace

import trio

from shanghai_net.engine.events import RoundVoided, SeatLost
from shanghai_net.net.config import BOT_VOID_AFTER, HostConfig
from shanghai_net.net.sequencer import Sequencer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.wire.messages import VoidRound

from seating import until
from sharing_net import FROZEN, sharing_on, sharing_table, votes_against
from test_net_rebuild_timers import host_and_seats, share_reveals, timeouts
from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_lost_vote import after_some_draws
from test_table_dropout_silent import parties
from test_table_roster import newcomer, to_next_deal, vote_gone

AUDIT = 4.0
"""The table's ``audit_timeout``."""
BOT_WAIT = 2 * AUDIT
"""The bot holder's ``void_after``, and the host's ``holder_votes_wait``: longer than
``audit_timeout``, as ``BOT_VOID_AFTER`` is."""
BOT = 4


async def test_a_bot_holder_s_vote_after_its_wait_loses_the_seat_where_persons_reached_the_bar(
        tmp_path, monkeypatch):
    """5 seats, t = 4: seat 2 dies at its turn in round 1 (it owes the deal no step); seats 0,
    1 and 3 vote it gone at once (3 of 5: 11.5's bar, 3 holders' votes of the 4 needed); seat
    4 is a reference bot, which votes ``void_after`` after the host's ``silent`` timeout of
    seat 2 (the only thing that shows a seat to move stalled).  The host times seat 2 out as
    silent first, then waits ``audit_timeout`` and the bots' wait: seat 4's vote is the fourth
    holder's, seat 2 is lost and rebuilt, the round goes on, nothing is void.  Before, the host
    timed the vote out ``audit_timeout`` after the third vote, with no ``silent`` timeout, and
    the round was void."""
    sharing_on(monkeypatch, 4)
    record = tmp_path / "window.bin"
    with trio.fail_after(180):
        async with sharing_table(tmp_path, 5, b"vote window", {BOT: {"void_after": BOT_WAIT}},
                                 audit_timeout=AUDIT, holder_votes_wait=BOT_WAIT,
                                 record=record) as (host, peers, _, kill):
            public = host.public
            await until(lambda: public.round == 1 and public.public.turn == FROZEN and
                        public.moving() == {FROZEN} and not public.waiting_for(),
                        "round 1 waiting on the frozen seat's turn (no step owed)", seconds=90,
                        state=lambda: (public.public.turn, public.moving(), public.owed()))
            kill[FROZEN].cancel()
            round_no = public.void_target
            await votes_against(peers, [0, 1, 3], FROZEN, host)
            await until(lambda: public.lost or public.left, "seat 2 lost or its round void",
                        seconds=60, state=lambda: (public.gone_votes, public.silenced))
            assert public.left == [], "the round void: the vote timed out before the bot's"
            await until(lambda: public.rebuilt_lost() == {FROZEN}, "seat 2 rebuilt",
                        seconds=60, state=lambda: public.rebuilds)
            for seat in (0, 1, 3, BOT):
                await until(lambda: peers[seat].table.chain.head == public.chain.head,
                            f"seat {seat} took the stream")
    assert public.fault is None and public.left == [] and public.lost == [(round_no, FROZEN)]
    messages = read_transcript(record)[1:]
    votes = [m for m in messages if isinstance(m.body, VoidRound)]
    assert sorted((m.author, m.body.seat) for m in votes[:3]) == [(0, FROZEN), (1, FROZEN),
                                                                  (3, FROZEN)]
    (silent,) = timeouts(record, "silent")
    assert silent.body.seat == FROZEN
    (bot_vote,) = votes[3:]
    assert (bot_vote.author, bot_vote.body.seat) == (BOT, FROZEN)
    assert silent.seq < bot_vote.seq, "the bot voted on the host's silent timeout"
    assert not timeouts(record, "vote"), "the votes were not timed out"
    assert sorted(m.author for m in share_reveals(record)) == [0, 1, 3, BOT]
    penalty = public.rules.leave_penalty
    for party in (public, *(peers[s].table for s in (0, 1, 3, BOT))):
        assert party.fault is None
        assert [(e.seat, e.penalty) for e in party.public.log if isinstance(e, SeatLost)] == \
            [(FROZEN, penalty)], "seat 2 pays, once"
        assert not any(isinstance(e, RoundVoided) for e in party.public.log)
    for seat in (0, 1, 3, BOT):
        assert_no_hidden_card_opened_to(host_and_seats(host, peers), seat)


def test_soak_13_5_a_seat_lost_at_the_commits_without_t_other_holders_is_timed_out_at_once():
    """Soak 13-5 in process (our real tables; the host's timer by its own `_rebuild_due` and
    `_vote_wait`): 5 seats, t = 4; seat 2 lost mid-round 1 (R1) and a replacement seated (no
    holder: it counts toward 11.5's bar only); seat 3 dies as round 2's deal begins and seats
    0, 1 and 4 vote it gone: the bar, 3 holders' votes, and no fourth holder to give one.  The
    host's window is the vote's, and it waits no time (it waited ``audit_timeout``, 90 s)."""
    t = after_some_draws()
    vote_gone(t, 2, [0, 1, 3, 4])
    old, who = t.seats[2], newcomer(2)  # (`Roster.seat_newcomer`, the old seat kept mute)
    t.follow(2, who, yields=True)
    t.propose(2, who)
    t.run_until(lambda: t.seats[2] is not old, play=False)
    t.gone.discard(2)
    t.ids[2] = who
    to_next_deal(t)
    t.gone.add(3)
    round_no = t.host.round
    vote_gone(t, 3, [0, 1, 4])
    host = host_over(t.host, {0, 1, 2, 4})
    assert t.host.share_holders(4, ()) == (0, 1, 3, 4)
    assert 3 in t.host.waiting_for(), "seat 3 owes round 2's deal a step"
    assert Sequencer._rebuild_due(host) == ("vote", round_no, 3)
    assert Sequencer._vote_wait(host, 3) == 0.0
    t.time_out(3, "vote")
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party.left == [(round_no, 3)] and party.lost == [(1, 2)]


def host_over(public, linked):
    """The part of a host that `Sequencer._rebuild_due` and `_vote_wait` read: its table, its
    settings, and its connections, those of ``linked`` up."""
    return SimpleNamespace(public=public, config=HostConfig(), clients=[
        SimpleNamespace(seat=seat, connected=seat in linked) for seat in range(public.players)])


def test_the_votes_wait_the_bots_own_wait_only_while_the_holders_they_need_are_connected():
    """5 seats, t = 4: seat 2 gone in round 1 and voted gone by seats 0, 1 and 3.  With seat 4,
    the fourth holder, connected, the host waits ``audit_timeout`` and the bots' own wait
    (``BOT_VOID_AFTER``) for its vote; with its link down too (two seats lost at once), the
    vote can come only once it is back, and the host waits ``audit_timeout``, as before."""
    t = after_some_draws()
    vote_gone(t, 2, [0, 1, 3])
    audit = t.host.audit_timeout
    assert Sequencer._vote_wait(host_over(t.host, {0, 1, 3, 4}), 2) == audit + BOT_VOID_AFTER
    assert Sequencer._vote_wait(host_over(t.host, {0, 1, 3}), 2) == audit
    assert Sequencer._vote_wait(host_over(t.host, {3, 4}), 2) == audit + BOT_VOID_AFTER, \
        "the holders that voted count, connected or not"
