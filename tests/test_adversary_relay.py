"""The host as relay, attacked (docs/dealing-review.md, "Review of the code (session 18)"): it
sequences a seat's message, drops the seat's link before the seat hears so, and the seat's
outbox signs the same body again with a new counter (`Outbox.reconnected`), which the host then
sequences too.  Counters need only rise (protocol.md 8.3), so the chain takes the copy; what
the table makes of it must be the same at every party, and must name no seat that only did what
its outbox does after a reconnection: the host refuses the copy, and a host that sequences it
is named by every party and by `verify` (docs/dealing.md, "A step the host places where it is
not due")."""

from __future__ import annotations

import re

import pytest

from shanghai_net.wire.messages import Deal
from shanghai_net.wire import RemoteProtocolError

from test_adversary_r1 import every_party_names_the_host, kept_by_host
from test_net_table import signed_body
from test_table_dropout_silent import parties, shared


@pytest.mark.parametrize("step", ["pick_commit", "pick_reveal", "commit", "pass", "shares",
                                  "reveal"])
def test_a_step_signed_again_after_a_reconnection_and_sequenced_twice_names_the_host(step):
    """4 seats, ``t = 3``: the host sequences seat 1's ``step`` (a first-dealer pick's
    commitment or nonce, a seed commitment, pass 1, a draw's key shares, its own key of the
    upturned card), drops seat 1's link before it hears so, and the outbox signs the same body
    again.  The host refuses the copy; a lying host that sequences it is named by every party
    and by `verify`, never seat 1.  Before the fix a pass was counted twice by every seat
    (the host and `verify` named seat 1), and every other copy named seat 1 ("a second
    commitment", "out of turn", "no one asked of it") or was taken as nothing.  Nobody pays and
    no card opened."""
    t = shared(4, 3)
    kept, stop = kept_by_host(t, lambda msg: msg.author == 1 and isinstance(msg.body, Deal)
                              and msg.body.step == step)
    t.run_until(lambda: kept, play=False)
    stop()
    placed = t.host.admit(kept[0])  # the host sequences seat 1's step ...
    t.stream.append(placed)
    t.boxes[1].reconnected()  # ... and drops seat 1's link before it hears so
    copy = t.boxes[1].poll()
    assert copy.body == placed.body and copy.counter > placed.counter
    for table, box in zip(t.seats, t.boxes):
        box.push(table.receive(placed))
        box.sequenced(placed)
    # (a pick's last nonce decides it and round 1 is dealt: its copy is of a round gone by)
    why = "a second time: the same body|of round 0, a round gone by"
    with pytest.raises(RemoteProtocolError, match=why):
        t.host.admit(copy)  # an honest host refuses the copy
    again = t.host.chain.place(copy)  # a lying host sequences it as well
    every_party_names_the_host(t, again, f"the host sequenced seat 1's {step} ")
    assert re.search(why, t.host.fault.reason), t.host.fault
    assert len({repr(party._passes) for party in parties(t)}) == 1, \
        [party._passes for party in parties(t)]
    for party in parties(t):
        assert party.left == [] and party.lost == [] and party.verdict is None


def test_a_copy_signed_again_with_its_fields_in_another_order_is_the_same_body():
    """Field order does not matter on the wire (protocol.md 8.1): a client that builds its
    maps anew when its outbox signs a body again may write their fields in another order.  The
    copy is the same body word for word, its canonical form the same: the host refuses it, and a
    host that sequences it is named by every party and by `verify`, never seat 1 (a second,
    different ``shares`` body would name seat 1)."""
    t = shared(4, 3)
    kept, stop = kept_by_host(t, lambda msg: msg.author == 1 and isinstance(msg.body, Deal)
                              and msg.body.step == "shares")
    t.run_until(lambda: kept, play=False)
    stop()
    placed = t.host.admit(kept[0])
    t.stream.append(placed)
    for table, box in zip(t.seats, t.boxes):
        box.push(table.receive(placed))
        box.sequenced(placed)

    def reordered(value):
        if isinstance(value, dict):
            return {key: reordered(value[key]) for key in reversed(list(value))}
        return [reordered(item) for item in value] if isinstance(value, list) else value
    body = Deal(placed.body.step, reordered(placed.body.data))
    assert list(body.data) != list(placed.body.data) and body == placed.body
    copy = signed_body(t, 1, body, None)
    with pytest.raises(RemoteProtocolError, match="a second time: the same body"):
        t.host.admit(copy)
    every_party_names_the_host(t, t.host.chain.place(copy), "the host sequenced seat 1's shares ")
