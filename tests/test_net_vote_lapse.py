"""A vote spent on a seat only slow does not stall the table (protocol.md 11.5), over real
sockets with our own `Host` and `Peer` classes: the stall of a loaded run of
tests/test_net_vacancies.py, made deterministic.  Seat 1 is slow to move in round 2 (its
player waits until it sees a vote against it); seat 0 votes it gone (as a person at the
console may); seat 2's program is killed.  Seat 1 then moves, and seat 0's vote lapses: when
the host times seat 2 out as silent, both seats left vote it gone at once and the game ends,
seat 2 charged once, seat 1 nothing.  Before, seat 0's vote of the round was spent: seat 1's
vote alone carried nothing (1 of 3, 1 of the 2 that can vote) and the table waited for good."""

from __future__ import annotations

import random

import trio

from shanghai_net.engine.events import RoundVoided
from shanghai_net.net.config import BOT_VOID_AFTER
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.bodies import MOVE_BODIES
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Timeout, VoidRound

from seating import until
from test_net_rejoin import assert_finished, table_of_three

THREE_ROUNDS = {"contracts": [[2, 0]] * 3}
AUDIT = 2.0
"""The table's ``audit_timeout``: the host's silence clock."""
SLOW, LOST = 1, 2


class SlowUntilVotedGone(BotPlayer):
    """A bot that makes no decision in round ``held`` until it has seen a vote that its seat
    left: slow, not gone (a loaded machine, a person thinking)."""

    def __init__(self, held: int, seed: int) -> None:
        super().__init__("basic", random.Random(seed))
        self.held, self.voted_against = held, False

    def choose(self, table):
        if table.round == self.held and not self.voted_against:
            self.voted_against = bool(table.gone_votes.get((table.void_target, table.seat)))
            if not self.voted_against:
                return None
        return super().choose(table)


async def test_a_vote_against_a_slow_seat_lapses_when_it_moves_and_a_lost_seat_is_voted_gone(
        tmp_path):
    record = tmp_path / "lapse.bin"
    killed = trio.CancelScope()
    options = {seat: {"void_after": BOT_VOID_AFTER} for seat in range(3)}
    options[SLOW]["player"] = SlowUntilVotedGone(2, SLOW)
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"vote lapse", THREE_ROUNDS, options, {LOST: killed},
                                  audit_timeout=AUDIT, record=record) as (host, _, peers, ends,
                                                                          _):
            public = host.public
            await until(lambda: public.round == 2 and public.moving() == {SLOW},
                        "seat 1 to move in round 2", seconds=90,
                        state=lambda: (public.round, public.moving(), public.owed()))
            killed.cancel()  # seat 2's program ends (no bye)
            assert peers[0].vote_void(SLOW)
            await until(lambda: public.left, "seat 2 voted gone", seconds=10 * AUDIT + 30,
                        state=lambda: (public.silenced, public.gone_votes, public.void_votes,
                                       public.stalled_by()))
            assert public.left == [(2, LOST)]
            await until(lambda: public.finished, "the game's end", seconds=90)
    assert_finished(host, {s: ends[s] for s in (0, SLOW)})
    messages = read_transcript(record)[1:]
    votes = [m for m in messages if isinstance(m.body, VoidRound)]
    assert [(m.author, m.body.seat) for m in votes][:1] == [(0, SLOW)]
    first = votes[0]
    moved = next(m for m in messages if m.seq > first.seq and m.author == SLOW)
    assert isinstance(moved.body, MOVE_BODIES), "the slow seat's next message is its move"
    timeout = next(m for m in messages if isinstance(m.body, Timeout) and m.body.what == "silent")
    assert timeout.body.seat == LOST and moved.seq < timeout.seq
    again = [(m.author, m.body.seat) for m in votes if m.seq > timeout.seq]
    assert sorted(again) == [(0, LOST), (SLOW, LOST)], "seat 0 voted again once its vote lapsed"
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert paid == [LOST], "the lost seat charged once, the slow seat nothing"
    report = verify(read_transcript(record))
    assert report.ok and report.left == ((2, LOST),), report.summary()
