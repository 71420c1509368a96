"""Several tables in one host process (`TableServer`), over real sockets on 127.0.0.1 port 0:
whole games at two tables at once, each transcript accepted by `shanghai verify`; a crash at
one table leaves the other playing; a hello naming no table the host holds is refused by name;
a person opens a table.  Bots only, seated one after another (`seating.start_seated`); every
wait is on an event or a state, bounded by ``trio.fail_after``."""

from __future__ import annotations

import random

import pytest
import trio

from shanghai_net.cli import main
from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.host import HostConfig
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.tables import TableServer, check_table_name

from seating import kept_in, start_seated
from test_net_rejoin import HeldBot

ONE_ROUND = {"contracts": [[2, 0]]}


def server_for(tmp_path, names, seed=1, rules=ONE_ROUND, **options) -> TableServer:
    rnd = seeded(b"tables test %d" % seed)
    config = HostConfig(players=4, rules=rules, claim_timeout=5.0, random=rnd,
                        record=tmp_path / "game.bin")
    return TableServer(config, names, **options)


def bot(port, table, seat, seed=1, player=None, **options) -> Peer:
    rnd = seeded(b"tables peer %d %s %d" % (seed, table.encode(), seat))
    return Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                player or BotPlayer("basic", random.Random(seat)), name=f"{table}{seat}",
                table=table, random=rnd, timeout=20, **options)


async def seat_bots(nursery, port, table, results, go=None, peers=None, **options) -> None:
    """Four bot seats at ``table``, each started once the host has seated the one before, so
    that bot ``seat`` sits at ``seat``; ``results[seat]``: what its run ended with (its result
    or its PeerError).  With ``go``, bots held in the play phase until it is set (each peer is
    added to ``peers``, to be nudged then)."""
    for seat in range(4):
        peer = bot(port, table, seat, player=HeldBot(seat, go) if go is not None else None,
                   **options)
        if peers is not None:
            peers.append(peer)
        await start_seated(nursery, peer, seat, kept_in(results, seat, peer))


def verified(path) -> bool:
    """``shanghai verify`` accepts the transcript."""
    return main(["verify", str(path)]) == 0


async def test_two_tables_play_whole_games_at_once(tmp_path):
    server = server_for(tmp_path, ["kitchen", "porch"])
    results = {"kitchen": {}, "porch": {}}
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(300):  # eight seats' deals on two cores: the bound only catches a hang
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            go, peers = trio.Event(), []
            for name in results:  # held in the play phase: neither game can end before both run
                await seat_bots(nursery, port, name, results[name], go=go, peers=peers)
            for table in server.opened:
                await table.host.started.wait()
            assert all(not t.host.done.is_set() for t in server.opened)  # the games overlap
            go.set()
            for peer in peers:
                peer.nudge()
    assert [t.name for t in server.opened] == ["kitchen", "porch"] and not server.tables
    for table in server.opened:
        public = table.host.public
        assert table.crash is None and public.fault is None and public.finished
        assert len(public.public.result.rounds) == 1
        assert {p.name for p in table.host.start.seats} == {f"{table.name}{s}" for s in range(4)}
        for result in results[table.name].values():
            assert result.table.game.result == public.public.result
    assert verified(tmp_path / "game.bin")
    assert verified(tmp_path / "game-porch.bin")


async def test_a_crash_at_one_table_leaves_the_other_playing(tmp_path):
    server = server_for(tmp_path, ["kitchen", "porch"])
    results = {"kitchen": {}, "porch": {}}

    async def crash():
        raise RuntimeError("a bug in the kitchen's game")

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            for name in results:
                await seat_bots(nursery, port, name, results[name], reconnect=False)
            kitchen, porch = server.opened
            await kitchen.host.started.wait()
            await porch.host.started.wait()
            kitchen.nursery.start_soon(crash)
            await kitchen.closed.wait()
            assert not porch.closed.is_set() and "porch" in server.tables
    assert kitchen.crash == "RuntimeError: a bug in the kitchen's game"
    assert all(isinstance(r, PeerError) for r in results["kitchen"].values())
    assert porch.crash is None and porch.host.public.finished
    assert all(r.table.finished for r in results["porch"].values())
    assert verified(tmp_path / "game-porch.bin")


async def test_a_hello_for_a_table_the_host_does_not_hold_is_refused_by_name(tmp_path):
    server = server_for(tmp_path, ["kitchen", "porch"])
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            with pytest.raises(PeerError, match=r"unknown_table: no table 'attic' at this host "
                                                r"\(it holds: kitchen, porch\)"):
                await bot(port, "attic", 0, reconnect=False).run()
            nursery.cancel_scope.cancel()


async def test_a_person_opens_a_table_and_sits_at_it(tmp_path):
    server = server_for(tmp_path, ["kitchen"], max_tables=2)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            opener = bot(port, "attic", 0, open_table=True, reconnect=False)
            await start_seated(nursery, opener, 0)
            assert server.tables["attic"].host.seats[0].name == "attic0"
            assert server.tables["kitchen"].host.seats == [None] * 4
            with pytest.raises(PeerError, match="table_full: this host holds 2 tables already"):
                await bot(port, "cellar", 0, open_table=True, reconnect=False).run()
            nursery.cancel_scope.cancel()


def test_table_names_are_checked():
    assert check_table_name("Ann's kitchen") == "Ann's kitchen"
    for bad in ("", "a.b", "x" * 33, "tab\tle"):
        with pytest.raises(ValueError, match="table name"):
            check_table_name(bad)


async def test_a_host_that_cannot_announce_still_hosts(tmp_path, monkeypatch):
    from shanghai_net.net import discovery

    async def no_multicast(cls, addresses, port):
        raise OSError("no multicast route")

    monkeypatch.setattr(discovery.Announcer, "open", classmethod(no_multicast))
    server = server_for(tmp_path, ["kitchen"], announce=True)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            await start_seated(nursery, bot(port, "kitchen", 0, reconnect=False), 0)
            assert server.tables["kitchen"].host.seats[0].name == "kitchen0"
            nursery.cancel_scope.cancel()
