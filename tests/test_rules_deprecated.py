"""The RuleSet methods removed in issue 25 work again for a release (docs/api.md, "Stability"):
each warns DeprecationWarning naming its new name and answers as the new name does."""

from __future__ import annotations

import pytest

from shanghai_net.cards import parse_cards, parse_melds
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules import check_contract, meld_kind, penalty, preset

DAVIS = preset("davis")


@pytest.mark.parametrize("cards", ["7H 7S 7D", "4C 5C 6C 7C", "7H 8S", "JK 9D 9C"])
def test_meld_kind_warns_and_answers_as_the_function(cards):
    hand = parse_cards(cards)
    with pytest.warns(DeprecationWarning, match=r"RuleSet\.meld_kind .*use shanghai_net\.rules\.meld_kind\(rules, cards\)"):
        old = DAVIS.meld_kind(hand)
    assert old == meld_kind(DAVIS, hand)


def test_check_contract_takes_the_round_number_and_answers_as_the_function():
    melds = parse_melds("7H 7S 7D / 9C 9D 9S")
    with pytest.warns(DeprecationWarning, match=r"use shanghai_net\.rules\.check_contract\(rules, rules\.contract\(round_no\), melds\)"):
        old = DAVIS.check_contract(1, melds)
    assert old == check_contract(DAVIS, DAVIS.contract(1), melds)


def test_check_contract_refuses_as_the_function_does():
    melds = parse_melds("7H 7S 7D / 9C 9D 9S")
    with pytest.raises(IllegalMoveError) as new:
        check_contract(DAVIS, DAVIS.contract(2), melds)
    with pytest.warns(DeprecationWarning), pytest.raises(IllegalMoveError) as old:
        DAVIS.check_contract(2, melds)
    assert str(old.value) == str(new.value)


@pytest.mark.parametrize("name", ["davis", "carousel"])
def test_penalty_warns_and_answers_as_the_function(name):
    rules, hand = preset(name), parse_cards("AS KH 5D JK")
    with pytest.warns(DeprecationWarning, match=r"RuleSet\.penalty .*use shanghai_net\.rules\.penalty\(rules, cards\)"):
        old = rules.penalty(hand)
    assert old == penalty(rules, hand)


def test_the_warning_points_at_the_caller():
    with pytest.warns(DeprecationWarning) as caught:
        DAVIS.penalty(parse_cards("5D"))
    assert caught[0].filename == __file__
