"""Events: what happened, as `Game.apply` and the dealer's answers report it.

Each event reads as a line of the table's log (`str(event)`), seats as "seat N".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import Card, format_cards
from ..rules.melds import End, Meld

__all__ = [
    "Event", "RoundStarted", "Drew", "TookDiscard", "ClaimCalled", "ClaimPassed", "Claimed",
    "WentDown", "LaidOff", "JokerSwapped", "JokerBought", "Discarded", "ShanghaiCalled",
    "ShanghaiPenalty", "Reshuffled", "WentOut", "RoundEnded", "RoundVoided", "GameEnded", "RoundResult",
    "GameResult",
]


class Event:
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class RoundResult:
    round_no: int
    winner: int | None  # None: the stock ran dry, nobody went out
    hands: tuple[tuple[Card, ...], ...]
    points: tuple[int, ...]  # this round's points (money: what each paid or won)
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameResult:
    totals: tuple[int, ...]  # points (lower wins) or money (higher wins)
    ranking: tuple[int, ...]  # seats, best first
    winners: tuple[int, ...]
    rounds: tuple[RoundResult, ...] = field(repr=False)


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round_no: int
    dealer: int
    contract: str

    def __str__(self):
        return f"round {self.round_no}: seat {self.dealer} deals; contract: {self.contract}"


@dataclass(frozen=True, slots=True)
class Drew(Event):
    seat: int
    card: Card | None  # None when this replica may not see it

    def __str__(self):
        return f"seat {self.seat} draws" + (f" {self.card}" if self.card else " from the stock")


@dataclass(frozen=True, slots=True)
class TookDiscard(Event):
    seat: int
    card: Card

    def __str__(self):
        return f"seat {self.seat} takes {self.card}"


@dataclass(frozen=True, slots=True)
class ClaimCalled(Event):
    seat: int
    word: str

    def __str__(self):
        return f"seat {self.seat}: {self.word}!"


@dataclass(frozen=True, slots=True)
class ClaimPassed(Event):
    seat: int

    def __str__(self):
        return f"seat {self.seat} lets it go"


@dataclass(frozen=True, slots=True)
class Claimed(Event):
    seat: int
    card: Card
    penalty: int

    def __str__(self):
        return f"seat {self.seat} claims {self.card} and draws {self.penalty} penalty card(s)"


@dataclass(frozen=True, slots=True)
class WentDown(Event):
    seat: int
    melds: tuple[Meld, ...]

    def __str__(self):
        return f"seat {self.seat} goes down: " + " / ".join(str(m) for m in self.melds)


@dataclass(frozen=True, slots=True)
class LaidOff(Event):
    seat: int
    card: Card
    meld: int
    end: End | None

    def __str__(self):
        return f"seat {self.seat} lays {self.card} on meld {self.meld + 1}"


@dataclass(frozen=True, slots=True)
class JokerSwapped(Event):
    seat: int
    meld: int
    joker: Card
    cards: tuple[Card, Card]

    def __str__(self):
        return f"seat {self.seat} swaps {format_cards(self.cards)} for the {self.joker} on meld {self.meld + 1}"


@dataclass(frozen=True, slots=True)
class JokerBought(Event):
    seat: int
    meld: int
    joker: Card
    card: Card
    paid_to: int
    price: int

    def __str__(self):
        return f"seat {self.seat} buys the {self.joker} on meld {self.meld + 1} from seat {self.paid_to} with {self.card}"


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    seat: int
    card: Card
    shanghai: bool

    def __str__(self):
        return f"seat {self.seat} discards {self.card}" + (" — SHANGHAI!" if self.shanghai else "")


@dataclass(frozen=True, slots=True)
class ShanghaiCalled(Event):
    caller: int
    card: Card
    meld: int
    victim: int

    def __str__(self):
        return f"seat {self.caller} calls SHANGHAI: {self.card} goes on meld {self.meld + 1}; seat {self.victim} draws from seat {self.caller}'s hand"


@dataclass(frozen=True, slots=True)
class ShanghaiPenalty(Event):
    victim: int
    caller: int
    card: Card | None

    def __str__(self):
        return f"seat {self.victim} draws a card from seat {self.caller}'s hand"


@dataclass(frozen=True, slots=True)
class Reshuffled(Event):
    generation: int
    cards: int

    def __str__(self):
        return f"the discard pile ({self.cards} cards) is shuffled into a new stock"


@dataclass(frozen=True, slots=True)
class WentOut(Event):
    seat: int

    def __str__(self):
        return f"seat {self.seat} goes out!"


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    result: RoundResult

    def __str__(self):
        r = self.result
        who = f"seat {r.winner} won" if r.winner is not None else "nobody went out"
        return f"round {r.round_no} over, {who}: " + ", ".join(f"seat {s} {p:+d}" for s, p in enumerate(r.points))


@dataclass(frozen=True, slots=True)
class RoundVoided(Event):
    """The table voted the round void (a player left for good): it scores nothing."""

    round_no: int

    def __str__(self):
        return f"round {self.round_no} voided by the table's vote: it scores nothing"


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    result: GameResult

    def __str__(self):
        return "game over: " + ", ".join(f"seat {s} {self.result.totals[s]}" for s in self.result.ranking)
