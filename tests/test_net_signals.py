"""A process the system ends is lost, not gone on purpose (issue 42, item 9): a seat's program
given SIGTERM, or whose window closed (SIGHUP), closes its connection without ``bye``, so the
host shows the seat lost (it may rejoin), never *left*.  Only ``q`` then ``y`` says bye.

Each test runs the seat as a real ``shanghai`` process on 127.0.0.1 (the console on a pty, or
``shanghai bot``) at a table our own `Host` runs, beside two of our bot peers, and reads the
host's own lobby state for the seat once the process has ended."""

from __future__ import annotations

import os
import pty
import signal
import sys

import pytest
import trio

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import BotPlayer

from seating import until

RULES = {"contracts": [[2, 0]] * 3}


def seat_shown(host: Host, seat: int):
    """The seat as the host's lobby state shows it to the table."""
    return next(s for s in host.lobby.lobby_state().seats if s.seat == seat)


class Screen:
    """What a process wrote on its pty, read as it comes (a full pty would stop the process)."""

    def __init__(self, master: int) -> None:
        self.stream = trio.lowlevel.FdStream(master)
        self.seen = b""

    async def read(self) -> None:
        try:
            while data := await self.stream.receive_some(65536):
                self.seen += data
        except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the other end closed


def signals_at_default() -> None:
    """In the child before it runs: the signals sent here at their default action, as a
    system's own would find them.  A test run started under ``nohup`` (or any parent ignoring
    SIGHUP) passed its ignoring on, and the console given SIGHUP never ended."""
    for signum in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


async def ended_by_the_system(tmp_path, command, signum, seat_ready=None):
    """Host a three-seat table, start ``command`` (the process sits at seat 0), seat two bots
    of ours; once the game has started, send the process ``signum``: the host's view of seat 0
    once the process has ended, and its exit status."""
    host = Host(HostConfig(players=3, rules=RULES, random=seeded(b"signals"), claim_timeout=2))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "TERM": "xterm",
           "XDG_DATA_HOME": str(tmp_path / "data")}
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            master, slave = pty.openpty()
            process = await trio.lowlevel.open_process(
                [sys.executable, "-m", "shanghai_net.cli", *[
                    part.format(port=port) for part in command]],
                stdin=slave, stdout=slave, stderr=slave, env=env, preexec_fn=signals_at_default)
            os.close(slave)
            screen = Screen(master)
            nursery.start_soon(screen.read)
            await until(lambda: host.lobby.seats[0] is not None, "the process seated",
                        seconds=60, state=lambda: screen.seen[-300:])
            if seat_ready is not None:
                await seat_ready(screen)
            rnd = seeded(b"signals bots")
            for i in (1, 2):
                nursery.start_soon(Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                                        BotPlayer("basic"), name=f"ours{i}", timeout=10,
                                        reconnect=False).run)
            await host.started.wait()
            await until(lambda: seat_shown(host, 0).connected, "seat 0 connected in the game")
            process.send_signal(signum)
            status = await process.wait()
            await until(lambda: not seat_shown(host, 0).connected,
                        "the host missed seat 0's connection", seconds=30)
            shown = seat_shown(host, 0)
            nursery.cancel_scope.cancel()
    await screen.stream.aclose()
    return shown, status


async def ready_in_the_lobby(screen: Screen) -> None:
    """The person presses ``r`` (ready) once the console shows the lobby."""
    await until(lambda: b"ready" in screen.seen, "the console's lobby", seconds=60,
                state=lambda: screen.seen[-300:])
    await screen.stream.send_all(b"r")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
async def test_a_console_ended_by_the_system_leaves_its_seat_lost_not_left(tmp_path, signum):
    """``shanghai join`` in the console: SIGTERM (the system ends it) or SIGHUP (its window
    closed).  The console said bye on SIGTERM, so the table showed the seat as left."""
    shown, status = await ended_by_the_system(
        tmp_path, ["join", "127.0.0.1:{port}", "--fresh-identity", "--name", "carl"], signum,
        ready_in_the_lobby)
    assert shown.name == "carl" and not shown.connected
    assert not shown.left, "the seat shows as left: its program said bye"
    assert status in (128 + signum, -signum)


async def test_a_bot_given_sigterm_leaves_its_seat_lost_not_left(tmp_path):
    shown, status = await ended_by_the_system(
        tmp_path, ["bot", "127.0.0.1:{port}", "--name", "dora"], signal.SIGTERM)
    assert shown.name == "dora" and not shown.connected
    assert not shown.left, "the seat shows as left: its program said bye"
    assert status == -signal.SIGTERM
