"""Numeric limits checked at the limit and one past it (issue 40): each bound the suite tested
only well inside or well outside let a bound moved by one through.  A test here takes the
value at the limit and refuses the one past it."""

from __future__ import annotations

import pytest

from shanghai_net.bots.need import contract_need
from shanghai_net.cards import parse_cards
from shanghai_net.console.viewmodel import claim_helps
from shanghai_net.engine import CallShanghai
from shanghai_net.errors import IllegalMoveError
from shanghai_net.net.tables import check_table_name
from shanghai_net.rules import preset
from shanghai_net.rules.finder import contract_options
from shanghai_net.rules.melds import meld_kind, why_not_meld

from scenario import play
from test_engine_shanghai import RULES, spade_run_game


def test_a_table_name_of_one_to_32_characters_is_taken_and_none_or_33_refused():
    for name in ("t", "x" * 32):
        assert check_table_name(name) == name
    for name in ("", "x" * 33):
        with pytest.raises(ValueError, match="1 to 32 printable characters"):
            check_table_name(name)


@pytest.mark.parametrize("least", [11, 12])
def test_a_shanghai_caller_holding_exactly_the_least_cards_may_call_and_one_fewer_may_not(least):
    """Seat 3 holds 11 cards when the 4♠ it could call SHANGHAI on is discarded."""
    game = spade_run_game()
    game.rules = rules = RULES.override(shanghai_caller_min_cards=least)
    play(game, 1, "discard 4S")
    assert len(game.hands[3]) == 11 and rules.shanghai_caller_min_cards == least
    assert game.may_call_shanghai(3) is (least == 11)
    assert any(isinstance(m, CallShanghai) for m in game.legal_moves(3)) is (least == 11)
    if least == 12:
        with pytest.raises(IllegalMoveError):
            game.apply(CallShanghai(3, 1))
    else:
        game.apply(CallShanghai(3, 1))


@pytest.mark.parametrize("card,helps", [("9H", True), ("5H", True), ("10H", False),
                                        ("4H", False), ("9D", False)])
def test_auto_pass_keeps_a_card_two_ranks_from_one_of_its_suit_and_passes_three(card, helps):
    """For a run, a claim helps when a card of its suit is within two ranks (`AUTO_PASS_RULE`):
    the 7♥ makes the 9♥ and 5♥ worth a look, not the 10♥, 4♥ nor the 9♦."""
    davis = preset("davis")
    hand = parse_cards("7H KS QC")
    assert claim_helps(davis, hand, (0, 1), parse_cards(card)[0]) is helps


HOUSE = preset("good-miller").override("wilds_at_most_naturals=true")  # no other limit


@pytest.mark.parametrize("cards,meld", [("5H 6H JK JK", "run"), ("5H JK JK JK", None),
                                        ("8C 8D JK JK", "set"), ("8C JK JK", None),
                                        ("8C 8D 8S JK JK JK", "set"),
                                        ("8C 8D JK JK JK", None)])
def test_as_many_wild_cards_as_naturals_make_a_meld_under_the_house_rule_one_more_not(cards,
                                                                                      meld):
    cards = parse_cards(cards)
    assert meld_kind(HOUSE, cards) == meld
    wilds = sum(1 for c in cards if c.is_joker)
    reason = f"{wilds} wild cards outnumber {len(cards) - wilds} natural cards"
    assert (why_not_meld(HOUSE, cards) == reason) is (meld is None)


@pytest.mark.parametrize("hand,enough", [("5H 6H JK JK 9C KD", True),
                                         ("5H JK JK JK 9C KD", False)])
def test_a_contract_is_found_with_as_many_wilds_as_naturals_and_not_with_one_more(hand, enough):
    """The finder lays down, and a bot's count of the cards a hand lacks takes, a run of two
    naturals and two jokers under the house rule; three jokers beside one natural are no run."""
    hand = parse_cards(hand)
    assert (contract_need(HOUSE, (0, 1), hand) == 0) is enough
    found = list(contract_options(HOUSE, hand, (0, 1)))
    if not enough:
        assert not found
    else:
        assert found and all(sorted(c.text() for c in run) == sorted(["5H", "6H", "JK", "JK"])
                             for (run,) in found), found
