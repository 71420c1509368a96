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
from ..rules.melds import _bounds
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
    room = _GUARDS  # each count the hand holds, above its field's guard bit
    for face, n in counts.items():
        room += n << _face_field(face)
    for rank, n in ranks.items():
        room += n << _rank_field(rank)
    # (missing, wild cards it may take, the cards it uses packed as `room` counts them)
    set_parts = sorted(
        ((max(0, set_size - n), _fill(rules, set_size, n), min(n, set_size) << _rank_field(rank))
         for rank, n in ranks.items()), key=lambda p: p[0])[: sets + _SPARE] if sets else []
    run_parts = _run_parts(rules, counts, run_size)[: runs + 2 * _SPARE] if runs else []
    run_choices = [c for c in _choices(run_parts, runs, (run_size, _fill(rules, run_size, 0), 0))
                   if _fits(room, c[2])]
    best = set_size * sets + run_size * runs
    for set_missing, set_fill, set_uses in _choices(set_parts, sets, (set_size, _fill(rules, set_size, 0), 0)):
        for run_missing, run_fill, run_uses in run_choices:
            need = set_missing + run_missing - min(wilds, set_fill + run_fill)
            if need < best and _fits(room, set_uses + run_uses):
                if not need:
                    return 0
                best = need
    return best


_WIDTH = 8
"""Bits of one count in a packed hand: a count stays below the guard bit (128) at the top."""
_GUARDS = sum(1 << (_WIDTH * field + _WIDTH - 1) for field in range(15 * 4 + 15))


def _face_field(face: tuple) -> int:
    rank, suit = face
    return _WIDTH * (rank * 4 + suit)


def _rank_field(rank: int) -> int:
    return _WIDTH * (60 + rank)


def _fits(room: int, uses: int) -> bool:
    """No card used twice: no count of ``uses`` (per face and per rank) above the hand's; a
    count that is borrows its field's guard bit."""
    return (room - uses) & _GUARDS == _GUARDS


def _fill(rules: RuleSet, size: int, naturals: int) -> int:
    """The wild cards a partial meld of ``naturals`` may take toward ``size`` cards."""
    missing = max(0, size - naturals)
    room = naturals if rules.wilds_at_most_naturals else size
    return min(missing, room if rules.max_wilds_per_meld is None else min(room, rules.max_wilds_per_meld))


def _choices(parts: list, k: int, empty: tuple):
    """Every way to pick ``k`` partial melds, an empty one standing for any left unstarted, as
    their summed (missing, wild room, uses)."""
    for n in range(min(k, len(parts)), -1, -1):
        for chosen in combinations(parts, n):
            chosen += (empty,) * (k - n)
            yield (sum(p[0] for p in chosen), sum(p[1] for p in chosen), sum(p[2] for p in chosen))


def _run_parts(rules: RuleSet, counts: dict, size: int) -> list:
    """Each suit's windows of ``size`` positions holding at least one of its cards, fewest
    missing first."""
    lo, hi = _bounds(rules)
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
                uses = sum((1 << _face_field((rank, suit))) + (1 << _rank_field(rank)) for rank in inside)
                parts.append((size - len(inside), _fill(rules, size, len(inside)), uses))
    parts.sort(key=lambda p: p[0])
    return parts
