"""RuleSet: presets, house-rule overrides, deal sizes, penalty points (api.md: preset, override, penalty)."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.cards import parse_cards
from shanghai_net.rules import Ace, RuleSet, penalty, preset

PRESETS = ["davis", "good-miller", "marcelle"]


@pytest.mark.parametrize("name", PRESETS)
def test_preset_by_name(name):
    rules = preset(name)
    assert isinstance(rules, RuleSet) and rules.name == name
    assert preset(name.upper()) == rules
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.name = "x"  # type: ignore[misc]


def test_unknown_preset_names_the_known_ones():
    with pytest.raises(ValueError, match="'nope'.*davis"):
        preset("nope")


@pytest.mark.parametrize(
    "name, players, seed",
    [
        ("davis", (3, 6), "davis: 'We normally play with four people, sometimes three ... if there are 5 or six people'"),
        ("good-miller", (3, 6), "good-miller: 'The game is best played by three to six players'"),
        ("marcelle", (2, 8), "marcelle: 'DEAL – 12 cards – 1 to 4 – 2 decks' ... 'as many 80% cups as you will "
                             "have players, up to 7, maybe 8.'"),
    ],
    ids=lambda v: v if isinstance(v, str) and ":" in v else None,
)
def test_players(name, players, seed):
    rules = preset(name)
    assert (rules.min_players, rules.max_players) == players


@pytest.mark.parametrize(
    "name, sizes, seed",
    [
        ("davis", [11] * 7, "davis: '11 cards are dealt to each person'"),
        ("good-miller", [11] * 7, "good-miller: 'Each players receive 11 cards.'"),
        ("marcelle", [12] * 6 + [13], "marcelle: 'DEAL – 12 cards' and 'DEAL 13 CARDS FOR THIS HAND' (round 7)"),
    ],
    ids=lambda v: v if isinstance(v, str) and ":" in v else None,
)
def test_deal_sizes(name, sizes, seed):
    rules = preset(name)
    assert [rules.deal_size(r) for r in range(1, 8)] == sizes


POINTS = [("2H 3S 4D 5C 6H 7S", 5), ("8H 9S 10D JC QH KS", 10), ("AH AS", 20), ("JK", 50)]


@pytest.mark.parametrize("name", ["davis", "good-miller"])
@pytest.mark.parametrize("text, each", POINTS, ids=["2-7 five", "8-K ten", "ace twenty", "joker fifty"])
def test_penalty_points(name, text, each):
    """davis: 'Numbered cards through 7 (2-3-4-5-6-7) are five points each; 8-10 and face cards are 10
    points, Aces are 20 points, and Jokers are 50 points.' good-miller's table is cut off in the seed:
    davis values (rules-variants.md decision)."""
    rules = preset(name)
    cards = parse_cards(text)
    for card in cards:
        assert penalty(rules, [card]) == each
    assert penalty(rules, cards) == each * len(cards)
    assert penalty(rules, []) == 0


def test_good_miller_winner_scores_minus_ten():
    """good-miller: 'The player who won the round deducts 10 points from their score (-10)'."""
    assert preset("good-miller").winner_bonus == -10
    assert preset("davis").winner_bonus == 0


def test_override_parses_by_field_type():
    rules = preset("davis").override("claims_per_round=3", "shanghai = off", "max_set=none", "ace=either",
                                     "contracts=2s,1s1r,3r", claim_penalty=1)
    assert rules.claims_per_round == 3 and rules.claim_penalty == 1
    assert rules.shanghai is False and rules.max_set is None and rules.ace is Ace.EITHER
    assert rules.contracts == ((2, 0), (1, 1), (0, 3)) and rules.rounds == 3
    assert preset("davis").claims_per_round == 2  # a copy: the preset is unchanged
    assert preset("davis").override("max_set=6").max_set == 6


@pytest.mark.parametrize(
    "assignment, words",
    [
        ("no_such_rule=3", ["no_such_rule"]),
        ("claims_per_round=lots", ["claims_per_round", "lots"]),
        ("shanghai=maybe", ["shanghai", "maybe"]),
        ("ace=sideways", ["ace", "sideways"]),
        ("contracts=2x", ["contracts", "2x"]),
        ("claims_per_round", ["claims_per_round", "field=value"]),
    ],
)
def test_override_errors_name_the_rule_and_value(assignment, words):
    with pytest.raises(ValueError) as err:
        preset("davis").override(assignment)
    for word in words:
        assert word in str(err.value)
