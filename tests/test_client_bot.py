"""The stand-alone client (clients/simple_bot.py, written from docs/protocol.md alone) plays a
whole game over real sockets with three shanghai_net bot peers: the acid test of the protocol
document.  The bot runs as a script in a subprocess, as a stranger's client would."""

from __future__ import annotations

import random
import signal
import sys
from pathlib import Path

import pytest
import trio

from shanghai_net.deal import seeded
from shanghai_net.engine import Phase
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import run_peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.wire.messages import Deal, Timeout

from seating import until

BOT = Path(__file__).resolve().parent.parent / "clients" / "simple_bot.py"
CLIENT_END = 60.0
"""Seconds the client may take, once the host is done, to read the game's end and exit: it
normally ends as soon as its process gets the CPU; the bound only catches one that never does."""


class _Started:
    """The client's process, handed over by `trio.run_process` once it runs (it takes this as
    its task status), so that a test can signal it."""

    def __init__(self) -> None:
        self.process: trio.Process | None = None

    def started(self, process: trio.Process) -> None:
        self.process = process


class PausingHost(Host):
    """Stops the client's process (SIGSTOP) as it sequences the client's last message, its seeds
    of the last round: the rest of the game, the bye and the close then wait together in the
    client's socket, as on a loaded machine where the client gets no CPU for a while."""

    def __init__(self, config: HostConfig, client: _Started, client_seat: int,
                 rounds: int) -> None:
        super().__init__(config)
        publish = self.sequencer._publish

        async def pausing(msg, origin=None) -> None:
            body = msg.body
            if msg.author == client_seat and isinstance(body, Deal) and body.step == "seeds" \
                    and body.data.get("round") == rounds:
                client.process.send_signal(signal.SIGSTOP)
            await publish(msg, origin)

        self.sequencer._publish = pausing


async def game_with_the_client(client_seat: int, seed: int, rules: dict, record: Path,
                               pause_at_end: bool = False):
    """Host a davis table of four; the client takes ``client_seat``, bot peers the others.
    The claim timeout is long: every seat answers, so a timeout means one did not.
    ``pause_at_end``: the client is stopped from its last message until the host has closed,
    and pinged every 0.2 s, so that pings it must answer wait for it with the game's end."""
    rnd = seeded(b"client test %d" % seed)
    config = HostConfig(players=4, preset="davis", claim_timeout=30.0, random=rnd, rules=rules,
                        record=record, **({"ping_interval": 0.2} if pause_at_end else {}))
    started = _Started()
    if pause_at_end:
        host = PausingHost(config, started, client_seat, len(rules["contracts"]))
    else:
        host = Host(config)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    tables, client = {}, {}
    closed, ended = trio.Event(), trio.Event()
    async with trio.open_nursery() as nursery:
        async def run_host(task_status=trio.TASK_STATUS_IGNORED) -> None:
            await host.run(listeners, task_status=task_status)
            closed.set()  # every connection closed, the listeners too

        port = await nursery.start(run_host)

        async def run_client() -> None:
            client["process"] = await trio.run_process(
                [sys.executable, str(BOT), f"127.0.0.1:{port}", "--name", "stranger"],
                capture_stderr=True, check=False, task_status=started)
            ended.set()

        async def peer(i: int) -> None:
            await run_peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                           BotPlayer("basic", random.Random(seed * 100 + i)), name=f"bot{i}",
                           random=seeded(b"peer %d %d" % (seed, i)), timeout=20,
                           on_table=lambda t: tables.__setitem__(t.seat, t))

        for seat in range(4):  # seats are given in the order the players arrive
            if seat == client_seat:
                nursery.start_soon(run_client)
            else:
                nursery.start_soon(peer, seat)
            name = "stranger" if seat == client_seat else f"bot{seat}"
            await until(lambda: host.seats[seat] is not None, f"the host seated {name}",
                        seconds=60)  # the client's process starts first
            assert host.seats[seat].name == name, f"the host gave seat {seat} to another"
        await host.done.wait()
        if pause_at_end:
            await closed.wait()
            started.process.send_signal(signal.SIGCONT)
        with trio.move_on_after(CLIENT_END):  # the client's own end of the game
            await ended.wait()
        if not ended.is_set():  # ended here, so that its log tells why it did not end
            started.process.kill()
            await ended.wait()
            raise AssertionError(f"the client did not end within {CLIENT_END:g} s of the "
                                 f"game's end; its log:\n{client['process'].stderr.decode()}")
        nursery.cancel_scope.cancel()
    return host, tables, client["process"]


@pytest.mark.parametrize("client_seat,seed", [(0, 1), (2, 2)])
async def test_the_client_bot_plays_a_whole_game(client_seat, seed, tmp_path):
    rules = {"contracts": [[2, 0], [1, 1], [0, 2]]}  # three rounds, to keep the test quick
    record = tmp_path / "game.transcript"
    with trio.fail_after(300):  # a whole game against a subprocess, on a loaded machine
        host, tables, process = await game_with_the_client(client_seat, seed, rules, record)
    public = host.public
    assert public.fault is None
    assert public.finished and public.public.phase is Phase.OVER
    for seat, table in tables.items():
        assert table.fault is None, (seat, table.fault)
        assert table.finished
        for round_no in range(1, 4):
            assert table.verdicts[round_no].clean, (seat, round_no, table.verdicts[round_no])
    result = public.public.result
    assert len(result.rounds) == 3 and len(result.totals) == 4
    errors = [e for e in host.seats[client_seat].errors_sent if e.code != "stale"]
    assert errors == []
    timeouts = [m for m in read_transcript(record)[1:] if isinstance(m.body, Timeout)]
    assert timeouts == [], "a seat left a claim window to the host's clock"
    log = process.stderr.decode()
    assert process.returncode == 0, log


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="pauses the client with SIGSTOP")
async def test_the_client_ends_cleanly_when_the_game_s_end_and_the_close_arrive_together(
        tmp_path):
    """The client gets no CPU from its last message until the host has sent the rest of the
    game and its bye and closed: it reads them and the end of the stream in one go, and takes
    that end as the game's (issue 28), not as a lost link to rejoin through.  Pings came
    meanwhile: the client's pongs (and its own bye) go into a connection the host has closed,
    the first draws a reset and the next ones fail, and still the client reads the game's end
    that was already in its socket."""
    rules = {"contracts": [[2, 0], [1, 1], [0, 2]]}
    with trio.fail_after(300):  # a whole game against a subprocess, on a loaded machine
        host, _, process = await game_with_the_client(1, 3, rules, tmp_path / "game.transcript",
                                                      pause_at_end=True)
    assert host.public.finished and host.public.fault is None
    log = process.stderr.decode()
    assert process.returncode == 0 and "game over, no errors" in log, log
