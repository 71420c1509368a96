"""The contract finder against brute force: it finds every lay-down a hand holds, and only those."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_net.cards import deck, parse_cards
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules import check_contract, preset
from shanghai_net.rules.finder import _may_hold, _search, contract_options

PRESETS = ["davis", "good-miller", "marcelle"]


def _key(melds):
    """A lay-down up to which copy of equal cards is used and where the wilds sit."""
    return frozenset(Counter(tuple(sorted(Counter(c.face for c in m).items(), key=repr)) for m in melds).items())


def _brute_force(rules, hand, contract, meld_all=False):
    found = set()
    k = sum(contract)
    for labels in itertools.product(range(0 if not meld_all else 1, k + 1), repeat=len(hand)):
        melds = [[c for c, label in zip(hand, labels) if label == i] for i in range(1, k + 1)]
        if any(len(m) < min(rules.min_set, rules.min_run) for m in melds):
            continue
        if melds != sorted(melds, key=lambda m: [c.id for c in m]):
            continue  # one order of the melds is enough
        try:
            check_contract(rules, rules.contract(rules.contracts.index(contract) + 1), melds)
        except IllegalMoveError:
            continue
        found.add(_key(melds))
    return found


def _hand(seed: int, size: int, rules):
    rng = random.Random(seed)
    cards = deck(2, 4)
    # a hand rich in melds: two or three ranks and one suit, plus wilds
    ranks = rng.sample(range(1, 14), 3)
    suit = rng.choice([c.suit for c in cards if c.suit is not None])
    pool = [c for c in cards if c.rank in ranks or (c.suit is suit and abs(c.rank - ranks[0]) < 4) or c.is_joker]
    return rng.sample(pool, size)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("contract", [(2, 0), (1, 1)])
@given(seed=st.integers(0, 10**6))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_finder_matches_brute_force(name, contract, seed):
    rules = preset(name)
    hand = _hand(seed, 8, rules)
    expected = _brute_force(rules, hand, contract)
    found = {_key(m) for m in contract_options(rules, hand, contract)}
    assert found == expected


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("contract", [(0, 2), (1, 1)])
@given(seed=st.integers(0, 10**6), size=st.integers(0, 1))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_meld_all_matches_brute_force(name, contract, seed, size):
    """The last round's lay-down (every card at once) against brute force, on hands built from
    melds (so some lay-down exists) with, half the time, one stray card (so none may)."""
    rules = preset(name).override(contracts=[contract] * 7)
    hand = _meldable_hand(seed, contract, stray=size % 2 == 1)
    expected = _brute_force(rules, hand, contract, meld_all=True)
    found = {_key(m) for m in contract_options(rules, hand, contract, meld_all=True)}
    assert found == expected
    if size % 2 == 0:
        assert found, f"{hand} was built from melds"


def _meldable_hand(seed: int, contract, stray: bool):
    rng = random.Random(seed)
    pool = deck(2, 4)
    rng.shuffle(pool)
    suits = sorted({c.suit for c in pool if c.suit is not None})
    hand = []

    def take(rank, suit=None):
        card = next(c for c in pool if c.rank == rank and (suit is None or c.suit is suit) and c not in hand)
        hand.append(card)

    sets, runs = contract
    for rank in rng.sample(range(3, 14), sets):
        for suit in rng.sample(suits, 3):
            take(rank, suit)
    for suit in rng.sample(suits, runs):
        low = rng.randrange(3, 10)
        for rank in range(low, low + 4):
            take(rank, suit)
    if stray:
        hand.append(next(c for c in pool if c not in hand and c.rank == 2))
    rng.shuffle(hand)
    return hand


@pytest.mark.parametrize("name", PRESETS)
@given(seed=st.integers(0, 10**6), size=st.integers(6, 14))
@settings(max_examples=40, deadline=None)
def test_quick_rejection_never_hides_a_lay_down(name, seed, size):
    """_may_hold is only a shortcut: when it says no, the full search finds nothing either."""
    rules = preset(name)
    hand = _hand(seed, size, rules)
    for contract in rules.contracts:
        for meld_all in (False, True):
            if not _may_hold(rules, hand, *contract, meld_all):
                assert next(_search(rules, hand, contract, meld_all), None) is None


@pytest.mark.parametrize("name", PRESETS)
@given(seed=st.integers(0, 10**6), contract=st.sampled_from([(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3)]))
@settings(max_examples=30, deadline=None)
def test_quick_rejection_keeps_a_whole_hand_of_melds(name, seed, contract):
    """A hand built of the contract's melds passes the meld-all shortcut, and the search lays it
    all down (the shortcut checks each card fits some meld, never more)."""
    rules = preset(name)
    hand = _meldable_hand(seed, contract, stray=False)
    assert _may_hold(rules, hand, *contract, True)
    assert next(contract_options(rules, hand, contract, meld_all=True), None) is not None


def test_meld_all_uses_every_card():
    rules = preset("davis")
    hand = parse_cards("3H 4H 5H 6H 8S 9S 10S JS QC KC AC JK")
    options = list(contract_options(rules, hand, (0, 3), meld_all=True))
    assert options, "three runs of the whole hand exist"
    for melds in options:
        assert sorted(c for m in melds for c in m) == sorted(hand)
    assert not list(contract_options(rules, hand + parse_cards("2D"), (0, 3), meld_all=True))
