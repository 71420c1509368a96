"""Checks of the host (its sequencing checks, budgets and lobby) that no test made fail before
docs/checks.md listed them, each played by the party that would exploit the missing check;
without sockets."""

from __future__ import annotations

from shanghai_net.identity import Identity
from shanghai_net.wire.messages import Refused
from shanghai_net.wire.signing import sign_proof

from test_net_host_parts import Parts, hello, sent


def test_a_seat_closed_for_abuse_cannot_come_back_on_a_challenge_it_was_given_before():
    """Seat 1 asks to rejoin on a second connection (and is challenged), then floods on its
    first and is closed for abuse: the proof it sends on the second is refused, code abuse."""
    parts = Parts(players=3)
    people = [Identity(bytes([i]) * 32, bytes([i]) * 32) for i in range(3)]
    clients = [parts.connect() for _ in range(3)]
    for i, (client, who) in enumerate(zip(clients, people)):
        parts.lobby.on_hello(client, hello(who, f"p{i}", nonce=bytes([i]) * 32))
        parts.lobby.on_ready(client, True)
    second = parts.connect()
    parts.lobby.on_hello(second, hello(people[1], "p1 again"))
    seat, challenge = second.rejoining
    clients[1].abuse("a flood")
    parts.lobby.on_proof(second, sign_proof(people[1].sign_key, parts.lobby.start.game_id,
                                            challenge))
    assert [r.code for r in sent(second, Refused)] == ["abuse"]
    assert second.seat is None and parts.lobby.seats[1] is clients[1]
