"""Contracts: the melds a player must lay down, all at once, to go down in a round."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from ..cards import Card, format_cards
from ..errors import IllegalMoveError
from .melds import Meld, arrangements, why_not_meld
from .ruleset import MeldKind, RuleSet

__all__ = ["check_contract", "describe_contract", "meld_kinds", "fit_contract"]

_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four"}


def describe_contract(rules: RuleSet, contract: tuple[int, int]) -> str:
    """"two books and one run" in the table's words."""
    sets, runs = contract
    parts = []
    if sets:
        parts.append(f"{_NUMBERS.get(sets, sets)} {rules.set_word}{'s' if sets > 1 else ''}")
    if runs:
        parts.append(f"{_NUMBERS.get(runs, runs)} run{'s' if runs > 1 else ''}")
    return " and ".join(parts) or "nothing"


def _quote(melds: Sequence[Sequence[Card]]) -> str:
    return " / ".join(format_cards(m) for m in melds)


def check_contract(rules: RuleSet, contract: tuple[int, int], melds: Sequence[Sequence[Card]]) -> list[Meld]:
    """The arranged melds if they lay down exactly ``contract`` (``rules.contract(round_no)``);
    else IllegalMoveError saying why.  A meld-all last round is about the hand: the engine checks it."""
    sets, runs = contract
    if len(melds) != sets + runs:
        raise IllegalMoveError(f"{_quote(melds)}: {len(melds)} melds, but the contract is {describe_contract(rules, contract)}")
    seen: set[Card] = set()
    for meld in melds:
        for card in meld:
            if card in seen:
                raise IllegalMoveError(f"{_quote(melds)}: {card} is used twice")
            seen.add(card)
    options: list[list[Meld]] = []
    for cards in melds:
        kinds = meld_kinds(rules, cards)
        if not kinds:
            raise IllegalMoveError(f"{_quote(melds)}: {format_cards(cards)} is no meld: {why_not_meld(rules, cards)}")
        options.append(kinds)
    fitted = fit_contract(rules, contract, options)
    if isinstance(fitted, str):
        raise IllegalMoveError(f"{_quote(melds)}: {fitted}")
    return fitted


def meld_kinds(rules: RuleSet, cards: Sequence[Card]) -> list[Meld]:
    """The cards as a set and as a run (the player-ordered or canonical one), where they are one:
    for a contract the kinds are what matters.  They depend only on the cards' faces in order."""
    by_kind: dict[MeldKind, Meld] = {}
    for meld in arrangements(rules, cards):
        by_kind.setdefault(meld.kind, meld)
    return list(by_kind.values())


def fit_contract(rules: RuleSet, contract: tuple[int, int], options: Sequence[Sequence[Meld]]) -> list[Meld] | str:
    """The first choice of one meld of each option that makes ``contract`` under the house
    constraints, or why none does."""
    sets, runs = contract
    reason = None
    for choice in product(*options):
        if sum(m.kind is MeldKind.SET for m in choice) != sets or len(choice) - sets != runs:
            continue
        problem = _house_constraints(rules, list(choice))
        if problem is None:
            return list(choice)
        reason = problem
    return reason or f"the contract is {describe_contract(rules, contract)}"


def _house_constraints(rules: RuleSet, melds: list[Meld]) -> str | None:
    """The preset's extra conditions on a contract, or None when they hold."""
    set_melds = [m for m in melds if m.kind is MeldKind.SET]
    run_melds = [m for m in melds if m.kind is MeldKind.RUN]
    if rules.contract_minimum_melds:
        for m in melds:
            least = rules.min_set if m.kind is MeldKind.SET else rules.min_run
            if len(m.cards) != least:
                return f"{m} has {len(m.cards)} cards: going down, each meld has exactly {least} (the rest waits a turn)"
    if rules.contract_distinct_set_ranks:
        ranks = [m.rank for m in set_melds]
        if len(set(ranks)) != len(ranks):
            return f"two {rules.set_word}s of one rank are one {rules.set_word}"
    if rules.contract_runs_apart:
        for a in run_melds:
            for b in run_melds:
                if a is not b and a.suit is b.suit and a.high + 1 == b.rank:
                    return f"{a} and {b} join into one run"
    return None
