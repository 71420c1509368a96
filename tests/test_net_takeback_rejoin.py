"""A seat taken back, then its program killed and started again (soak seed 9: games 9-1, 9-5,
9-9 and 9-17, each a seat whose player took it back from the host's stand-in and was then
killed and came back): over real sockets, the program that starts again with its kept identity
and store rejoins the seat it took back and plays on to the game's end, the next round's deal
included; the table votes it gone no second time."""

from __future__ import annotations

import trio

from shanghai_net.net.peer import PeerError

from seating import kept_in, until
from test_net_rejoin import identities, in_round, make_peer, table_of_three
from test_net_takeback import HELD, killer, options, release, stand_in_seated

RULES = {"contracts": [[2, 0]] * 4}
"""Rounds 1, 2 (voided), 3 (the stand-in's), 4 (taken back; the program killed and started
again in it), 5 (the round the soak's seats never dealt)."""


async def test_a_seat_taken_back_then_killed_and_started_again_plays_the_next_round(tmp_path):
    killed, again_killed, gate = trio.CancelScope(), trio.CancelScope(), trio.Event()
    key = identities(3)[2]
    with trio.fail_after(240):
        async with table_of_three(tmp_path, b"tbr", RULES, options(gate), {2: killed}) as (
                host, port, peers, results, nursery):
            public = host.public
            await stand_in_seated(host, peers, killer(killed))
            back, ends = make_peer(port, key, 2, tmp_path), {}

            async def back_run():
                with again_killed:
                    await kept_in(ends, "back", back)()

            nursery.start_soon(back_run)
            await until(lambda: back.seat == 2 and back.start is not None,
                        "the first holder let back in to follow the game")
            await release(host, peers, gate, 2, key.sign_public)
            await until(lambda: in_round(host, HELD + 1) and back.table is not None and
                        back.table.seat == 2, "the first holder playing round 4", seconds=60)
            again_killed.cancel()  # its program dies again, in the round it took back
            again = make_peer(port, key, 2, tmp_path)
            nursery.start_soon(kept_in(ends, "again", again))
            await until(lambda: "again" in ends, "the program started again: its game over",
                        seconds=150, state=lambda: (
                            f"round {public.round}, left {public.left}, waiting for "
                            f"{public.waiting_for()}, votes {public.gone_votes}, its status "
                            f"{again.status}: {again.detail}"))
    assert not isinstance(ends["again"], PeerError), ends["again"]
    assert public.finished and public.fault is None
    assert public.left == [(2, 2)], "seat 2 was voted gone again once it came back"
    assert public.holders[2].sign_key == key.sign_public
