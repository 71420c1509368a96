"""A seat lost at a table whose other seats are the host's own bots (the soak's game 5-16, issue
42), over real sockets with our own `Host` and `Peer` classes: the seats left vote only after
`BOT_VOID_AFTER` (180 s), as the host's bots and stand-ins do, and no person sits at the table
to vote first.  The host times the lost seat out as ``silent`` after ``audit_timeout``; from
then on waiting longer only holds the game up, so the bots vote at once, the round is void, the
stand-in plays on and the game ends: the lost seat charged once, the record verified."""

from __future__ import annotations

from contextlib import asynccontextmanager

import trio

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.engine.events import RoundVoided
from shanghai_net.net.config import BOT_VOID_AFTER
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.resume import StandInKeys
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Timeout, VoidRound

from seating import until
from test_net_absence import HeldStandIn
from test_net_rejoin import assert_finished, identities, start_peers, table_of_three
from test_net_takeback import HoldsRound

THREE_ROUNDS = {"contracts": [[2, 0]] * 3}
AUDIT = 2.0
"""The table's ``audit_timeout``: the host's silence clock."""


async def test_the_host_s_bots_vote_a_seat_timed_out_as_silent_gone_at_once(tmp_path):
    """Seat 2 holds its move in round 2 and its program is killed there (SIGKILL: no ``bye``);
    seats 0 and 1 would vote only 180 s later.  The host names seat 2 silent after
    `AUDIT`; both vote at once and carry (2 of 3), and the game ends within the test's bound.
    Before, the table sat for 180 s (the soak's 330 s bound ran out at two such leaves)."""
    record = tmp_path / "silent vote.bin"
    killed, never = trio.CancelScope(), trio.Event()
    options = {seat: {"void_after": BOT_VOID_AFTER} for seat in range(3)}
    options[2]["player"] = HoldsRound(never, 2, 2)
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"silent vote", THREE_ROUNDS, options, {2: killed},
                                  audit_timeout=AUDIT, record=record) as (host, _, _, ends, _):
            public = host.public
            await until(lambda: public.round == 2 and public.moving() == {2},
                        "seat 2 to move in round 2", seconds=90,
                        state=lambda: (public.round, public.moving(), public.owed()))
            killed.cancel()  # its program ends with its move unmade
            await until(lambda: public.left, "seat 2 voted gone", seconds=10 * AUDIT + 20,
                        state=lambda: (public.silenced, public.gone_votes, public.stalled_by()))
            assert public.left == [(2, 2)] and public.silenced == {}
            await until(lambda: public.finished, "the game's end", seconds=90)
    assert public.fault is None and public.verdict is None
    messages = read_transcript(record)[1:]
    timeouts = [m for m in messages if isinstance(m.body, Timeout) and m.body.what == "silent"]
    timeout = timeouts[0]  # (a stand-in slow to read the game may be timed out later)
    assert timeout.body.seat == 2
    votes = [m for m in messages if isinstance(m.body, VoidRound)]
    assert {m.author for m in votes} == {0, 1} and all(m.body.seat == 2 for m in votes)
    assert all(m.seq > timeout.seq for m in votes), "a vote before the silent timeout"
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert paid == [2], "seat 2 charged once, no other seat"
    result = public.public.result
    assert result.totals[2] == sum(r.points[2] for r in result.rounds) + \
        public.rules.leave_penalty
    for seat in (0, 1):
        table = ends[seat].table
        assert table.finished and table.fault is None and table.game.result == result
    report = verify(read_transcript(record))
    assert report.ok and report.totals == result.totals and report.left == ((2, 2),) and \
        not report.unpaid, report.summary()


@asynccontextmanager
async def host_killed_with_its_stand_in(tmp_path):
    """The soak's game 5-2: seat 2 is lost and voted gone (charged), the host's stand-in takes
    it at the next deal, and the host is killed before the stand-in signed anything (the
    stand-in dies with it).  Yields a function that resumes the host from its transcript
    (`Host`, after ``before()``) on the same port, the transcript, and the seats' results."""
    record = tmp_path / "resumed.bin"
    host_key = Identity(bytes(range(32)), bytes(range(32, 64)))
    config = dict(players=3, rules=THREE_ROUNDS, claim_timeout=1, audit_timeout=AUDIT,
                  identity=host_key, record=record)
    first = HeldStandIn(HostConfig(random=seeded(b"resumed"), **config))
    killed, never, crashed = trio.CancelScope(), trio.Event(), trio.CancelScope()
    options = {seat: {"void_after": BOT_VOID_AFTER} for seat in range(3)}
    options[2]["player"] = HoldsRound(never, 1, 2)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    peers, results = {}, {}
    async with trio.open_nursery() as nursery:
        async def doomed_host(task_status=trio.TASK_STATUS_IGNORED):
            with crashed:
                await first.run(listeners, task_status=task_status)

        port = await nursery.start(doomed_host)
        await start_peers(nursery, port, identities(3), tmp_path, peers, results, options,
                          {2: killed})
        public = first.public
        await until(lambda: public.moving() == {2}, "seat 2 to move", seconds=90)
        killed.cancel()
        await until(lambda: public.round == 2 and public.holders[2].kind == "bot",
                    "the stand-in seated for round 2", seconds=10 * AUDIT + 20)
        crashed.cancel()  # the host dies, and its stand-in with it
        for listener in listeners:
            await listener.aclose()

        async def resume():
            second = Host(HostConfig(resume=record, **config))
            again = await trio.open_tcp_listeners(port, host="127.0.0.1")
            await nursery.start(second.run, again)
            return second

        yield resume, record, results


async def test_a_stand_in_that_died_with_the_host_is_voted_gone_at_once_and_costs_nothing(
        tmp_path):
    """The stand-in that died with the host cannot be started again: its keys, kept beside the
    transcript (`net.resume.StandInKeys`), are readable by others now, so the resumed host
    does not use them (they may be known).  It times the stand-in out as silent: the bots vote at once though it is a newcomer (one whose link is down
    reads nothing), not after its grace and their 180 s, and the stand-in voted gone costs the
    seat nothing."""
    with trio.fail_after(150):
        async with host_killed_with_its_stand_in(tmp_path) as (resume, record, results):
            for keys in StandInKeys(record).directory.glob("*.keys"):
                keys.chmod(0o644)
            second = await resume()
            public = second.public
            await until(lambda: len(public.left) == 2, "the dead stand-in voted gone",
                        seconds=10 * AUDIT + 20, state=lambda: (
                            public.silenced, public.gone_votes, public.unheard))
    assert_finished(second, {s: results[s] for s in (0, 1)})
    assert public.left == [(1, 2), (2, 2)] and public.unpaid == {(2, 2)}
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert paid == [2], "seat 2 charged once, for its own leave"
    report = verify(read_transcript(record))
    assert report.ok and report.unpaid == {(2, 2)}, report.summary()
