"""Events: what happened, as `Game.apply` and the dealer's answers report it.

Each event reads as a line of the table's log: `str(event)` writes seats as "seat N" and cards
as "KS"; ``event.describe(words)`` with the players' names and suit symbols (a console's log),
and the rounds as the table counts them (`round_numbers`: a voided round dealt again keeps its
number, where the deal's ``round_no`` counts every deal).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..cards import Card
from ..rules.melds import End, Meld

__all__ = [
    "Event", "Words", "RoundStarted", "Drew", "TookDiscard", "ClaimCalled", "ClaimPassed", "Claimed",
    "WentDown", "LaidOff", "JokerSwapped", "JokerBought", "Discarded", "ShanghaiCalled",
    "ShanghaiPenalty", "Reshuffled", "PotReturned", "WentOut", "RoundEnded", "RoundVoided", "SeatLost", "GameEnded", "RoundResult",
    "GameResult", "round_numbers",
]


@dataclass(frozen=True)
class Words:
    """How a log line writes seats and cards: by default "seat 2" and "KS"."""

    names: Sequence[str] = ()
    """Each seat's name, by seat (a seat beyond them is "seat N")."""
    card: Callable[[Card], str] = str
    rounds: Mapping[int, int] = field(default_factory=dict)
    """Each deal's round as the table counts it (`round_numbers`); a deal not in it is written
    as its own number."""

    def seat(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def round(self, deal: int) -> int:
        """The round the deal ``deal`` (a ``round_no``) is, as the table counts rounds."""
        return self.rounds.get(deal, deal)

    def cards(self, cards: Sequence[Card]) -> str:
        return " ".join(self.card(c) for c in cards)

    def melds(self, melds: Sequence[Meld]) -> str:
        return " / ".join(self.cards(m.cards) for m in melds)


PLAIN = Words()


class Event:
    __slots__ = ()

    def describe(self, w: Words = PLAIN) -> str:
        """The event as a line of the log, in ``w``'s words."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()


@dataclass(frozen=True, slots=True)
class RoundResult:
    round_no: int
    winner: int | None  # None: nobody went out (see ``ended``)
    hands: tuple[tuple[Card, ...], ...]
    points: tuple[int, ...]  # this round's points (money: what each paid or won)
    totals: tuple[int, ...]
    ended: str = "out"
    """How the round ended: "out" (a player went out), "stuck" (the stock and the pile were both
    too low to draw from: no rule can go on) or "turn limit" (`max_turns`, a house/simulation
    safeguard, stopped it)."""


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
    again: bool = False
    """A round was just voided (`RoundVoided`): its contract is dealt again, by its dealer."""

    def describe(self, w: Words = PLAIN) -> str:
        again = " again, re-dealt: the first deal was void;" if self.again else ":"
        return f"round {w.round(self.round_no)}{again} {w.seat(self.dealer)} deals; contract: {self.contract}"


@dataclass(frozen=True, slots=True)
class Drew(Event):
    seat: int
    card: Card | None  # None when this replica may not see it

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)} draws " + (w.card(self.card) if self.card else "from the stock")


@dataclass(frozen=True, slots=True)
class TookDiscard(Event):
    seat: int
    card: Card

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)} takes {w.card(self.card)}"


@dataclass(frozen=True, slots=True)
class ClaimCalled(Event):
    seat: int
    word: str

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)}: {self.word}!"


@dataclass(frozen=True, slots=True)
class ClaimPassed(Event):
    seat: int

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)} lets it go"


@dataclass(frozen=True, slots=True)
class Claimed(Event):
    seat: int
    card: Card
    penalty: int

    def describe(self, w: Words = PLAIN) -> str:
        return (f"{w.seat(self.seat)} claims {w.card(self.card)} and draws {self.penalty} "
                "penalty card(s)")


@dataclass(frozen=True, slots=True)
class WentDown(Event):
    seat: int
    melds: tuple[Meld, ...]

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)} goes down: {w.melds(self.melds)}"


@dataclass(frozen=True, slots=True)
class LaidOff(Event):
    seat: int
    card: Card
    meld: int
    end: End | None

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)} lays {w.card(self.card)} on meld {self.meld + 1}"


@dataclass(frozen=True, slots=True)
class JokerSwapped(Event):
    seat: int
    meld: int
    joker: Card
    cards: tuple[Card, Card]

    def describe(self, w: Words = PLAIN) -> str:
        return (f"{w.seat(self.seat)} swaps {w.cards(self.cards)} for the {w.card(self.joker)} "
                f"on meld {self.meld + 1}")


@dataclass(frozen=True, slots=True)
class JokerBought(Event):
    seat: int
    meld: int
    joker: Card
    card: Card
    paid_to: int
    price: int

    def describe(self, w: Words = PLAIN) -> str:
        return (f"{w.seat(self.seat)} buys the {w.card(self.joker)} on meld {self.meld + 1} "
                f"from {w.seat(self.paid_to)} with {w.card(self.card)}")


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    seat: int
    card: Card
    shanghai: bool

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)} discards {w.card(self.card)}" + (
            " — SHANGHAI!" if self.shanghai else "")


@dataclass(frozen=True, slots=True)
class ShanghaiCalled(Event):
    caller: int
    card: Card
    meld: int
    victim: int

    def describe(self, w: Words = PLAIN) -> str:
        return (f"{w.seat(self.caller)} calls SHANGHAI: {w.card(self.card)} goes on meld "
                f"{self.meld + 1}; {w.seat(self.victim)} draws from {w.seat(self.caller)}'s hand")


@dataclass(frozen=True, slots=True)
class ShanghaiPenalty(Event):
    victim: int
    caller: int
    card: Card | None

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.victim)} draws a card from {w.seat(self.caller)}'s hand"


@dataclass(frozen=True, slots=True)
class Reshuffled(Event):
    generation: int
    cards: int

    def describe(self, w: Words = PLAIN) -> str:
        return f"the discard pile ({self.cards} cards) is shuffled into a new stock"


@dataclass(frozen=True, slots=True)
class WentOut(Event):
    seat: int

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)} goes out!"


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    result: RoundResult

    def describe(self, w: Words = PLAIN) -> str:
        r = self.result
        who = f"{w.seat(r.winner)} won" if r.winner is not None else _NOBODY_OUT.get(r.ended, "nobody went out")
        return f"round {w.round(r.round_no)} over, {who}: " + ", ".join(
            f"{w.seat(s)} {p:+d}" for s, p in enumerate(r.points))


@dataclass(frozen=True, slots=True)
class PotReturned(Event):
    """marcelle: the game ended with a pot nobody won; each seat gets back what it put in."""

    shares: tuple[int, ...]

    def describe(self, w: Words = PLAIN) -> str:
        return "nobody won the pot: it goes back, " + ", ".join(
            f"{w.seat(s)} {p}" for s, p in enumerate(self.shares) if p)


_NOBODY_OUT = {
    "stuck": "nobody went out (no cards left to draw)",
    "turn limit": "stopped at the turn limit, nobody went out",
}


@dataclass(frozen=True, slots=True)
class RoundVoided(Event):
    """The table voided the round (a player left for good, or its audit convicted a cheat): it
    scores nothing.  ``leaver``, the seat that left, pays ``penalty`` (points, or with ``money``
    into the pot); ``goes_on``: the round is dealt again (`RoundStarted.again`), else the game
    ends."""

    round_no: int
    leaver: int | None = None
    penalty: int = 0
    money: bool = False
    goes_on: bool = False

    def describe(self, w: Words = PLAIN) -> str:
        text = f"round {w.round(self.round_no)} void, it scores nothing"
        if self.leaver is not None:
            paid = f"{self.penalty} into the pot" if self.money else f"{self.penalty} points"
            text += f": {w.seat(self.leaver)} left and pays {paid}"
        return text + ("; the round is dealt again" if self.goes_on else "; the game ends")


@dataclass(frozen=True, slots=True)
class SeatLost(Event):
    """A seat left the round for good and the round goes on (the dropout-tolerant deal rebuilds
    its part of the deal, docs/dealing.md R1): it pays ``penalty`` (points, or with ``money``
    into the pot) as a leaver of a void round would, claim windows leave it out, and its hand
    waits for the seat's replacement, which plays on from the seat's turn."""

    round_no: int
    seat: int
    penalty: int = 0
    money: bool = False

    def describe(self, w: Words = PLAIN) -> str:
        paid = f"{self.penalty} into the pot" if self.money else f"{self.penalty} points"
        return (f"{w.seat(self.seat)} left and pays {paid}; the round goes on, the hand waits "
                "for a replacement")


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    result: GameResult

    def describe(self, w: Words = PLAIN) -> str:
        return "game over: " + ", ".join(
            f"{w.seat(s)} {self.result.totals[s]}" for s in self.result.ranking)


def round_numbers(events: Iterable[Event]) -> dict[int, int]:
    """Each deal's round (its ``round_no``) as the table counts rounds, from a game's log: a
    round voided and dealt again (`RoundStarted.again`) is the same round, as the title's
    "round N of 7" has it (`DealtGame.contract_no`), though its deal has a number of its own."""
    numbers: dict[int, int] = {}
    for event in events:
        if isinstance(event, RoundStarted):  # (a log begun later: no void before it)
            before = event.round_no - 1
            numbers[event.round_no] = numbers.get(before, before) + (not event.again)
    return numbers
