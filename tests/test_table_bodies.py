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
