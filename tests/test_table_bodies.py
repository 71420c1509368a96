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
