"""One box key, one seat at the lobby (docs/dealing.md, "One box key, one seat"; protocol.md
6.2): a ``hello`` whose box key a seated connection has is refused, over sockets; the lobby
checks again before it starts the game; during the game a ``hello`` whose box key a seat has
held is refused, and no watcher whose box key is a seat's is listed as an offer."""

from __future__ import annotations

import dataclasses

import trio

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.wire import CLIENT, NEED_DATA, Connection
from shanghai_net.wire.messages import (PROTOCOL_VERSION, Hello, LobbyState, Refused, Replace,
                                        StartGame, Welcome)

from test_net_host_parts import Parts, a_game_of_three, hello, sent

ONE_BOX_KEY = "one box key, one seat (a client draws a fresh box key for every join)"


async def say_hello(port: int, who: Identity, box_key: bytes, name: str):
    """Connect and say ``hello`` as a player with ``who``'s signing key and ``box_key``; the
    stream and the host's first answer."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = Connection(CLIENT)
    await stream.send_all(conn.send(Hello(
        protocol="shanghai-net", version=PROTOCOL_VERSION, name=name, sign_key=who.sign_public,
        box_key=box_key, join_code="", role="player", nonce=bytes(32))))
    while True:
        event = conn.next_event()
        if event is NEED_DATA:
            conn.receive_data(await stream.receive_some(conn.room))
        else:
            return stream, event


async def test_a_hello_with_the_box_key_of_a_seated_connection_is_refused():
    host = Host(HostConfig(players=3, random=seeded(b"one box key")))
    ann, bob = Identity(bytes([1]) * 32, bytes([1]) * 32), Identity(bytes([2]) * 32, bytes(32))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            seated, welcome = await say_hello(port, ann, ann.box_public, "ann")
            assert isinstance(welcome, Welcome) and welcome.seat == 0
            twin, answer = await say_hello(port, bob, ann.box_public, "bob")
            assert isinstance(answer, Refused) and answer.code == "table_full"
            assert answer.reason == f"this box key already sits at seat 0: {ONE_BOX_KEY}"
            assert host.seats[1:] == [None, None]
            again, welcome = await say_hello(port, bob, bob.box_public, "bob")
            assert isinstance(welcome, Welcome) and welcome.seat == 1
            for stream in (seated, twin, again):
                await stream.aclose()
            nursery.cancel_scope.cancel()


def test_the_lobby_checks_again_before_it_starts_the_game():
    """Two seats whose hellos came to carry one box key (a lobby that seated them by a path
    that skipped the check): the game does not start, and the later seat is refused."""
    parts = Parts(players=3)
    people = [Identity(bytes([i]) * 32, bytes([i]) * 32) for i in range(3)]
    clients = [parts.connect() for _ in range(3)]
    for i, (client, who) in enumerate(zip(clients, people)):
        parts.lobby.on_hello(client, hello(who, f"p{i}", nonce=bytes([i]) * 32))
    clients[2].hello = dataclasses.replace(clients[2].hello, box_key=people[0].box_public)
    for client in clients:
        parts.lobby.on_ready(client, True)
    assert parts.lobby.start is None and parts.started == []
    assert [r.reason for r in sent(clients[2], Refused)] == [
        f"this box key already sits at seat 0: {ONE_BOX_KEY}"]
    assert parts.lobby.seats[2] is None and clients[2].seat is None and clients[2].closing
    assert not any(sent(c, StartGame) for c in clients)


def test_in_the_game_a_hello_with_a_box_key_a_seat_held_is_refused_and_no_such_offer_listed():
    """A late person with seat 1's box key is refused; of three watchers offering to take a
    seat, one with seat 2's box key and one with the box key the host proposed for seat 1 are
    not listed (a hand-over to them would be refused)."""
    parts, people, clients = a_game_of_three()
    late = parts.connect()
    stranger = Identity(bytes([7]) * 32, bytes([7]) * 32)
    parts.lobby.on_hello(late, dataclasses.replace(hello(stranger, "late"),
                                                   box_key=people[1].box_public))
    assert [(r.code, r.reason) for r in sent(late, Refused)] == [
        ("table_full", f"this box key is one seat 1 has held in this game: {ONE_BOX_KEY}")]
    proposed = Identity(bytes([6]) * 32, bytes([6]) * 32)
    parts.public._replace(0, Replace(seat=1, name="x", role="player",
                                     sign_key=proposed.sign_public, box_key=proposed.box_public))
    watchers = []
    for n, box_key in ((8, people[2].box_public), (10, proposed.box_public),
                       (9, Identity(bytes(32), bytes([9]) * 32).box_public)):
        watcher = parts.connect()
        who = Identity(bytes([n]) * 32, bytes([n]) * 32)
        parts.lobby.on_hello(watcher, dataclasses.replace(
            hello(who, f"w{n}", nonce=None), role="spectator", offer="player", box_key=box_key))
        watchers.append(who)
    offers = parts.lobby.lobby_state().offers
    assert [o.sign_key for o in offers] == [watchers[2].sign_public]


def test_in_the_lobby_no_offer_whose_box_key_sits_at_the_table_is_listed():
    parts = Parts(players=3)
    ann = Identity(bytes([1]) * 32, bytes([1]) * 32)
    parts.lobby.on_hello(parts.connect(), hello(ann, "ann"))
    watcher = parts.connect()
    parts.lobby.on_hello(watcher, dataclasses.replace(
        hello(Identity(bytes([5]) * 32, bytes([5]) * 32), "w", nonce=None), role="spectator",
        offer="bot", box_key=ann.box_public))
    state = parts.lobby.lobby_state()
    assert isinstance(state, LobbyState) and state.offers == ()
