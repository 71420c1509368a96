"""One seat of a networked game as a `Session`: what the console plays a LAN table through.

`NetSession` sits on a `Peer` (the connection, the lobby, the seat's `PeerTable` replica, the
reconnects) and turns what the peer knows into the session's words: the seat's view of its
replica, the replica's events with chat and notices ("waiting for ann", "bob lost connection",
"round 2 audited: clean"), the lobby, the connection in words, each round's audit verdict.

A move goes out through `PersonPlayer`: the peer asks its player for a move whenever the seat may
move, so the player holds the one move the console submitted until then, and the peer tells it
whether the host sequenced or refused it.  An illegal move is refused here, by the seat's own
replica, and never sent.

Between rounds the network game does not wait for anyone to read the round summary: ``ready()``
only closes it here.  A claim window counts down from when this seat saw it open, by the host's
claim timeout (from ``welcome``).

A session may also follow the game without a seat (``watching``), on the public table a
spectator has: one that joined to take a seat handed to it (``take_over``: a `Peer` with
``successor=True`` that offers to, until a ``hand_over`` names its key and it plays the seat),
and one whose seat changed hands: it handed it to a watcher who offers (`hand_over`), or to a
bot it starts in this program (`let_bot_finish`), and a spectator's connection of its own then
shows the game to its end.  While a new table replays the game from its first message (the
seat handed to us, or the spectator's), the table before stays on screen.

Its parts, one concept a module: the log in words (`SeatLog`, session_log.py), the seat changing
hands (`SessionHandover`, session_handover.py) and the rematch (`SessionRematch`,
seat_rematch.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence

import trio

from ..engine import Event, Move, Phase, PlayerView, view_of
from ..errors import IllegalMoveError
from ..identity import Identity
from ..rules import RuleSet
from ..rules.ruleset import preset, rule_text
from ..session import (
    Accepted, ClaimInfo, Connection, Lobby, LobbySeat, LogEntry, Outcome, Refused, SeatInfo,
    Session, redact,
)
from .config import BOT_THINK
from .host import HostConfig
from .peer import Peer, PeerError
from .player import HeldMove, PersonPlayer
from .resume import GameSecrets
from .voting import PERSON_VOTE_AFTER
from .seat_rematch import SessionRematch
from .session_handover import GONE, SessionHandover
from .session_log import SeatLog, events_of
from ..table.outbox import decided_at
from ..table.public import PublicTable
from ..table.seat import PeerTable
from ..table.disputes import final_result
from ..table.stream import check_move

__all__ = ["NetSession"]

_SEAT_CONNECTION = {"connecting": Connection.CONNECTING, "lobby": Connection.CONNECTED,
                    "playing": Connection.CONNECTED, "over": Connection.CONNECTED,
                    "reconnecting": Connection.LOST, "failed": Connection.LOST}


class NetSession(SeatLog, SessionHandover, SessionRematch, Session):
    """One seat at a networked table: connects to ``address`` as ``identity`` when it runs.

    ``auto_ready``: say ready as soon as seated (a game in one command) instead of waiting for
    `set_ready` (the lobby's key).  ``store``: where the game's secret is kept, so that the seat
    rejoins its game after a crash (None: only after a dropped connection).  ``address`` may be
    set after construction, before `run` (a table hosted in the same run learns its port late).
    ``peer_type``: the `Peer` class (tests pass a fake one).  ``take_over``: watch the game and
    offer to take a seat a player hands us (`Peer` ``successor``).  ``think``: seconds the bot
    `let_bot_finish` starts waits before each decision while a person sits at the table.
    ``spectate``: only follow the game, as a spectator (no seat of it is ours); ``next_game``:
    a table hosted here, whose next games a session that watches follows too.
    ``vote_for_you_after``: seconds ``V`` is offered with no key pressed before the seat votes
    for its person (`PERSON_VOTE_AFTER`).
    """

    def __init__(self, address: tuple[str, int] | None, identity: Identity, *, name: str = "you",
                 join_code: str = "", table: str = "", open_table: bool = False,
                 auto_ready: bool = False, timeout: float = 30.0,
                 reconnect: bool = True, random: Callable[[int], bytes] = secrets.token_bytes,
                 store: GameSecrets | None = None, peer_type: Callable = Peer,
                 take_over: bool = False, think: float = BOT_THINK,
                 spectate: bool = False,
                 next_game: Callable[[], Awaitable[bool]] | None = None,
                 vote_for_you_after: float = PERSON_VOTE_AFTER) -> None:
        super().__init__()
        self._spectate = spectate
        self._next_game = next_game
        """Once a game watched is over: waits until the table opens its next game (True: it is
        watched too) or closes (False).  The host's own console, which serves the table."""
        """Follow the game as a spectator from the start: the host's own person, resumed,
        whose seat someone else plays now."""
        self.address = address
        self.identity = identity
        self._sign_public = identity.sign_public
        """Our signing key, derived once: the log compares every seat's holder with it."""
        self.name = name
        self._peer_options = dict(name=name, role="player", join_code=join_code, table=table,
                                  open_table=open_table, random=random,
                                  store=store, timeout=timeout, auto_ready=auto_ready,
                                  reconnect=reconnect, lobby_timeout=None,  # people chat a while
                                  rematch=None,  # asked for with `ask_rematch` (the console's r)
                                  person_vote_after=vote_for_you_after,
                                  **({"successor": True} if take_over else {}))
        self._peer_type = peer_type
        self._store, self._random, self._think = store, random, think
        self.peer = None
        """The `Peer` shown (None until `run`): the seat's, then, once the seat has changed
        hands, a spectator's that follows the game to its end."""
        self.successors: list[Peer] = []
        """The bots this session started to finish its hand (`let_bot_finish`): they run in
        this program, and stop with it."""
        self._nursery: trio.Nursery | None = None
        self._player = PersonPlayer()
        self._log: list[LogEntry] = []
        self._clock: trio.abc.Clock | None = None
        self._new_game()

    def _new_game(self) -> None:
        """What the session keeps of one game, afresh (the first, or a rematch's: the log and
        the player stay)."""
        self._table: PeerTable | PublicTable | None = None
        self._handing: str | None = None
        """Whom the seat is on its way to (a hand-over sent, not yet in the stream)."""
        self._handed_to: str | None = None
        """Who plays the seat we had, once it changed hands (we watch)."""
        self._taking = False
        """A seat was handed to us: the peer replays the game as the seat."""
        self._offers_seen: set[bytes] = set()
        self._errors_seen = 0
        self._audits: dict[int, str] = {}
        """Each round's audit in words, as the tables shown so far concluded it."""
        self._audits_counted = 0
        self._rules: RuleSet | None = None
        self._dealt = False
        self._hold = False
        self._window: object = None
        self._deadline: float | None = None
        self._seen_events = 0
        self._votes_for_you_seen = 0
        self._names_seen: tuple[str, ...] = ()
        self._seen_chat = 0
        self._seen_verdicts: set[int] = set()
        self._status_seen = ""
        self._absent_seen: frozenset[int] = frozenset()
        self._waiting_seen: frozenset[int] = frozenset()
        self._passing: set[int] = set()
        """Seats handed over whose successor has not come yet: their absence is no loss."""
        self._arrived: set[bytes] = set()
        """The keys of successors that came to the seats handed to them."""
        self._fault_seen = False
        self._complained = False
        self._verdict_seen = False
        self._protests_seen = 0
        self._failure = ""

    # -- what the seat sees ----------------------------------------------------------------------

    @property
    def table(self) -> PeerTable | PublicTable | None:
        """The table shown: the seat's, or a watcher's public one."""
        return self._table

    @property
    def seat(self) -> int:
        """The seat the table shown plays (-1: a watcher's table, of no seat); before the game,
        the seat the host gave us (0 until it has)."""
        table = self.table
        if table is not None:
            return -1 if self._unseated_table(table) else table.seat
        seat = self.peer.seat if self.peer is not None else None
        return 0 if seat is None else seat

    @property
    def rules(self) -> RuleSet | None:
        """The table's rules: as the game started, or as the lobby shows them (None before)."""
        table = self.table
        if table is not None:
            return table.rules
        lobby = self.lobby
        if lobby is None:
            return None
        if self._rules is None or self._rules.name != lobby.preset:
            self._rules = preset(lobby.preset)
        house = self.peer.lobby.rules if self.peer.lobby is not None else {}
        return self._rules.override(**house) if house else self._rules

    @property
    def players(self) -> int:
        start = self.peer.start if self.peer is not None else None
        if start is not None:
            return len(start.seats)
        if self.table is not None:
            return len(self.table.holders)
        lobby = self.lobby
        return lobby.players if lobby is not None else 0

    @property
    def view(self) -> PlayerView | None:
        """The seat's view of its replica, once the first deal has settled."""
        table = self.table
        if table is None or not self._dealt:
            return None
        if self._unseated_table(table):
            return _watched(table.game)
        return view_of(table.game, table.seat)

    def _unseated_table(self, table) -> bool:
        """The table shown plays no seat of ours: a watcher's, or the seat's own while a
        spectator's replays the game after the seat changed hands (it showed "you" and the
        hand given away until then)."""
        return table.seat is None or self._handed_to is not None

    def legal_moves(self) -> list[Move]:
        table = self.table
        return table.legal_moves() if table is not None and table.seat is not None and \
            self._dealt and table.can_move() else []

    @property
    def log(self) -> Sequence[LogEntry]:
        return self._log

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        peer = self.peer
        if peer is None:
            return ()
        lobby = self.lobby
        table = self.table
        bots = {s.seat for s in lobby.seats if s.bot} if lobby is not None else set()
        if table is not None:
            bots |= {seat for seat, h in enumerate(table.holders) if h.kind == "bot"}
        mine = _SEAT_CONNECTION.get(peer.status, Connection.CONNECTING)
        if table is not None:  # who plays each seat now: "bot for ann"
            named = [(seat, h.describe()) for seat, h in enumerate(table.holders)]
        elif peer.start is not None:
            named = [(s.seat, s.name) for s in peer.start.seats]
        else:
            named = [(s.seat, s.name) for s in lobby.seats] if lobby is not None else []
        return tuple(
            SeatInfo(seat, name, "bot" if seat in bots else None,
                     mine if seat == peer.seat else
                     Connection.LEFT if seat in peer.left else
                     Connection.LOST if seat in peer.absent else Connection.CONNECTED)
            for seat, name in named)

    @property
    def claim(self) -> ClaimInfo | None:
        table = self.table
        window = table.game.window if table is not None else None
        if window is None or self._deadline is None:
            return None
        return ClaimInfo(window.card, self._deadline, tuple(window.undecided()),
                         tuple(sorted(window.claimed)))

    @property
    def result(self):
        table = self.table
        return final_result(table, table.game) if table is not None else None

    @property
    def over(self) -> bool:
        """The last round is audited too: a seat that quits between its last hand and the
        audit has not shown its seeds, and the table takes that round's score back."""
        return self.result is not None and self.table.finished

    @property
    def penalties(self) -> dict[int, int]:
        """What each seat paid for leaving, from the stream (``left``): a seat that took its
        place after the vote has no event of it in its own log."""
        table = self.table
        if table is None:
            return super().penalties
        paid: dict[int, int] = {}
        for leave in table.left:
            if leave not in table.unpaid:  # a stand-in voted gone costs its seat nothing
                paid[leave[1]] = paid.get(leave[1], 0) + table.rules.leave_penalty
        return paid

    @property
    def waiting_for_ready(self) -> bool:
        """The round summary is open here (the table itself goes on)."""
        return self._hold

    def now(self) -> float:
        return self._clock.current_time() if self._clock is not None else 0.0

    @property
    def lobby(self) -> Lobby | None:
        peer = self.peer
        if peer is None or peer.welcome is None:
            return None
        info = peer.welcome.table
        state = peer.lobby
        seats = tuple(LobbySeat(s.seat, s.name, s.fingerprint, s.ready, s.connected,
                                s.kind == "bot") for s in state.seats) if state else ()
        rules = state.rules if state is not None else {}
        return Lobby(preset=state.preset if state else str(info.get("preset", "")),
                     players=int(info.get("players", len(seats))),
                     house_rules=tuple(sorted((k, rule_text(k, v)) for k, v in rules.items())),
                     seats=seats, host_fingerprint=str(info.get("host_fingerprint", "")),
                     join_code=state.join_code if state else "", you=peer.seat,
                     offers=tuple((o.name, o.fingerprint) for o in self.offers),
                     last_game=tuple(enumerate(state.result)) if state is not None else ())

    @property
    def status(self) -> str:
        peer = self.peer
        if peer is None:
            return "starting…"
        if self._failure:
            return f"connection failed: {self._failure}"
        if peer.status == "connecting":
            return "connecting to {}:{}…".format(*self.address)
        if peer.status == "reconnecting" and self._taking:
            return "taking the seat handed to you: your program replays the game as that seat…"
        if peer.status == "reconnecting":  # the peer's detail: "...(why); retrying in 2 s (...)"
            retry = peer.detail.rpartition("; ")[2]
            retry = retry if retry.startswith("retrying") else "retrying…"
            return f"connection lost, {retry}"  # a peer that never got in does not retry
        if peer.status == "failed":
            return f"connection failed: {peer.detail}" if peer.detail else "connection failed"
        if peer.status == "playing" and peer.seat is not None and peer.table is not None \
                and peer.table.seat is None:  # a seat's keys following the game to take it
            return peer.detail  # "waiting to take seat 2 at the next round's deal"
        return ""

    def audit(self, round_no: int) -> str | None:
        table = self.table
        if table is None:
            return None
        verdicts = getattr(table, "verdicts", {})  # a watcher's public table keeps none
        verdict = verdicts.get(round_no)
        if verdict is not None:
            return "clean" if verdict.clean else f"fault by seat {verdict.culprit}: {verdict.reason}"
        if round_no in self._audits:
            return self._audits[round_no]
        if table.fault is not None:
            return str(table.fault)
        return "pending…"

    @property
    def claim_timeout(self) -> float:
        """The table's claim timeout: the game's (the peer checked it is the one ``welcome``
        showed), or before the game the one ``welcome`` says (the default host's otherwise)."""
        if self.peer is not None and self.peer.start is not None:
            return self.peer.start.claim_timeout
        welcome = self.peer.welcome if self.peer is not None else None
        timeout = welcome.table.get("claim_timeout") if welcome is not None else None
        return float(timeout) if timeout is not None else HostConfig.claim_timeout

    # -- what the seat does ----------------------------------------------------------------------

    async def submit(self, move: Move) -> Outcome:
        """`Accepted` once the host has sequenced the move, with the events since it was sent
        (as this seat may know them); `Refused` with the replica's or the host's reason, or
        because the game ended with it still held (a claim decision on its way when another
        seat went out)."""
        table = self.table
        if table is None or not self._dealt:
            return Refused(move, f"{move.text()!r}: the game has not started")
        if table.seat is None:
            return Refused(move, f"{move.text()!r}: you watch this game: you play no seat")
        if move.seat != table.seat:
            return Refused(move, f"{move.text()!r}: you play seat {table.seat}, not seat {move.seat}")
        if self._player.held is not None:
            return Refused(move, f"{move.text()!r}: your last move is still on its way")
        if self.peer.status in GONE:
            return Refused(move, f"{move.text()!r}: the game is {self.peer.status}")
        try:
            check_move(table.game, move)
        except IllegalMoveError as error:
            return Refused(move, str(error))
        held = self._player.held = HeldMove(move, trio.Event(), decided_at(table),
                                            table.game.window)
        self.peer.nudge()
        await held.done.wait()
        if held.refused is not None:
            return Refused(move, held.refused)
        return Accepted(move, tuple(redact(e, table.seat) for e in table.events[held.since:]))

    async def say(self, text: str) -> None:
        """Chat to the table: the line shows once the host has relayed it to everyone."""
        text = text.strip()
        if text and self.peer is not None:
            if not await self.peer.say(text):
                self.notice(f"not connected: not sent: {text}")
        else:
            await trio.lowlevel.checkpoint()

    async def ready(self) -> None:
        """The round summary was read: it closes here; the table never waited for it."""
        if self._hold:
            self._hold = False
            self._notify()
        await trio.lowlevel.checkpoint()

    @property
    def away(self) -> tuple[int, ...]:
        """The seats the table waits for that a vote may void the round against: away, or
        connected and silent while they owe the deal a step."""
        peer, table = self.peer, self.table  # a seat's: one that follows has no vote yet
        return tuple(sorted(peer.holding_up(self.now()))) if table is not None \
            and not table.finished else ()

    async def vote_void(self) -> str:
        await trio.lowlevel.checkpoint()
        if not self.away:
            return "everyone is here: there is nothing to vote on"
        table = self.peer.table
        if table.waiting_audit:
            return (f"round {self._round(table.round)} is being audited: its seeds decide it, "
                    f"and the host names a seat whose seeds do not come within "
                    f"{table.audit_timeout:g} s")
        seat = self.peer.vote_target(self.away)
        if not self.peer.vote_void(seat):
            return "you have voted to void this round already"
        return (f"you voted that seat {seat} left this round: when more than half the table "
                "has, the round scores nothing, that seat pays the leave penalty and is played "
                "by a stand-in from the next deal, and the round's contract is dealt again")

    @property
    def vote_for_you(self) -> tuple[int, float] | None:
        away = self.away
        at = self.peer.person_vote_at(self.now()) if away else None
        return None if at is None else (self.peer.vote_target(away), at)

    async def wait_for_them(self) -> str:
        await trio.lowlevel.checkpoint()
        at = self.peer.wait_for_them(self.now()) if self.away else None
        if at is None:
            return "everyone is here: there is no one to wait for"
        seat = self.peer.vote_target(self.away)
        return f"you wait for {self._name(seat)}: the countdown to your seat's vote starts again"

    async def leave(self) -> None:
        """The player quits: the table reads the seat's signed `leave` (and the seats vote it
        gone at once), then the host hears `bye` and shows the seat as left."""
        if self.peer is not None:
            await self.peer.leave()
        else:
            await trio.lowlevel.checkpoint()

    async def set_ready(self, ready: bool) -> None:
        if self.peer is None:
            await trio.lowlevel.checkpoint()
            return
        if not await self.peer.set_ready(ready):
            self.notice("not connected: press r again once you are back at the table")

    def notice(self, text: str) -> None:
        """A line of our own in the log (the table hosted here says where it listens)."""
        self._add(text)
        self._notify()

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Connect, wait in the lobby, play; returns when the game is over or the connection
        failed for good (the reason stays in ``status``; nothing is raised to the console).
        A seat that changed hands watches the game to its end; the bots this session started
        play theirs out before it returns."""
        if self.address is None:
            raise ValueError("NetSession.run: no address to connect to")
        self._clock = trio.lowlevel.current_clock()
        if self._spectate:
            task_status.started()
            await self._watch()
            await self._watch_next_games()
            self._changed()
            return
        self.peer = self._peer_type(self.address, self.identity, self._player,
                                    on_change=self._changed, **self._peer_options)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            self._changed()
            result = await self._follow(self.peer)
            while getattr(self.peer, "next_game", None) is not None:
                self._rematch()
                result = await self._follow(self.peer)
            unseated = getattr(result, "unseated", None)
            if unseated and self.table is not None and not self.table.finished:
                self._unseated(unseated)
                await self._watch()
                await self._watch_next_games()
        self._changed()

    async def _watch_next_games(self) -> None:
        """A table hosted here plays on without our seat (a rematch): watch each next game."""
        while self._next_game is not None and await self._next_game():
            self._new_game()
            self._add("the next game at this table: you watch it, as its host")
            await self._watch()

    async def _follow(self, peer):
        """Run ``peer`` to its end: its result, or None if it failed (said in ``status``)."""
        try:
            return await peer.run()
        except (PeerError, OSError, trio.TooSlowError) as error:
            self._failure = (error.words if isinstance(error, PeerError) else str(error)) or \
                type(error).__name__  # a refusal in words, without its code
            return None

    # -- inside ----------------------------------------------------------------------------------

    def _changed(self) -> None:
        """The peer changed (on the trio thread): bring the log and the claim clock up to date,
        then tell the listeners."""
        peer = self.peer
        self._note_status(peer)
        table = self._show(peer)
        self._note_offers(peer)
        if table is not None:
            if not self._dealt and table.settled and table.game.phase in (Phase.DRAW, Phase.PLAY):
                self._dealt = True
            self._take_events(events_of(table))
            self._note_waiting(peer, table)
            self._note_votes_for_you(peer)
            self._note_audits(table)
            self._track_window(table)
        self._take_chat(peer.chat)
        if peer.status in GONE or self._failure:
            self._player.give_up(self.status or f"the game is {peer.status}")
        elif table is not None and table.finished:  # (a move of ours it sequenced is reported)
            self._player.give_up("the game is over")  # the seat is asked for no move again
        self._notify()

    def _show(self, peer) -> PeerTable | PublicTable | None:
        """The table to show: the peer's, unless it replays the game into a new table (a seat
        handed to us, or a spectator's after ours changed hands) while another is on screen:
        that one stays until the new one has caught up, whose replay is then no news."""
        current, shown = peer.table, self._table
        if current is None or current is shown or (
                shown is not None and getattr(peer, "replaying", False)):
            return shown
        self._table = current
        if shown is not None:
            self._seen_events = len(events_of(current))
            self._audits_counted = getattr(current, "rounds_audited", 0)
            self._seen_verdicts |= set(getattr(current, "verdicts", {}))
            self._fault_seen, self._verdict_seen = current.fault is not None, \
                current.verdict is not None
            self._protests_seen = len(current.protests)
            if current.seat is not None:
                self._taking = False
                self._add(f"seat {current.seat} is yours now: you play on from this very turn")
        return current

    def _add(self, text: str, event: Event | None = None, chat_from: int | None = None,
             names: tuple[str, ...] | None = None) -> None:
        self._log.append(LogEntry(self.now(), text, event, chat_from, names))

    def _name(self, seat: int) -> str:
        names = {s.seat: s.name for s in self.seats}
        return names.get(seat, f"seat {seat}")

    def _track_window(self, table: PeerTable) -> None:
        """A newly opened claim window counts down the host's timeout from now."""
        window = table.game.window
        if window is None:
            self._window, self._deadline = None, None
        elif window is not self._window:
            self._window = window
            self._deadline = self.now() + self.claim_timeout


def _watched(game) -> PlayerView:
    """The game as a watcher sees it: every public fact, no hand, no seat of its own (seat -1:
    the console names no one "you" and offers no move)."""
    view = view_of(game, 0)
    view.seat, view.hand, view.must_lay_off = -1, (), ()
    view.may_claim = view.may_call_shanghai = view.went_down_now = False
    return view
