"""Out-of-turn claims: davis MAY I, good-miller I call, marcelle claim; counts, penalty, priority."""

from __future__ import annotations

import pytest

from shanghai_net.engine import Claimed, DrawStock, MayI, Phase, TakeDiscard, view_of
from shanghai_net.errors import IllegalMoveError

from scenario import discard_turn, draw, hand_text, play, stacked_game

CLAIMS = [("davis", 2, 2), ("good-miller", 3, 1)]
IDS = [
    "davis: 'twice during every round' ... 'take the discarded card ... also draw two cards'",
    "good-miller: 'a maximum of 3 times during each round' ... 'one penalty card'",
]
"""marcelle's claims have no limit: test_seed_sentences.py, test_anyone_can_claim_the_top_of_the_discard_pile."""


def four(name: str):
    return stacked_game(name, ["", "", "", ""], up="KC")


def first_discard(game) -> None:
    """Seat 0 draws and discards; seat 1 is about to draw and seats 2, 3 may claim."""
    discard_turn(game, 0, hand_text(game, 0)[0])
    assert game.turn == 1 and game.window.order == (2, 3)


def next_turn(game) -> None:
    """The seat to play ends its turn quietly (drawing first if it has not)."""
    if game.phase is Phase.DRAW:
        draw(game)
    play(game, game.turn, f"discard {hand_text(game, game.turn)[0]}")


def until_claimable(game, seat: int) -> None:
    while game.window is None or seat not in game.window.undecided():
        next_turn(game)


@pytest.mark.parametrize("name, limit, penalty", CLAIMS, ids=IDS)
def test_claims_per_round_and_penalty_cards(name, limit, penalty):
    """davis: 'if you MAY I twice in the round, you will have 17 cards in hand'; good-miller: '11 cards -
    no calls. 13 cards - 1 call. 15 cards - 2 calls. 17 cards - 3 calls. The player may not call again.'"""
    game = four(name)
    dealt = len(game.hands[3])
    for k in range(1, limit + 1):
        until_claimable(game, 3)
        card = game.discard[-1]
        game.apply(MayI(3))
        events = draw(game)
        assert Claimed(3, card, penalty) in events
        assert card in game.hand(3) and len(game.hands[3]) == dealt + k * (1 + penalty)
        assert game.claims_left[3] == limit - k
        assert game.phase is Phase.PLAY and game.turn != 3 and not list(game.legal_moves(3))  # no discard
    next_turn(game)
    while game.turn == 3 or game.discarder == 3:
        next_turn(game)
    assert MayI(3) not in list(game.legal_moves(3))
    with pytest.raises(IllegalMoveError, match="no claims left"):
        game.apply(MayI(3))


@pytest.mark.parametrize("name", ["davis", "good-miller", "marcelle"])
def test_the_player_about_to_draw_has_first_right(name):
    """davis: 'the person who is to draw must agree that they do not want to pick up the discarded card
    themselves rather than draw -- they have first right.'"""
    game = four(name)
    first_discard(game)
    card = game.discard[-1]
    game.apply(MayI(3))
    game.apply(TakeDiscard(1))
    assert card in game.hand(1) and card not in game.hand(3)
    assert game.claims_left[3] == game.rules.claims_per_round and len(game.hands[3]) == len(game.hands[2])


@pytest.mark.parametrize("name", ["davis", "good-miller", "marcelle"])
def test_priority_by_seat_order_not_by_who_called_first(name):
    """davis: 'any person between you and the person who's turn it is also has first right ... They do
    not have to call out MAY I before you do'; good-miller: 'If several people call the discard in this
    manner it goes to the earliest in turn to play after the person who is about to draw' and 'Only one
    call may occur after each discard.'"""
    game = four(name)
    first_discard(game)
    card = game.discard[-1]
    game.apply(MayI(3))
    draw_events = game.apply(DrawStock(1))
    assert draw_events == [] or not any(isinstance(e, Claimed) for e in draw_events)
    assert game.phase is Phase.DRAW and game.to_move() == [2]  # seat 2 still decides
    events = game.apply(MayI(2))
    assert [e for e in events if isinstance(e, Claimed)] == [Claimed(2, card, game.rules.claim_penalty)]
    assert game.claims_left[3] == game.rules.claims_per_round  # seat 3's call cost nothing
    assert card not in game.hand(3)


@pytest.mark.parametrize("name", ["davis", "good-miller"])
def test_a_later_seat_gets_the_card_when_the_earlier_lets_it_go(name):
    game = four(name)
    first_discard(game)
    card = game.discard[-1]
    game.apply(MayI(3))
    events = draw(game)  # seat 1 draws from the stock, seat 2 passes
    assert Claimed(3, card, game.rules.claim_penalty) in events


def test_davis_no_claims_left_cannot_block():
    """davis: 'If they have already done the MAY I twice then of course they can not do it again, so they
    can no longer keep you from the card.'"""
    game = four("davis")
    for _ in range(2):
        until_claimable(game, 2)
        game.apply(MayI(2))
        draw(game)
    until_claimable(game, 3)
    while game.turn != 1:  # seat 2 sits between the drawer (seat 1) and seat 3
        next_turn(game)
        until_claimable(game, 3)
    assert game.claims_left[2] == 0 and 2 not in game.window.order
    assert not view_of(game, 2).may_claim
    card = game.discard[-1]
    game.apply(MayI(3))
    events = game.apply(DrawStock(1))
    assert Claimed(3, card, 2) in events  # settled at once: seat 2 is not asked


def test_the_discarder_and_the_drawer_cannot_claim():
    game = four("davis")
    first_discard(game)
    for seat, why in ((0, "may not claim"), (1, "your turn")):
        with pytest.raises(IllegalMoveError, match=why):
            game.apply(MayI(seat))


# -- reopen_after_claim at its edges (docs/protocol.md 11.4, "A reopened window, at its edges") --

def test_a_claim_that_empties_the_pile_reopens_nothing_and_the_stock_draw_stands():
    """davis: the upturned card, the pile's only card, is claimed: nothing is uncovered, so the
    drawer's draw_stock stands (penalty cards, then the drawer's card) and the drawer plays."""
    game = four("davis")
    assert game.turn == 0 and len(game.discard) == 1
    before = [len(game.hand(s)) for s in range(4)]
    game.apply(MayI(1))
    game.apply(DrawStock(0))
    assert game.discard == [] and game.window is None and game.phase is Phase.PLAY
    assert [len(game.hand(s)) - n for s, n in enumerate(before)] == [1, 3, 0, 0]


def test_a_reopened_window_nobody_may_claim_lets_the_drawer_choose_again():
    """davis with one claim a seat: seat 0 claims B, seat 1 then claims the A it uncovered; the
    KC uncovered next has nobody who may claim it, so no window opens, the drawer's draw_stock
    no longer counts and the drawer chooses again, the stock now drawing at once."""
    from scenario import contract_rules
    game = stacked_game(contract_rules("davis", "2s,2s", claims_per_round=1), ["", "", ""],
                        up="KC")
    draw(game)
    play(game, 0, "discard " + hand_text(game, 0)[0])
    draw(game)
    play(game, 1, "discard " + hand_text(game, 1)[0])
    game.apply(MayI(0))
    game.apply(DrawStock(2))
    assert game.window.order == (1,)
    game.apply(MayI(1))
    drawer = len(game.hand(2))
    game.apply(DrawStock(2))
    assert game.claims_left == [0, 0, 1] and game.window is None and game.phase is Phase.DRAW
    assert str(game.discard[-1]) == "KC" and len(game.hand(2)) == drawer
    assert {type(m) for m in game.legal_moves(2)} == {DrawStock, TakeDiscard}
    assert not list(game.legal_moves(0)) and not list(game.legal_moves(1))
    game.apply(DrawStock(2))
    assert game.phase is Phase.PLAY and len(game.hand(2)) == drawer + 1
