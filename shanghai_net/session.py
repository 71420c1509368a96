"""A seat at a table, as a client sees it: the `Session` interface and `LocalSession`.

A session is what the console (or any other front end) plays through.  It is asynchronous and
event driven, and it knows one seat only:

* ``view``: the seat's `PlayerView` (other seats appear as hand sizes only);
* ``log``: the table's events as this seat may know them, with chat, in order (each with who
  played each seat then, on a networked table); ``round_numbers``: the rounds as the table
  counts them;
* ``seats``: each seat's name, whether a bot plays it and its connection state;
* ``claim``: the open claim window on the top discard and its deadline (on ``now()``'s clock);
* ``submit(move)``: `Accepted` with the events it caused, or `Refused` with the engine's reason;
* ``subscribe(callback)``: called, synchronously and on the session's trio thread, after every
  change; a front end redraws from it;
* ``run()``: the session's own work (bots, timers; the network), in a trio nursery;
* ``lobby``, ``status``, ``audit(round_no)``, ``set_ready``: what a networked table adds (the
  lobby before the game, the connection in words, each round's deal audit); a local table has
  no lobby, nothing to report and no audit.

`LocalSession` hosts the whole game in-process (a contract `Game` or a `CarouselGame`, whichever
`new_game` makes for the rules): the engine with a seeded `LocalDealer`, bots in the
other seats that move on trio timers (a short, configurable delay so a person can watch), and claim
windows that close after a configurable timeout by turning silence into passes.  Same seed, same
game.  It keeps time on trio's clock, so a test injects ``trio.testing.MockClock``.

`shanghai_net.net.session.NetSession` implements the same interface over the wire: its ``view``
comes from its replica, ``submit`` waits for the host's sequencing, ``seats`` report dropped
connections.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

import trio

from .bots import Bot, choose, make_bot
from .cards import Card
from .errors import IllegalMoveError
from .engine import (
    Drew, Event, Game, GameEnded, GameResult, LocalDealer, Move, PassClaim, Phase, PlayerView,
    RoundEnded, ShanghaiPenalty, new_game, view_of,
)
from .engine.events import RoundVoided, round_numbers
from .engine.dealer import Dealer
from .rules import RuleSet

__all__ = [
    "Accepted", "ClaimInfo", "Connection", "LocalSession", "Lobby", "LobbySeat", "LogEntry",
    "Outcome", "Refused", "SeatInfo", "Session", "redact",
]


class Connection(StrEnum):
    """How a seat is attached to the table."""

    LOCAL = "local"  # in this process (you, or a bot the session hosts)
    CONNECTED = "connected"
    CONNECTING = "connecting"
    LOST = "lost"  # dropped; the table waits or retries
    LEFT = "left"  # quit the game (said `bye`): not coming back, the table may void at once


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    name: str
    bot: str | None  # the bot's level, None for a person
    connection: Connection


@dataclass(frozen=True, slots=True)
class LobbySeat:
    """A seat taken in the lobby: friends compare the key fingerprint before they play."""

    seat: int
    name: str
    fingerprint: str
    ready: bool
    connected: bool
    bot: bool
    host_run: bool = False  # the host's own process runs it (its bot): no share holder


@dataclass(frozen=True, slots=True)
class Lobby:
    """The table before its game starts: who sat down, the rules chosen, whether we are ready."""

    preset: str
    players: int  # seats at the table
    house_rules: tuple[tuple[str, str], ...]  # (field, value) overriding the preset
    seats: tuple[LobbySeat, ...]  # the seats taken so far
    host_fingerprint: str
    join_code: str
    you: int | None  # our seat, None until the host has seated us
    offers: tuple[tuple[str, str], ...] = ()  # (name, key fingerprint) of who offers to take a seat
    last_game: tuple[tuple[int, int], ...] = ()  # (seat, total) of the table's game before
    sharing: str = ""
    """The table's sharing setting, what it promises in words (`SharingSetting.said`); empty:
    not known."""

    @property
    def ready(self) -> bool:
        """This seat has said it is ready."""
        return any(s.seat == self.you and s.ready for s in self.seats)


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the table's log: an event (as this seat may know it), a chat line or a notice."""

    time: float
    text: str
    event: Event | None = None
    chat_from: int | None = None  # the seat that said it, for chat
    names: tuple[str, ...] | None = None
    """Who played each seat when it happened ("you" where this seat's keys did; "bot for carl"
    where a stand-in did), as a networked table's holders were at that message; None: the
    seats as they are now (``seats``)."""


@dataclass(frozen=True, slots=True)
class ClaimInfo:
    """The open claim window on the top discard."""

    card: Card
    deadline: float  # on the session's clock (`Session.now`)
    undecided: tuple[int, ...]  # seats that may still claim, in priority order
    claimants: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Accepted:
    move: Move
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Refused:
    move: Move
    reason: str  # the engine's (or the host's) words


Outcome = Accepted | Refused


def redact(event: Event, seat: int) -> Event:
    """The event as ``seat`` may know it: another seat's stock draw without its face."""
    if isinstance(event, Drew) and event.seat != seat and event.card is not None:
        return replace(event, card=None)
    if isinstance(event, ShanghaiPenalty) and seat not in (event.victim, event.caller) and event.card is not None:
        return replace(event, card=None)
    return event


class Session(abc.ABC):
    """One seat's connection to a table (local or networked)."""

    seat: int
    rules: RuleSet
    players: int

    def __init__(self) -> None:
        self._listeners: list[Callable[[], None]] = []
        self._numbered: tuple[int, Mapping[int, int]] = (0, {})

    # -- what the seat sees ----------------------------------------------------------------------

    @property
    @abc.abstractmethod
    def view(self) -> PlayerView | None:
        """The seat's view now (None before the first deal)."""

    @property
    @abc.abstractmethod
    def log(self) -> Sequence[LogEntry]: ...

    @property
    @abc.abstractmethod
    def seats(self) -> tuple[SeatInfo, ...]: ...

    @property
    @abc.abstractmethod
    def claim(self) -> ClaimInfo | None:
        """The open claim window and its deadline, or None."""

    @property
    @abc.abstractmethod
    def result(self) -> GameResult | None:
        """The final result once the game is over."""

    @property
    def over(self) -> bool:
        """Nothing more of the game rests on this seat: quitting now loses nothing."""
        return self.result is not None

    @property
    @abc.abstractmethod
    def waiting_for_ready(self) -> bool:
        """True between rounds until this seat says it has read the round summary."""

    @abc.abstractmethod
    def now(self) -> float:
        """The session's clock (the one deadlines are on); callable from outside trio."""

    @property
    def lobby(self) -> Lobby | None:
        """The lobby of a networked table (None: no lobby, or not joined yet)."""
        return None

    @property
    def penalties(self) -> dict[int, int]:
        """What each seat paid for leaving: seat -> the points added to its score, or the money
        it paid into the pot (here: from the log's voided rounds)."""
        paid: dict[int, int] = {}
        for entry in self.log:
            event = entry.event
            if isinstance(event, RoundVoided) and event.leaver is not None and event.penalty:
                paid[event.leaver] = paid.get(event.leaver, 0) + event.penalty
        return paid

    @property
    def round_numbers(self) -> Mapping[int, int]:
        """Each deal's round (an event's ``round_no``) as the table counts rounds, from the
        log: a round voided and dealt again keeps its number, as the title's "round N of 7"
        does (`engine.round_numbers`)."""
        log = self.log
        if self._numbered[0] != len(log):
            self._numbered = (len(log), round_numbers(e.event for e in log if e.event is not None))
        return self._numbered[1]

    @property
    def status(self) -> str:
        """The connection in words when it needs the player's attention ("connection lost,
        retrying in 2 s"); empty when all is well."""
        return ""

    def audit(self, round_no: int) -> str | None:
        """The deal audit of a round in words ("clean", or the fault found); None when the deal
        is not audited (a local table deals from a trusted seeded deck)."""
        return None

    def legal_moves(self) -> Iterable[Move]:
        """The seat's legal moves now (the console's hint weighs them); none while it has no
        decision to make."""
        return ()

    # -- what the seat does ----------------------------------------------------------------------

    @abc.abstractmethod
    async def submit(self, move: Move) -> Outcome: ...

    @abc.abstractmethod
    async def say(self, text: str) -> None:
        """Chat to the table."""

    @abc.abstractmethod
    async def ready(self) -> None:
        """This seat has read the round summary: the next round may go on."""

    async def set_ready(self, ready: bool) -> None:
        """In the lobby: this seat is (or is no longer) ready to start.  A local table has no
        lobby: nothing to do."""
        await trio.lowlevel.checkpoint()

    @property
    def away(self) -> tuple[int, ...]:
        """Seats whose player has left the running game (a local table: none)."""
        return ()

    async def vote_void(self) -> str:
        """Vote to void the running round because a player is not coming back; what happened,
        in words.  A local table has no one to leave."""
        await trio.lowlevel.checkpoint()
        return "no one has left this table"

    @property
    def vote_for_you(self) -> tuple[int, float] | None:
        """While ``V`` is offered against a seat that holds the table up: that seat, and when
        (on `now`'s clock) this seat votes by itself that it left, as ``V`` would, if nobody
        presses a key (``W`` starts the countdown again: `wait_for_them`).  A local table:
        never."""
        return None

    async def wait_for_them(self) -> str:
        """``W``: the player is there and waits for the seat away: the vote for them waits
        again; what happened, in words."""
        await trio.lowlevel.checkpoint()
        return "no one has left this table"

    async def leave(self) -> None:
        """The player quits the game (the console's ``q`` ``y``): a networked table is told, so
        that it sees a seat left rather than a link lost.  A local table: nothing to tell."""
        await trio.lowlevel.checkpoint()

    # -- handing the seat over (a networked table: protocol.md 11.9) ----------------------------

    @property
    def rematch_line(self) -> str | None:
        """Once the game is over at a table that stays for a rematch: where the rematch stands,
        in words (``r`` asks for one).  None: no rematch to ask for (a local table's game)."""
        return None

    async def ask_rematch(self) -> str:
        """Ask for the next game at this table, with the same seats; what happened, in words."""
        await trio.lowlevel.checkpoint()
        return "this table plays one game: start another with shanghai play"

    hands_over = False
    """Whether this table's seats change hands (``H``, ``B``): a networked table's do."""

    @property
    def watching(self) -> str | None:
        """Set while this console follows the game without a seat (waiting to be handed one,
        or after handing its own over): what it is doing, in words.  None: it plays a seat."""
        return None

    @property
    def offers(self) -> tuple:
        """Who offers to take a seat (`shanghai_net.wire.messages.Offer`: name, fingerprint,
        keys, kind), as the table's host lists them."""
        return ()

    @property
    def stand_in(self) -> str:
        """The bot level that `let_bot_finish` starts unless told another: the host's."""
        return "basic"

    def hand_over_refused(self) -> str | None:
        """Why this seat cannot be handed over now, in words (None: it can)."""
        return "this table is played on this machine: there is no one to hand your seat to"

    async def hand_over(self, offer) -> str:
        """Hand this seat to a watcher who offers to take it; what happened, in words."""
        await trio.lowlevel.checkpoint()
        return self.hand_over_refused() or ""

    async def let_bot_finish(self, level: str | None = None) -> str:
        """Start a bot (of ``level``, default `stand_in`) in this program and hand this seat to
        it once it follows the game; what happened, in words."""
        await trio.lowlevel.checkpoint()
        return self.hand_over_refused() or ""

    @abc.abstractmethod
    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """The session's work; ``task_status.started()`` once ``view`` is usable."""

    # -- change notification ---------------------------------------------------------------------

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` after every change; returns the function that unsubscribes."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _notify(self) -> None:
        for callback in list(self._listeners):
            callback()


class LocalSession(Session):
    """A whole game in this process: you in ``seat``, bots in the others.

    ``bots``: a level per other seat (``"basic"``, ``"random"``) or `Bot` objects, in seat order
    skipping yours.  ``bot_delay``: seconds a bot waits before each move.  ``claim_timeout``:
    seconds a claim window stays open before silence counts as a pass.  ``dealer``: a stacked
    dealer for tests (default: ``LocalDealer(seed)``).  Time is trio's clock.
    """

    def __init__(
        self,
        rules: RuleSet,
        bots: Sequence[str | Bot] = ("basic", "basic", "basic"),
        seed: int = 0,
        *,
        seat: int = 0,
        name: str = "you",
        bot_delay: float = 0.6,
        claim_timeout: float = 8.0,
        dealer: Dealer | None = None,
    ):
        super().__init__()
        players = len(bots) + 1
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not one of 0..{players - 1}")
        self.rules = rules
        self.players = players
        self.seat = seat
        self.seed = seed
        self.bot_delay = bot_delay
        self.claim_timeout = claim_timeout
        rng = random.Random(f"shanghai-net local {seed}")
        self._bots: dict[int, Bot] = {}
        infos = []
        others = iter(bots)
        for s in range(players):
            if s == seat:
                infos.append(SeatInfo(s, name, None, Connection.LOCAL))
                continue
            bot = next(others)
            level = bot if isinstance(bot, str) else type(bot).__name__
            self._bots[s] = make_bot(bot, random.Random(rng.random())) if isinstance(bot, str) else bot
            infos.append(SeatInfo(s, f"{level} bot", level, Connection.LOCAL))
        self._seats = tuple(infos)
        self._dealer = dealer if dealer is not None else LocalDealer(rng.randrange(2**63))
        self.game: Game | None = None
        """The hosted engine (sees every face): for tests and the host only, never for display."""
        self._log: list[LogEntry] = []
        self._clock: trio.abc.Clock | None = None
        self._changed = trio.Event()
        self._window_key: object = None
        self._deadline: float | None = None
        self._hold = False  # between rounds: wait for this seat's `ready`
        self._rounds_seen = 0

    # -- the interface ---------------------------------------------------------------------------

    @property
    def view(self) -> PlayerView | None:
        return view_of(self.game, self.seat) if self.game is not None else None

    def legal_moves(self) -> Iterable[Move]:
        return self.game.legal_moves(self.seat) if self.game is not None else ()

    @property
    def log(self) -> Sequence[LogEntry]:
        return self._log

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        return self._seats

    @property
    def claim(self) -> ClaimInfo | None:
        game = self.game
        if game is None or game.window is None or self._deadline is None:
            return None
        w = game.window
        return ClaimInfo(w.card, self._deadline, tuple(w.undecided()), tuple(sorted(w.claimed)))

    @property
    def result(self) -> GameResult | None:
        return self.game.result if self.game is not None else None

    @property
    def waiting_for_ready(self) -> bool:
        return self._hold

    def now(self) -> float:
        if self._clock is None:
            return 0.0
        return self._clock.current_time()

    async def submit(self, move: Move) -> Outcome:
        if move.seat != self.seat:
            return Refused(move, f"{move.text()!r}: you play seat {self.seat}, not seat {move.seat}")
        outcome = self._apply(move)
        await trio.lowlevel.checkpoint()
        return outcome

    async def say(self, text: str) -> None:
        text = text.strip()
        if text:
            self._log.append(LogEntry(self.now(), text, chat_from=self.seat))
            self._changed_now()
        await trio.lowlevel.checkpoint()

    async def ready(self) -> None:
        if self._hold:
            self._hold = False
            self._window_key = None  # the next round's first window starts its clock now
            self._track_window()
            self._changed_now()
        await trio.lowlevel.checkpoint()

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        self._clock = trio.lowlevel.current_clock()
        self.game = new_game(self.rules, self.players, self._dealer)
        self._record(list(self.game.log))
        self._track_window()
        task_status.started()
        self._notify()
        await self._drive()

    # -- inside ----------------------------------------------------------------------------------

    def _apply(self, move: Move) -> Outcome:
        assert self.game is not None, "the session is not running"
        try:
            events = self.game.apply(move)
        except IllegalMoveError as exc:
            return Refused(move, str(exc))
        self._record(events)
        self._track_window()
        self._changed_now()
        return Accepted(move, tuple(redact(e, self.seat) for e in events))

    def _record(self, events: list[Event]) -> None:
        now = self.now()
        for event in events:
            seen = redact(event, self.seat)
            self._log.append(LogEntry(now, str(seen), event=seen))
            if isinstance(event, RoundEnded) and self.game.phase is not Phase.OVER:
                self._hold = True
            if isinstance(event, (RoundEnded, GameEnded)):
                self._rounds_seen += 1

    def _track_window(self) -> None:
        """Start the deadline of a newly opened claim window (not while between rounds)."""
        game = self.game
        window = game.window if game is not None else None
        if window is None:
            self._window_key, self._deadline = None, None
        elif window is not self._window_key and not self._hold:
            self._window_key = window
            self._deadline = self.now() + self.claim_timeout

    def _changed_now(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
        self._notify()

    async def _wait_change(self, until: float | None) -> bool:
        """Wait for a change or the deadline; True if something changed."""
        changed = self._changed
        if until is None:
            await changed.wait()
            return True
        with trio.move_on_at(until):
            await changed.wait()
            return True
        return False

    async def _drive(self) -> None:
        """Bots move after ``bot_delay``; an expired claim window passes for the silent."""
        game = self.game
        assert game is not None
        while game.phase is not Phase.OVER:
            if self._hold:
                await self._wait_change(None)
                continue
            bots = [s for s in game.to_move() if s in self._bots]
            due = [self.now() + self.bot_delay] if bots else []
            if self._deadline is not None:
                due.append(self._deadline)
            if not due:
                await self._wait_change(None)
                continue
            if await self._wait_change(min(due)):
                continue  # someone moved: look again
            if self._deadline is not None and self.now() >= self._deadline:
                self._expire_window()
            elif bots:
                seat = bots[0]
                move = choose(self._bots[seat], view_of(game, seat), list(game.legal_moves(seat)), game.log)
                outcome = self._apply(move)
                if isinstance(outcome, Refused):  # a bot's bug must not stall the table
                    raise RuntimeError(f"bot in seat {seat} chose an illegal move: {outcome.reason}")

    def _expire_window(self) -> None:
        game = self.game
        window = game.window
        self._deadline = None
        if window is None:
            return
        events: list[Event] = []
        for seat in list(window.undecided()):
            if game.window is window:
                events += game.apply(PassClaim(seat))
        self._record(events)
        self._track_window()
        self._changed_now()
