"""The levels a family picks (easy, basic, expert): every move legal in whole seeded games of each
preset, the same game for the same seed, the expert deciding only from what its seat may know,
and the expert's habits in stacked positions, each with its reason."""

from __future__ import annotations

import dataclasses
import random

import pytest

from shanghai_net.bots import ExpertBot, LEVELS, choose, make_bot
from shanghai_net.engine import Discard, DrawStock, Game, LocalDealer, MayI, PassClaim, new_game, view_of
from shanghai_net.engine.events import Words
from shanghai_net.rules import PRESETS, preset
from shanghai_net.session import redact

from scenario import discard_turn, draw, play, stacked_game


def play_through(rules, levels, seed, redacted=False, rounds=None):
    """A game between ``levels`` (one a seat), each move checked legal before it is played; the
    moves.  ``redacted``: each bot follows the log as its seat's replica has it (another seat's
    draws without their faces), as over the network."""
    rng = random.Random(seed)
    bots = [make_bot(level, random.Random(rng.random())) for level in levels]
    game = new_game(rules, len(levels), LocalDealer(seed))
    moves = []
    while game.to_move() and (rounds is None or game.round_no <= rounds):
        seat = game.to_move()[0]
        log = [redact(e, seat) for e in game.log] if redacted else game.log
        move = choose(bots[seat], view_of(game, seat), game.legal_moves(seat), log)
        assert game.is_legal(move), (seat, move)
        moves.append(move)
        game.apply(move)
    return moves


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("seed", [1, 2])
def test_every_level_plays_only_legal_moves(name, seed):
    play_through(preset(name), ["expert", "easy", "basic", "expert"], seed, rounds=3)


def test_a_whole_game_of_experts_ends_and_replays_for_its_seed():
    rules = preset("good-miller")
    first = play_through(rules, ["expert"] * 3, 5)
    assert first == play_through(rules, ["expert"] * 3, 5)


@pytest.mark.parametrize("name", ["davis", "marcelle"])
def test_the_expert_plays_the_same_from_the_log_its_replica_keeps(name):
    """Simulation hands the bot the whole log, a networked replica one without other seats'
    draws: the expert reads no face it may not see, so it makes the same moves."""
    rules = preset(name)
    assert play_through(rules, ["expert"] * 4, 3, rounds=2) == \
        play_through(rules, ["expert"] * 4, 3, redacted=True, rounds=2)


WORDS = Words(("ann", "bob", "cy", "di"), lambda card: card.text(unicode=True))


def decide(game: Game, seat: int, moves=None, view=None):
    """The expert's decision for ``seat`` now (among ``moves``, by default the legal ones)."""
    bot = ExpertBot(random.Random(0))
    bot.follow(game.log)
    return bot.decide(view or view_of(game, seat), moves or list(game.legal_moves(seat)), WORDS)


def test_the_expert_keeps_a_card_the_next_seat_collects_and_says_so():
    """bob (next) took two nines from the pile: between two lone ten-point cards the expert
    throws the king, not the 9♣ that would feed him, and the reason names him."""
    game = stacked_game("davis", ["9S 9D 9C KC", "", "", ""], up="2D", stock="QH 3S 5S QS 3H 5H 4D")
    for card in ("9S", "9D"):
        draw(game)
        play(game, 0, f"discard {card}")
        play(game, 1, "take", f"discard {game.hand(1)[0]}")
        for seat in (2, 3):
            discard_turn(game, seat, str(game.hand(seat)[0]))
    draw(game)
    nine, king = (next(c for c in game.hand(0) if str(c) == face) for face in ("9C", "KC"))
    decision = decide(game, 0, [Discard(0, nine), Discard(0, king)])
    assert decision.move == Discard(0, king)
    assert decision.reason == "discard K♣, not 9♣: bob (next) took 9♠ 9♦"


def claim_window(name="davis"):
    """Seat 0 throws the 7♦, seat 1 draws from the stock: seat 3, holding two sevens, may claim."""
    game = stacked_game(name, ["7D", "", "", "7H 7S"], up="KC")
    discard_turn(game, 0, "7D")
    game.apply(DrawStock(1))
    return game


def test_the_expert_claims_a_card_worth_its_penalty_when_nobody_is_close():
    decision = decide(claim_window(), 3)
    assert isinstance(decision.move, MayI)
    assert decision.reason == "MAY I: 7♦ with 7♥ 7♠ it makes a book, worth 2 penalty card(s)"


def test_the_expert_lets_the_card_go_when_someone_may_go_out_with_its_penalty_cards_in_hand():
    game = claim_window()
    view = dataclasses.replace(view_of(game, 3), down=(False, False, True, False),
                               hand_sizes=(11, 12, 1, 11))
    decision = decide(game, 3, view=view)
    assert isinstance(decision.move, PassClaim) and "close to going out" in decision.reason


def test_levels_are_named():
    assert LEVELS == ("easy", "basic", "expert")
    with pytest.raises(ValueError, match="no bot 'wizard'"):
        make_bot("wizard", random.Random(0))
