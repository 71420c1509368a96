"""The basic bot: goes down as soon as it can, lays off, discards its least useful card, and claims
a discard that completes a meld its contract needs."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from functools import lru_cache

from ..cards import Card, Suit
from ..engine.moves import (
    BuyJoker, CallShanghai, Discard, DrawStock, GoDown, LayOff, MayI, Move, PassClaim, SwapJoker,
    TakeDiscard,
)
from ..engine.view import PlayerView
from ..rules.contracts import kind_counts, least_size
from ..rules.melds import plays_on, run_bounds
from ..rules.ruleset import MeldKind
from ..rules.scoring import points_by_rank
from .carousel import choose_carousel

__all__ = ["BasicBot", "usefulness", "completes_meld", "worth_taking", "worth_claiming", "discard_cost"]


def _position_of(rank: int, low_ace: bool) -> int:
    return 1 if rank == 1 and low_ace else (14 if rank == 1 else rank)


def usefulness(view: PlayerView, card: Card, hand: list[Card]) -> float:
    """How much ``card`` helps this hand toward its contract (higher: keep it)."""
    return _Keep(view, hand)(card)


def worth_taking(view: PlayerView, card: Card, hand: list[Card]) -> bool:
    """Whether a seat not yet down takes ``card`` into ``hand``, by the basic bot's rule (what
    the search also reads a seat's passes by): it completes a meld the contract needs, or helps
    the hand enough (`usefulness` 4 or more)."""
    return completes_meld(view, card, hand) or _Keep(view, hand + [card])(card) >= 4


def worth_claiming(view: PlayerView, card: Card | None, hand: list[Card], down: bool, meld_all: bool) -> bool:
    """Whether a seat claims ``card`` out of turn (May I), by the basic bot's rule: only a seat
    not yet down, and not where every card must be melded at once (a claim's penalty cards must
    fit there too), for a card that completes a meld the contract needs."""
    return card is not None and not down and not meld_all and completes_meld(view, card, hand)


def discard_cost(view: PlayerView, hand: list[Card], draw: Callable[[], float]
                 ) -> Callable[[Card], tuple]:
    """The basic bot's order of discards from ``hand``, least first: a wild card last, then the
    least useful, the most points, and one draw of ``draw`` a card asked to break ties."""
    keep = _Keep(view, hand)
    points = points_by_rank(view.rules)
    wild_twos = view.rules.wild_twos

    def cost(card: Card) -> tuple:
        rank = card.rank
        wild = rank == 0 or (rank == 2 and wild_twos)  # rules.is_wild, inlined: hot
        return (wild, keep(card), -points[rank], draw())

    return cost


class _Keep:
    """`usefulness` of any card against one hand: the hand counted once (ranks, and each suit's
    ranks as bits), then each card is a few lookups, as the bot asks it for every card it holds.
    Runs of any suits (Phase 10) count the ranks of every suit; a phase of cards of one suit
    counts the cards of each suit, the longest suit most."""

    def __init__(self, view: PlayerView, hand: list[Card]):
        rules = view.rules
        self.hand = hand
        self.wild_twos = wild_twos = rules.wild_twos
        sets, runs, suits = kind_counts(view.contract)
        self.near = _near_ranks(*run_bounds(rules)) if runs else None
        ranks = [0] * 14  # cards of each rank
        self.suit_ranks = [0] * len(Suit)  # bit r: the hand holds rank r of the suit (not a wild two)
        for c in hand:
            rank = c.rank
            ranks[rank] += 1
            if c.suit is not None and not (wild_twos and rank == 2):
                self.suit_ranks[c.suit] |= 1 << rank
        self.ranks = ranks if sets else None
        self.any_ranks = None  # runs of any suits: the ranks held in any suit, as bits
        if runs and rules.runs_any_suit:
            self.any_ranks = self.suit_ranks[0] | self.suit_ranks[1] | self.suit_ranks[2] | self.suit_ranks[3]
            # the ranks inside the windows of the run's size that hold most of them; a second card
            # of a rank is no use to a run (only to a set, where the contract has one)
            size = least_size(rules, view.contract, MeldKind.RUN)
            self.in_window = _best_windows(self.any_ranks, *run_bounds(rules), size)
            self.rank_held = ranks
            self.spare_penalty = 0.0 if sets else 5.0
        self.suited = None  # a phase of cards of one suit: each card's worth by its suit
        if suits:
            held = [0] * len(Suit)
            for c in hand:
                if c.suit is not None and not (wild_twos and c.rank == 2):
                    held[c.suit] += 1
            longest = max(held)
            self.suited = [3.0 if n == longest else 0.5 for n in held]  # each other card of the suit
            self.suit_held = held

    def __call__(self, card: Card) -> float:
        rank = card.rank
        if rank == 0 or (rank == 2 and self.wild_twos):  # rules.is_wild, inlined: hot
            return 100.0
        score = 0.0
        if self.ranks is not None:  # a card of a natural card's rank is natural too
            score += 3.0 * (self.ranks[rank] - (card in self.hand))
        if self.near is not None:  # ranks of the suit (any suit) within two places
            if self.any_ranks is None:
                score += 2.0 * (self.suit_ranks[card.suit] & self.near[rank]).bit_count()
            else:
                score += 2.0 * (self.any_ranks & self.near[rank]).bit_count() + 4.0 * (self.in_window >> rank & 1)
                if self.rank_held[rank] - (card in self.hand) > 0:
                    score -= self.spare_penalty
        if self.suited is not None:  # the other cards of its suit, the longest suit's most
            score += self.suited[card.suit] * (self.suit_held[card.suit] - (card in self.hand))
        return score


@lru_cache(maxsize=None)
def _near_ranks(lo: int, hi: int) -> tuple[int, ...]:
    """For each rank, the other ranks within two places of it in a run (an ace low where the card
    is low, both ways where an ace is both), as bits."""
    table = [0] * 14
    for rank in range(1, 14):
        pos = {_position_of(rank, lo == 1)}
        if rank == 1 and lo == 1 and hi == 14:
            pos = {1, 14}
        for other in range(1, 14):
            if other != rank and any(abs((other if other != 1 else 1 if p == 1 else 14) - p) <= 2 for p in pos):
                table[rank] |= 1 << other
    return tuple(table)


@lru_cache(maxsize=65536)
def _best_windows(ranks: int, lo: int, hi: int, size: int) -> int:
    """The ranks (bits) inside the windows of ``size`` positions that hold the most of ``ranks``
    (bits; an ace at either end the bounds allow)."""
    held = 0
    for rank in range(1, 14):
        if ranks >> rank & 1:
            for p in ((1, 14) if rank == 1 else (rank,)):
                if lo <= p <= hi:
                    held |= 1 << p
    best, union = -1, 0
    window = (1 << size) - 1
    for low in range(lo, max(lo, hi - size + 1) + 1):
        count = (held >> low & window).bit_count()
        if count > best:
            best, union = count, 0
        if count == best:
            union |= held & (window << low)
    out = 0
    for p in range(lo, hi + 1):
        if union >> p & 1:
            out |= 1 << (1 if p == 14 else p)
    return out


def completes_meld(view: PlayerView, card: Card, hand: list[Card]) -> bool:
    """Whether ``card`` turns what the hand holds into a meld of a kind the contract needs."""
    rules = view.rules
    if rules.is_wild(card):
        return True
    contract = view.contract
    sets, runs, suits = kind_counts(contract)
    rank = card.rank  # not wild, so the hand's cards of its rank are natural too
    if sets and sum(1 for c in hand if c.rank == rank) >= least_size(rules, contract, MeldKind.SET) - 1:
        return True
    if runs or suits:
        wild_twos, suit = rules.wild_twos, card.suit
        any_suit = rules.runs_any_suit
        wilds = suited = 0
        have = 0  # bit p: the hand holds a natural of the card's suit at position p (an ace at 14)
        for c in hand:
            if c.rank == 0 or (c.rank == 2 and wild_twos):
                wilds += 1
            elif c.suit is suit or any_suit:
                have |= 1 << (14 if c.rank == 1 else c.rank)
                suited += c.suit is suit
        allowed = min(wilds, rules.max_wilds_per_meld if rules.max_wilds_per_meld is not None else wilds)
        if suits and suited + allowed >= least_size(rules, contract, MeldKind.SUIT) - 1:
            return True
        if runs:
            return _completes_run(rank, have, allowed, *run_bounds(rules), least_size(rules, contract, MeldKind.RUN))
    return False


@lru_cache(maxsize=65536)
def _completes_run(rank: int, have: int, allowed: int, lo: int, hi: int, n: int) -> bool:
    """Whether a card of ``rank`` makes a run of ``n`` with the suit's positions ``have`` (bits)
    and ``allowed`` wilds: a window through it that the naturals and the wilds fill."""
    if rank == 1 and lo == 1 and have >> 14 & 1:
        have |= 1 << 1  # the ace held counts low too
    for p in (14, 1) if rank == 1 else (rank,):
        for low in range(max(lo, p - n + 1), min(p, hi - n + 1) + 1):
            present = sum(1 for q in range(low, low + n) if q == p or have >> q & 1 or (q == 1 and have >> 14 & 1))
            if present + min(allowed, n - present) >= n and present >= n - allowed:
                return True
    return False


class BasicBot:
    def __init__(self, rng: random.Random):
        self.rng = rng

    GO_DOWN_CHOICES = 40
    """Go-downs looked at before choosing (the one that melds most cards): a hand with jokers can
    hold thousands, and the finder lists the longest melds first."""

    def choose(self, view: PlayerView, moves: Iterable[Move]) -> Move:
        if view.rules.game == "carousel":
            return choose_carousel(view, moves)
        by_kind: dict[type, list[Move]] = {}
        for move in moves:
            kind = type(move)
            listed = by_kind.get(kind)
            if listed is None:
                listed = by_kind[kind] = []
            listed.append(move)
            if kind is GoDown and len(listed) >= self.GO_DOWN_CHOICES:
                break  # go-downs come first: take the best of these, leave the rest unlisted
        hand = list(view.hand)
        if DrawStock in by_kind or TakeDiscard in by_kind or MayI in by_kind or PassClaim in by_kind:
            return self._draw_phase(view, by_kind, hand)
        if GoDown in by_kind:
            return max(by_kind[GoDown], key=lambda m: sum(len(x) for x in m.melds))
        if BuyJoker in by_kind:
            return by_kind[BuyJoker][0]
        if SwapJoker in by_kind:
            return by_kind[SwapJoker][0]
        if LayOff in by_kind:
            freed = [m for m in by_kind[LayOff] if m.card in view.must_lay_off]
            return (freed or by_kind[LayOff])[0]
        return self._discard(view, by_kind[Discard], hand) if Discard in by_kind else next(iter(by_kind.values()))[0]

    def _draw_phase(self, view: PlayerView, by_kind, hand: list[Card]) -> Move:
        top = view.discard_top
        if CallShanghai in by_kind and view.down[view.seat]:
            return by_kind[CallShanghai][0]
        if TakeDiscard in by_kind and top is not None:
            if view.down[view.seat]:
                wanted = plays_on(view.rules, view.table, top)
            else:
                wanted = worth_taking(view, top, hand)
            if wanted:
                return by_kind[TakeDiscard][0]
        if DrawStock in by_kind:
            return by_kind[DrawStock][0]
        if MayI in by_kind and worth_claiming(view, top, hand, view.down[view.seat], view.meld_all):
            return by_kind[MayI][0]
        if PassClaim in by_kind:
            return by_kind[PassClaim][0]
        return next(iter(by_kind.values()))[0]

    def _discard(self, view: PlayerView, discards: list[Move], hand: list[Card]) -> Move:
        plain = [m for m in discards if not m.shanghai]
        declared = {m.card: m for m in discards if m.shanghai}
        cost = discard_cost(view, hand, self.rng.random)
        best = min(plain, key=lambda move: cost(move.card))
        return declared.get(best.card, best)
