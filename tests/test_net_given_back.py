"""A seat is given back once a game (protocol.md 11.8), over real sockets: seat 2's program is
killed in round 2, the host's stand-in plays round 3, the program starts again and takes its
seat back for round 4, and is killed again.  When it starts a third time the host signs no
second return: the player is refused (it may watch), the host's stand-in plays the seat to the
end, the seat pays for its two leaves, and the game finishes within rounds + 3 x seats deals."""

from __future__ import annotations

import math

import trio
import trio.testing

import test_net_rejoin
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


async def test_a_player_who_leaves_again_after_taking_its_seat_back_is_not_given_it_again(
        tmp_path):
    record = tmp_path / "given-back.transcript"
    gate, killed = trio.Event(), trio.CancelScope()
    with trio.fail_after(240):
        async with table_of_three(tmp_path, b"gb1", RULES, options(gate), {2: killed},
                                  record=record) as (host, port, peers, results, nursery):
            await given_back_then_gone_again(host, port, peers, nursery, gate, killed, tmp_path)
            end = await third_try(host, port, nursery, tmp_path)
    assert isinstance(end, PeerError) and "refused" in str(end), end
    assert_stand_in_played_it_to_the_end(host, results)
    report = verify(read_transcript(record))
    assert report.ok, report.summary()
    assert report.left == tuple(host.public.left)
    assert report.totals == host.public.public.result.totals


class OfferFirst(Host):
    """A host whose stand-in loop hears of seat 2's second vacancy only once the first
    holder's offer of the seat is under way, and whose offer is signed (refused) only after the
    loop found the seat being offered and went on: the order in which nobody was proposed for
    the seat, and the table waited for good."""

    async def _seat_stand_ins(self, nursery):
        heard, self.offer_begun = self.sequencer.vacancies, trio.Event()
        told, self.sequencer.vacancies = trio.open_memory_channel(math.inf)

        async def relay():
            async for seat in heard:
                if len(self.public.left) >= 2:
                    await self.offer_begun.wait()
                told.send_nowait(seat)

        nursery.start_soon(relay)
        await super()._seat_stand_ins(nursery)

    async def _offer(self, client, hello, body):
        if len(self.public.left) >= 2:
            self.offer_begun.set()
            await trio.testing.wait_all_tasks_blocked()  # the loop has looked at the seat
            assert not any(p.body.seat == 2 for p in self.public.proposals.values())
        await super()._offer(client, hello, body)


async def test_a_return_refused_while_the_stand_in_waited_for_it_still_seats_the_stand_in(
        tmp_path, monkeypatch):
    """The host's stand-in loop leaves a vacant seat alone while its first holder's return is
    being offered; when the table's rule refuses that return (the seat was given back once),
    the host proposes its stand-in after all, and the game finishes."""
    monkeypatch.setattr(test_net_rejoin, "Host", OfferFirst)
    gate, killed = trio.Event(), trio.CancelScope()
    with trio.fail_after(240):
        async with table_of_three(tmp_path, b"gb2", RULES, options(gate), {2: killed}) as (
                host, port, peers, results, nursery):
            await given_back_then_gone_again(host, port, peers, nursery, gate, killed, tmp_path)
            await third_try(host, port, nursery, tmp_path)
    assert host.offer_begun.is_set()
    assert_stand_in_played_it_to_the_end(host, results)
