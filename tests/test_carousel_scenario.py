"""Carousel games in a chosen position (the contract scenarios' dealer, carousel's deal), and its tests.

``carousel_game(["7H 8H", "KS"], stock="9H", table=["3C 4C 5C"])`` deals seat 0 the cards named
first (the rest of each hand is filler), has the stock give ``stock`` first and puts ``table``
on the table as melds; the table's cards come off the bottom of the stock, so every card of the
two decks is still in exactly one place.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from shanghai_net.cards import Card, deck, parse_melds
from shanghai_net.engine import CarouselGame
from shanghai_net.engine.carousel import deal_batches
from shanghai_net.rules import arrange, preset

from scenario import StackedDealer, _filler

RULES = preset("carousel")


def carousel_layout(hands: Sequence[str], stock: str = "", table: Sequence[str] = (), dealer: int | None = None,
                    seed: int = 0, rules=RULES) -> tuple[list[Card], list[list[Card]]]:
    """The deck order that deals ``hands`` in batches, then ``stock``, the table's cards at the bottom."""
    players = len(hands)
    dealer = players - 1 if dealer is None else dealer
    groups = parse_melds(" / ".join([*hands, stock, *table]))
    named = {c for g in groups for c in g}
    rest = [c for c in deck(rules.decks, rules.jokers) if c not in named]
    random.Random(seed).shuffle(rest)
    full = []
    for seat in range(players):
        hand = list(groups[seat])
        while len(hand) < rules.hand_size:
            hand.append(rest.pop(_filler(rules, hand, rest)))
        full.append(hand)
    order, dealt = [], [0] * players
    for batch in deal_batches(rules.hand_size):
        for k in range(players):
            seat = (dealer + 1 + k) % players
            order += full[seat][dealt[seat]:dealt[seat] + batch]
            dealt[seat] += batch
    melds = groups[players + 1:]
    return order + groups[players] + rest + [c for m in reversed(melds) for c in reversed(m)], melds


def carousel_game(hands: Sequence[str], stock: str = "", table: Sequence[str] = (), dealer: int | None = None,
                  viewer: int | None = None, only_stock: bool = False, seed: int = 0, rules=RULES) -> CarouselGame:
    """A carousel game in this position; ``only_stock``: the stock holds just ``stock`` (the rest is gone)."""
    players = len(hands)
    dealer = players - 1 if dealer is None else dealer
    order, melds = carousel_layout(hands, stock, table, dealer, seed, rules)
    game = CarouselGame(rules, players, StackedDealer({1: order}, dealer, seed=seed), viewer)
    on_table = sum(len(m) for m in melds)
    game.stock = game.stock[on_table:]
    game.table = [arrange(rules, m) for m in melds]
    game.meld_owner = [0] * len(melds)
    if only_stock:
        game.stock = game.stock[len(game.stock) - len(stock.split()):] if stock.split() else []
    return game


def everything(game: CarouselGame) -> list[Card]:
    """Every card this game holds: hands, table and stock (a game that knows every face)."""
    hands = [game.faces[t] for hand in game.hands for t in hand]
    return hands + game.table_cards() + [game.faces[t] for t in game.stock]


def test_the_position_is_dealt_as_named():
    game = carousel_game(["7H 8H", "KS KD", ""], stock="9H 2C", table=["3C 4C 5C", "JS JD JH"], dealer=1)
    assert {"7H", "8H"} <= {str(c) for c in game.hand(0)}
    assert {"KS", "KD"} <= {str(c) for c in game.hand(1)}
    assert [str(game.faces[t]) for t in game.stock[-2:]] == ["2C", "9H"]  # 9H on top
    assert [m.text() for m in game.table] == ["3C 4C 5C", "JD JH JS"]
    cards = everything(game)
    assert len(cards) == len(set(cards)) == 104


def test_only_stock_leaves_just_the_named_cards():
    game = carousel_game(["", "", ""], stock="9H 2C", only_stock=True)
    assert [str(game.faces[t]) for t in game.stock] == ["2C", "9H"]
