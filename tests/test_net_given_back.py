"""A seat is given back once a game (protocol.md 11.8), over real sockets: seat 2's program is
killed in round 2, the host's stand-in plays round 3, the program starts again and takes its
seat back for round 4, and is killed again.  When it starts a third time the host signs no
second return: the player is refused (it may watch), the host's stand-in plays the seat to the
end, the seat pays for its two leaves, and the game finishes within rounds + 3 x seats deals."""

from __future__ import annotations

import math

import trio

import test_net_rejoin
from shanghai_net.cli.spectate import may_watch_instead
from shanghai_net.engine.events import RoundVoided
from shanghai_net.net.host import Host
from shanghai_net.net.peer import PeerError
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify

from seating import kept_in, until
from test_net_rejoin import identities, in_round, make_peer, table_of_three
from test_net_takeback import HELD, RULES, killer, options, release, stand_in_seated

KEY = identities(3)[2]
"""Seat 2's first holder's keys."""


async def given_back_then_gone_again(host, port, peers, nursery, gate, killed, tmp_path):
    """Seat 2 is killed in round 2 and voted gone; the stand-in plays round 3; the first
    holder starts again and takes its seat back for round 4, where it is killed again and
    voted gone (seat 0 votes by itself, seat 1 by hand)."""
    public, again, ends = host.public, trio.CancelScope(), {}
    await stand_in_seated(host, peers, killer(killed))
    back = make_peer(port, KEY, 2, tmp_path)

    async def run_back():
        with again:
            await kept_in(ends, 2, back)()

    nursery.start_soon(run_back)
    await until(lambda: back.seat == 2 and back.start is not None,
                "the first holder let back in to follow the game")
    await release(host, peers, gate, 2, KEY.sign_public)
    await until(lambda: in_round(host, HELD + 1) and public.holders[2].sign_key == KEY.sign_public,
                "the first holder playing its seat again in round 4", seconds=90)
    again.cancel()
    await until(lambda: public.void_votes.get(HELD + 1) == {0},
                "seat 0's vote that seat 2 left round 4", seconds=60)
    assert peers[1].vote_void(2)
    await until(lambda: [s for _, s in public.left] == [2, 2], "seat 2 voted gone again")


async def third_try(host, port, nursery, tmp_path):
    """The first holder starts a third time; what its run ended with, once the game is over."""
    ends = {}
    nursery.start_soon(kept_in(ends, 2, make_peer(port, KEY, 2, tmp_path)))
    await until(lambda: 2 in ends, "the first holder's third try answered", seconds=60)
    await until(lambda: host.public.finished, "the game over", seconds=120)
    return ends[2]


def assert_stand_in_played_it_to_the_end(host, results):
    """The host's stand-in plays seat 2 after its first holder; the seat paid for its two
    leaves; the game dealt its rounds and two more, as every seat agrees."""
    public = host.public
    assert public.fault is None and not public.vacant
    holder = public.holders[2]
    assert holder.kind == "bot" and holder.sign_key != KEY.sign_public, holder
    assert holder.before.sign_key == KEY.sign_public, "the stand-in followed the first holder"
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert paid == [2, 2], paid
    result = public.public.result
    deals = len(result.rounds) + len(public.left)
    assert deals == public.rules.rounds + 2 <= public.rules.rounds + 3 * 3
    for seat in (0, 1):
        table = results[seat].table
        assert table.fault is None and table.finished and table.game.result == result


def assert_told_why_and_how_to_watch(words):
    """What the person refused a third return is told (the console and ``shanghai join`` print
    it): why (a bot plays the seat, not a person who might hand it on), and that they may
    watch, with the command; ``shanghai join`` offers to watch at once."""
    assert words == ("the host refused: no free seat for you: seat 2, which you played, was "
                     "given back to a player once already this game, so the host's bot plays "
                     "it to the game's end; you may watch the game: shanghai watch HOST (add "
                     "--table NAME at a named table)"), words
    assert may_watch_instead(words)


async def test_a_player_who_leaves_again_after_taking_its_seat_back_is_not_given_it_again(
        tmp_path):
    record = tmp_path / "given-back.transcript"
    gate, killed = trio.Event(), trio.CancelScope()
    with trio.fail_after(240):
        async with table_of_three(tmp_path, b"gb1", RULES, options(gate), {2: killed},
                                  record=record) as (host, port, peers, results, nursery):
            await given_back_then_gone_again(host, port, peers, nursery, gate, killed, tmp_path)
            end = await third_try(host, port, nursery, tmp_path)
    assert isinstance(end, PeerError) and "refused: table_full" in str(end), end
    assert_told_why_and_how_to_watch(end.words)
    assert_stand_in_played_it_to_the_end(host, results)
    report = verify(read_transcript(record))
    assert report.ok, report.summary()
    assert report.left == tuple(host.public.left)
    assert report.totals == host.public.public.result.totals


class HoldsTheSecondVacancy(Host):
    """A host whose stand-in loop hears of seat 2's second vacancy only once the test says
    (``release``): until then the seat stays vacant, its first holder's key still its holder,
    as when a first holder's third try comes before the loop has proposed its stand-in.  It
    keeps every ``replace`` the lobby asks it to propose (``offered``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.offered: list = []
        self.release = trio.Event()

    async def _seat_stand_ins(self, nursery):
        heard = self.sequencer.vacancies
        told, self.sequencer.vacancies = trio.open_memory_channel(math.inf)

        async def relay():
            async for seat in heard:
                if len(self.public.left) >= 2:
                    await self.release.wait()
                told.send_nowait(seat)

        nursery.start_soon(relay)
        await super()._seat_stand_ins(nursery)

    async def _offer(self, client, hello, body):
        self.offered.append(body)
        await super()._offer(client, hello, body)


async def test_the_lobby_proposes_no_return_the_table_refuses_and_the_stand_in_takes_the_seat(
        tmp_path, monkeypatch):
    """The first holder's third try comes while its seat is vacant and no stand-in is proposed
    yet: the lobby refuses it at once, with the words a refused return gets, and proposes
    nothing (before, it proposed the return, the host's sequencer refused it, and the host
    had to hand the vacancy back to its stand-in loop); the host's stand-in then takes the
    seat, and the game finishes."""
    monkeypatch.setattr(test_net_rejoin, "Host", HoldsTheSecondVacancy)
    gate, killed, ends = trio.Event(), trio.CancelScope(), {}
    with trio.fail_after(240):
        async with table_of_three(tmp_path, b"gb2", RULES, options(gate), {2: killed}) as (
                host, port, peers, results, nursery):
            await given_back_then_gone_again(host, port, peers, nursery, gate, killed, tmp_path)
            assert host.public.vacant.keys() == {2} and not host.public.proposals
            nursery.start_soon(kept_in(ends, 2, make_peer(port, KEY, 2, tmp_path)))
            await until(lambda: 2 in ends or len(host.offered) > 1,
                        "the first holder's third try answered", seconds=60)
            host.release.set()
            await until(lambda: host.public.finished, "the game over", seconds=120)
    assert [body.sign_key for body in host.offered] == [KEY.sign_public], \
        "only the first return was proposed"
    assert isinstance(ends[2], PeerError) and "refused: table_full" in str(ends[2]), ends[2]
    assert_told_why_and_how_to_watch(ends[2].words)
    assert_stand_in_played_it_to_the_end(host, results)
