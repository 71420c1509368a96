"""Whole games: the deal, the rotation of the deal, 7 rounds, scoring and money, the result."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from shanghai_net.bots import BasicBot, RandomBot
from shanghai_net.cards import deck
from shanghai_net.engine import Game, JokerBought, LocalDealer, Phase, RoundStarted
from shanghai_net.rules import penalty, preset

from scenario import run_bots

PRESETS = ["davis", "good-miller", "marcelle"]


def watched_game(name: str, players: int = 4, seed: int = 1) -> tuple[Game, list[dict]]:
    """A whole game of basic bots, with each round's state as dealt."""
    game = Game(preset(name), players, LocalDealer(seed))
    dealt: list[dict] = []

    def after(g: Game) -> None:
        if g.phase is Phase.DRAW and g.round_no > len(dealt) and not any(g.down):
            dealt.append({"round": g.round_no, "dealer": g.dealer_seat, "turn": g.turn,
                          "sizes": [len(h) for h in g.hands], "discard": len(g.discard)})

    after(game)
    bots = [BasicBot(random.Random(seed * 10 + s)) for s in range(players)]
    return run_bots(game, bots, after=after), dealt


@pytest.fixture(scope="module", params=PRESETS)
def whole_game(request):
    return request.param, *watched_game(request.param)


@pytest.mark.parametrize("name, players", [(n, p) for n in PRESETS for p in (3, 6)] + [("marcelle", 5), ("marcelle", 8)])
def test_the_deal_is_clockwise_one_card_at_a_time(name, players):
    """good-miller: 'The deal itself is also clockwise, one card at a time. Each players receive 11
    cards. The remaining cards are placed face down ... the top card of which is turned face up and
    placed alongside to start the discard pile.' davis: 'The player to dealer's left' starts."""
    dealer = LocalDealer(players)
    game = Game(preset(name), players, dealer)
    order = dealer.decks[0]
    size = preset(name).deal_size(1)
    first = (game.dealer_seat + 1) % players
    for k in range(players):
        seat = (first + k) % players
        assert game.hand(seat) == order[k : size * players : players]
    assert game.discard == [order[size * players]]
    assert len(game.stock) == len(order) - size * players - 1
    assert game.turn == first and game.phase is Phase.DRAW
    in_play = Counter(game.discard + [c for s in range(players) for c in game.hand(s)]
                      + [game.faces[t] for t in game.stock])
    assert in_play == Counter(deck(*preset(name).deck_size(players)))


def test_first_dealer_is_random():
    """good-miller: 'The dealer for the first round is chosen randomly'."""
    seen = {Game(preset("davis"), 4, LocalDealer(seed)).dealer_seat for seed in range(40)}
    assert seen == {0, 1, 2, 3}


def test_seven_rounds_dealt_in_rotation(whole_game):
    """good-miller: 'There are seven rounds. ... thereafter the turn to deal rotates clockwise.'
    good-miller: 'The player to dealer's left takes the first turn.' marcelle: 'DEAL – 12 cards',
    'DEAL 13 CARDS FOR THIS HAND' in the seventh; davis and good-miller deal 11 every round."""
    name, game, dealt = whole_game
    rules = preset(name)
    assert [d["round"] for d in dealt] == list(range(1, 8)) and game.round_no == 7
    first = dealt[0]["dealer"]
    for d in dealt:
        r = d["round"]
        assert d["dealer"] == (first + r - 1) % game.players
        assert d["turn"] == (d["dealer"] + 1) % game.players
        assert d["sizes"] == [rules.deal_size(r)] * game.players and d["discard"] == 1
    started = [e for e in game.log if isinstance(e, RoundStarted)]
    assert [e.dealer for e in started] == [d["dealer"] for d in dealt]


def test_round_scores_and_the_result(whole_game):
    """davis: 'The object of the game is to come in with the lowest score' - the others 'add up the
    points of the cards still held in their hand'; good-miller: the winner '-10'; marcelle:
    'Loosers put a penny in for each card left in their hand. The winner takes the nickles, pennies,
    pot.' and the game's result is the money (most wins)."""
    name, game, _ = whole_game
    rules = preset(name)
    result = game.result
    assert result is not None and len(result.rounds) == 7
    if rules.money:
        check_money(game)
        best = max(result.totals)
    else:
        for r in result.rounds:
            for seat, hand in enumerate(r.hands):
                want = rules.winner_bonus if seat == r.winner else penalty(rules, hand)
                assert r.points[seat] == want
            if r.winner is not None:
                assert r.hands[r.winner] == ()
        assert list(result.totals) == [sum(r.points[s] for r in result.rounds) for s in range(game.players)]
        best = min(result.totals)
    assert set(result.winners) == {s for s in range(game.players) if result.totals[s] == best}
    assert result.ranking[0] in result.winners and sorted(result.ranking) == list(range(game.players))
    order = [result.totals[s] for s in result.ranking]
    assert order == sorted(order, reverse=bool(rules.money))


def check_money(game: Game) -> None:
    """marcelle: 'Everyone puts a nickle in the pot' each hand; losers a penny a card; the winner
    takes the pot; a bought joker pays its owner a nickel. Money is neither made nor lost."""
    rules = game.rules
    net = Counter()  # each seat's money, from the rules alone
    for event in game.log:
        if isinstance(event, JokerBought):
            net[event.seat] -= event.price
            net[event.paid_to] += event.price
    pot = 0
    for r in game.result.rounds:
        pennies = [0 if s == r.winner else rules.penny_per_card * len(h) for s, h in enumerate(r.hands)]
        pot += rules.ante * game.players + sum(pennies)
        for seat in range(game.players):
            won = pot if seat == r.winner else 0
            assert r.points[seat] == won - pennies[seat], (r, seat)  # what the end of the hand moved
            net[seat] += won - pennies[seat] - rules.ante
        if r.winner is not None:
            pot = 0
    assert game.pot == pot
    assert list(game.result.totals) == [rules.stake + net[s] for s in range(game.players)]
    assert sum(game.money) + game.pot == rules.stake * (game.players + sum(game.rebuys))


def test_marcelle_stake_and_ante():
    """marcelle: 'the bank give out 4 five cent coins and 10 one cent coins to each player'; 'Everyone
    puts a nickle in the pot'."""
    game = Game(preset("marcelle"), 4, LocalDealer(3))
    assert game.pot == 4 * 5
    assert game.money == [4 * 5 + 10 - 5] * 4


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("beyond", ["fewer", "more"])
def test_player_count_outside_the_preset_is_refused(name, beyond):
    rules = preset(name)
    players = rules.min_players - 1 if beyond == "fewer" else rules.max_players + 1
    with pytest.raises(ValueError, match="players"):
        Game(rules, players, LocalDealer(0))


@pytest.mark.parametrize("name, players", [("davis", 7), ("good-miller", 7)])
def test_davis_and_good_miller_stop_at_six(name, players):
    with pytest.raises(ValueError):
        Game(preset(name), players, LocalDealer(0))


@pytest.mark.parametrize("name", PRESETS)
def test_random_bots_play_a_whole_game(name):
    """A game always ends: random play through 7 rounds reaches a result."""
    game = run_bots(Game(preset(name), 3, LocalDealer(7)), [RandomBot(random.Random(s)) for s in range(3)])
    assert game.phase is Phase.OVER and len(game.result.rounds) == 7
