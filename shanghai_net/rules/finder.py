"""Finding the ways a hand can lay down a contract.

Used for the engine's legal go-downs, by the bots, and by the console to offer arrangements.  Cards
of equal face (two 7♥, two jokers) are interchangeable for this search: each arrangement is found
once, built from the lowest-numbered copies, so the count stays small.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, product

from ..cards import Card, Suit
from ..errors import IllegalMoveError
from .contracts import check_contract
from .melds import _bounds, _run, _set
from .ruleset import RuleSet

__all__ = ["contract_options", "set_candidates", "run_candidates"]

Face = tuple[int, Suit | None]


def _rank_at(pos: int) -> int:
    return 1 if pos == 14 else pos


def _wild_multisets(wild_faces: Counter, size: int) -> Iterator[tuple[Face, ...]]:
    faces = sorted(wild_faces, key=lambda f: (f[0] != 0, f[0], -1 if f[1] is None else f[1]))

    def rec(i: int, left: int) -> Iterator[tuple[Face, ...]]:
        if left == 0:
            yield ()
            return
        if i == len(faces):
            return
        for take in range(min(left, wild_faces[faces[i]]), -1, -1):
            for rest in rec(i + 1, left - take):
                yield (faces[i],) * take + rest

    yield from rec(0, size)


def _max_wilds(rules: RuleSet, naturals: int, available: int) -> int:
    limit = available
    if rules.max_wilds_per_meld is not None:
        limit = min(limit, rules.max_wilds_per_meld)
    if rules.wilds_at_most_naturals:
        limit = min(limit, naturals)
    return limit


def set_candidates(rules: RuleSet, counts: Counter, reps: dict[Face, Card], minimum: bool) -> Iterator[tuple[Face, ...]]:
    """Every set (as faces) the hand holds: each choice of naturals and of wilds."""
    wild_total = Counter({f: n for f, n in counts.items() if rules.is_wild(reps[f])})
    for rank in range(1, 14):
        natural_faces = [f for f in counts if f[0] == rank and (rank == 2 or not rules.is_wild(reps[f]))]
        if not natural_faces:
            continue
        wilds = Counter({f: n for f, n in wild_total.items() if f[0] != rank})
        per_face = 1 if rules.set_distinct_suits else None
        ranges = [range(min(counts[f], per_face or counts[f]) + 1) for f in natural_faces]
        for choice in product(*ranges):
            naturals = sum(choice)
            if naturals == 0:
                continue
            nat = tuple(f for f, k in zip(natural_faces, choice) for _ in range(k))
            for w in range(_max_wilds(rules, naturals, sum(wilds.values())) + 1):
                size = naturals + w
                if size < rules.min_set or (rules.max_set is not None and size > rules.max_set):
                    continue
                if minimum and size != rules.min_set:
                    continue
                for wild in _wild_multisets(wilds, w):
                    faces = nat + wild
                    if _set(rules, [reps[f] for f in faces], rank):
                        yield faces


def run_candidates(rules: RuleSet, counts: Counter, reps: dict[Face, Card], minimum: bool) -> Iterator[tuple[Face, ...]]:
    """Every run (as faces, low to high) the hand holds: each window, wild placement and wild mix."""
    wild_faces = Counter({f: n for f, n in counts.items() if rules.is_wild(reps[f])})
    wild_count = sum(wild_faces.values())
    lo, hi = _bounds(rules)
    longest = hi - lo + 1 if rules.ace_both_ends else min(hi - lo + 1, 13)
    if rules.max_run is not None:
        longest = min(longest, rules.max_run)
    if minimum:
        longest = min(longest, rules.min_run)
    for suit in Suit:
        have = [p for p in range(lo, hi + 1) if counts.get((_rank_at(p), suit), 0)]
        if not have:
            continue
        for length in range(rules.min_run, longest + 1):
            for low in range(lo, hi - length + 2):
                positions = range(low, low + length)
                if low == 1 and low + length - 1 == 14 and not rules.ace_both_ends:
                    continue
                natural_at = [p for p in positions if counts.get((_rank_at(p), suit), 0)]
                forced = length - len(natural_at)
                if forced > wild_count:
                    continue
                for extra in range(0, len(natural_at) + 1):
                    w = forced + extra
                    if w > _max_wilds(rules, length - w, wild_count):
                        break
                    for as_wild in combinations(natural_at, extra):
                        wild_positions = [p for p in positions if p not in natural_at or p in as_wild]
                        for wild in _wild_multisets(wild_faces, w):
                            placed = dict(zip(wild_positions, wild))
                            faces = tuple(placed.get(p, (_rank_at(p), suit)) for p in positions)
                            if any(Counter(faces)[f] > counts[f] for f in set(faces)):
                                continue
                            if _run(rules, [reps[f] for f in faces], low, suit):
                                yield faces


def contract_options(
    rules: RuleSet, hand: Sequence[Card], contract: tuple[int, int], meld_all: bool = False
) -> Iterator[tuple[tuple[Card, ...], ...]]:
    """Every way (up to equal copies) that ``hand`` lays down ``contract``, as melds of cards.

    ``meld_all``: only arrangements that use every card (the last round of davis and good-miller).
    """
    sets_needed, runs_needed = contract
    copies: dict[Face, list[Card]] = {}
    for card in sorted(hand):
        copies.setdefault(card.face, []).append(card)
    counts = Counter({f: len(c) for f, c in copies.items()})
    reps = {f: c[0] for f, c in copies.items()}
    minimum = rules.contract_minimum_melds
    sets = list(set_candidates(rules, counts, reps, minimum)) if sets_needed else []
    runs = list(run_candidates(rules, counts, reps, minimum)) if runs_needed else []
    for chosen_sets in combinations(sets, sets_needed):
        used = Counter()
        for faces in chosen_sets:
            used.update(faces)
        if any(used[f] > counts[f] for f in used):
            continue
        for chosen_runs in combinations(runs, runs_needed):
            total = used.copy()
            for faces in chosen_runs:
                total.update(faces)
            if any(total[f] > counts[f] for f in total):
                continue
            if meld_all and sum(total.values()) != len(hand):
                continue
            taken: Counter = Counter()
            melds = []
            for faces in chosen_sets + chosen_runs:
                meld = []
                for f in faces:
                    meld.append(copies[f][taken[f]])
                    taken[f] += 1
                melds.append(tuple(meld))
            try:
                check_contract(rules, contract, melds)
            except IllegalMoveError:
                continue
            yield tuple(melds)
