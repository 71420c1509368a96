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
from operator import itemgetter
from typing import NamedTuple

from ..cards import Card
from ..rules.melds import _bounds
from ..rules.ruleset import RuleSet

__all__ = ["contract_need"]

_SPARE = 3
"""Partial melds of each kind looked at beyond the number the contract asks for."""


class _Melds(NamedTuple):
    """The rules that the count reads (a key cheaper to hash than the whole rule set)."""

    min_set: int
    min_run: int
    bounds: tuple[int, int]
    wilds_at_most_naturals: bool
    max_wilds_per_meld: int | None


def contract_need(rules: RuleSet, contract: tuple[int, int], hand: Sequence[Card]) -> int:
    """Cards this hand lacks to hold ``contract`` (0: it may go down)."""
    wilds = sum(1 for c in hand if rules.is_wild(c))
    faces = Counter((c.rank, c.suit) for c in hand if not rules.is_wild(c))  # a natural card has a suit
    melds = _Melds(rules.min_set, rules.min_run, _bounds(rules), rules.wilds_at_most_naturals,
                   rules.max_wilds_per_meld)
    return _need(melds, contract, wilds, tuple(sorted(faces.items())))


@lru_cache(maxsize=65536)
def _need(rules: _Melds, contract: tuple[int, int], wilds: int, faces: tuple) -> int:
    sets, runs = contract
    ranks: Counter = Counter()
    held: dict = {}  # suit: its ranks as bits
    room = _GUARDS  # each count the hand holds, above its field's guard bit
    for (rank, suit), n in faces:
        ranks[rank] += n
        held[suit] = held.get(suit, 0) | 1 << rank
        room += n << _face_field(rank, suit)
    for rank, n in ranks.items():
        room += n << _rank_field(rank)
    set_size, run_size = rules.min_set, rules.min_run
    # (missing, wild cards it may take, the cards it uses packed as `room` counts them)
    set_parts = sorted(
        ((max(0, set_size - n), _fill(rules, set_size, n), min(n, set_size) << _rank_field(rank))
         for rank, n in ranks.items()), key=_MISSING)[: sets + _SPARE] if sets else []
    run_parts = sorted([part for suit, bits in held.items() for part in _suit_runs(rules, suit, bits, run_size)],
                       key=_MISSING)[: runs + 2 * _SPARE] if runs else []
    # sets of different ranks never share a card, so only runs are checked among themselves
    set_choices = sorted(_choices(None, set_parts, sets, (set_size, _fill(rules, set_size, 0), 0)))
    run_choices = sorted(_choices(room, run_parts, runs, (run_size, _fill(rules, run_size, 0), 0)))
    best = set_size * sets + run_size * runs
    least_run = run_choices[0][0] - wilds
    for set_missing, set_fill, set_uses in set_choices:
        if set_missing + least_run >= best:
            break  # these sets and any runs miss as many cards or more
        for run_missing, run_fill, run_uses in run_choices:
            if set_missing + run_missing - wilds >= best:
                break  # the runs left miss as many cards or more
            need = set_missing + run_missing - min(wilds, set_fill + run_fill)
            if need < best and (room - set_uses - run_uses) & _GUARDS == _GUARDS:  # they fit together
                if not need:
                    return 0
                best = need
    return best


_MISSING = itemgetter(0)
_WIDTH = 8
"""Bits of one count in a packed hand: a count stays below the guard bit (128) at the top."""
_GUARDS = sum(1 << (_WIDTH * field + _WIDTH - 1) for field in range(15 * 4 + 15))
"""The guard bit of every count.  Partial melds fit the hand together (no card used twice) when
``(room - uses) & _GUARDS == _GUARDS``: no count of ``uses`` (per face and per rank) is above
the hand's, since one that is borrows its field's guard bit."""


def _face_field(rank: int, suit: int) -> int:
    return _WIDTH * (rank * 4 + suit)


def _rank_field(rank: int) -> int:
    return _WIDTH * (60 + rank)


def _fill(rules: _Melds, size: int, naturals: int) -> int:
    """The wild cards a partial meld of ``naturals`` may take toward ``size`` cards."""
    missing = max(0, size - naturals)
    room = naturals if rules.wilds_at_most_naturals else size
    return min(missing, room if rules.max_wilds_per_meld is None else min(room, rules.max_wilds_per_meld))


def _choices(room: int | None, parts: list, k: int, empty: tuple) -> list:
    """Every way to pick ``k`` of ``parts`` (that fit the hand together, unless ``room`` is
    None), an empty part standing for any left unstarted, as their summed (missing, wild room,
    uses)."""
    by_count = [[(0, 0, 0)]] + [[] for _ in range(k)]  # the picks of each number of parts
    top = min(k, len(parts)) - 1
    for missing, fill, uses in parts:
        for n in range(top, -1, -1):
            if room is None:
                by_count[n + 1] += [(m + missing, f + fill, u + uses) for m, f, u in by_count[n]]
            else:
                by_count[n + 1] += [(m + missing, f + fill, u + uses) for m, f, u in by_count[n]
                                    if (room - u - uses) & _GUARDS == _GUARDS]
    empty_missing, empty_fill, _ = empty
    return [(m + (k - n) * empty_missing, f + (k - n) * empty_fill, u)
            for n, picks in enumerate(by_count) for m, f, u in picks]


@lru_cache(maxsize=4096)
def _suit_runs(rules: _Melds, suit: int, bits: int, size: int) -> tuple:
    """The windows of ``size`` positions holding at least one of the suit's ranks ``bits``,
    lowest first."""
    lo, hi = rules.bounds
    at = {p: rank for rank in range(1, 14) if bits >> rank & 1
          for p in ((1, 14) if rank == 1 else (rank,)) if lo <= p <= hi}
    parts = []
    for low in range(lo, hi - size + 2):
        inside = {at[p] for p in range(low, low + size) if p in at}
        if inside:
            uses = sum((1 << _face_field(rank, suit)) + (1 << _rank_field(rank)) for rank in inside)
            parts.append((size - len(inside), _fill(rules, size, len(inside)), uses))
    return tuple(parts)
