"""The stand-alone client (clients/simple_bot.py, written from docs/protocol.md alone) plays a
whole game over real sockets with three shanghai_net bot peers: the acid test of the protocol
document.  The bot runs as a script in a subprocess, as a stranger's client would."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from shanghai_net.deal import seeded
from shanghai_net.engine import Phase
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.transcript import read_transcript
from shanghai_net.net.peer import run_peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.wire.messages import Timeout

BOT = Path(__file__).resolve().parent.parent / "clients" / "simple_bot.py"


async def game_with_the_client(client_seat: int, seed: int, rules: dict, record: Path):
    """Host a davis table of four; the client takes ``client_seat``, bot peers the others.
    The claim timeout is long: every seat answers, so a timeout means one did not."""
    rnd = seeded(b"client test %d" % seed)
    host = Host(HostConfig(players=4, preset="davis", claim_timeout=30.0, random=rnd,
                           rules=rules, record=record))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    tables, client = {}, {}
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)

        async def run_client() -> None:
            client["process"] = await trio.run_process(
                [sys.executable, str(BOT), f"127.0.0.1:{port}", "--name", "stranger"],
                capture_stderr=True, check=False)

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
            while host.seats[seat] is None:
                await trio.sleep(0.01)
        await host.done.wait()
        with trio.move_on_after(10):  # the client's own end of the game
            while "process" not in client:
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    return host, tables, client.get("process")


@pytest.mark.parametrize("client_seat,seed", [(0, 1), (2, 2)])
async def test_the_client_bot_plays_a_whole_game(client_seat, seed, tmp_path):
    rules = {"contracts": [[2, 0], [1, 1], [0, 2]]}  # three rounds, to keep the test quick
    record = tmp_path / "game.transcript"
    with trio.fail_after(120):
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
    assert process is not None, "the client did not finish"
    log = process.stderr.decode()
    assert process.returncode == 0, log
