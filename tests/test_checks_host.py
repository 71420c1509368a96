"""Checks of the host (its sequencing checks, budgets and lobby) that no test made fail before
docs/checks.md listed them, each played by the party that would exploit the missing check;
without sockets."""

from __future__ import annotations

import pytest

from shanghai_net.net.budget import Budget, Verdict
from shanghai_net.table.bodies import shares_body
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire.messages import Refused
from shanghai_net.wire.signing import sign_proof

from test_checks_table import deliver_one_at_a_time, sequenced_anyway
from test_net_flood import LIMITS
from test_net_host_parts import a_game_of_three, hello, sent
from test_net_table import Table


def test_a_flood_of_small_messages_is_read_no_faster_than_its_message_rate():
    """Bytes within their budget do not let a connection's reader run ahead of its message
    rate: once the messages' burst is spent, the next read waits for a message token."""
    budget = Budget(LIMITS)
    assert all(budget.message(0.0) is Verdict.PASS for _ in range(20))
    assert budget.read(0.0, 10) == pytest.approx(0.1)  # 10 messages a second


@pytest.mark.parametrize("smuggled", ["in a second box", "beside the owed position"])
def test_a_key_share_no_one_owes_smuggled_beside_an_owed_one_is_refused_and_named(smuggled):
    """A seat owes seat R its key of a card being dealt to R, and adds its key of a card still in
    the stock for R (colluding with R to read the stock).  The host refuses the whole body; a
    host that sequences it anyway is named by no one but the sender, whom every seat names,
    before R could open anything from it."""
    t = Table(3, seed=23)
    deliver_one_at_a_time(t, lambda: t.host.round == 1 and t.host.outstanding)
    (generation, position), owed = min(t.host.outstanding.items())
    sender, recipient = min(owed.owing), owed.to
    dealer = t.seats[sender].participant
    g = dealer.generation(generation)
    stock = max(p for p in range(g.size) if (generation, p) not in t.host.outstanding
                and p not in g.given and p not in g.mine)
    if smuggled == "in a second box":
        sealed = [dealer.share_keys(generation, recipient, [position]),
                  dealer.share_keys(generation, recipient, [stock])]
    else:
        sealed = [dealer.share_keys(generation, recipient, [position, stock])]
    msg = t.seats[sender].chain.sign(t.ids[sender].sign_key, sender,
                                     shares_body(1, generation, sealed))
    with pytest.raises(RemoteProtocolError, match=f"no key share for position {stock} is owed"):
        t.host.admit(msg)
    for fault in sequenced_anyway(t, msg):
        assert fault.culprit == sender and f"a key share for position {stock}" in fault.reason
    assert stock not in t.seats[recipient].participant.generation(generation).mine


def test_a_seat_closed_for_abuse_cannot_come_back_on_a_challenge_it_was_given_before():
    """Seat 1 asks to rejoin on a second connection (and is challenged), then floods on its
    first and is closed for abuse: the proof it sends on the second is refused, code abuse."""
    parts, people, clients = a_game_of_three()
    second = parts.connect()
    parts.lobby.on_hello(second, hello(people[1], "p1 again"))
    seat, challenge = second.rejoining
    clients[1].abuse("a flood")
    parts.lobby.on_proof(second, sign_proof(people[1].sign_key, parts.lobby.start.game_id,
                                            challenge))
    assert [r.code for r in sent(second, Refused)] == ["abuse"]
    assert second.seat is None and parts.lobby.seats[1] is clients[1]
