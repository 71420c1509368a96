"""A seat silent at every audit cannot keep a game from finishing (protocol.md 11.6, issue 42),
in process: its first silence voids the round and charges it, and it keeps its place; its
second is the end of it: the seat is vacant as one voted gone, charged again (it had played on
in between), and the host's stand-in plays it to the game's end.  The host, every seat,
`shanghai verify` and clients/simple_bot.py's replica (written from the protocol alone) agree."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from shanghai_net.table.verify import verify
from shanghai_net.table.watch import HostWatch
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

from test_table_roster import Roster, newcomer

BOT = Path(__file__).resolve().parent.parent / "clients" / "simple_bot.py"


def simple_bot_follower(start):
    """clients/simple_bot.py's replica of the game, following it without a seat."""
    spec = importlib.util.spec_from_file_location("simple_bot", BOT)
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    return bot.Table(start.to_wire(), None, bytes(32), bytes(32), os.urandom, bytes(32))


def follow(replica, stream, since):
    """Bring ``replica`` the messages of ``stream`` from ``since``; where it stands now."""
    for msg in stream[since:]:
        replica.apply(msg.seq, msg.author, msg.to_wire()["body"])
    return len(stream)


class Muted(Roster):
    """`Roster` whose host drops every ``seeds`` message of the seats in ``muted`` (or the seat
    kept them: the table cannot tell), times them out and then sequences the seat's protest,
    with the seeds it signed (`HostWatch`)."""

    def __init__(self, *args, **kwargs):
        self.muted: set[int] = set()
        super().__init__(*args, **kwargs)

    def deliver(self, msg):
        if msg.author in self.muted and isinstance(msg.body, Deal) and msg.body.step == "seeds":
            return msg  # on its way for ever: the seat's outbox still holds it
        return super().deliver(msg)

    def silence_at_audit(self, seat):
        """Play to the next audit, until every seat's seeds but ``seat``'s are in; the host
        times ``seat``'s out, and the seat protests."""
        others = set(range(len(self.seats))) - {seat}
        self.run_until(lambda: self.host.waiting_audit and self.host.seeds_from == others)
        timeout = self.host_says(wm.Timeout(seat=seat, what="seeds"))
        protest = HostWatch(self.seats[seat], self.boxes[seat]).judge(timeout, None, 0.0)
        self.deliver(self.sign(seat, self.ids[seat].sign_key, protest))


def test_a_seat_silent_at_a_second_audit_is_vacated_and_the_game_finishes_within_its_bound():
    t = Muted(3, seed=3, rules={"contracts": [[2, 0], [1, 1]]}, verifiable=True)
    penalty = t.host.rules.leave_penalty
    silent = 1
    t.muted.add(silent)
    t.silence_at_audit(silent)
    # the first silence: charged, the round void and dealt again, the seat keeps its place
    assert t.host.left == [(1, silent)] and t.host.vacant == {}
    assert t.host.public.scores == [penalty * (s == silent) for s in range(3)]
    t.silence_at_audit(silent)
    # the second: vacant as a seat voted gone, charged once more (it played on in between)
    first, second = t.host.left
    assert first == (1, silent) and second[1] == silent
    assert t.host.silent == set(t.host.left) and t.host.vacant == {silent: second[0]}
    assert t.host.unpaid == set()
    assert t.host.public.scores == [2 * penalty * (s == silent) for s in range(3)]
    for table in t.seats:
        assert table.fault is None and table.verdict is None and table.vacant == t.host.vacant
    replica = simple_bot_follower(t.host.start_game)
    read = follow(replica, t.stream, 0)
    assert replica.vacant == t.host.vacant and replica.scores == t.host.public.scores
    while t.step(play=False):
        pass
    assert not t.host.owed(), "the next deal waits for someone to play the seat"
    t.muted.discard(silent)  # the host's stand-in sends its seeds
    stand_in = newcomer(7)
    t.follow(silent, stand_in, yields=True)
    t.propose(silent, stand_in)
    t.run_until(lambda: t.host.finished)
    result = t.host.public.result
    assert len(result.rounds) == t.host.rules.rounds
    assert result.totals[silent] == sum(r.points[silent] for r in result.rounds) + 2 * penalty
    # the bound: deals <= rounds + seats (one silence each that vacates nothing) + replacements
    deals = len(result.rounds) + len(t.host.left)
    assert deals == 4 <= t.host.rules.rounds + 3 + 1
    for table in t.seats:
        assert table.fault is None and table.finished and table.game.result == result
    follow(replica, t.stream, read)
    assert replica.finished and replica.scores == list(result.totals)
    assert replica.sign_keys[silent] == stand_in.sign_public
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()
    assert report.left == tuple(t.host.left) and report.silent == t.host.silent
    assert report.totals == result.totals and report.unpaid == frozenset()
    # the seat protested both timeouts with the seeds it signed, the second while vacant
    assert [(p.seat, p.claim.body.step) for p in report.protests] == [(silent, "seeds")] * 2
