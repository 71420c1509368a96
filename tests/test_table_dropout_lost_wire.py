"""R1's messages on the wire, behind a setting no host offers yet (docs/dealing.md, "Version 10
messages"): the ``share_reveal`` deal step and the host's ``timeout`` with ``what`` =
``"shares"`` or ``"vote"``. With sharing off none of them has a place: the host refuses a
``share_reveal`` (``out_of_turn``) and every seat names a host that signs such a timeout."""

from __future__ import annotations

import pytest

from shanghai_net.deal.messages import Context, ShareReveal
from shanghai_net.table.bodies import deal_body, parse_deal
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import HOST_AUTHOR

from test_table_roster import Roster

CTX = Context(bytes(16), 1, 0)
REVEAL = ShareReveal(CTX, 1, 2, ((0, bytes([3]) * 32), (1, bytes([4]) * 32)))


def test_a_share_reveal_round_trips_as_its_deal_step():
    body = deal_body(REVEAL)
    assert body.step == "share_reveal"
    assert body.data == {"round": 1, "seat": 2, "shares": [
        {"generation": 0, "share": bytes([3]) * 32}, {"generation": 1, "share": bytes([4]) * 32}]}
    wire = wm.BodySpec().check(body.to_wire(), "body")
    step = parse_deal(wire, CTX.game_id, 1)
    assert step.step == "share_reveal" and step.round == 1 and step.messages == [REVEAL]


def test_a_nil_share_is_read_for_the_deal_to_refuse_it():
    body = deal_body(REVEAL)
    body.data["shares"][0]["share"] = None
    assert parse_deal(body, CTX.game_id, 1).messages[0].shares == ((0, None),
                                                                    (1, bytes([4]) * 32))


@pytest.mark.parametrize("change, problem", [
    (lambda d: d.pop("seat"), r"data.seat: expected an integer 0..255"),
    (lambda d: d.update(seat=256), r"data.seat: expected an integer 0..255"),
    (lambda d: d.pop("shares"), r"data.shares: expected an array"),
    (lambda d: d["shares"].append(7), r"data.shares\[2\]: expected a map"),
    (lambda d: d["shares"][1].update(share=bytes(31)), r"data.shares\[1\].share: expected 32"),
    (lambda d: d["shares"][0].pop("generation"), r"data.generation: expected an integer"),
])
def test_a_malformed_share_reveal_is_refused_naming_what_is_wrong(change, problem):
    body = deal_body(REVEAL)
    change(body.data)
    with pytest.raises(ValueError, match=problem):
        parse_deal(body, CTX.game_id, 1)


@pytest.mark.parametrize("what", ["shares", "vote"])
def test_a_timeout_of_shares_or_of_a_vote_is_on_the_wire(what):
    body = wm.Timeout(seat=2, what=what)
    assert wm.BodySpec().check(body.to_wire(), "body") == body
    with pytest.raises(RemoteProtocolError, match="what"):
        wm.BodySpec().check({**body.to_wire(), "what": "share"}, "body")


def test_with_sharing_off_the_host_refuses_a_share_reveal():
    t = Roster(4, seed=3)
    t.run_until(lambda: t.host.settled)
    reveal = ShareReveal(Context(t.host.game_id, t.host.round, 0), 1, 2, ((0, bytes(32)),))
    with pytest.raises(RemoteProtocolError) as refused:
        t.host.admit(t.sign(1, t.ids[1].sign_key, deal_body(reveal)))
    assert refused.value.code == "out_of_turn"
    assert "shares no seeds" in str(refused.value)
    assert t.host.fault is None


@pytest.mark.parametrize("what", ["shares", "vote"])
def test_with_sharing_off_a_host_that_times_out_shares_or_a_vote_is_named(what):
    t = Roster(4, seed=3)
    t.run_until(lambda: t.host.settled)
    for party in refused_timeout(t, 2, what):
        assert f"seat 2's {what}" in party.fault.reason


def refused_timeout(t, seat, what):
    """The host's ``timeout`` of ``seat``'s ``what``, which has no place: every party (the
    host's public table too) names the host; the parties."""
    msg = t.host.chain.sign(t.host_id.sign_key, HOST_AUTHOR, wm.Timeout(seat=seat, what=what))
    for party in [t.host, *t.seats]:
        with pytest.raises(Exception):
            party.receive(msg) if party is not t.host else party.take_host(msg)
        assert party.fault is not None and party.fault.culprit == HOST_AUTHOR
    return [t.host, *t.seats]
