"""Version 10's start_game and lobby_state (docs/dealing.md, "Version 10 messages"): each
player map's ``host_run`` and the table's ``share_threshold``, off the wire while false and nil;
and every party hashing the start_game map it received, not its own encoding of what it
decoded, so that a later version may add fields without a version bump."""

from __future__ import annotations

import dataclasses

import msgpack

from shanghai_net.table.public import PublicTable
from shanghai_net.wire import LobbyState, SeatInfo, StartGame
from shanghai_net.wire.framing import decode_frame_body, encode_frame
from shanghai_net.wire.signing import start_digest

from test_table_dropout_wire import start_game


def received(wire: dict) -> StartGame:
    """``wire`` as a peer receives it: packed, framed, read and decoded."""
    return StartGame.from_wire(decode_frame_body(encode_frame(wire)[4:]))


def test_host_run_is_off_the_wire_while_false_and_carried_when_true():
    plain = start_game()
    assert all("host_run" not in seat for seat in plain.to_wire()["seats"])
    marked = dataclasses.replace(plain, seats=tuple(
        dataclasses.replace(p, host_run=p.seat in (1, 3)) for p in plain.seats))
    wire = marked.to_wire()
    assert [seat.get("host_run") for seat in wire["seats"]] == [None, True, None, True]
    assert StartGame.from_wire(msgpack.unpackb(msgpack.packb(wire))).host_run == (1, 3)
    assert start_digest(wire) != start_digest(plain.to_wire())


def test_lobby_state_shows_host_run_and_the_threshold_only_when_set():
    seat = SeatInfo(seat=0, name="bot1", fingerprint="f" * 19, ready=True, connected=True,
                    kind="bot")
    lobby = LobbyState(seats=(seat,), preset="davis", rules={}, join_code="")
    assert "share_threshold" not in lobby.to_wire() and "host_run" not in lobby.to_wire()["seats"][0]
    shown = dataclasses.replace(lobby, seats=(dataclasses.replace(seat, host_run=True),),
                                share_threshold=3)
    wire = shown.to_wire()
    assert wire["share_threshold"] == 3 and wire["seats"][0]["host_run"] is True
    assert LobbyState.from_wire(wire) == shown


def test_every_party_hashes_the_start_game_it_received_with_fields_it_does_not_know():
    """A host of a later version adds a field, and writes a timeout as an integer: the peer's
    chain starts at the digest of the very map it received, which the host and a client that
    hashes raw maps (clients/simple_bot.py) compute too; re-encoding what it decoded would drop
    the field and turn 10 into 10.0, and part it from every signature of the game."""
    sent = {**start_game().to_wire(), "later_field": [1, 2], "claim_timeout": 10}
    start = received(sent)
    assert start.claim_timeout == 10.0 and start.to_wire() == sent
    assert start_digest(start.to_wire()) == start_digest(sent)
    assert start_digest(sent) != start_digest(dataclasses.replace(start).to_wire())
    assert PublicTable(start).chain.head == start_digest(sent)
