"""Bots: the basic bot's habits, and the random bot staying within the legal moves."""

from __future__ import annotations

import random

import pytest

from shanghai_net.bots import BasicBot, RandomBot, make_bot
from shanghai_net.engine import Discard, Game, GoDown, LayOff, LocalDealer, MayI, PassClaim, view_of
from shanghai_net.rules import preset

from scenario import discard_turn, draw, hand_text, stacked_game

PRESETS = ["davis", "good-miller", "marcelle"]


def choice(game: Game, seat: int, bot=None):
    bot = bot or BasicBot(random.Random(0))
    return bot.choose(view_of(game, seat), list(game.legal_moves(seat)))


@pytest.mark.parametrize("name", PRESETS)
def test_basic_goes_down_as_soon_as_it_can_then_lays_off(name):
    game = stacked_game(name, ["7H 7S 7D 8C 8D 8S", "", "", ""], up="KC", stock="5H 4C 4D 4S 7C")
    draw(game)
    chosen = choice(game, 0)
    assert isinstance(chosen, GoDown)
    while game.turn == 0:
        game.apply(choice(game, 0))
    for seat in (1, 2, 3):
        discard_turn(game, seat, hand_text(game, seat)[0])
    draw(game)
    assert choice(game, 0) == LayOff(0, game.hand(0)[-1], 0, None)  # the 7♣ goes on the sevens


@pytest.mark.parametrize("name", PRESETS)
def test_basic_claims_a_discard_that_completes_a_contract_meld(name):
    game = stacked_game(name, ["7D", "", "", "7H 7S"], up="KC")
    discard_turn(game, 0, "7D")
    assert game.window and 3 in game.window.undecided()
    assert isinstance(choice(game, 3), MayI)
    assert isinstance(choice(game, 2), PassClaim)  # seat 2 holds no sevens


@pytest.mark.parametrize("name", PRESETS)
def test_basic_keeps_its_wild_cards(name):
    game = stacked_game(name, ["JK", "", "", ""], up="KC")
    draw(game)
    chosen = choice(game, 0)
    assert isinstance(chosen, Discard) and not game.rules.is_wild(chosen.card)


@pytest.mark.parametrize("name", PRESETS)
def test_bots_choose_legal_moves_and_basic_never_wastes_a_wild(name):
    """The random bot is uniform over the legal moves; the basic bot discards a wild only when every
    card it may discard is wild."""
    game = Game(preset(name), 4, LocalDealer(9))
    rng = random.Random(9)
    bots = [BasicBot(rng), RandomBot(rng), BasicBot(rng), make_bot("random", rng)]
    for _ in range(400):
        if not game.to_move():
            break
        seat = game.to_move()[0]
        legal = list(game.legal_moves(seat))
        chosen = bots[seat].choose(view_of(game, seat), legal)
        assert chosen in legal
        if isinstance(bots[seat], BasicBot) and isinstance(chosen, Discard) and game.rules.is_wild(chosen.card):
            assert all(game.rules.is_wild(m.card) for m in legal if isinstance(m, Discard))
        game.apply(chosen)


def test_random_bot_is_uniform_over_the_moves():
    game = stacked_game("davis", ["", "", "", ""], up="KC")
    draw(game)
    legal = list(game.legal_moves(0))
    bot = RandomBot(random.Random(1))
    picked = {bot.choose(view_of(game, 0), legal) for _ in range(400)}
    assert picked == set(legal)


def test_unknown_bot_is_refused():
    with pytest.raises(ValueError, match="'clever'"):
        make_bot("clever", random.Random(0))
