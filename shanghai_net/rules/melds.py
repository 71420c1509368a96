"""Melds: sets (books), runs and cards of one suit, with wild cards, ace rules and size limits.

A `Meld` on the table is arranged: a run's cards are ordered low to high and card ``i`` stands for
rank ``low + i`` (14 is the ace above the king), so every wild card stands for one definite card.
That is what lay-offs at the ends, a joker swap and a joker buy need to know.

Phase 10 (seed 000) adds two things: runs whose cards may be of any suits (``runs_any_suit``: the
run's ``suit`` is None and each wild stands for a rank alone), and a meld of cards of one suit in
any ranks (`MeldKind.SUIT`, where a phase asks for one; a wild in it stands for any card of the suit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..cards import Card, Suit
from .ruleset import Ace, MeldKind, RuleSet

__all__ = ["Meld", "End", "arrange", "meld_kind", "run_bounds", "arrangements", "why_not_meld", "extend", "touches",
           "touching_faces", "plays_on", "replace_wild"]


class End(StrEnum):
    """Which end of a run a card goes to."""

    LOW = "low"
    HIGH = "high"


@dataclass(frozen=True, slots=True)
class Meld:
    kind: MeldKind
    cards: tuple[Card, ...]
    rank: int  # a set's rank; a run's lowest position (1 = low ace, 14 = high ace); 0 for cards of one suit
    suit: Suit | None = None  # a run's suit (None: a run of any suits); the suit of cards of one suit

    @property
    def high(self) -> int:
        """A run's highest position."""
        return self.rank + len(self.cards) - 1

    def stands_for(self, index: int) -> tuple[int, Suit | None]:
        """(rank, suit) that the card at ``index`` represents; a set's wild has no suit, a wild in
        cards of one suit no rank (0)."""
        if self.kind is not MeldKind.RUN:
            return (self.rank, self.suit)
        pos = self.rank + index
        return (1 if pos == 14 else pos, self.suit)

    def text(self, unicode: bool = False) -> str:
        return " ".join(c.text(unicode) for c in self.cards)

    def __str__(self) -> str:
        return self.text()


_BOUNDS = {Ace.LOW: (1, 13), Ace.HIGH: (2, 14), Ace.EITHER: (1, 14)}


def run_bounds(rules: RuleSet) -> tuple[int, int]:
    """The lowest and highest position a run may reach (1 the low ace, 14 the high ace)."""
    return _BOUNDS[rules.ace]


def _wild_ok(rules: RuleSet, wilds: int, naturals: int) -> bool:
    if naturals == 0:
        return False
    if rules.max_wilds_per_meld is not None and wilds > rules.max_wilds_per_meld:
        return False
    return not (rules.wilds_at_most_naturals and wilds > naturals)


def _set(rules: RuleSet, cards: Sequence[Card], rank: int | None = None) -> Meld | None:
    """The cards as a set of ``rank`` (found from the naturals when not given), or None."""
    n = len(cards)
    if n < rules.least_set or (rules.max_set is not None and n > rules.max_set):
        return None
    if rank is None:
        ranks = {c.rank for c in cards if not rules.is_wild(c)}
        if not ranks:  # only wilds: a set of twos when twos are wild
            ranks = {c.rank for c in cards if not c.is_joker}
        if len(ranks) != 1:
            return None
        rank = ranks.pop()
    naturals = [c for c in cards if c.rank == rank]
    if len(naturals) + sum(1 for c in cards if c.rank != rank and rules.is_wild(c)) != n:
        return None
    if not _wild_ok(rules, n - len(naturals), len(naturals)):
        return None
    if rules.set_distinct_suits and len({c.suit for c in naturals}) != len(naturals):
        return None
    ordered = tuple(sorted(naturals) + sorted(c for c in cards if c.rank != rank))
    return Meld(MeldKind.SET, ordered, rank)


def _fits(rules: RuleSet, card: Card, pos: int, suit: Suit | None) -> bool | None:
    """True: natural at pos; False: wild standing there; None: cannot stand there.  A run of any
    suits (``suit`` None) takes a card of the rank in any suit."""
    rank = 1 if pos == 14 else pos
    if card.rank == rank and (card.suit is suit or suit is None):
        return True
    return False if rules.is_wild(card) else None


def _run(rules: RuleSet, cards: Sequence[Card], low: int, suit: Suit | None) -> Meld | None:
    """The cards in this order as a run of ``suit`` (None: of any suits) starting at position
    ``low``, or None."""
    n = len(cards)
    lo, hi = run_bounds(rules)
    high = low + n - 1
    if n < rules.least_run or (rules.max_run is not None and n > rules.max_run):
        return None
    if low < lo or high > hi or (low == 1 and high == 14 and not rules.ace_both_ends):
        return None
    naturals = 0
    for i, card in enumerate(cards):
        fit = _fits(rules, card, low + i, suit)
        if fit is None:
            return None
        naturals += fit
    if not _wild_ok(rules, n - naturals, naturals):
        return None
    return Meld(MeldKind.RUN, tuple(cards), low, suit)


def _suit(rules: RuleSet, cards: Sequence[Card], suit: Suit | None = None) -> Meld | None:
    """The cards as cards of one suit (``suit``, found from the naturals when not given), in any
    ranks: naturals first (by rank), then the wilds; None where the rules have no such meld."""
    least = rules.least_suit
    n = len(cards)
    if least is None or n < least:
        return None
    wilds = [c for c in cards if rules.is_wild(c)]
    naturals = [c for c in cards if not rules.is_wild(c)]
    if suit is None:
        suits = {c.suit for c in naturals}
        if len(suits) != 1:
            return None
        suit = suits.pop()
    natural_of_suit = [c for c in naturals if c.suit is suit]
    # a wild two of the suit counts as a natural card of it (as a wild two at its own place in a run)
    naturals_total = len(natural_of_suit) + sum(1 for c in wilds if not c.is_joker and c.suit is suit)
    if len(natural_of_suit) != len(naturals) or not _wild_ok(rules, n - naturals_total, naturals_total):
        return None
    ordered = tuple(sorted(natural_of_suit, key=lambda c: (c.rank, c.id)) + sorted(wilds))
    return Meld(MeldKind.SUIT, ordered, 0, suit)


def _positions(rules: RuleSet, card: Card) -> tuple[int, ...]:
    if card.rank != 1:
        return (card.rank,)
    lo, hi = run_bounds(rules)
    return tuple(p for p in (1, 14) if lo <= p <= hi)


def _run_as_given(rules: RuleSet, cards: Sequence[Card]) -> Meld | None:
    """The run exactly in the order the player gave, if that order is a run."""
    for i, card in enumerate(cards):
        if not rules.is_wild(card):
            suit = None if rules.runs_any_suit else card.suit
            for pos in _positions(rules, card):
                meld = _run(rules, cards, pos - i, suit)
                if meld:
                    return meld
            return None
    return None


def _runs(rules: RuleSet, cards: Sequence[Card]) -> list[Meld]:
    """Every distinct placement of these cards as a run, extra wilds highest first."""
    fixed = [c for c in cards if not rules.is_wild(c)]
    wilds = sorted((c for c in cards if rules.is_wild(c)), key=lambda c: (not c.is_joker, c.id))
    if not fixed or (len({c.suit for c in fixed}) != 1 and not rules.runs_any_suit):
        return []
    suit = None if rules.runs_any_suit else fixed[0].suit
    n = len(cards)
    lo, hi = run_bounds(rules)
    out: list[Meld] = []
    seen: set[tuple[Card, ...]] = set()
    aces = [c for c in fixed if c.rank == 1]
    others = {c.rank: c for c in fixed if c.rank != 1}
    if len(others) != len(fixed) - len(aces):
        return []  # the same rank twice
    for ace_positions in _ace_choices(rules, len(aces)):
        slots = dict(others)
        for ace, pos in zip(aces, ace_positions):
            slots[pos] = ace
        if len(slots) != len(fixed):
            continue
        first, last = min(slots), max(slots)
        for low in range(min(first, hi - n + 1), max(lo, last - n + 1) - 1, -1):
            order = _fill(rules, slots, wilds, low, n, suit)
            if order is not None and order not in seen:
                meld = _run(rules, order, low, suit)
                if meld:
                    seen.add(order)
                    out.append(meld)
    return out


def _ace_choices(rules: RuleSet, count: int) -> list[tuple[int, ...]]:
    lo, hi = run_bounds(rules)
    ends = [p for p in (1, 14) if lo <= p <= hi]
    if count == 0:
        return [()]
    if count == 1:
        return [(p,) for p in ends]
    return [(1, 14)] if count == 2 and len(ends) == 2 else []


def _fill(rules, slots, wilds, low, n, suit) -> tuple[Card, ...] | None:
    """Wilds into the free positions; a wild two of the run's suit takes its own place."""
    free = [p for p in range(low, low + n) if p not in slots]
    if len(free) != len(wilds):
        return None
    placed = dict(slots)
    rest = list(wilds)
    for card in wilds:
        if not card.is_joker and (card.suit is suit or suit is None) and 2 in free and 2 not in placed:
            placed[2] = card
            rest.remove(card)
            free.remove(2)
            break
    for pos, card in zip(free, rest):
        placed[pos] = card
    return tuple(placed[p] for p in range(low, low + n))


def arrangements(rules: RuleSet, cards: Sequence[Card]) -> list[Meld]:
    """Every way these cards are a meld: the set, the run in the given order, then other runs,
    then cards of one suit (where the rules have that meld)."""
    cards = list(cards)
    out: list[Meld] = []
    as_set = _set(rules, cards)
    if as_set:
        out.append(as_set)
    given = _run_as_given(rules, cards)
    if given:
        out.append(given)
    out.extend(m for m in _runs(rules, cards) if not given or m.cards != given.cards)
    if rules.least_suit is not None:
        as_suit = _suit(rules, cards)
        if as_suit:
            out.append(as_suit)
    return out


def arrange(rules: RuleSet, cards: Sequence[Card]) -> Meld | None:
    """The meld these cards form (a set first, a run in the given order next), or None."""
    found = arrangements(rules, cards)
    return found[0] if found else None


def meld_kind(rules: RuleSet, cards: Sequence[Card]) -> MeldKind | None:
    """"set", "run", "suit" or None: what these cards form under this rule set (docs/api.md)."""
    meld = arrange(rules, cards)
    return meld.kind if meld else None


def why_not_meld(rules: RuleSet, cards: Sequence[Card]) -> str:
    """Why these cards are no meld, in a player's words."""
    n = len(cards)
    wilds = sum(1 for c in cards if rules.is_wild(c))
    if wilds == n:
        return "only wild cards"
    if rules.max_wilds_per_meld is not None and wilds > rules.max_wilds_per_meld:
        return f"{wilds} wild cards (at most {rules.max_wilds_per_meld} in a meld)"
    if rules.wilds_at_most_naturals and wilds > n - wilds:
        return f"{wilds} wild cards outnumber {n - wilds} natural cards"
    ranks = {c.rank for c in cards if not rules.is_wild(c)}
    suits = {c.suit for c in cards if not rules.is_wild(c)}
    if len(ranks) == 1:
        if n < rules.least_set:
            return f"a {rules.set_word} needs at least {rules.least_set} cards"
        if rules.max_set is not None and n > rules.max_set:
            return f"a {rules.set_word} has at most {rules.max_set} cards"
        return f"a {rules.set_word} needs different suits"
    if len(suits) > 1 and not rules.runs_any_suit:
        return "neither one rank (a set) nor one suit (a run)"
    # cards of one suit, where the rules have that meld: too few (else they would be one)
    too_few = f"; cards of one suit are a meld from {rules.least_suit}" if (
        len(suits) == 1 and rules.least_suit is not None) else ""
    if n < rules.least_run:
        return f"a run needs at least {rules.least_run} cards{too_few}"
    if rules.max_run is not None and n > rules.max_run:
        return f"a run has at most {rules.max_run} cards{too_few}"
    any_suit = " (in any suits)" if rules.runs_any_suit else ""
    if 1 in ranks:
        return f"not in sequence{any_suit} (aces are {rules.ace.value} here, runs never wrap, no rank twice){too_few}"
    return f"not in sequence{any_suit} (a rank twice, or a gap the wild cards cannot fill){too_few}"


def extend(rules: RuleSet, meld: Meld, card: Card, end: End | None = None) -> Meld | None:
    """The meld with ``card`` laid off on it (at ``end`` of a run), or None if it cannot go."""
    if not touches(rules, meld, card, end):
        return None
    if meld.kind is MeldKind.SET:
        return _set(rules, meld.cards + (card,), meld.rank)
    if meld.kind is MeldKind.SUIT:
        return _suit(rules, meld.cards + (card,), meld.suit)
    if end is not End.LOW:
        longer = _run(rules, meld.cards + (card,), meld.rank, meld.suit)
        if longer or end is End.HIGH:
            return longer
    return _run(rules, (card,) + meld.cards, meld.rank - 1, meld.suit)


def touches(rules: RuleSet, meld: Meld, card: Card, end: End | None = None) -> bool:
    """Whether ``card`` may go on ``meld`` (at ``end``) by rank and suit alone: a natural card goes
    on a set of its rank, or at an end of a run of its suit as the rank that end needs.  A cheap
    necessary condition of `extend`, which rules out most lay-offs before a meld is built.  Any
    card of its suit goes on cards of one suit; a run of any suits takes any suit at its ends."""
    rank = card.rank
    if rank == 0 or (rank == 2 and rules.wild_twos):  # a wild card (rules.is_wild, inlined: hot)
        return True
    kind = meld.kind
    if kind is MeldKind.SET:
        return rank == meld.rank
    if card.suit is not meld.suit:
        if kind is MeldKind.SUIT or meld.suit is not None:
            return False
    elif kind is MeldKind.SUIT:
        return True
    below, above = meld.rank - 1, meld.rank + len(meld.cards)
    return (end is not End.LOW and (rank == above or rank == 1 and above == 14)) or (
        end is not End.HIGH and rank == below)


def touching_faces(meld: Meld) -> list[tuple[int, Suit | None]]:
    """The natural faces (rank, suit) that `touches` ``meld``: its rank in every suit for a set,
    the ranks just outside a run's ends (in its suit, or every suit for a run of any suits), every
    rank of the suit for cards of one suit.  The engine indexes the table by these."""
    if meld.kind is MeldKind.SET:
        return [(meld.rank, suit) for suit in Suit]
    if meld.kind is MeldKind.SUIT:
        return [(rank, meld.suit) for rank in range(1, 14)]
    above = meld.rank + len(meld.cards)
    ends = (meld.rank - 1, 1 if above == 14 else above)
    if meld.suit is None:
        return [(rank, suit) for rank in ends for suit in Suit]
    return [(rank, meld.suit) for rank in ends]


def plays_on(rules: RuleSet, table: Sequence[Meld], card: Card) -> bool:
    """Whether ``card`` could be laid off on some meld of ``table``."""
    for meld in table:
        if touches(rules, meld, card) and extend(rules, meld, card):
            return True
    return False


def replace_wild(rules: RuleSet, meld: Meld, wild: Card, natural: Card) -> Meld | None:
    """The meld with ``natural`` in the place of ``wild`` (the card the wild stands for), or None."""
    if wild not in meld.cards or rules.is_wild(natural):
        return None
    i = meld.cards.index(wild)
    rank, suit = meld.stands_for(i)
    if (natural.rank != rank and meld.kind is not MeldKind.SUIT) or (suit is not None and natural.suit is not suit):
        return None
    cards = meld.cards[:i] + (natural,) + meld.cards[i + 1 :]
    if meld.kind is MeldKind.SET:
        return _set(rules, cards, meld.rank)
    if meld.kind is MeldKind.SUIT:
        return _suit(rules, cards, meld.suit)
    return _run(rules, cards, meld.rank, meld.suit)
