"""Sharing on, a seat killed while the table waits on its MOVE (not on a deal step) over real
sockets: the host times it out as silent, and the other seats' bots vote it gone by
themselves (``void_after``) on that signed timeout, so it is lost and rebuilt with the round
going on (R1).  Before, a bot counted only a seat owing the deal a step as stalled, so with
sharing on (the lobby's word ignored) nobody voted and the table stalled for good: the
acceptance game `lost_seat_game` with ``--sharing default`` (docs/dealing.md, "What the
reference clients vote on").

The seat is killed at its discard (the play of its own turn), not whenever the table waits on
it alone: it does so too while the seat is the last to decide a claim on another seat's discard.
Killed there (the first version of this test froze its bot at any card it drew, a May I's
penalty card too, and caught it so), the host times its claim out, the draw that waited on it
goes through, and the seat owes the drawer its key shares: the bots rightly vote it gone on
that deal step, ``void_after`` after it and before any silent timeout (session 19: in every
run that failed under load, the record showed seat 2 owing "key shares for seat N" from the
host's claim timeout of it to the votes)."""

from __future__ import annotations

import random

import trio

from shanghai_net.engine import Phase
from shanghai_net.engine.events import RoundVoided, SeatLost
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.wire.messages import HOST_AUTHOR, Timeout, VoidRound

from seating import until
from sharing_net import FROZEN, sharing_on, sharing_table


def at_its_discard(table, seat: int) -> bool:
    """Round 1 waits on ``seat``'s play of its own turn (it has drawn): on its discard, on no
    claim of it, so that no draw waits on it and it can owe the deal nothing more."""
    game = table.public
    return table.round == 1 and game.phase is Phase.PLAY and game.turn == seat


class FrozenAtItsDiscard(BotPlayer):
    """A bot that, once it has drawn for its turn in round 1, makes no move more: the table
    waits on its discard, and on no deal step of it.  Not on any card it drew: a May I's
    penalty card is drawn too, and frozen then it held up the next claim window."""

    def __init__(self) -> None:
        super().__init__("basic", random.Random(FROZEN))

    def choose(self, table):
        return None if at_its_discard(table, table.seat) else super().choose(table)


async def test_a_seat_killed_at_its_move_is_voted_gone_by_the_bots_and_rebuilt(
        tmp_path, monkeypatch):
    """4 seats, t = 3, every bot voting by itself 1 s after a stall: seat 2 dies at its discard
    in round 1; the host's silent timeout of it is followed by the votes of seats 0, 1 and 3,
    which lose it with the round going on; nothing is void."""
    sharing_on(monkeypatch, 3)
    record = tmp_path / "lost-to-move.bin"
    options = {seat: {"void_after": 1.0} for seat in (0, 1, 3)}
    options[FROZEN] = {"player": FrozenAtItsDiscard()}
    with trio.fail_after(150):
        async with sharing_table(tmp_path, 4, b"killed at its move", options,
                                 audit_timeout=2.0, record=record) as (host, _, _, kill):
            public = host.public
            await until(lambda: at_its_discard(public, FROZEN) and not public.owed(),
                        "round 1 waiting on seat 2's discard alone", seconds=90,
                        state=lambda: (public.round, public.public.phase, public.moving(),
                                       public.owed()))
            kill[FROZEN].cancel()
            await until(lambda: public.rebuilt_lost() == {FROZEN},
                        "seat 2 voted gone by the bots and rebuilt", seconds=60,
                        state=lambda: (public.silenced, public.void_votes, public.lost))
    stream = read_transcript(record)[1:]
    silent = [m.seq for m in stream if m.author == HOST_AUTHOR and
              isinstance(m.body, Timeout) and m.body.what == "silent"]
    votes = [(m.author, m.seq) for m in stream if isinstance(m.body, VoidRound)]
    assert silent and sorted(a for a, _ in votes) == [0, 1, 3], (
        "the host's silent timeouts of seat 2 and the votes (author, seq)", silent, votes)
    assert all(seq > silent[0] for _, seq in votes), "each vote on the host's signed timeout"
    assert public.fault is None and public.left == [] and public.lost == [(1, FROZEN)]
    assert [e.seat for e in public.public.log if isinstance(e, SeatLost)] == [FROZEN]
    assert not any(isinstance(e, RoundVoided) for e in public.public.log)
