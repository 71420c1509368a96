"""Melds under each preset: books/sets, runs, aces, wild cards and their limits, sizes.

Each case names the seed sentence (or the rules-variants.md decision) it checks.
"""

from __future__ import annotations

import pytest

from shanghai_net.cards import parse_cards
from shanghai_net.rules import MeldKind, meld_kind, preset

SET, RUN, NO = "set", "run", None

CASES = [
    # davis (seed 000)
    ("davis", "4H 4S 4D", SET, "davis: 'books (3 or more of the same card, as in 3 4's'"),
    ("davis", "KH KS KD KC KH", SET, "davis: 'or 3 kings)' - a book may hold more than 3"),
    ("davis", "KH KS", NO, "davis: books are '3 or more of the same card'"),
    ("davis", "2C 3C 4C 5C", RUN, "davis: 'runs (4 or more ... as in 2-3-4-5 of clubs'"),
    ("davis", "9H 10H JH QH", RUN, "davis: 'or 9-10-Jack-Queen of hearts'"),
    ("davis", "9H 10H JH", NO, "davis: runs are '4 or more cards'"),
    ("davis", "9H 10H JS QH", NO, "davis: runs are 'of the same suit'"),
    ("davis", "9H 10H QH KH", NO, "davis: runs are 'in a row'"),
    ("davis", "JH QH KH AH", RUN, "davis: 'Aces are always high ... jack-queen-king-ace'"),
    ("davis", "AH 2H 3H 4H", NO, "davis: aces 'can't be placed next to a 2 card in a run' (A-2-3-4 no)"),
    ("davis", "QH KH AH 2H", NO, "davis: aces 'can't be placed next to a 2 card' (no wrap)"),
    ("davis", "AH AS JK", SET, "davis: 'a joker in a book (2 aces and a joker)'"),
    ("davis", "JH JK KH AH", RUN, "davis: 'a run (jack-joker-king-ace of hearts)'"),
    ("davis", "AH AS JK JK", NO, "davis: 'You can't place two jokers in a single run or a single book.'"),
    ("davis", "9H JK JK QH KH", NO, "davis: 'You can't place two jokers in a single run or a single book.'"),
    ("davis", "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", RUN,
     "davis: 'A run extends from 2 through King to Ace'"),
    ("davis", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", NO,
     "davis: 'no car may be placed below a two or above an ace'"),
    ("davis", "2H 2H 2S", SET, "davis: only jokers are wild (a book of twos)"),
    ("davis", "3D 2C 5D 6D", NO, "davis: only jokers are wild (a two is no wild card)"),
    # good-miller (seed 002)
    ("good-miller", "9C 9C 9H", SET, "good-miller: 'A set consists of 3 or more cards of the same rank, irrespective of suit.'"),
    ("good-miller", "9C 9H", NO, "good-miller: 'A set consists of 3 or more cards'"),
    ("good-miller", "5S 6S 7S 8S", RUN, "good-miller: 'A run consists of 4 or more cards of the same suit, in consecutive order.'"),
    ("good-miller", "5S 6S 7S 8C", NO, "good-miller: a run is 'of the same suit'"),
    ("good-miller", "AD 2D 3D 4D", RUN, "good-miller: 'So A 2 3 4 and J Q K A are both valid runs'"),
    ("good-miller", "JD QD KD AD", RUN, "good-miller: 'So A 2 3 4 and J Q K A are both valid runs'"),
    ("good-miller", "QD KD AD 2D", NO, "good-miller: 'but Q K A 2 is not valid.'"),
    ("good-miller", "9C 9C 9D 9D 9H 9H 9S 9S", SET, "good-miller: 'the maximum number of cards in a set is 8'"),
    ("good-miller", "9C 9C 9D 9D 9H 9H 9S JK", SET, "good-miller: 'the maximum number of cards in a set is 8'"),
    ("good-miller", "9C 9C 9D 9D 9H 9H 9S 9S JK", NO, "good-miller: 'the maximum number of cards in a set is 8'"),
    ("good-miller", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", RUN,
     "good-miller: 'the maximum number in a run is 14 (with an Ace at each end)'"),
    ("good-miller", "9C 9H JK", SET, "good-miller: 'Jokers may be used in either sets or runs'"),
    ("good-miller", "8D 9D JK JD", RUN, "good-miller: 'Jokers may be used in either sets or runs'"),
    ("good-miller", "9C 9H JK JK", SET, "good-miller: 'Jokers may be used ... to substitute for any missing card'"),
    ("good-miller", "9C JK JK", SET, "good-miller: 'Jokers may be used ... to substitute for any missing card'"),
    ("good-miller", "5H JK JK 8H", RUN, "good-miller: 'Jokers may be used ... to substitute for any missing card'"),
    ("good-miller", "5H JK JK JK", SET, "good-miller: 'Jokers may be used ... to substitute for any missing card'"),
    # marcelle (seed 003)
    ("marcelle", "4H 4D 4C", SET, "marcelle: 'SET = 3 or more of a kind as in 4 hearts, 4 diamonds, 4 clubs'"),
    ("marcelle", "4H 4D", NO, "marcelle: 'SET = 3 or more of a kind'"),
    ("marcelle", "3D 4D 5D 6D", RUN, "marcelle: 'RUN = 4 or more of the same suit as in 3,4,5,6 of Diamonds'"),
    ("marcelle", "3D 4D 5D", NO, "marcelle: 'RUN = 4 or more'"),
    ("marcelle", "5H 5S 2C", SET, "marcelle: 'JOKERS and TWO's are wild' (a two in a set)"),
    ("marcelle", "3D 4D 2C 6D", RUN, "marcelle: 'JOKERS and TWO's are wild' (a two in a run)"),
    ("marcelle", "5H 5S JK", SET, "marcelle: 'JOKERS and TWO's are wild' (a joker)"),
    ("marcelle", "AD 2D 3D 4D", RUN, "marcelle: 'ACE can be high or low' (low)"),
    ("marcelle", "JD QD KD AD", RUN, "marcelle: 'ACE can be high or low' (high)"),
    ("marcelle", "KS AS 2S 3S", NO, "rules-variants: marcelle aces low or high, no wrap"),
    ("marcelle", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", NO,
     "rules.md: the 14-card A..A run is good-miller's alone (marcelle aces are low or high)"),
    ("marcelle", "5H 2C JK", SET, "marcelle: 'JOKERS and TWO's are wild' (no limit a meld)"),
    ("marcelle", "7H 2C 2D", SET, "marcelle: 'JOKERS and TWO's are wild' (no limit a meld)"),
    ("marcelle", "5H 2C JK 2D", SET, "marcelle: 'JOKERS and TWO's are wild' (no limit a meld)"),
    ("marcelle", "5H 6H 2C JK", RUN, "marcelle: 'JOKERS and TWO's are wild'"),
]


@pytest.mark.parametrize("name, text, kind, seed", CASES, ids=[c[3] + " " + c[1] for c in CASES])
def test_meld_kind(name, text, kind, seed):
    assert meld_kind(preset(name), parse_cards(text)) == kind


def test_meld_kind_is_a_str_valued_enum():
    """api.md: meld_kind returns "set" | "run" | None (a str-valued Enum compares equal)."""
    rules = preset("davis")
    kind = meld_kind(rules, parse_cards("7H 7S 7D"))
    assert isinstance(kind, str) and kind == "set" and kind is MeldKind.SET
    assert meld_kind(rules, parse_cards("7H 8H 9H 10H")) == "run"


@pytest.mark.parametrize("name", ["davis", "good-miller", "marcelle"])
def test_meld_kind_ignores_card_order(name):
    """A run is the same run whatever order its cards are named in."""
    rules = preset(name)
    assert meld_kind(rules, parse_cards("10H 8H JK 7H")) == "run"
    assert meld_kind(rules, parse_cards("QC JC KC 10C")) == "run"


@pytest.mark.parametrize("name", ["davis", "good-miller", "marcelle"])
def test_only_wild_cards_are_no_meld(name):
    assert meld_kind(preset(name), parse_cards("JK JK JK JK")) is None


def test_marcelle_set_of_twos_counts_its_twos_as_natural():
    """marcelle: with twos wild, three twos are still a set of twos (the naturals of their rank)."""
    rules = preset("marcelle")
    assert meld_kind(rules, parse_cards("2H 2S 2D")) == "set"
    assert meld_kind(rules, parse_cards("2H 2S JK")) == "set"
