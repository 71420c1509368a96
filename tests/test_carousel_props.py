"""Properties of carousel: the solver against brute force, and the engine under random play.

- the solver's best play puts down as many cards as a brute-force search finds, and is valid;
- every card is in exactly one place (a hand, the table, the stock) after every move;
- every move `legal_moves` offers is accepted;
- random illegal Rearranges are refused and leave the state as it was;
- games end, and the simulation driver plays carousel.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_net.cards import Card, Suit, natural
from shanghai_net.engine import LocalDealer, Phase, Rearrange, new_game
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules import meld_kind, preset
from shanghai_net.rules.carousel_solver import arrange_cards, best_play, can_play, smallest_play
from shanghai_net.simulate import play_game, simulate
from shanghai_net.bots import make_bot

from test_carousel_rules import snapshot
from test_carousel_scenario import RULES, everything

SETTINGS = settings(max_examples=400, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# -- brute force ------------------------------------------------------------------------------------

Face = tuple[int, int]  # (suit, rank): sorted, the first card is the lowest of its suit


@lru_cache(maxsize=None)
def splits(faces: tuple[Face, ...]) -> bool:
    """Whether these faces split into sets (3-4 ranks-alike, suits different) and runs (3+ in suit)."""
    if not faces:
        return True
    (suit, rank), rest = faces[0], list(faces[1:])
    left = list(rest)  # runs starting at the first card: it is the lowest of its suit
    for nxt in range(rank + 1, 14):
        if (suit, nxt) not in left:
            break
        left.remove((suit, nxt))
        if nxt - rank >= 2 and splits(tuple(left)):
            return True
    others = sorted({s for s, r in rest if r == rank and s != suit})
    for size in (2, 3):
        for combo in combinations(others, size):
            left = list(rest)
            for s in combo:
                left.remove((s, rank))
            if splits(tuple(left)):
                return True
    return False


def face(card: Card) -> Face:
    return (int(card.suit), card.rank)


def brute_counts(table: list[Card], hand: list[Card], required: Card | None = None) -> list[int]:
    """Every number of hand cards that can be played (with ``required`` among them)."""
    base = [face(c) for c in table]
    out = set()
    for k in range(1, len(hand) + 1):
        for chosen in combinations(hand, k):
            if required is not None and required not in chosen:
                continue
            if splits(tuple(sorted(base + [face(c) for c in chosen]))):
                out.add(k)
    return sorted(out)


# -- small random tables ------------------------------------------------------------------------------

TOP = 7  # ranks A-7: small enough that cards meet often


@st.composite
def positions(draw):
    """A valid table (melds of ranks A-7) and a hand of 1-5 cards, at most two copies of a face."""
    copies: Counter = Counter()

    def take(faces: list[Face]) -> list[Card]:
        if any(copies[f] >= 2 for f in faces):
            return []
        for f in faces:
            copies[f] += 1
        return [natural(rank, Suit(suit), copies[(suit, rank)] - 1) for suit, rank in faces]

    table: list[Card] = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            suit, length = draw(st.integers(0, 3)), draw(st.integers(3, 5))
            low = draw(st.integers(1, TOP - length + 1))
            table += take([(suit, r) for r in range(low, low + length)])
        else:
            rank = draw(st.integers(1, TOP))
            table += take([(s, rank) for s in draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True))])
    hand = []
    for f in draw(st.lists(st.tuples(st.integers(0, 3), st.integers(1, TOP)), min_size=1, max_size=5)):
        hand += take([f])
    return table, hand


def valid_play(table: list[Card], hand: list[Card], play) -> None:
    groups = [list(g) for g in play.table]
    assert all(meld_kind(RULES, g) is not None for g in groups), play.table
    assert Counter(c for g in groups for c in g) == Counter(table + list(play.played))
    assert set(play.played) <= set(hand) and len(set(play.played)) == len(play.played)


@SETTINGS
@given(positions())
def test_the_solver_plays_as_many_cards_as_brute_force(position):
    table, hand = position
    arranged = arrange_cards(RULES, table)
    assert arranged is not None and Counter(c for g in arranged for c in g) == Counter(table)
    counts = brute_counts(table, hand)
    play = best_play(RULES, table, hand)
    assert can_play(RULES, table, hand) is bool(counts)
    if not counts:
        assert play is None
        return
    assert len(play.played) == max(counts)
    valid_play(table, hand, play)
    required = hand[0]
    needed = brute_counts(table, hand, required)
    small = smallest_play(RULES, table, hand, [required])
    if not needed:
        assert small is None
    else:
        assert required in small.played and len(small.played) == min(needed)
        valid_play(table, hand, small)


# -- the engine under random play -------------------------------------------------------------------------

def illegal_rearranges(game, seat: int, rng: random.Random) -> list[Rearrange]:
    """Moves that must be refused: a table card taken back, a one-card meld, a card not held, no card."""
    hand = game.hand(seat)
    old = [m.cards for m in game.table]
    moves = []
    if game.table:
        meld = rng.randrange(len(old))
        card = rng.randrange(len(old[meld]))
        shorter = old[:meld] + [old[meld][:card] + old[meld][card + 1:]] + old[meld + 1:]
        moves.append(Rearrange(seat, tuple(g for g in shorter if g) + (tuple(hand[:1]),), tuple(hand[:1])))
    if hand:
        single = rng.choice(hand)
        moves.append(Rearrange(seat, (*old, (single,)), (single,)))
    elsewhere = [game.faces[t] for s, h in enumerate(game.hands) if s != seat for t in h]
    elsewhere += [game.faces[t] for t in game.stock[-3:]]
    if elsewhere and len(hand) >= 2:
        stranger = rng.choice(elsewhere)
        group = (hand[0], hand[1], stranger)
        moves.append(Rearrange(seat, (*old, group), group))
    moves.append(Rearrange(seat, tuple(old), ()))
    moves.append(Rearrange((seat + 1) % game.players, tuple(old), tuple(hand[:1])))
    return moves


def check_cards(game) -> None:
    cards = everything(game)
    assert len(cards) == len(set(cards)) == 104
    assert all(m.kind is not None and meld_kind(RULES, m.cards) is m.kind for m in game.table)


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(3, 5), st.data())
def test_random_play_keeps_every_card_in_one_place_and_refuses_illegal_moves(seed, players, data):
    game = new_game(RULES, players, LocalDealer(seed))
    rng = random.Random(seed)
    for step in range(120):
        if game.phase is Phase.OVER:
            break
        check_cards(game)
        seat = game.to_move()[0]
        moves = list(game.legal_moves(seat))
        assert moves
        if step % 4 == 0:
            assert all(game.is_legal(m) for m in moves)
            for bad in illegal_rearranges(game, seat, rng):
                before = snapshot(game)
                try:
                    game.apply(bad)
                except IllegalMoveError as err:
                    assert bad.text() in str(err)
                else:
                    raise AssertionError(f"accepted {bad.text()}")
                assert snapshot(game) == before
        game.apply(moves[data.draw(st.integers(0, len(moves) - 1))])
    check_cards(game)


def test_games_end_for_3_4_and_5_players():
    for players in (3, 4, 5):
        for level in ("random", "basic"):
            rules = RULES.override(target_score=12)
            bots = [make_bot(level, random.Random(players * 10 + s)) for s in range(players)]
            game = play_game(rules, bots, seed=players, max_moves=20_000)
            assert game.phase is Phase.OVER and max(game.result.totals) >= 12


def test_simulate_plays_carousel():
    report = simulate(preset("carousel"), ["basic"] * 4, games=8, seed=1)  # CI plays 200
    assert report.games == 8 and report.preset == "carousel"
    assert sum(report.wins) >= 8
    assert all(0 <= score for score in report.mean_score)
    assert max(report.mean_score) >= 25 / 4  # someone reached the target every game


def test_a_play_keeps_the_melds_it_leaves_whole_in_their_places():
    from test_carousel_scenario import carousel_game

    game = carousel_game(["6S 6D 2C", "", ""], table=["JS QS KS", "3H 4H 5H 6H 7H 8H 9H", "2D 2S 2H"])
    play = best_play(RULES, game.table, game.hand(0))
    assert frozenset(play.table[0]) == frozenset(game.table[0].cards)  # JS QS KS: untouched, first
    game.apply(Rearrange(0, play.table, play.played))
    assert game.table[0].text() == "JS QS KS" and len(game.hand(0)) == 10 - len(play.played) <= 7
