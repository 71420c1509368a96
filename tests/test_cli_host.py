"""``shanghai host --no-console`` as a person meets it: it says in its welcome only what it will
do (issue 39: a table of its own bots alone advertised a rematch, then closed at once)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import trio

from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer


def hosting(tmp_path, *options: str) -> tuple[subprocess.Popen, int]:
    """A ``shanghai host --no-console`` on 127.0.0.1 and the port it says it listens on."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    host = subprocess.Popen([sys.executable, "-m", "shanghai_net.cli", "host", "--no-console",
                             "--port", "0", "--bind", "127.0.0.1", "--no-announce",
                             "--no-record", *options],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = host.stdout.readline()  # its first line says where it listens (or it failed)
    found = re.search(r" on port (\d+)", line)
    assert found, line + host.stderr.read()
    return host, int(found.group(1))


def spectator_sees(port: int, sees):
    """The first thing ``sees(peer)`` returns that is not None, to a spectator of the host."""
    seen = []

    async def look() -> None:
        peer = Peer(("127.0.0.1", port), Identity(os.urandom(32), os.urandom(32)),
                    role="spectator", name="watcher", lobby_timeout=None)
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(peer.run)
                while not seen:
                    found = sees(peer)
                    seen.extend([] if found is None else [found])
                    await trio.sleep(0.01)
                nursery.cancel_scope.cancel()

    trio.run(look)
    return seen[0]


def welcome_table(port: int) -> dict:
    """What the host's welcome says of its table, to a spectator."""
    return spectator_sees(port, lambda peer: peer.welcome and peer.welcome.table)


def test_a_host_of_its_own_bots_alone_does_not_say_it_stays_for_a_rematch(tmp_path):
    for bots, stays in ((3, False), (2, True)):
        host, port = hosting(tmp_path, "--players", "3", "--bots", str(bots))
        try:
            table = welcome_table(port)
        finally:
            host.kill()
            host.communicate()
        assert table.get("rematch", False) is stays, (bots, table)


def test_ctrl_c_ends_watch_and_host_with_one_line(tmp_path):
    """Issue 41, item 1: Ctrl-C printed a ~50-line traceback ending in KeyboardInterrupt (the
    exception groups of trio's nurseries) in ``shanghai watch ADDR`` and ``shanghai host
    --no-console``; now one line and exit 130, mid-game."""
    import signal

    host, port = hosting(tmp_path, "--players", "3", "--bots", "3")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    watch = subprocess.Popen([sys.executable, "-m", "shanghai_net.cli", "watch", f"127.0.0.1:{port}"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while "watching davis" not in watch.stdout.readline():  # the game is on
            assert time.monotonic() < deadline and watch.poll() is None, watch.stderr.read()
        for command, process in (("watch", watch), ("host", host)):
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=30)
            assert process.returncode == 130, err
            assert err == f"shanghai {command}: stopped (Ctrl-C)\n", err
    finally:
        for process in (watch, host):
            if process.poll() is None:
                process.kill()
                process.communicate()
