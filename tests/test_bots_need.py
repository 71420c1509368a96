"""A bot's count of the cards a hand lacks for its contract (`contract_need`), against the
truth: the fewest cards that, added to the hand, make the contract's meld.  Under the house rule
``wilds_at_most_naturals`` (no more wild cards than natural ones in a meld) one natural and
three jokers were said to lack 2 cards for a run of four: one more natural makes a run of two
naturals and two jokers, so they lack 1 (each natural added lets one more wild card in)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shanghai_net.bots.need import contract_need
from shanghai_net.cards import Suit, parse_cards
from shanghai_net.rules import preset
from shanghai_net.rules.melds import meld_kind

GOOD_MILLER = preset("good-miller")  # runs of four of one suit, sets of three, no wild twos
HOUSE = GOOD_MILLER.override("wilds_at_most_naturals=true")
RUN, SET = (0, 1), (1, 0)


@pytest.mark.parametrize("hand,contract,lacks", [
    ("5H JK JK JK", RUN, 1),  # 5H 6H JK JK
    ("JK JK JK", RUN, 2),  # two naturals beside two of the jokers
    ("5H 6H JK", RUN, 1),
    ("5H 6H JK JK", RUN, 0),
    ("8C JK JK JK", SET, 1),  # 8C 8D JK
    ("JK JK JK", SET, 2),  # 8C 8D JK
])
def test_each_natural_added_lets_one_more_wild_card_in_under_the_house_rule(hand, contract,
                                                                             lacks):
    assert contract_need(HOUSE, contract, parse_cards(hand)) == lacks


RANKS = range(3, 10)
"""The hands' ranks; the melds looked at reach three ranks past them either way."""
SUITS = (Suit.HEARTS, Suit.SPADES)
POOL = [f"{rank}{suit.letter}" for rank in RANKS for suit in SUITS] * 2 + ["JK"] * 4
"""Two decks' cards of those ranks and suits, and four jokers."""


def text(rank: int, suit: Suit) -> str:
    return f"{ {11: 'J', 12: 'Q'}.get(rank, rank)}{suit.letter}"


def fewest_added(rules, contract, hand) -> int:
    """By brute force: the fewest cards added to ``hand`` that make the contract's one meld
    (a run of four or a set of three: a longer meld only adds cards), as `meld_kind` judges
    every run and set of the ranks and suits the hands are drawn from, jokers anywhere."""
    held = Counter(card.text() for card in hand)
    if contract == RUN:
        size = rules.min_run
        faces = [[text(rank, suit) for rank in range(low, low + size)]
                 for suit in SUITS for low in range(RANKS[0] - 1, RANKS[-1] + 1)]
    else:
        size = rules.min_set
        faces = [[text(rank, suit) for suit in suits] for rank in RANKS
                 for suits in combinations_with_replacement(SUITS, size)]
    best = size
    for meld_faces in faces:
        for jokers in product((False, True), repeat=size):
            meld = ["JK" if joker else face for face, joker in zip(meld_faces, jokers)]
            lacking = sum(max(0, n - held[face]) for face, n in Counter(meld).items())
            if lacking < best and meld_kind(rules, parse_cards(" ".join(meld))) is not None:
                best = lacking
    return best


@settings(max_examples=300, deadline=None, derandomize=True)
@given(hand=st.lists(st.sampled_from(range(len(POOL))), min_size=1, max_size=5, unique=True),
       contract=st.sampled_from([RUN, SET]), house=st.booleans(),
       most_wilds=st.sampled_from([None, 1, 2]))
def test_the_need_never_exceeds_the_fewest_cards_that_make_the_meld(hand, contract, house,
                                                                     most_wilds):
    """An estimate may count low (wild cards alone, which are no meld, are said to lack
    none), never high: a bot that counts high throws away a card that completes its meld."""
    rules = GOOD_MILLER.override(wilds_at_most_naturals=house, max_wilds_per_meld=most_wilds)
    cards = parse_cards(" ".join(POOL[i] for i in hand))
    assert contract_need(rules, contract, cards) <= fewest_added(rules, contract, cards)
