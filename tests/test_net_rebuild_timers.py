"""The host's clocks of R1 (docs/dealing.md, "When a seat is rebuilt"; "Version 10 messages")
over real sockets with our own `Host` and `Peer` classes, sharing on: a ``"shares"`` timeout of
the lowest holder whose ``share_reveal`` for a lost seat is not in after ``audit_timeout``, and
a ``"vote"`` timeout once the votes naming a seat reach protocol.md 11.5's bar but not ``t``
holders' votes.  The adversaries: a host that withholds a holder's ``share_reveal`` (its
timeout names that holder, and the round falls back to a void), and a host that times out
shares no rebuild waits for (every seat names it)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from types import SimpleNamespace

import pytest
import trio

from shanghai_net.engine.events import RoundVoided, SeatLost
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.fault import Fault
from shanghai_net.wire.messages import HOST_AUTHOR, Deal, Timeout, VoidRound

from seating import until
from sharing_net import FROZEN, frozen_seat_killed, sharing_on, sharing_table, votes_against
from test_net_complaints import assert_no_hidden_card_opened_to

AUDIT = 2.0
"""The table's ``audit_timeout``: the host's clock of shares and votes."""


def timeouts(record, what):
    return [m for m in read_transcript(record)[1:]
            if isinstance(m.body, Timeout) and m.body.what == what]


def share_reveals(record):
    return [m for m in read_transcript(record)[1:]
            if isinstance(m.body, Deal) and m.body.step == "share_reveal"]


def withholding(host, seat, dropped):
    """The host drops seat ``seat``'s ``share_reveal`` (kept in ``dropped``)."""
    sequence = host.sequencer._sequence

    async def dropping(client, msg):
        if msg.author == seat and isinstance(msg.body, Deal) and msg.body.step == "share_reveal":
            dropped.append(msg)
            return
        await sequence(client, msg)

    host.sequencer._sequence = dropping


@asynccontextmanager
async def lost_with_a_share_withheld(tmp_path, players, withheld, record):
    """Sharing on: seat ``FROZEN`` killed in round 1 and voted gone by seats 0, 1 and 3 (lost,
    the round going on), and the host dropping seat ``withheld``'s ``share_reveal``; yields
    the host, the peers and the messages it dropped."""
    dropped = []
    async with sharing_table(tmp_path, players, b"withheld %d" % players, audit_timeout=AUDIT,
                             record=record) as (host, peers, _, kill):
        withholding(host, withheld, dropped)
        await frozen_seat_killed(host, kill)
        await votes_against(peers, [0, 1, 3], FROZEN, host)
        assert host.public.lost == [(1, FROZEN)], "lost mid-round, the round going on"
        yield host, peers, dropped


async def test_a_share_reveal_the_host_withholds_is_timed_out_naming_its_holder_and_below_t_the_round_is_void(
        tmp_path, monkeypatch):
    """4 seats, t = 3: seat 2 is lost; holders 0, 1 and 3 owe their shares, and the host drops
    seat 1's.  After ``audit_timeout`` it times out seat 1's shares (not seat 0, the lowest
    seat, nor 3): two shares are left of the three needed, so the round is void there as
    without sharing, seat 2 paying; no card opened to a seat not entitled to it."""
    sharing_on(monkeypatch, 3)
    record = tmp_path / "withheld.bin"
    with trio.fail_after(150):
        async with lost_with_a_share_withheld(tmp_path, 4, 1, record) as (host, peers, dropped):
            public = host.public
            await until(lambda: public.left, "the round void once seat 1's shares are timed "
                        "out", seconds=30, state=lambda: (public.rebuilds, dropped))
            for seat in (0, 1, 3):
                await until(lambda: peers[seat].table.chain.head == public.chain.head,
                            f"seat {seat} took the stream")
            assert "kept them from the table" in peers[1].detail, peers[1].detail
            assert not [m for m in peers[1].outbox.flying if isinstance(m.body, Deal)
                        and m.body.step == "share_reveal"], "not sent again"
    assert [m.author for m in dropped] == [1]
    assert [(m.author, m.body.seat) for m in timeouts(record, "shares")] == [(HOST_AUTHOR, 1)]
    assert sorted(m.author for m in share_reveals(record)) == [0, 3]
    assert public.fault is None and public.left == [(1, FROZEN)] and public.lost == []
    penalty = public.rules.leave_penalty
    for party in (public, peers[0].table, peers[1].table, peers[3].table):
        assert party.fault is None
        voided = [e for e in party.public.log if isinstance(e, RoundVoided)]
        assert [(e.leaver, e.penalty) for e in voided] == [(FROZEN, penalty)]
    for seat in (0, 1, 3):
        assert_no_hidden_card_opened_to(host_and_seats(host, peers), seat)


async def test_a_holder_s_share_reveal_timed_out_leaves_t_shares_and_the_seat_is_rebuilt(
        tmp_path, monkeypatch):
    """5 seats, t = 3: seat 2 lost, holders 0, 1, 3 and 4 owe shares, the host drops seat 4's:
    three shares rebuild the seat and the round goes on; the host still times out seat 4's
    shares once the table waits, and nothing is void."""
    sharing_on(monkeypatch, 3)
    record = tmp_path / "rebuilt.bin"
    with trio.fail_after(180):
        async with lost_with_a_share_withheld(tmp_path, 5, 4, record) as (host, _, dropped):
            public = host.public
            await until(lambda: timeouts(record, "shares"), "seat 4's shares timed out",
                        seconds=30, state=lambda: (public.rebuilds, dropped))
            assert public.rebuilt_lost() == {FROZEN}
    assert [(m.author, m.body.seat) for m in timeouts(record, "shares")] == [(HOST_AUTHOR, 4)]
    assert sorted(m.author for m in share_reveals(record)) == [0, 1, 3], "each sent when owed"
    assert public.fault is None and public.left == [] and public.lost == [(1, FROZEN)]
    assert [e.seat for e in public.public.log if isinstance(e, SeatLost)] == [FROZEN]
    assert not any(isinstance(e, RoundVoided) for e in public.public.log)


async def test_votes_at_the_seat_majority_without_t_holders_are_timed_out_into_a_void(
        tmp_path, monkeypatch):
    """5 seats, t = 4: seats 0, 1 and 3 vote seat 2 gone (3 of 5: 11.5's bar, 3 holders of the
    4 needed) and seat 4 does not.  After ``audit_timeout`` and the clients' own wait
    (``holder_votes_wait``: none here) with no vote, the host times the vote out naming seat 2
    (timing it out as silent first if it owes the deal no step), and the round is void as
    without sharing; before the third vote there is no such timeout."""
    sharing_on(monkeypatch, 4)
    record = tmp_path / "vote.bin"
    with trio.fail_after(180):
        async with sharing_table(tmp_path, 5, b"vote timed out", audit_timeout=AUDIT,
                                 holder_votes_wait=0, record=record) as (host, peers, _, kill):
            public = host.public
            await frozen_seat_killed(host, kill)
            round_no = public.void_target
            await votes_against(peers, [0, 1, 3], FROZEN, host)
            assert public.lost == [] and FROZEN not in public.vacant, "the votes wait"
            await until(lambda: public.left, "the vote timed out", seconds=30,
                        state=lambda: (public.gone_votes, public.holder_votes))
    messages = read_transcript(record)[1:]
    votes = [m for m in messages if isinstance(m.body, VoidRound)]
    assert sorted((m.author, m.body.seat) for m in votes) == [(0, FROZEN), (1, FROZEN),
                                                              (3, FROZEN)]
    (timeout,) = timeouts(record, "vote")
    assert timeout.body.seat == FROZEN and timeout.seq > votes[-1].seq
    assert not timeouts(record, "shares")
    assert public.fault is None and public.left == [(round_no, FROZEN)] and public.lost == []
    voided = [e for e in public.public.log if isinstance(e, RoundVoided)]
    assert [e.leaver for e in voided] == [FROZEN]


async def test_a_shares_timeout_no_rebuild_waits_for_names_the_host_at_every_seat(
        tmp_path, monkeypatch):
    sharing_on(monkeypatch, 2)
    with trio.fail_after(120):
        async with sharing_table(tmp_path, 3, b"shares out of place") as (host, peers, ends,
                                                                           _):
            public = host.public
            await until(lambda: public.round == 1 and public.settled, "round 1 under way",
                        seconds=60)
            lying(host, Timeout(seat=1, what="shares"))
            await until(lambda: len(ends) == 3, "every seat stopped", seconds=30)
    for seat in range(3):
        fault = peers[seat].table.fault
        assert fault is not None and fault.culprit == HOST_AUTHOR, (seat, ends[seat])
        assert "the host timed out seat 1's shares" in fault.reason
        assert peers[seat].table.chain.head == public.chain.head


def lying(host, body):
    """The host signs ``body`` in its sequencer's turn and sends it, though its own table
    names it for it."""
    sequencer = host.sequencer
    timeout = sequencer._timeout

    async def signing(window):
        if window is not body:
            await timeout(window)
            return
        msg = host.public.chain.sign(host.identity.sign_key, HOST_AUTHOR, body)
        with pytest.raises(Fault):
            host.public.take_host(msg)
        await sequencer._publish(msg)

    sequencer._timeout = signing
    sequencer._inbox_send.send_nowait((None, body))


def host_and_seats(host, peers):
    """What `assert_no_hidden_card_opened_to` reads of a table: each seat's."""
    return SimpleNamespace(seats=[peers[s].table for s in sorted(peers)])
