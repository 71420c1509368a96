"""How many cards a hand still lacks for its contract: the strong player's count of "outs".

The hand's partial melds (cards of one rank toward a set, cards of one suit inside a run's
window) are combined into the contract's sets and runs without using a card twice; what the
best combination lacks, less the wild cards that may fill it, is the hand's need.  A discard
that keeps the need lowest, and a pile card that lowers it, are what a player counts at the
table.  An estimate for choosing among moves: the finder, not this, says what may go down.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

from ..cards import Card
from ..rules.melds import run_bounds
from ..rules.ruleset import RuleSet

__all__ = ["contract_need"]

_SPARE = 3
"""Partial melds of each kind looked at beyond the number the contract asks for."""


def contract_need(rules: RuleSet, contract: tuple[int, int], hand: Sequence[Card]) -> int:
    """Cards this hand lacks to hold ``contract`` (0: it may go down)."""
    wilds = sum(1 for c in hand if rules.is_wild(c))
    faces = Counter((c.rank, c.suit) for c in hand if not rules.is_wild(c))
    return _need(rules, contract, wilds, tuple(sorted(faces.items(), key=lambda f: (f[0][0], f[0][1] or 0))))


@lru_cache(maxsize=65536)
def _need(rules: RuleSet, contract: tuple[int, int], wilds: int, faces: tuple) -> int:
    sets, runs = contract
    counts = dict(faces)
    ranks: Counter = Counter()
    for (rank, _), n in faces:
        ranks[rank] += n
    set_size, run_size = rules.min_set, rules.min_run
    # (missing, {rank: cards used}, {face: cards used}, naturals)
    set_parts = sorted(
        ((max(0, set_size - n), {rank: min(n, set_size)}, {}, min(n, set_size)) for rank, n in ranks.items()),
        key=lambda p: p[0])[: sets + _SPARE] if sets else []
    run_parts = _run_parts(rules, counts, run_size)[: runs + 2 * _SPARE] if runs else []
    empty_set = (set_size, {}, {}, 0)
    empty_run = (run_size, {}, {}, 0)
    best = set_size * sets + run_size * runs
    for chosen_sets in _choices(set_parts, sets, empty_set):
        for chosen_runs in _choices(run_parts, runs, empty_run):
            parts = chosen_sets + chosen_runs
            if not _fits(parts, ranks, counts):
                continue
            missing = sum(p[0] for p in parts)
            fillable = sum(min(p[0], _wild_room(rules, p[3], size))
                           for p, size in zip(parts, [set_size] * len(chosen_sets) + [run_size] * len(chosen_runs)))
            best = min(best, missing - min(wilds, fillable))
    return best


def _wild_room(rules: RuleSet, naturals: int, size: int) -> int:
    room = naturals if rules.wilds_at_most_naturals else size
    return room if rules.max_wilds_per_meld is None else min(room, rules.max_wilds_per_meld)


def _choices(parts: list, k: int, empty):
    """Every way to pick ``k`` partial melds, an empty one standing for any left unstarted."""
    for n in range(min(k, len(parts)), -1, -1):
        for chosen in combinations(parts, n):
            yield list(chosen) + [empty] * (k - n)


def _run_parts(rules: RuleSet, counts: dict, size: int) -> list:
    """Each suit's windows of ``size`` positions holding at least one of its cards, fewest
    missing first."""
    lo, hi = run_bounds(rules)
    by_suit: dict = {}
    for (rank, suit), n in counts.items():
        positions = [p for p in ((1, 14) if rank == 1 else (rank,)) if lo <= p <= hi]
        for p in positions:
            by_suit.setdefault(suit, {})[p] = rank
    parts = []
    for suit, at in by_suit.items():
        for low in range(lo, hi - size + 2):
            inside = {at[p] for p in range(low, low + size) if p in at}
            if inside:
                uses = {(rank, suit): 1 for rank in inside}
                parts.append((size - len(inside), {}, uses, len(inside)))
    parts.sort(key=lambda p: p[0])
    return parts


def _fits(parts: list, ranks: Counter, counts: dict) -> bool:
    """No card used twice: per rank and per face, the parts use no more than the hand holds."""
    by_rank: Counter = Counter()
    by_face: Counter = Counter()
    for _, rank_use, face_use, _ in parts:
        by_rank.update(rank_use)
        by_face.update(face_use)
    for face, n in by_face.items():
        if n > counts.get(face, 0):
            return False
        by_rank[face[0]] += n
    return all(n <= ranks[rank] for rank, n in by_rank.items())
