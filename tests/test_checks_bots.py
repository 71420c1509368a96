"""A bot's order of discards (issue 40): wild cards last, at every level, before and after the
bot went down (when it dumps its dearest cards, a wild card is the dearest); and a two where
twos are not wild weighed as any natural card.  Each ordering broken by hand passed the suite."""

from __future__ import annotations

import random

import pytest

from shanghai_net.bots import make_bot
from shanghai_net.bots.basic import discard_cost
from shanghai_net.bots.expert import _close
from shanghai_net.cards import parse_cards
from shanghai_net.engine import Discard, view_of
from shanghai_net.rules import preset

from scenario import discard_turn, draw, hand_text, play, stacked_game

LEVELS = ["easy", "basic", "expert"]


def discards_chosen(game, level: str, seeds=range(6)) -> set[str]:
    """The cards seat 0 discards at ``level``, over a few seeds, offered only its discards."""
    moves = [m for m in game.legal_moves(0) if isinstance(m, Discard)]
    return {make_bot(level, random.Random(seed)).choose(view_of(game, 0), moves).card.text()
            for seed in seeds}


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_not_down_discards_its_wild_cards_last(level):
    """marcelle: twos and jokers are wild; a hand of pairs, two jokers, two wild twos and loose
    cards throws a loose natural card."""
    game = stacked_game("marcelle", ["2C 2D JK JK 9H 9S QD 4S KH 8S 5H 7D", "", "", ""],
                        up="KC", stock="3C")
    draw(game)
    chosen = discards_chosen(game, level)
    assert chosen and not chosen & {"2C", "2D", "JK"}, chosen


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_that_went_down_dumps_its_dearest_natural_card_never_a_wild_one(level):
    """Once down, a bot throws its dearest cards first (they count against it if another goes
    out); a wild two (20 points) or a joker (50) is dearer than any natural card, and stays."""
    game = stacked_game("marcelle", ["9H 9S 9D QD QS QC 2C JK 4S 7D KH 3D", "", "", ""],
                        up="5C", stock="6C")
    draw(game)
    play(game, 0, "down 9H 9S 9D / QD QS QC", "discard 3D")
    for seat in (1, 2, 3):
        discard_turn(game, seat, hand_text(game, seat)[0])
    draw(game)
    assert {"2C", "JK", "KH"} <= set(hand_text(game, 0)) and game.down[0]
    chosen = discards_chosen(game, level)
    assert chosen and not chosen & {"2C", "JK"}, chosen


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_down_keeps_a_joker_it_could_throw_declaring_shanghai(level):
    """davis: a joker that plays on a meld on the table may be thrown declaring SHANGHAI, so
    it feeds no one; it is still the last card to go (50 points against the 10 of the K♥)."""
    game = stacked_game("davis", ["9H 9S 9D QD QS QC JK 4S 7D KH 3D", "", "", ""], up="5C",
                        stock="6C")
    draw(game)
    play(game, 0, "down 9H 9S 9D / QD QS QC", "discard 3D")
    for seat in (1, 2, 3):
        discard_turn(game, seat, hand_text(game, seat)[0])
    draw(game)
    assert any(m.card.is_joker and m.shanghai for m in game.legal_moves(0)
               if isinstance(m, Discard))
    chosen = discards_chosen(game, level)
    assert chosen and "JK" not in chosen, chosen


def test_the_expert_plays_out_a_wild_card_only_where_nothing_else_may_go():
    """The discards the expert's search plays out are the cheapest of one kind: a wild card
    weighed as cheap as a natural one is not among them, nor a natural beside only wilds."""
    nine, joker, two = (Discard(0, c, False) for c in parse_cards("9H JK 2C"))
    costs = [((False, 1.0, 0.1), nine), ((True, 0.5, 0.2), joker), ((True, 1.2, 0.3), two)]
    assert _close(costs, 5.0, 3) == [nine]
    assert _close(costs[1:], 5.0, 3) == [joker, two]


@pytest.mark.parametrize("level", ["basic", "expert"])
def test_in_a_phase_of_one_suit_a_bot_keeps_the_suit_s_cards_it_could_spare(level):
    """A phase of seven cards of one suit; the hand holds eight hearts, so a heart could go
    without costing the phase: the bot still throws the queen of clubs (a heart is worth more
    to it, the more hearts it holds).  A `make mutate` survivor counted the suit against the
    card (issue 40)."""
    rules = preset("phase10").override("phases=suit7")
    game = stacked_game(rules, ["2H 5H 7H 9H KH AH 3H 8H QC 4S", "", "", ""], up="KC",
                        stock="6D")
    draw(game)
    assert discards_chosen(game, level) == {"QC"}


def test_a_two_where_twos_are_not_wild_is_weighed_as_any_natural_card():
    """davis: twos are natural; a lone 2♣ among pairs is the least useful card, first to go."""
    game = stacked_game("davis", ["2C 9H 9S QD QS KH KS 5H 5S 7D 7S", "", "", ""], up="KC",
                        stock="9D")
    draw(game)
    hand = list(game.hand(0))
    order = sorted(hand, key=discard_cost(view_of(game, 0), hand, random.Random(0).random))
    assert order[0].text() == "2C", [c.text() for c in order]
    assert discards_chosen(game, "basic") == {"2C"}
