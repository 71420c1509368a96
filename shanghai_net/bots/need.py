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
from ..rules.melds import run_bounds
from ..rules.ruleset import Contract, MeldKind, Need, PhaseContract, RuleSet

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


def contract_need(rules: RuleSet, contract: Contract, hand: Sequence[Card]) -> int:
    """Cards this hand lacks to hold ``contract`` (0: it may go down)."""
    wild_twos = rules.wild_twos
    # the natural cards' faces in order (a natural card has a suit); rules.is_wild, inlined: hot
    naturals = sorted([c.face for c in hand if not (c.is_joker or (wild_twos and c.rank == 2))])
    melds = _Melds(rules.min_set, rules.min_run, run_bounds(rules), rules.wilds_at_most_naturals,
                   rules.max_wilds_per_meld)
    if isinstance(contract, PhaseContract):
        return _phase_need(melds, rules.runs_any_suit, contract.melds, len(hand) - len(naturals), tuple(naturals))
    return _need(melds, contract, len(hand) - len(naturals), tuple(naturals))


@lru_cache(maxsize=65536)
def _phase_need(rules: _Melds, any_suit: bool, needs: tuple[Need, ...], wilds: int, naturals: tuple) -> int:
    """`_need` for a phase (Phase 10): each meld it asks for at its own size, runs of any suits
    counted by rank, cards of one suit by suit.  Parts are combined without using a card twice as
    `_need` does; cards of one suit are only checked against each other's counts."""
    ranks: Counter = Counter()
    suits: Counter = Counter()
    held: dict = {}  # suit: its ranks as bits
    room = _GUARDS
    for (rank, suit), n in Counter(naturals).items():
        ranks[rank] += n
        suits[suit] += n
        held[suit] = held.get(suit, 0) | 1 << rank
        room += n << _face_field(rank, suit)
    for rank, n in ranks.items():
        room += n << _rank_field(rank)
    any_bits = 0
    for bits in held.values():
        any_bits |= bits
    order = sorted(needs, key=lambda need: (list(MeldKind).index(need[0]), -need[1]))
    lists = []
    for kind, size in order:
        if kind is MeldKind.SET:
            parts = [(max(0, size - n), _fill(rules, size, n), min(n, size) << _rank_field(rank))
                     for rank, n in ranks.items()]
        elif kind is MeldKind.RUN and any_suit:
            parts = list(_suit_runs(rules, None, any_bits, size))
        elif kind is MeldKind.RUN:
            parts = [part for suit, bits in held.items() for part in _suit_runs(rules, suit, bits, size)]
        else:
            parts = [(max(0, size - n), _fill(rules, size, n),
                      sum(min(ranks_n, size) << _face_field(r, suit)
                          for (r, s), ranks_n in Counter(naturals).items() if s == suit))
                     for suit, n in suits.items()]
        parts = sorted(parts, key=_MISSING)[: len(needs) + _SPARE]
        parts.append((size, _fill(rules, size, 0), 0))  # not started
        lists.append(parts)

    def pick(step: int, start: int, missing: int, fill: int, uses: int, best: int) -> int:
        if step == len(order):
            return min(best, max(0, missing - min(wilds, fill)))
        same = step > 0 and order[step] == order[step - 1]
        parts = lists[step]
        for i in range(start if same else 0, len(parts)):
            part_missing, part_fill, part_uses = parts[i]
            if max(0, missing + part_missing - wilds) >= best:
                continue
            if (room - uses - part_uses) & _GUARDS == _GUARDS:  # no card used twice
                best = pick(step + 1, i, missing + part_missing, fill + part_fill, uses + part_uses, best)
        return best

    return pick(0, 0, 0, 0, 0, sum(size for _, size in needs))


@lru_cache(maxsize=65536)
def _need(rules: _Melds, contract: tuple[int, int], wilds: int, naturals: tuple) -> int:
    sets, runs = contract
    ranks: Counter = Counter()
    held: dict = {}  # suit: its ranks as bits
    room = _GUARDS  # each count the hand holds, above its field's guard bit
    for (rank, suit), n in Counter(naturals).items():
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
    empty_set = (set_size, _fill(rules, set_size, 0))
    empty_run = (run_size, _fill(rules, run_size, 0))
    least_run = run_parts[0][0] if run_parts else run_size

    # Depth first, the parts fewest missing first: a pick stops where even every wild card
    # could not make it beat the best (each part after it misses as many cards or more).
    def pick_runs(k: int, start: int, missing: int, fill: int, uses: int, best: int) -> int:
        need = missing + k * empty_run[0] - min(wilds, fill + k * empty_run[1])  # the rest unstarted
        best = min(best, need)
        for i in range(start, len(run_parts) if k and best else 0):
            part_missing, part_fill, part_uses = run_parts[i]
            if max(0, missing + k * part_missing - wilds) >= best:
                break
            if (room - uses - part_uses) & _GUARDS == _GUARDS:  # no card used twice
                best = pick_runs(k - 1, i + 1, missing + part_missing, fill + part_fill, uses + part_uses, best)
        return best

    def pick_sets(k: int, start: int, missing: int, fill: int, uses: int, best: int) -> int:
        # sets of different ranks never share a card: only the runs are checked
        if missing + runs * least_run - wilds < best:
            best = pick_runs(runs, 0, missing + k * empty_set[0], fill + k * empty_set[1], uses, best)
        for i in range(start, len(set_parts) if k and best else 0):
            part_missing, part_fill, part_uses = set_parts[i]
            if max(0, missing + k * part_missing + runs * least_run - wilds) >= best:
                break
            best = pick_sets(k - 1, i + 1, missing + part_missing, fill + part_fill, uses + part_uses, best)
        return best

    return pick_sets(sets, 0, 0, 0, 0, set_size * sets + run_size * runs)


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
    """The wild cards a partial meld of ``naturals`` may take toward ``size`` cards.  Under
    the house rule of no more wild cards than natural ones each natural card added lets one
    more wild card in: half the meld, not the naturals held now (one natural and three
    jokers lack 1 card for a run of four, not 2)."""
    missing = max(0, size - naturals)
    room = size // 2 if rules.wilds_at_most_naturals else size
    return min(missing, room if rules.max_wilds_per_meld is None else min(room, rules.max_wilds_per_meld))


@lru_cache(maxsize=4096)
def _suit_runs(rules: _Melds, suit: int | None, bits: int, size: int) -> tuple:
    """The windows of ``size`` positions holding at least one of the suit's ranks ``bits``,
    lowest first.  ``suit`` None: a run of any suits over the ranks of every suit, each rank used
    once (counted by rank alone, whichever suit)."""
    lo, hi = rules.bounds
    at = {p: rank for rank in range(1, 14) if bits >> rank & 1
          for p in ((1, 14) if rank == 1 else (rank,)) if lo <= p <= hi}
    parts = []
    for low in range(lo, hi - size + 2):
        inside = {at[p] for p in range(low, low + size) if p in at}
        if inside:
            uses = sum((0 if suit is None else 1 << _face_field(rank, suit)) + (1 << _rank_field(rank))
                       for rank in inside)
            parts.append((size - len(inside), _fill(rules, size, len(inside)), uses))
    return tuple(parts)
