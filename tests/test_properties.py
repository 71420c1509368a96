"""Hypothesis properties over random games of every contract preset and table size.

Every physical card is in exactly one place at all times; every move of ``legal_moves`` is accepted by
``apply``; random moves outside it are refused with IllegalMoveError and leave the state unchanged; a
game always ends.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_net.bots import BasicBot, RandomBot
from shanghai_net.cards import Card, deck
from shanghai_net.engine import (
    BuyJoker, CallShanghai, Discard, DrawStock, Game, GoDown, LayOff, LocalDealer, MayI, PassClaim, Phase,
    SwapJoker, TakeDiscard,
)
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules import End, preset
from shanghai_net.simulate import play_game

from scenario import faces_only

PRESETS = ["davis", "good-miller", "marcelle"]
STEPS = 200
PROPERTY = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def where_cards_are(game: Game) -> Counter:
    """Every card the game holds: stock (by the faces of its tokens), hands, table, discard pile."""
    places = [game.faces[t] for t in game.stock]
    places += [game.faces[t] for hand in game.hands for t in hand]
    places += [c for meld in game.table for c in meld.cards]
    places += game.discard
    return Counter(places)


def snapshot(game: Game) -> dict:
    """The game's state as plain values (cards, melds and tokens are immutable: shallow copies do)."""
    state = {}
    for key, value in game.__dict__.items():
        if key in ("dealer", "rules"):
            continue
        if key == "window" and value is not None:
            value = (value.card, value.order, frozenset(value.claimed), frozenset(value.passed), value.declined)
        elif isinstance(value, list):
            value = (len(value), tuple(tuple(v) if isinstance(v, list) else v for v in value[-3:])) \
                if key in ("log", "_events", "results", "_pending", "_requests") \
                else tuple(tuple(v) if isinstance(v, list) else v for v in value)
        elif isinstance(value, (set, dict)):
            value = copy.copy(value)
        state[key] = value
    state["rng"] = game.dealer.rng.getstate()
    return state


def same_move(move, legal: list) -> bool:
    """Whether a legal move does what ``move`` does (equal copies, meld order and a free end aside)."""
    if isinstance(move, GoDown):
        key = sorted(tuple(sorted(faces_only(m))) for m in move.melds)
        return any(isinstance(m, GoDown) and m.seat == move.seat
                   and sorted(tuple(sorted(faces_only(x))) for x in m.melds) == key for m in legal)
    if isinstance(move, (LayOff, CallShanghai)) and move.end is None:
        return any(faces_only(dataclasses.replace(m, end=None)) == faces_only(move)
                   for m in legal if type(m) is type(move))
    return faces_only(move) in {faces_only(m) for m in legal}


def random_move(rng: random.Random, game: Game, cards: list[Card], legal: list):
    """A move of any kind, by any seat, with random cards, melds, ends: mostly illegal."""
    seat = rng.choice([*range(game.players), rng.randrange(-1, game.players + 2)])
    hand = game.hand(seat) if 0 <= seat < game.players else []

    def card():
        return rng.choice(hand) if hand and rng.random() < 0.7 else rng.choice(cards)

    meld = rng.randrange(-1, len(game.table) + 2)
    end = rng.choice([None, End.LOW, End.HIGH])
    kind = rng.randrange(11)
    if kind == 0:
        return rng.choice([DrawStock, TakeDiscard, MayI, PassClaim])(seat)
    if kind == 1:
        return CallShanghai(seat, meld, end)
    if kind in (2, 3):
        downs = [m for m in legal if isinstance(m, GoDown)]
        if downs and kind == 2:  # a legal go-down with one meld shuffled or one card swapped
            melds = [list(m) for m in rng.choice(downs).melds]
            target = rng.choice(melds)
            if rng.random() < 0.5:
                rng.shuffle(target)
            else:
                target[rng.randrange(len(target))] = card()
            return GoDown(downs[0].seat, tuple(tuple(m) for m in melds))
        return GoDown(seat, tuple(tuple(card() for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 3))))
    if kind in (4, 5):
        return LayOff(seat, card(), meld, end)
    if kind == 6:
        return SwapJoker(seat, meld, rng.choice(cards), card(), card(), end)
    if kind == 7:
        return BuyJoker(seat, meld, rng.choice(cards), card())
    return Discard(seat, card(), rng.random() < 0.3)


def check_random_move(rng: random.Random, game: Game, cards: list[Card]) -> None:
    seat = rng.choice(game.to_move() or [0])
    legal = list(game.legal_moves(seat))
    move = random_move(rng, game, cards, legal)
    mover_legal = list(game.legal_moves(move.seat)) if 0 <= move.seat < game.players else []
    before = snapshot(game)
    try:
        game.apply(move)
    except IllegalMoveError:
        assert snapshot(game) == before, f"refused {move} changed the state"
        assert move not in mover_legal, f"legal move {move} was refused"
        return
    assert same_move(move, mover_legal), f"{move} was accepted but is not among the legal moves"


@pytest.mark.parametrize("name", PRESETS)
@PROPERTY
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), rule_breaking=st.floats(0.2, 0.6))
def test_random_play_keeps_every_rule(name, data, seed, rule_breaking):
    rules = preset(name)
    players = data.draw(st.integers(rules.min_players, rules.max_players), label="players")
    game = Game(rules, players, LocalDealer(seed))
    rng = random.Random(seed)
    cards = deck(*rules.deck_size(players))
    everything = Counter(cards)
    assert where_cards_are(game) == everything
    for _ in range(STEPS):
        if game.phase is Phase.OVER:
            break
        if rng.random() < rule_breaking:
            check_random_move(rng, game, cards)
        else:
            seat = rng.choice(game.to_move())
            legal = list(game.legal_moves(seat))
            assert legal, f"seat {seat} is to move but has no legal move"
            game.apply(rng.choice(legal))  # IllegalMoveError here fails the property
        assert where_cards_are(game) == everything
        assert not game.waiting


GAMES = [(name, players, seed) for name, players in [("davis", 4), ("good-miller", 5), ("marcelle", 7)] for seed in (1, 2)]


@pytest.mark.parametrize("name, players, seed", GAMES)
def test_a_game_always_ends(name, players, seed):
    """Whole games between random and basic bots reach their result after 7 rounds."""
    rng = random.Random(seed)
    bots = [(RandomBot if s % 2 else BasicBot)(random.Random(rng.random())) for s in range(players)]
    game = play_game(preset(name), bots, seed, max_moves=50_000)
    assert game.phase is Phase.OVER and game.result is not None
    assert len(game.result.rounds) == 7 and game.round_no == 7


def test_a_progression_game_ends_when_someone_completes_every_contract():
    """davis (Phase 10): 'the winner is the first person to complete *all* phases or rounds'; at most
    '((n - 1) * p) + 1' hands."""
    rules = preset("davis").override(progression=True)
    game = play_game(rules, [BasicBot(random.Random(s)) for s in range(3)], 4, max_moves=100_000)
    limit = (rules.rounds - 1) * 3 + 1
    assert game.phase is Phase.OVER and game.round_no <= limit
    assert max(game.progress) == rules.rounds or game.round_no == limit
    best = max(game.progress)
    assert all(game.progress[s] == best for s in game.result.winners)


@PROPERTY
@given(seed=st.integers(0, 2**32 - 1), turn_over=st.booleans())
def test_a_round_ends_stuck_only_when_the_pile_has_nothing_left_to_turn_over(seed, turn_over):
    """Seed 000's pile "is turned over to form the 'draw from' pile" while it holds a card; seed 002's
    keeps its top card.  Claims without a limit and five penalty cards each run the stock dry often;
    whenever a round ends stuck, the pile had nothing more to give, and no card was lost."""
    rules = preset("davis").override(contracts=((1, 0),), claims_per_round=None, claim_penalty=5,
                                     turn_pile_over=turn_over, max_turns=300)
    rng = random.Random(seed)
    game = play_game(rules, [RandomBot(random.Random(rng.random())) for _ in range(4)], seed)
    (result,) = game.result.rounds
    assert sum(where_cards_are(game).values()) == 108
    if result.ended == "stuck":
        assert len(game.discard) <= (0 if turn_over else 1) and not game.stock
