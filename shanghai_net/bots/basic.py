"""The basic bot: goes down as soon as it can, lays off, discards its least useful card, and claims
a discard that completes a meld its contract needs."""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import lru_cache

from ..cards import Card, Suit
from ..engine.moves import (
    BuyJoker, CallShanghai, Discard, DrawStock, GoDown, LayOff, MayI, Move, PassClaim, SwapJoker,
    TakeDiscard,
)
from ..engine.view import PlayerView
from ..rules.melds import plays_on, run_bounds
from ..rules.scoring import points_by_rank
from .carousel import choose_carousel

__all__ = ["BasicBot", "usefulness", "completes_meld"]


def _position_of(rank: int, low_ace: bool) -> int:
    return 1 if rank == 1 and low_ace else (14 if rank == 1 else rank)


def usefulness(view: PlayerView, card: Card, hand: list[Card]) -> float:
    """How much ``card`` helps this hand toward its contract (higher: keep it)."""
    return _Keep(view, hand)(card)


class _Keep:
    """`usefulness` of any card against one hand: the hand counted once (ranks, and each suit's
    ranks as bits), then each card is a few lookups, as the bot asks it for every card it holds."""

    def __init__(self, view: PlayerView, hand: list[Card]):
        rules = view.rules
        self.hand = hand
        self.wild_twos = wild_twos = rules.wild_twos
        sets, runs = view.contract
        self.near = _near_ranks(*run_bounds(rules)) if runs else None
        ranks = [0] * 14  # cards of each rank
        self.suit_ranks = [0] * len(Suit)  # bit r: the hand holds rank r of the suit (not a wild two)
        for c in hand:
            rank = c.rank
            ranks[rank] += 1
            if c.suit is not None and not (wild_twos and rank == 2):
                self.suit_ranks[c.suit] |= 1 << rank
        self.ranks = ranks if sets else None

    def __call__(self, card: Card) -> float:
        rank = card.rank
        if rank == 0 or (rank == 2 and self.wild_twos):  # rules.is_wild, inlined: hot
            return 100.0
        score = 0.0
        if self.ranks is not None:  # a card of a natural card's rank is natural too
            score += 3.0 * (self.ranks[rank] - (card in self.hand))
        if self.near is not None:  # ranks of the suit within two places
            score += 2.0 * (self.suit_ranks[card.suit] & self.near[rank]).bit_count()
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


def completes_meld(view: PlayerView, card: Card, hand: list[Card]) -> bool:
    """Whether ``card`` turns what the hand holds into a meld of a kind the contract needs."""
    rules = view.rules
    if rules.is_wild(card):
        return True
    sets, runs = view.contract
    rank = card.rank  # not wild, so the hand's cards of its rank are natural too
    if sets and sum(1 for c in hand if c.rank == rank) >= rules.min_set - 1:
        return True
    if runs:
        wild_twos, suit = rules.wild_twos, card.suit
        wilds = 0
        have = 0  # bit p: the hand holds a natural of the card's suit at position p (an ace at 14)
        for c in hand:
            if c.rank == 0 or (c.rank == 2 and wild_twos):
                wilds += 1
            elif c.suit is suit:
                have |= 1 << (14 if c.rank == 1 else c.rank)
        allowed = min(wilds, rules.max_wilds_per_meld if rules.max_wilds_per_meld is not None else wilds)
        return _completes_run(rank, have, allowed, *run_bounds(rules), rules.min_run)
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
                wanted = completes_meld(view, top, hand) or usefulness(view, top, hand + [top]) >= 4
            if wanted:
                return by_kind[TakeDiscard][0]
        if DrawStock in by_kind:
            return by_kind[DrawStock][0]
        # not where every card must be melded at once: a claim's penalty cards must fit there too
        if (MayI in by_kind and top is not None and not view.down[view.seat] and not view.meld_all
                and completes_meld(view, top, hand)):
            return by_kind[MayI][0]
        if PassClaim in by_kind:
            return by_kind[PassClaim][0]
        return next(iter(by_kind.values()))[0]

    def _discard(self, view: PlayerView, discards: list[Move], hand: list[Card]) -> Move:
        rules = view.rules
        plain = [m for m in discards if not m.shanghai]
        declared = {m.card: m for m in discards if m.shanghai}

        keep = _Keep(view, hand)
        points = points_by_rank(rules)
        wild_twos = rules.wild_twos
        draw = self.rng.random

        def cost(move: Discard) -> tuple:
            card = move.card
            rank = card.rank
            wild = rank == 0 or (rank == 2 and wild_twos)  # rules.is_wild, inlined: hot
            return (wild, keep(card), -points[rank], draw())

        best = min(plain, key=cost)
        return declared.get(best.card, best)
