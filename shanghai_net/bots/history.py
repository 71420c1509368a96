"""What a seat remembers of the round from the public log: the pile, the cards each seat took
and let go, and the discards of each seat.

It reads only what every seat sees (a replica's log, or a simulation's): another seat's stock
draw is read as "a card was drawn", never its face, so a bot that decides from it plays the same
over the network as in simulation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..cards import Card
from ..engine.events import (
    Claimed, ClaimPassed, Discarded, Drew, Event, JokerBought, JokerSwapped, LaidOff, Reshuffled,
    RoundStarted, ShanghaiCalled, TookDiscard, WentDown,
)

__all__ = ["RoundMemory", "Memory"]


@dataclass
class RoundMemory:
    """The round so far, as the public log tells it."""

    players: int
    pile: list[Card] = field(default_factory=list)
    """The discards still in the pile that this log saw go there (the upturned card is not an
    event: the view's ``discard_top`` tells it)."""
    took: list[list[Card]] = field(default_factory=list)
    """By seat: the discards it took or claimed."""
    refused: list[list[Card]] = field(default_factory=list)
    """By seat: the discards it let go (chose the stock over, or passed a claim on)."""
    discarded: list[list[Card]] = field(default_factory=list)
    held: dict[Card, int] = field(default_factory=dict)
    """The cards a seat is known to hold, and the seat: a discard it took and a joker it won back,
    until it melds or discards them.  (A SHANGHAI penalty card's face is the two parties' only, so
    a card known to its caller may have gone to its victim: the look-ahead allows for that.)"""
    taken: Card | None = None
    """The discard the seat to play took this turn (it may not throw it straight back)."""
    discarder: int | None = None
    """The seat that threw the top discard, while it is the top (SHANGHAI is called on it)."""
    passed: set[int] = field(default_factory=set)
    """The seats that let the open claim window's card go."""
    turns: int = 0
    """Discards this round (the engine's turn count)."""
    reshuffles: int = 0
    _offered: tuple[int, Card] | None = None  # (the seat to draw next, the card it may take)

    def __post_init__(self) -> None:
        n = self.players
        self.took = [[] for _ in range(n)]
        self.refused = [[] for _ in range(n)]
        self.discarded = [[] for _ in range(n)]

    def read(self, event: Event) -> None:
        held = self.held
        if isinstance(event, (Discarded, TookDiscard, Claimed, ShanghaiCalled)):
            self.passed = set()  # a new window, or none
            self.discarder = event.seat if isinstance(event, Discarded) else None
        if isinstance(event, Discarded):
            self.pile.append(event.card)
            self.discarded[event.seat].append(event.card)
            held.pop(event.card, None)
            self.turns += 1
            self.taken = None
            self._offered = ((event.seat + 1) % self.players, event.card)
        elif isinstance(event, (TookDiscard, Claimed)):
            self.took[event.seat].append(event.card)
            held[event.card] = event.seat
            self._pop(event.card)
            self.taken = event.card if isinstance(event, TookDiscard) else None
            if isinstance(event, TookDiscard):
                self._offered = None
        elif isinstance(event, ShanghaiCalled):
            self._pop(event.card)
        elif isinstance(event, ClaimPassed):
            self.passed.add(event.seat)
            if self.pile:
                self.refused[event.seat].append(self.pile[-1])
        elif isinstance(event, Drew):
            if self._offered is not None and self._offered[0] == event.seat:
                self.refused[event.seat].append(self._offered[1])
                self._offered = None
        elif isinstance(event, WentDown):
            for meld in event.melds:
                for card in meld.cards:
                    held.pop(card, None)
        elif isinstance(event, LaidOff):
            held.pop(event.card, None)
        elif isinstance(event, JokerSwapped):
            for card in event.cards:
                held.pop(card, None)
            held[event.joker] = event.seat
        elif isinstance(event, JokerBought):
            held.pop(event.card, None)
            held[event.joker] = event.seat
        elif isinstance(event, Reshuffled):
            self.pile = self.pile[event.cards:]  # the cards turned over left the pile from the bottom
            self.reshuffles += 1

    def _pop(self, card: Card) -> None:
        if self.pile and self.pile[-1] == card:
            self.pile.pop()

    def gone(self) -> list[Card]:
        """Discards under the top of the pile: nobody can take them this round."""
        return self.pile[:-1]


class Memory:
    """Follows a game's log (the same list as it grows) and keeps the current round's memory."""

    def __init__(self) -> None:
        self._log: Sequence[Event] | None = None
        self._read = 0
        self.round: RoundMemory | None = None

    def follow(self, log: Sequence[Event], players: int) -> RoundMemory:
        """Read what is new in ``log`` (a log that is not the one followed, or shorter, is read
        from its start: a rejoined replica rebuilds its log)."""
        if log is not self._log or len(log) < self._read:
            self._log, self._read, self.round = log, 0, None
        for event in log[self._read:]:
            if isinstance(event, RoundStarted):
                self.round = RoundMemory(players)
            elif self.round is not None:
                self.round.read(event)
        self._read = len(log)
        if self.round is None:
            self.round = RoundMemory(players)
        return self.round
