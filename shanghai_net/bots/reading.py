"""What a seat reads from the table: which cards are still live, what each other seat collects,
who is close to going out, and what a discard would feed whom.

Everything comes from the seat's `PlayerView` and its `RoundMemory` (the public log), nothing
else: the hidden cards are only counted, never looked at.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from ..cards import Card
from ..engine.events import Words
from ..engine.view import PlayerView
from ..rules.contracts import kind_counts
from ..rules.melds import plays_on
from .history import RoundMemory

__all__ = ["Reading", "Feed"]


@dataclass(frozen=True, slots=True)
class Feed:
    """What a discard would give away: how much, and to whom in words."""

    danger: float
    why: str = ""


class Reading:
    """Counted when first asked: many decisions (a lay-off, a draw once down) need none of it."""

    def __init__(self, view: PlayerView, memory: RoundMemory):
        self.view = view
        self.memory = memory
        self.decks, self.jokers = view.rules.deck_size(view.players)
        self.next_seat = (view.seat + 1) % view.players

    @cached_property
    def seen(self) -> Counter:
        """Copies of each face this seat has seen: its hand, the table, the pile, the discards
        others took."""
        view, memory = self.view, self.memory
        seen: Counter = Counter()
        for card in view.hand:
            seen[card.face] += 1
        for meld in view.table:
            for card in meld.cards:
                seen[card.face] += 1
        for card in memory.gone():
            seen[card.face] += 1
        if view.discard_top is not None:
            seen[view.discard_top.face] += 1
        on_table = {c for meld in view.table for c in meld.cards}
        for took in memory.took:  # in another hand, or on the table (counted there)
            for card in took:
                if card not in on_table and card not in view.hand:
                    seen[card.face] += 1
        return seen

    @cached_property
    def urgency(self) -> float:
        """How close the closest other seat is to going out (`closeness`)."""
        view = self.view
        return max((self.closeness(s) for s in range(view.players) if s != view.seat), default=0.0)

    def live(self, card: Card) -> int:
        """Copies of this face nobody has shown: in the stock or in other hands."""
        copies = self.jokers if card.is_joker else self.decks
        return max(0, copies - self.seen[card.face])

    def live_rank(self, rank: int) -> int:
        """Cards of this rank nobody has shown."""
        return max(0, 4 * self.decks - sum(n for (r, _), n in self.seen.items() if r == rank))

    def live_wilds(self) -> int:
        """Wild cards nobody has shown (jokers, and twos where twos are wild)."""
        wild = self.jokers - self.seen[(0, None)]
        if self.view.rules.wild_twos:
            wild += 4 * self.decks - sum(n for (rank, _), n in self.seen.items() if rank == 2)
        return max(0, wild)

    def closeness(self, seat: int) -> float:
        """0 (far) .. 1 (may go out on its next turn): down with few cards is close."""
        view = self.view
        size = view.hand_sizes[seat]
        if not view.down[seat]:
            return 0.15 if size <= 4 else 0.0
        return {0: 1.0, 1: 1.0, 2: 0.8, 3: 0.6, 4: 0.45}.get(size, 0.3)

    def feed(self, card: Card, declared: bool, words: Words) -> Feed:
        """How much discarding ``card`` would help another seat, weighted by how close it is."""
        view = self.view
        rules = view.rules
        if declared:
            return Feed(0.0)  # SHANGHAI: nobody may take it or call it
        if rules.is_wild(card):
            return Feed(30.0, "a wild card helps anyone")
        sets, runs, _ = kind_counts(view.contract)
        worst = Feed(0.0)
        playable = bool(view.table) and plays_on(rules, view.table, card)
        for seat in range(view.players):
            if seat == view.seat:
                continue
            nxt = seat == self.next_seat
            weight = (1.0 if nxt else 0.35) * (1.0 + 2.0 * self.closeness(seat))
            who = words.seat(seat) + (" (next)" if nxt else "")
            danger, why = 0.0, ""
            if view.down[seat] and playable:
                danger, why = 6.0, f"it plays on the table and {who} is down"
            if not view.down[seat]:
                took = self.memory.took[seat]
                same = [c for c in took if c.rank == card.rank and not rules.is_wild(c)]
                near = [c for c in took if c.suit is card.suit and c.rank != card.rank
                        and abs(c.rank - card.rank) <= 2 and not rules.is_wild(c)]
                collect = 4.0 * len(same) * (sets > 0) + 3.0 * len(near) * (runs > 0)
                let_go = [c for c in self.memory.refused[seat] + self.memory.discarded[seat] if c.rank == card.rank]
                collect -= 1.5 * len(let_go)
                if collect > danger:
                    taken = same if sets and same else near
                    danger, why = collect, f"{who} took {words.cards(taken)}"
            danger *= weight
            if danger > worst.danger:
                worst = Feed(danger, why)
        return worst
