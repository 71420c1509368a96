"""Issue 41, item 2: the rules card (``R``) is made from the table's `RuleSet`, for every preset
(phase10's listed Shanghai's seven contracts, "a run ... of one suit" and "I call: ... 0 times a
round").  Each preset's card is opened in a console at that preset's table and read back against
the rules: every round's contract or phase, the runs' suits, the claims, SHANGHAI, the jokers,
the scoring, and no seed number in its heading."""

from __future__ import annotations

import pytest

from shanghai_net.rules import PRESETS, describe_contract, preset
from shanghai_net.session import LocalSession

from console_harness import run, running


def card_read_back(rules) -> str:
    """The card as the R panel shows it at a table of these rules (every line, at 72 columns)."""
    seen = []

    async def body():
        levels = ["basic"] * (rules.min_players - 1)
        async with running(LocalSession(rules, levels, 3, bot_delay=0.0)) as d:
            await d.press("R")
            title, lines = d.state.panel_lines(72)
            seen.append(" ".join(" ".join([title, *lines]).split()))
            await d.press("R", "q", "y")

    run(body)
    return seen[0]


HOUSE_RULES = {"good-miller": ("phases=set3+set3,run7,suit7", "claims_per_round=0",
                               "runs_any_suit=true"),
               "davis": ("shanghai=false", "wild_twos=true", "claims_per_round=1")}


@pytest.mark.parametrize("name, house", [(name, ()) for name in sorted(PRESETS)]
                         + list(HOUSE_RULES.items()))
def test_the_rules_card_says_what_the_rule_set_plays(name, house):
    rules = preset(name).override(*house) if house else preset(name)
    card = card_read_back(rules)
    assert card.startswith(f"The rules of {name} "), card
    assert "(seed" not in card
    if rules.game == "carousel":
        assert "no contract and no discard" in card and "the rounds" not in card
        assert f"someone reaches {rules.target_score} points" in card
        return
    for n in range(1, rules.rounds + 1):  # every round's contract, or every phase, in order
        assert f"{n}: {describe_contract(rules, rules.contract(n))}" in card, (n, card)
    assert f"{rules.rounds + 1}: " not in card
    if rules.progression:
        assert "the phases, each player on their own" in card
        assert "first to complete every phase wins" in card
    else:
        assert "the rounds: " in card
        assert ("the most money wins" if rules.money else "the lowest total wins") in card
    suits = "of any suits" if rules.runs_any_suit else "of one suit"
    assert f"a run: {'' if rules.phases else f'{rules.min_run} '}" in card and suits in card
    if rules.claims_per_round == 0:
        assert "no card is taken out of turn" in card and rules.claim_word not in card
    else:
        assert f"{rules.claim_word}: out of turn, claim the top discard with " \
               f"{rules.claim_penalty} stock card" in card
    assert ("SHANGHAI:" in card) is rules.shanghai
    assert ("swap a joker" in card) is rules.joker_swap
    assert ("buy a joker" in card) is rules.joker_buy
    assert ("every 2" in card) is rules.wild_twos
    assert ("money:" in card) is rules.money
