"""Two seats of three lost at once, one of which holds nothing up (protocol.md 11.5, v10), over
real sockets with our own `Host` and `Peer` classes: seat 2 holds its move in round 2, and the
programs of seats 1 and 2 are killed together (no ``bye``).  The host times seat 2 out as
silent; seat 1 owes nothing, so before version 10 it was never timed out, still counted as a
voter, and seat 0's vote was one of two: the table waited for good.  Now, every seat the table
waits on being silent, the host times seat 1 out too (its link is down); seat 0's vote
carries, the stand-in's approval then waits for seat 1, which is timed out and voted gone in
turn, and the game ends with each lost seat charged once and the record verified."""

from __future__ import annotations

import trio

from shanghai_net.engine.events import RoundVoided
from shanghai_net.net.config import BOT_VOID_AFTER
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Timeout, VoidRound

from seating import until
from test_net_rejoin import table_of_three
from test_net_takeback import HoldsRound

THREE_ROUNDS = {"contracts": [[2, 0]] * 3}
AUDIT = 2.0
"""The table's ``audit_timeout``: the host's silence clock."""


async def test_two_seats_lost_at_once_one_owing_nothing_are_voted_gone_in_turn(tmp_path):
    record = tmp_path / "idle silent.bin"
    kills, never = {1: trio.CancelScope(), 2: trio.CancelScope()}, trio.Event()
    options = {seat: {"void_after": BOT_VOID_AFTER} for seat in range(3)}
    options[2]["player"] = HoldsRound(never, 2, 2)
    with trio.fail_after(200):
        async with table_of_three(tmp_path, b"idle silent", THREE_ROUNDS, options, kills,
                                  audit_timeout=AUDIT, record=record) as (host, _, _, ends, _):
            public = host.public
            await until(lambda: public.round == 2 and public.settled and
                        public.open_window() is None and public.stalled_by() == {2},
                        "seat 2 to move in round 2, owing the table nothing else", seconds=90,
                        state=lambda: (public.round, public.stalled_by(), public.owed()))
            for scope in kills.values():  # both programs end at once
                scope.cancel()
            await until(lambda: len(public.left) == 2, "seats 2 and 1 voted gone",
                        seconds=20 * AUDIT + 30,
                        state=lambda: (public.silenced, public.idle_silenced,
                                       public.gone_votes, public.stalled_by()))
            assert [s for _, s in public.left] == [2, 1], [
                (m.seq, m.author, m.body) for m in host.history.messages[-30:]
                if isinstance(m.body, (Timeout, VoidRound))]
            await until(lambda: public.finished, "the game's end", seconds=90)
    assert public.fault is None and public.verdict is None
    messages = read_transcript(record)[1:]
    silent = [m.body.seat for m in messages if isinstance(m.body, Timeout) and
              m.body.what == "silent"]
    assert silent[:3] == [2, 1, 1], "seat 2, seat 1 owing nothing, seat 1 owing its approval"
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert sorted(paid) == [1, 2], "each lost seat charged once, no other seat"
    table = ends[0].table
    assert table.finished and table.fault is None and table.game.result == public.public.result
    report = verify(read_transcript(record))
    assert report.ok and report.totals == public.public.result.totals, report.summary()
