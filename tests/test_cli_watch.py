"""`shanghai watch HOST`: a spectator's view of a table on the LAN, and the offer of it to a
player the game started without (issue 24: "the game has started without you", and no more)."""

from __future__ import annotations

import os
import random

import trio

from shanghai_net import cli
from shanghai_net.cli import main
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import run_peer
from shanghai_net.net.player import BotPlayer


def test_a_player_the_game_started_without_is_offered_to_watch_it_and_watch_follows_it(
        capsys, monkeypatch):
    """A watcher waits in the lobby, three bots sit down and play a one-round game; a
    --fresh-identity player who joins once it has started is refused, and told the command
    that watches it (it said only "the game at this table has started without you"); the
    watcher shows every move anyone may see, the audit and the result, and exits 0."""
    monkeypatch.setattr(cli, "run_console", lambda session, ascii, **kw: trio.run(session.run) or 0)
    codes, asked = {}, []

    async def table():
        host = Host(HostConfig(players=3, preset="davis", rules={"contracts": [[2, 0]]},
                               claim_timeout=0.3))
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                port = await nursery.start(host.run, listeners)

                async def command(name, *argv):
                    where = f"127.0.0.1:{port}"
                    codes[name] = await trio.to_thread.run_sync(main, [name, where, *argv])

                nursery.start_soon(command, "watch")
                while not any(c.hello is not None and c.hello.role == "spectator"
                              for c in host.lobby.clients):
                    await trio.sleep(0.01)
                for i in range(3):
                    nursery.start_soon(lambda i=i: run_peer(
                        ("127.0.0.1", port), Identity(os.urandom(32), os.urandom(32)),
                        BotPlayer("basic", random.Random(i)), name=f"bot{i}"))
                await host.started.wait()
                await command("join", "--fresh-identity")
                refused = codes["join"]
                # on a terminal the refusal offers to watch at once: y follows the game
                monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
                monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "y")
                await command("join", "--fresh-identity", "--name", "cy")
                codes["join then watch"], codes["join"] = codes["join"], refused
        return port

    port = trio.run(table)
    captured = capsys.readouterr()
    assert codes == {"join": 1, "join then watch": 0, "watch": 0}
    assert asked == ["shanghai join: watch its game instead? (y/n) "]
    err = captured.err.splitlines()
    # a person reads the host's words, not the protocol's code (issue 41)
    assert any(line.startswith("shanghai join: connection failed: the host refused: the game at "
                                   "this table has started without you: ")
               for line in err), err
    assert not any("table_full" in line for line in err), err
    assert f"shanghai join: you can watch its game instead: shanghai watch 127.0.0.1:{port}" \
        in err
    out = captured.out.splitlines()
    assert out[0] == f"watching 127.0.0.1:{port}: the game has not started yet; waiting for it"
    # the one who said y watches beside the first watcher, on the same stdout: their lines mix
    assert out[1].startswith(f"watching davis at 127.0.0.1:{port}: 0 bot")
    assert any(line.startswith("round 1: bot") and " deals; contract: two books" in line
               for line in out[2:]), out
    assert any(" draws from the stock" in line for line in out)  # no face another seat holds
    assert "round 1 audited: every step of its deal matches its seeds" in out
    # the watcher's result, and the one who joined late and said y watched to the end too
    assert out[-1].startswith("game over: bot") and sum(line.startswith("game over") for line in out) == 2
