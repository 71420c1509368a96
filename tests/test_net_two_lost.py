"""Two seats of three lost at once (the chaos evening's game 8-11, session 17), over real sockets
with our own `Host` and `Peer` classes.  Seat 2 holds its move and seats 1 and 2 crash at the
same moment.  The host times seat 2 out as ``silent`` and seat 0 votes it gone, but the silent
bar is more than half of the seats that can vote (not vacant, not seat 2, not silent): seats 0
and 1, and seat 1, dead, owes the table nothing, so it is in no ``stalled_by`` and the host may
not time it out.  Nobody else could vote: the table waited for good (the soak's 330 s ran out).
Now the host times seat 1 out as idle once every seat the table waits on is silent (protocol.md
11.5), seat 0's vote carries alone, and the game ends."""

from __future__ import annotations

import trio

from seating import until
from test_net_rejoin import table_of_three
from test_net_takeback import HoldsRound

THREE_ROUNDS = {"contracts": [[2, 0]] * 3}
AUDIT = 2.0
"""The table's ``audit_timeout``: the host's silence clock."""


async def test_two_seats_of_three_lost_at_once_and_the_table_finishes(tmp_path):
    never = trio.Event()
    kill = {1: trio.CancelScope(), 2: trio.CancelScope()}
    options = {0: {"void_after": AUDIT}, 2: {"player": HoldsRound(never, 1, 2)}}
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"two lost", THREE_ROUNDS, options, kill,
                                  audit_timeout=AUDIT) as (host, _, _, _, _):
            public = host.public
            await until(lambda: public.round == 1 and public.moving() == {2},
                        "seat 2 to move in round 1", seconds=90,
                        state=lambda: (public.round, public.moving(), public.owed()))
            for scope in kill.values():  # both programs end at once
                scope.cancel()
            await until(lambda: public.silenced or public.left, "seat 2 timed out as silent",
                        seconds=10 * AUDIT + 20, state=lambda: public.stalled_by())
            await until(lambda: public.gone_votes, "seat 0's vote", seconds=10 * AUDIT + 20,
                        state=lambda: (public.silenced, public.stalled_by()))
            await until(lambda: public.left, "a lost seat voted gone", seconds=10 * AUDIT + 20,
                        state=lambda: (public.silenced, public.gone_votes, public.stalled_by()))
            await until(lambda: public.finished, "the game's end", seconds=90)
    assert public.fault is None and public.verdict is None
