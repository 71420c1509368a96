"""What the reference seats vote on (docs/dealing.md, "What the reference clients vote on"),
over real sockets with our own `Host` and `Peer` classes: with sharing on, a player who quits
signs the seat's ``leave`` into the chain before its ``bye``, and the other seats vote it gone
at once, on that signed word (with sharing off, on the lobby's word, as in version 9).  With
sharing on they vote on nothing else the host says: a host that tells the table
(``lobby_state``) that a live seat left gets no vote, where without sharing the seats vote at
once on the same words.  Every bot's own clock is the reference bots' (three minutes), so no
vote here comes of a stall."""

from __future__ import annotations

import dataclasses
from contextlib import asynccontextmanager

import pytest
import trio

from shanghai_net.net.config import BOT_VOID_AFTER
from shanghai_net.net.transcript import read_transcript
from shanghai_net.wire.messages import Leave, VoidRound

from seating import until
from sharing_net import sharing_on, sharing_table

BOTS = {seat: {"void_after": BOT_VOID_AFTER} for seat in range(3)}


def bodies(record, kind):
    return [m for m in read_transcript(record)[1:] if isinstance(m.body, kind)]


@asynccontextmanager
async def in_round_one(tmp_path, monkeypatch, sharing, record):
    """Three bot seats (sharing on, ``t`` = 2, or off) once round 1 is under way: the host, the
    peers and how their runs ended."""
    if sharing:
        sharing_on(monkeypatch, 2)
    async with sharing_table(tmp_path, 3, record.stem.encode(), BOTS, frozen=None,
                             record=record) as (host, peers, ends, _):
        await until(lambda: host.public.round == 1 and host.public.settled,
                    "round 1 under way", seconds=60)
        yield host, peers, ends


@pytest.mark.parametrize("sharing", [True, False], ids=["sharing on", "sharing off"])
async def test_a_player_who_quits_signs_a_leave_and_the_seats_vote_at_once(
        tmp_path, monkeypatch, sharing):
    record = tmp_path / "leave.bin"
    with trio.fail_after(120):
        async with in_round_one(tmp_path, monkeypatch, sharing, record) as (host, peers, ends):
            public = host.public
            await peers[1].leave()
            await until(lambda: {0, 2} <= public.gone_votes.get((public.void_target, 1), set())
                        or 1 in public.vacant, "seats 0 and 2 voted seat 1 gone", seconds=30,
                        state=lambda: public.gone_votes)
            assert public.quit == ({1: 0} if sharing else {}) and public.fault is None
            await until(lambda: 1 in ends, "seat 1's run ended after its bye")
            assert peers[1].status == "over" and "left" in peers[1].detail
    votes = bodies(record, VoidRound)
    assert sorted((m.author, m.body.seat) for m in votes) == [(0, 1), (2, 1)]
    leaves = bodies(record, Leave)
    if sharing:
        assert [m.author for m in leaves] == [1] and all(m.seq > leaves[0].seq for m in votes)
    else:  # version 9's bytes: the seats vote on the lobby's word that the player quit
        assert leaves == []


def lying_that_left(host, seat):
    """The host says in every ``lobby_state`` from now that ``seat``, live, left."""
    lobby = host.lobby
    honest = lobby.lobby_state

    def lying():
        state = honest()
        return dataclasses.replace(state, seats=tuple(
            dataclasses.replace(s, connected=False, left=True) if s.seat == seat else s
            for s in state.seats))

    lobby.lobby_state = lying
    lobby.changed()


@pytest.mark.parametrize("sharing", [True, False], ids=["sharing on", "sharing off"])
async def test_a_host_that_says_a_live_seat_left_gets_no_vote_with_sharing_on(
        tmp_path, monkeypatch, sharing):
    """Sharing on, the seats that read the lie play on: the round is audited with no vote.
    Sharing off, they vote seat 2 gone at once (version 9's rule, kept)."""
    record = tmp_path / "lie.bin"
    with trio.fail_after(120):
        async with in_round_one(tmp_path, monkeypatch, sharing, record) as (host, peers, _):
            public = host.public
            lying_that_left(host, 2)
            await until(lambda: 2 in peers[0].left and 2 in peers[1].left,
                        "seats 0 and 1 read that seat 2 left")
            await until(lambda: public.audited >= 1 or public.void_votes, "the round audited, "
                        "or a vote", seconds=60)
            if not sharing:
                await until(lambda: 2 in public.vacant, "seat 2 voted gone", seconds=30)
    votes = sorted((m.author, m.body.seat) for m in bodies(record, VoidRound))
    if sharing:
        assert votes == []
    else:  # every seat that read it votes (seat 2 too, against itself)
        assert len(votes) >= 2 and {seat for _, seat in votes} == {2}, votes
    assert public.fault is None
