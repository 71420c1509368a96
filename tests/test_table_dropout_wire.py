"""The dropout-tolerant deal on the wire, behind a setting no host offers yet (docs/dealing.md,
"Version 10 messages"): start_game's ``share_threshold``, a commit's sharing, the shares in
``seeds`` and a complaint's ``share``. With sharing off every body and start_game is today's,
byte for byte."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest

from shanghai_net.deal.messages import Commitment, Context, SeedReveal, SharedCommitment, \
    SharedSeedReveal
from shanghai_net.table.bodies import deal_body, parse_deal, seeds_body
from shanghai_net.wire import DealerPick, PlayerSeat, RemoteProtocolError, StartGame
from shanghai_net.wire import messages as wm
from shanghai_net.wire.signing import start_digest

CTX = Context(bytes(16), 1, 0)


def start_game(**more):
    return StartGame(game_id=bytes(range(16)), host_nonce=bytes(32), nonces=(bytes([1]) * 32,),
                     preset="davis", rules={}, claim_timeout=10.0, audit_timeout=60.0,
                     seats=tuple(PlayerSeat(seat=i, name=f"p{i}", sign_key=bytes([i]) * 32,
                                            box_key=bytes([i + 9]) * 32) for i in range(4)),
                     first_dealer_pick=DealerPick(method="coin_flip"), host_key=bytes([7]) * 32,
                     **more)


def test_a_start_game_with_sharing_off_signs_the_bytes_it_did_before_version_9s_field():
    # the digest every signature binds, computed with the code before share_threshold existed
    assert start_digest(start_game().to_wire()).hex() == \
        "48a2f9bbce4ec8b14e20e623d52a0348e8a3ecba48b7a4a6e5678cf87f7173f4"
    assert "share_threshold" not in start_game().to_wire()
    complaint = wm.Complaint(round=1, reason="x")
    assert complaint.to_wire() == {"kind": "complaint", "round": 1, "reason": "x"}


def test_a_start_game_with_a_threshold_carries_it_and_binds_it():
    shared = start_game(share_threshold=3)
    wire = shared.to_wire()
    assert wire["share_threshold"] == 3
    assert StartGame.from_wire(msgpack.unpackb(msgpack.packb(wire))) == shared
    assert start_digest(wire) != start_digest(start_game().to_wire())
    with pytest.raises(RemoteProtocolError, match="share_threshold"):
        StartGame.from_wire({**wire, "share_threshold": 1})


def test_a_complaint_of_shares_names_each_dealer_and_generation():
    body = wm.Complaint(round=1, reason="bad", share=(wm.ShareComplained(dealer=2, generation=0),
                                                      wm.ShareComplained(dealer=3, generation=0)))
    wire = body.to_wire()
    assert wire["share"] == [{"dealer": 2, "generation": 0}, {"dealer": 3, "generation": 0}]
    game = wm.BodySpec().check(wire, "body")
    assert game == body
    with pytest.raises(RemoteProtocolError, match=r"body.share: expected an array of at most 7"):
        wm.BodySpec().check({**wire, "share": {"dealer": 2, "generation": 0}}, "body")


def shared_commit():
    return SharedCommitment(CTX, 1, bytes(32), (bytes([5]) * 32,) * 3,
                            tuple((h, bytes([h]) * 32, bytes([h]) * 48) for h in (0, 2, 3)))


def test_a_commit_with_sharing_off_is_today_s_body_and_with_it_on_round_trips():
    plain = deal_body(Commitment(CTX, 1, bytes(32)))
    assert set(plain.data) == {"round", "generation", "digest"}
    assert parse_deal(plain, CTX.game_id, 1).messages == [Commitment(CTX, 1, bytes(32))]
    body = deal_body(shared_commit())
    assert body.data["shares"][0] == {"to": 0, "epk": bytes(32), "box": bytes(48)}
    assert parse_deal(body, CTX.game_id, 1).messages == [shared_commit()]


@pytest.mark.parametrize("change, problem", [
    (lambda d: d.pop("shares"), r"data.shares: expected an array"),
    (lambda d: d["feldman"].append(b"short"), r"data.feldman: expected 32-byte points"),
    (lambda d: d["shares"][1].update(box=bytes(47)), r"data.box: expected 48 bytes"),
    (lambda d: d["shares"].append("x"), r"data.shares\[3\]: expected a map"),
])
def test_a_malformed_commit_sharing_is_refused_naming_what_is_wrong(change, problem):
    body = deal_body(shared_commit())
    change(body.data)
    with pytest.raises(ValueError, match=problem):
        parse_deal(body, CTX.game_id, 1)


def seeds(shares):
    return [SharedSeedReveal(dataclasses.replace(CTX, generation=g), 1, bytes([g]) * 32, s)
            for g, s in shares.items()]


def test_seeds_with_sharing_off_are_today_s_body_and_with_it_on_carry_every_share():
    plain = seeds_body(1, [SeedReveal(CTX, 1, bytes(32))])
    assert set(plain.data) == {"round", "seeds"}
    assert parse_deal(plain, CTX.game_id, 1).messages == [SeedReveal(CTX, 1, bytes(32))]
    revealed = seeds({0: ((0, bytes(32)), (2, None)), 1: (), 2: ((3, bytes([3]) * 32),)})
    body = seeds_body(1, revealed)
    assert body.data["shares"] == [
        {"generation": 0, "dealer": 0, "share": bytes(32)},
        {"generation": 0, "dealer": 2, "share": None},
        {"generation": 2, "dealer": 3, "share": bytes([3]) * 32}]
    assert parse_deal(body, CTX.game_id, 1).messages == revealed
    none_held = seeds_body(1, seeds({0: ()}))
    assert none_held.data["shares"] == []  # a seat that holds nothing says so


@pytest.mark.parametrize("change, problem", [
    (lambda d: d["shares"].reverse(), r"data.shares\[1\]: expected shares by generation then "
                                      "dealer, ascending"),
    (lambda d: d["shares"][0].update(share=b"short"),
     r"data.shares\[0\].share: expected 32 bytes or nil"),
    (lambda d: d["shares"][-1].update(generation=5),
     r"data.shares: shares of generations \[5\], which carry no seed"),
    (lambda d: d["shares"][0].pop("dealer"), r"data.dealer: expected an integer"),
])
def test_malformed_shares_in_seeds_are_refused_naming_what_is_wrong(change, problem):
    body = seeds_body(1, seeds({0: ((0, bytes(32)), (2, bytes(32)))}))
    change(body.data)
    with pytest.raises(ValueError, match=problem):
        parse_deal(body, CTX.game_id, 1)
