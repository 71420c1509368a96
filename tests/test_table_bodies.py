"""Moves on the wire (table/bodies.py): every kind of engine move travels as its body and comes
back, through a signed frame's encoding, as the same move of the same seat: a field dropped or
sent empty on the way out would make every peer replay another move than the one played."""

from __future__ import annotations

import pytest

from shanghai_net.cards import Suit, joker, natural
from shanghai_net.engine import moves as em
from shanghai_net.rules.melds import End
from shanghai_net.table.bodies import MOVE_BODIES, body_to_move, move_to_body
from shanghai_net.wire import decode_frame_body, decode_message, encode_frame

from test_wire_messages import game_with_body

SEAT = 2
NINE, TEN, JACK = (natural(rank, Suit.HEARTS, copy=1) for rank in (9, 10, 11))
TOP = natural(12, Suit.SPADES)

MOVES = [
    em.DrawStock(SEAT), em.TakeDiscard(SEAT), em.MayI(SEAT), em.PassClaim(SEAT),
    em.CallShanghai(SEAT, 3, End.HIGH),
    em.GoDown(SEAT, ((NINE, TEN, JACK), (joker(1), TOP, natural(12, Suit.CLUBS)))),
    em.LayOff(SEAT, NINE, 4, End.LOW),
    em.SwapJoker(SEAT, 1, joker(0), TEN, JACK, End.HIGH),
    em.BuyJoker(SEAT, 5, joker(1), NINE),
    em.Discard(SEAT, JACK, True),
    em.Rearrange(SEAT, ((NINE, TEN, JACK), (TOP, joker(0), natural(12, Suit.CLUBS))), (TEN,)),
]


def over_the_wire(body):
    """``body`` as a peer decodes it from a game message's frame."""
    wire = game_with_body(body.to_wire())
    return decode_message(decode_frame_body(encode_frame(wire)[4:])).body


def test_every_move_body_kind_is_played_here():
    assert {type(move_to_body(move, TOP)) for move in MOVES} == set(MOVE_BODIES)


@pytest.mark.parametrize("move", MOVES, ids=lambda move: type(move).__name__)
def test_a_move_comes_back_from_the_wire_as_the_move_played(move):
    assert body_to_move(over_the_wire(move_to_body(move, TOP)), SEAT) == move


def test_a_call_names_the_top_discard_it_was_made_on():
    """The host refuses a call on another card than the top discard: the body carries it."""
    assert over_the_wire(move_to_body(em.CallShanghai(SEAT, 3), TOP)).card == TOP.id
    with pytest.raises(TypeError, match="pass top"):
        move_to_body(em.CallShanghai(SEAT, 3))


DEAL_REFUSALS = {
    "a key of seat 256": ("reveal", {"round": 1, "reveals": [
        {"generation": 0, "position": 3, "keys": [[256, bytes(32)]]}]},
        "data.reveals[0].keys: expected [seat, key] pairs"),
    "a proof that is no bytes": ("pass", {"round": 1, "generation": 0, "phase": 1,
                                          "points": [], "proof": 5},
                                 "data.proof: expected some bytes, got 5"),
}


@pytest.mark.parametrize("step,data,reason", DEAL_REFUSALS.values(), ids=DEAL_REFUSALS.keys())
def test_a_deal_body_out_of_its_bounds_is_refused_saying_which_field(step, data, reason):
    """The deal body's own checks: the last seat number a key may name is 255, and a field of
    any length must still be bytes; each refusal names the field."""
    from shanghai_net.table.bodies import parse_deal
    from shanghai_net.wire.messages import Deal

    with pytest.raises(ValueError) as info:
        parse_deal(Deal(step, data), bytes(16), 0)
    assert str(info.value) == reason
    if step == "reveal":  # one seat lower is a key the body carries
        data["reveals"][0]["keys"][0][0] = 255
        (reveal,) = parse_deal(Deal(step, data), bytes(16), 0).messages
        assert reveal.keys == ((255, bytes(32)),)


def _deal_bodies() -> dict[str, tuple[str, dict]]:
    from shanghai_net.deal.box import BOX_OVERHEAD, KEY_BYTES
    from shanghai_net.deal.sharing import SHARE_BOX_BYTES

    b32 = bytes(range(32))
    return {
        "commit": ("commit", {"round": 1, "generation": 2, "digest": b32}),
        "commit, sharing on": ("commit", {"round": 1, "generation": 0, "digest": b32,
                                          "feldman": [b32, b32], "shares": [
            {"to": 1, "epk": b32, "box": bytes(SHARE_BOX_BYTES)}]}),
        "pass": ("pass", {"round": 1, "generation": 0, "phase": 2, "points": [b32],
                          "proof": b""}),
        "shares": ("shares", {"round": 1, "generation": 0, "boxes": [
            {"to": 3, "positions": [4, 300], "epk": b32,
             "box": bytes(BOX_OVERHEAD + 2 * KEY_BYTES)}]}),
        "reveal": ("reveal", {"round": 1, "reveals": [
            {"generation": 0, "position": 7, "keys": [[1, b32], [2, b32]]}]}),
        "seeds": ("seeds", {"round": 1, "seeds": [{"generation": 0, "seed": b32}]}),
        "seeds, sharing on": ("seeds", {"round": 1, "seeds": [
            {"generation": 0, "seed": b32}, {"generation": 1, "seed": b32}], "shares": [
            {"generation": 0, "dealer": 1, "share": b32}, {"generation": 0, "dealer": 3,
                                                            "share": None},
            {"generation": 1, "dealer": 1, "share": b32}]}),
        "pick_commit": ("pick_commit", {"round": 1, "pick": 0, "n": 4, "parties": [0, 1, 2],
                                        "digest": b32}),
        "pick_reveal": ("pick_reveal", {"round": 1, "pick": 0, "nonce": b32}),
        "share_reveal": ("share_reveal", {"round": 1, "seat": 2, "shares": [
            {"generation": 0, "share": b32}]}),
    }


@pytest.mark.parametrize("step,data", _deal_bodies().values(), ids=_deal_bodies().keys())
def test_a_deal_step_is_written_again_as_it_came(step, data):
    """`step_body` writes a decoded step as the wire wrote it, every field it defines and
    nothing else: the host counts a body's bytes beyond it as unknown (soak 14-3)."""
    from shanghai_net.table.bodies import parse_deal, step_body
    from shanghai_net.wire.messages import Deal

    assert step_body(parse_deal(Deal(step, data), bytes(16), 0)).to_wire() == \
        Deal(step, data).to_wire()
