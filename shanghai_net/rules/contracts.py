"""Contracts: the melds a player must lay down, all at once, to go down in a round.

A classic contract is (sets, runs), each meld at least ``min_set`` or ``min_run`` cards; a phase
(the ``phases`` field, Phase 10) names each meld's kind and least size (`PhaseContract`).
`contract_needs` reads either as the list of melds it asks for."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from ..cards import Card, format_cards
from ..errors import IllegalMoveError
from .melds import Meld, arrangements, why_not_meld
from .ruleset import Contract, MeldKind, Need, PhaseContract, RuleSet

__all__ = ["check_contract", "describe_contract", "meld_kinds", "fit_contract", "contract_needs", "kind_counts",
           "meld_count", "least_size"]

_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four"}


def contract_needs(rules: RuleSet, contract: Contract) -> tuple[Need, ...]:
    """The melds ``contract`` asks for, each as (kind, least size): sets first, then runs."""
    if isinstance(contract, PhaseContract):
        return contract.melds
    sets, runs = contract
    return ((MeldKind.SET, rules.min_set),) * sets + ((MeldKind.RUN, rules.min_run),) * runs


def kind_counts(contract: Contract) -> tuple[int, int, int]:
    """(sets, runs, cards-of-one-suit melds) that ``contract`` asks for."""
    if isinstance(contract, PhaseContract):
        kinds = [kind for kind, _ in contract.melds]
        return kinds.count(MeldKind.SET), kinds.count(MeldKind.RUN), kinds.count(MeldKind.SUIT)
    sets, runs = contract
    return sets, runs, 0


def meld_count(contract: Contract) -> int:
    """How many melds going down with ``contract`` lays down."""
    return sum(kind_counts(contract))


def least_size(rules: RuleSet, contract: Contract, kind: MeldKind) -> int:
    """The fewest cards a meld of ``kind`` that ``contract`` asks for may hold (the rules' least
    where it asks for none)."""
    sizes = [size for k, size in contract_needs(rules, contract) if k is kind]
    if sizes:
        return min(sizes)
    if kind is MeldKind.SUIT:
        return rules.least_suit or 0
    return rules.least_set if kind is MeldKind.SET else rules.least_run


def _need_text(rules: RuleSet, need: Need, count: int) -> str:
    kind, size = need
    number = _NUMBERS.get(count, str(count))
    if kind is MeldKind.SUIT:
        return f"{size} cards of one suit" if count == 1 else f"{number} times {size} cards of one suit"
    word = rules.set_word if kind is MeldKind.SET else "run"
    any_suit = " in any suits" if kind is MeldKind.RUN and rules.runs_any_suit else ""
    return f"{number} {word}{'s' if count > 1 else ''} of {size}{any_suit}"


def describe_contract(rules: RuleSet, contract: Contract) -> str:
    """"two books and one run" in the table's words; a phase with its sizes: "one set of 4 and
    one run of 4 in any suits", "7 cards of one suit"."""
    if isinstance(contract, PhaseContract):
        counts: dict[Need, int] = {}
        for need in contract.melds:
            counts[need] = counts.get(need, 0) + 1
        return " and ".join(_need_text(rules, need, n) for need, n in counts.items()) or "nothing"
    sets, runs = contract
    parts = []
    if sets:
        parts.append(f"{_NUMBERS.get(sets, sets)} {rules.set_word}{'s' if sets > 1 else ''}")
    if runs:
        parts.append(f"{_NUMBERS.get(runs, runs)} run{'s' if runs > 1 else ''}")
    return " and ".join(parts) or "nothing"


def _quote(melds: Sequence[Sequence[Card]]) -> str:
    return " / ".join(format_cards(m) for m in melds)


def check_contract(rules: RuleSet, contract: Contract, melds: Sequence[Sequence[Card]]) -> list[Meld]:
    """The arranged melds if they lay down exactly ``contract`` (``rules.contract(round_no)``);
    else IllegalMoveError saying why.  A meld-all last round is about the hand: the engine checks it."""
    if len(melds) != meld_count(contract):
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
    """The cards as a set, as a run (the player-ordered or canonical one) and as cards of one
    suit, where they are one: for a contract the kinds are what matters.  They depend only on the
    cards' faces in order."""
    by_kind: dict[MeldKind, Meld] = {}
    for meld in arrangements(rules, cards):
        by_kind.setdefault(meld.kind, meld)
    return list(by_kind.values())


def fit_contract(rules: RuleSet, contract: Contract, options: Sequence[Sequence[Meld]]) -> list[Meld] | str:
    """The first choice of one meld of each option that makes ``contract`` under the house
    constraints, or why none does."""
    if isinstance(contract, PhaseContract):
        return _fit_phase(rules, contract, options)
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


def _fit_phase(rules: RuleSet, contract: PhaseContract, options: Sequence[Sequence[Meld]]) -> list[Meld] | str:
    """A phase: each meld (one of its options) matched to a meld the phase asks for, of that kind
    and at least its size (exactly it with ``contract_minimum_melds``)."""
    needs = contract.melds
    reason = None
    if len(options) != len(needs):
        return f"the contract is {describe_contract(rules, contract)}"
    chosen: list[Meld] = []
    sizes: list[int] = []
    used = [False] * len(needs)

    def place(i: int) -> list[Meld] | None:
        nonlocal reason
        if i == len(options):
            problem = _house_constraints(rules, chosen, sizes)
            if problem is None:
                return list(chosen)
            reason = problem
            return None
        tried: set[Need] = set()
        for j, need in enumerate(needs):
            if used[j] or need in tried:
                continue
            tried.add(need)
            kind, size = need
            for meld in options[i]:
                if meld.kind is kind and len(meld.cards) < size:
                    reason = reason or f"{meld} has {len(meld.cards)} cards: the phase asks for {_need_text(rules, need, 1)}"
                if meld.kind is kind and len(meld.cards) >= size:
                    used[j] = True
                    chosen.append(meld)
                    sizes.append(size)
                    found = place(i + 1)
                    used[j] = False
                    chosen.pop()
                    sizes.pop()
                    if found is not None:
                        return found
        return None

    return place(0) or reason or f"the contract is {describe_contract(rules, contract)}"


def _house_constraints(rules: RuleSet, melds: list[Meld], sizes: Sequence[int] | None = None) -> str | None:
    """The preset's extra conditions on a contract, or None when they hold (``sizes``: each
    meld's least size in a phase; else ``min_set`` and ``min_run``)."""
    set_melds = [m for m in melds if m.kind is MeldKind.SET]
    run_melds = [m for m in melds if m.kind is MeldKind.RUN]
    if rules.contract_minimum_melds:
        for i, m in enumerate(melds):
            least = sizes[i] if sizes is not None else rules.min_set if m.kind is MeldKind.SET else rules.min_run
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
