"""The expert's carousel play in chosen positions: it holds a card back for its next turn, goes
out when it can, and plays the most cards when another seat is close to going out."""

from __future__ import annotations

import random

from shanghai_net.bots import ExpertBot
from shanghai_net.engine import Rearrange, view_of
from shanghai_net.engine.events import Words

from test_carousel_scenario import carousel_game

WORDS = Words(("ann", "bob", "cy", "di"), lambda card: card.text(unicode=True))


def decide(game, seat=0):
    bot = ExpertBot(random.Random(0))
    bot.follow(game.log)
    moves = list(game.legal_moves(seat))
    decision = bot.decide(view_of(game, seat), moves, WORDS)
    assert game.is_legal(decision.move)
    return decision


def played(decision) -> set[str]:
    assert isinstance(decision.move, Rearrange)
    return {str(c) for c in decision.move.played}


def test_the_expert_holds_a_card_that_still_plays_next_turn():
    game = carousel_game(["5H 6H 7H 8H", "", "", ""])
    decision = decide(game)
    assert played(decision) == {"5H", "6H", "7H"}
    assert "hold 8♥" in decision.reason


def test_the_expert_plays_the_most_cards_when_the_next_seat_is_close_to_going_out():
    game = carousel_game(["5H 6H 7H 8H", "", "", ""])
    game.hands[1] = game.hands[1][:2]
    decision = decide(game)
    assert played(decision) == {"5H", "6H", "7H", "8H"}
    assert "close to going out" in decision.reason
