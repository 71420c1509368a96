"""One seat of a networked game as a `Session`: what the console plays a LAN table through.

`NetSession` sits on a `Peer` (the connection, the lobby, the seat's `PeerTable` replica, the
reconnects) and turns what the peer knows into the session's words: the seat's view of its
replica, the replica's events with chat and notices ("waiting for ann", "bob lost connection",
"round 2 audited: clean"), the lobby, the connection in words, each round's audit verdict.

A move goes out through `_SeatPlayer`: the peer asks its player for a move whenever the seat may
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
"""

from __future__ import annotations

import random as random_module
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trio

from ..engine import Event, Move, Phase, PlayerView, RoundEnded, view_of
from ..errors import IllegalMoveError
from ..identity import Identity, fingerprint
from ..rules import RuleSet
from ..rules.ruleset import preset, rule_text
from ..session import (
    Accepted, ClaimInfo, Connection, Lobby, LobbySeat, LogEntry, Outcome, Refused, SeatInfo,
    Session, redact,
)
from ..bots import LEVELS
from .config import BOT_THINK, BOT_VOID_AFTER
from .host import HostConfig
from .peer import Peer, PeerError
from .player import BotPlayer
from .resume import GameSecrets
from ..wire.messages import HOST_AUTHOR, Offer
from ..table.public import PublicTable
from ..table.seat import PeerTable
from ..table.disputes import final_result
from ..table.stream import check_move, moment_passed

__all__ = ["NetSession"]

_GONE = ("over", "failed")
_SEAT_CONNECTION = {"connecting": Connection.CONNECTING, "lobby": Connection.CONNECTED,
                    "playing": Connection.CONNECTED, "over": Connection.CONNECTED,
                    "reconnecting": Connection.LOST, "failed": Connection.LOST}


@dataclass
class _Held:
    """The move the console submitted, until the host has sequenced or refused it."""

    move: Move
    done: trio.Event
    version: int  # the moves the replica had applied when the person chose it
    window: object  # the claim window open then
    offered: bool = False
    since: int = 0  # the replica's events before it was sent
    refused: str | None = None


class _SeatPlayer:
    """The peer's `Player` for a person: offers the held move when the peer asks for one."""

    def __init__(self) -> None:
        self.held: _Held | None = None

    def choose(self, table: PeerTable) -> Move | None:
        """The held move, once (the peer checks it again and reports it no longer legal)."""
        held = self.held
        if held is None or held.offered:
            return None
        if held.version != table.version:
            why = moment_passed(table.game, held.move, held.window)
            if why is not None:
                self.outcome(held.move, why)
                return None
        held.offered, held.since = True, len(table.events)
        return held.move

    def outcome(self, move: Move, refused: str | None) -> None:
        held = self.held
        if held is None or held.move != move:
            return
        self.held = None
        held.refused = refused
        held.done.set()

    def give_up(self, reason: str) -> None:
        """The connection is gone for good: the held move will never be sequenced."""
        if self.held is not None:
            self.outcome(self.held.move, reason)


class NetSession(Session):
    """One seat at a networked table: connects to ``address`` as ``identity`` when it runs.

    ``auto_ready``: say ready as soon as seated (a game in one command) instead of waiting for
    `set_ready` (the lobby's key).  ``store``: where the game's secret is kept, so that the seat
    rejoins its game after a crash (None: only after a dropped connection).  ``address`` may be
    set after construction, before `run` (a table hosted in the same run learns its port late).
    ``peer_type``: the `Peer` class (tests pass a fake one).  ``take_over``: watch the game and
    offer to take a seat a player hands us (`Peer` ``successor``).  ``think``: seconds the bot
    `let_bot_finish` starts waits before each decision while a person sits at the table.
    ``spectate``: only follow the game, as a spectator (no seat of it is ours).
    """

    def __init__(self, address: tuple[str, int] | None, identity: Identity, *, name: str = "you",
                 join_code: str = "", table: str = "", open_table: bool = False,
                 auto_ready: bool = False, timeout: float = 30.0,
                 reconnect: bool = True, random: Callable[[int], bytes] = secrets.token_bytes,
                 store: GameSecrets | None = None, peer_type: Callable = Peer,
                 take_over: bool = False, think: float = BOT_THINK,
                 spectate: bool = False) -> None:
        super().__init__()
        self._spectate = spectate
        """Follow the game as a spectator from the start: the host's own person, resumed,
        whose seat someone else plays now."""
        self.address = address
        self.identity = identity
        self.name = name
        self._peer_options = dict(name=name, role="player", join_code=join_code, table=table,
                                  open_table=open_table, random=random,
                                  store=store, timeout=timeout, auto_ready=auto_ready,
                                  reconnect=reconnect, lobby_timeout=None,  # people chat a while
                                  rematch=None,  # asked for with `ask_rematch` (the console's r)
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
        self._player = _SeatPlayer()
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
            return -1 if table.seat is None else table.seat
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
        if table.seat is None:
            return _watched(table.game)
        return view_of(table.game, table.seat)

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
        for _, seat in table.left:
            paid[seat] = paid.get(seat, 0) + table.rules.leave_penalty
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
        (as this seat may know them); `Refused` with the replica's or the host's reason."""
        table = self.table
        if table is None or not self._dealt:
            return Refused(move, f"{move.text()!r}: the game has not started")
        if table.seat is None:
            return Refused(move, f"{move.text()!r}: you watch this game: you play no seat")
        if move.seat != table.seat:
            return Refused(move, f"{move.text()!r}: you play seat {table.seat}, not seat {move.seat}")
        if self._player.held is not None:
            return Refused(move, f"{move.text()!r}: your last move is still on its way")
        if self.peer.status in _GONE:
            return Refused(move, f"{move.text()!r}: the game is {self.peer.status}")
        try:
            check_move(table.game, move)
        except IllegalMoveError as error:
            return Refused(move, str(error))
        held = self._player.held = _Held(move, trio.Event(), table.version, table.game.window)
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
        connected and silent while they owe the deal a step (read in trio, after a key)."""
        peer, table = self.peer, self.table  # a seat's: one that follows has no vote yet
        return tuple(sorted(peer.holding_up(trio.current_time()))) if table is not None \
            and not table.finished else ()

    async def vote_void(self) -> str:
        await trio.lowlevel.checkpoint()
        if not self.away:
            return "everyone is here: there is nothing to vote on"
        table = self.peer.table
        if table.waiting_audit:
            return (f"round {table.round} is being audited: its seeds decide it, and the host "
                    f"names a seat whose seeds do not come within {table.audit_timeout:g} s")
        seat = self.peer.vote_target(self.away)
        if not self.peer.vote_void(seat):
            return "you have voted to void this round already"
        return (f"you voted that seat {seat} left this round: when more than half the table "
                "has, the round scores nothing, that seat pays the leave penalty and is played "
                "by a stand-in from the next deal, and the round's contract is dealt again")

    async def leave(self) -> None:
        """The player quits: the host hears `bye` and shows the seat as left."""
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
        self._changed()

    def _rematch(self) -> None:
        """The host opened the next game at the table: the same seat plays it, with a fresh
        peer (a fresh secret and nonce), from its lobby."""
        game = self.peer.next_game
        self.peer = self.peer.next_peer()
        self._new_game()
        self._add(f"game {game.game} at this table: the same seats, a fresh deal")
        self._changed()

    @property
    def rematch_line(self) -> str | None:
        peer = self.peer
        if peer is None or not getattr(peer, "may_rematch", False):
            return None
        lobby = peer.lobby
        asked = set(lobby.rematch or ()) if lobby is not None else set()
        here = [s.seat for s in lobby.seats if s.connected] if lobby is not None else []
        if peer.rematch:
            waiting = [self._name(s) for s in here if s not in asked and s != peer.seat]
            return "you asked for a rematch" + (
                f": waiting for {', '.join(waiting)}" if waiting else "")
        others = [self._name(s) for s in sorted(asked) if s != peer.seat]
        return "r: play again, the same seats" + (
            f" ({', '.join(others)} asked)" if others else "")

    async def ask_rematch(self) -> str:
        peer = self.peer
        if peer is None or not getattr(peer, "may_rematch", False):
            await trio.lowlevel.checkpoint()
            return "no rematch here: the game is not over, or this host closes its table after it"
        if not await peer.ask_rematch():
            return "not connected to the host: no rematch"
        self._notify()
        return "you asked for a rematch: the next game starts once everyone at the table has"

    async def _follow(self, peer):
        """Run ``peer`` to its end: its result, or None if it failed (said in ``status``)."""
        try:
            return await peer.run()
        except (PeerError, OSError, trio.TooSlowError) as error:
            self._failure = str(error) or type(error).__name__
            return None

    # -- the seat changing hands -----------------------------------------------------------------

    hands_over = True

    @property
    def watching(self) -> str | None:
        peer, table = self.peer, self.table
        if peer is None:
            return None
        if getattr(peer, "waiting", False):
            return ("you watch, and offer to take a seat: a player hands you theirs with H on "
                    f"their console, once you have read out your key {self.identity.fingerprint}")
        if self._handed_to is not None:
            bots = " · the bot runs in this program: closing it (q) stops the bot, and the " \
                "table then votes its seat gone" if any(
                    bot.status not in _GONE for bot in self.successors) else ""
            return f"your seat is {self._handed_to}'s now: you watch the game to its end" + bots
        if table is not None and table.seat is None:
            if peer.seat is not None:
                return f"seat {peer.seat} was handed to you: your program replays the game as it"
            return "you watch this game"
        return None

    @property
    def offers(self) -> tuple[Offer, ...]:
        lobby = self.peer.lobby if self.peer is not None else None
        return tuple(lobby.offers) if lobby is not None else ()

    @property
    def stand_in(self) -> str:
        welcome = self.peer.welcome if self.peer is not None else None
        level = welcome.table.get("stand_in") if welcome is not None else None
        return level if level in LEVELS else "basic"

    def hand_over_refused(self) -> str | None:
        peer, table = self.peer, self.table
        if peer is None or table is None or not self._dealt:
            return "the game has not started: you have no hand to hand over yet"
        if table.seat is None:
            return "you watch this game: you have no seat to hand over"
        if table.finished or table.fault is not None:
            return "the game is over"
        if self._handing is not None:
            return f"your seat is on its way to {self._handing} already"
        if self._store is None:
            return ("your seat keeps no secret of its game on this machine (a join with "
                    "--fresh-identity, or shanghai play): it cannot be handed over")
        if peer.status != "playing":
            return f"not now: {self.status or peer.status}"
        return None

    async def hand_over(self, offer: Offer) -> str:
        await trio.lowlevel.checkpoint()
        why = self.hand_over_refused()
        if why is not None:
            return why
        if offer.sign_key not in {o.sign_key for o in self.offers}:
            return f"{offer.name} no longer offers to take a seat"
        return self._hand_to(offer.name, offer.kind, offer.sign_key, offer.box_key,
                             offer.fingerprint)

    async def let_bot_finish(self, level: str | None = None) -> str:
        await trio.lowlevel.checkpoint()
        why = self.hand_over_refused()
        if why is not None:
            return why
        level = level or self.stand_in
        if level not in LEVELS:
            return f"there is no {level} bot: {', '.join(LEVELS)}"
        options = self._peer_options
        identity = Identity(self._random(32), self._random(32))
        following = trio.Event()

        def changed() -> None:
            if bot.table is not None or bot.status in _GONE:
                following.set()

        bot = Peer(self.address, identity, BotPlayer(level, random_module.Random(
            self._random(16)), think=self._think), name="bot", role="bot", successor=True,
            store=GameSecrets(self._store.directory / "successors" / identity.fingerprint),
            join_code=options["join_code"], table=options["table"], random=self._random,
            timeout=options["timeout"], void_after=BOT_VOID_AFTER, on_change=changed)
        self.successors.append(bot)
        self._handing = f"a {level} bot"
        self.notice(f"starting a {level} bot in this program to finish your hand…")
        scope = trio.CancelScope()
        self._nursery.start_soon(self._run_bot, bot, scope)
        with trio.move_on_after(options["timeout"]):
            await following.wait()  # a spectator of the game: it will see the hand-over
        if bot.table is None:
            scope.cancel()
            self._handing = None
            self.notice(f"the bot could not join the table ({bot.detail or 'not in time'}): "
                        "you keep your seat")
            return "the bot could not join the table: you keep your seat"
        self._handing = None
        return self._hand_to("bot", "bot", identity.sign_public, bot.box_public,
                             identity.fingerprint)

    def _hand_to(self, name: str, kind: str, sign_key: bytes, box_key: bytes,
                 fingerprint: str) -> str:
        """Sign the hand-over; the hand-over's news in the log once the stream has it."""
        seat = self.table.seat
        if not self.peer.hand_over(name, kind, sign_key, box_key):
            return "your seat cannot be handed over now"
        self._handing = name
        self._errors_seen = len(self.peer.errors)
        self.notice(f"you hand seat {seat} to {name} (key {fingerprint}): they play on from "
                    "this very turn")
        return f"handing your seat to {name}…"

    async def _run_bot(self, bot: Peer, scope: trio.CancelScope) -> None:
        with scope:
            try:
                await bot.run()
            except PeerError as error:
                self.notice(f"the bot that took your hand stopped: {error}")
        self._changed()

    def _unseated(self, why: str) -> None:
        """Our seat changed hands (we handed it over, or the table voted us gone)."""
        table = self.table
        holder = table.holders[table.seat]
        self._handing, self._handed_to = None, holder.name
        self._add(f"seat {table.seat} is played by {holder.describe()} now: you watch the game "
                  "to its end" + (" (the table voted you gone)" if "voted" in why else ""))
        self._notify()

    async def _watch(self) -> None:
        """Follow the game to its end as a spectator (the seat we had is someone else's)."""
        options = self._peer_options
        self.peer = self._peer_type(
            self.address, Identity(self._random(32), self._random(32)), None,
            on_change=self._changed, name=self.name, role="spectator",
            join_code=options["join_code"], table=options["table"], random=self._random,
            timeout=options["timeout"], lobby_timeout=None, reconnect=options["reconnect"])
        self._seen_chat = 0  # its chat is its own, from what the host relays after its hello
        self._changed()
        await self._follow(self.peer)

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
            self._take_events(_events(table))
            self._note_waiting(peer, table)
            self._note_audits(table)
            self._track_window(table)
        self._take_chat(peer.chat)
        if peer.status in _GONE or self._failure:
            self._player.give_up(self.status or f"the game is {peer.status}")
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
            self._seen_events = len(_events(current))
            self._audits_counted = getattr(current, "rounds_audited", 0)
            self._seen_verdicts |= set(getattr(current, "verdicts", {}))
            self._fault_seen, self._verdict_seen = current.fault is not None, \
                current.verdict is not None
            self._protests_seen = len(current.protests)
            if current.seat is not None:
                self._taking = False
                self._add(f"seat {current.seat} is yours now: you play on from this very turn")
        return current

    def _note_offers(self, peer) -> None:
        """A watcher offering to take a seat, news to a seated player; a hand-over the host
        refused."""
        if peer.seat is not None and not getattr(peer, "waiting", False):
            for offer in self.offers:
                if offer.sign_key not in self._offers_seen:
                    self._add(f"{offer.name} offers to take a seat (key {offer.fingerprint}): "
                              "H hands yours to them")
        self._offers_seen |= {o.sign_key for o in self.offers}
        if self._handing is not None and self._handed_to is None:
            for error in peer.errors[self._errors_seen:]:
                if "hands" in error.reason:  # the table's refusal of our hand_over
                    self._add(f"the host refused to hand your seat over: {error.reason}")
                    self._handing = None
            self._errors_seen = len(peer.errors)

    def _add(self, text: str, event: Event | None = None, chat_from: int | None = None) -> None:
        self._log.append(LogEntry(self.now(), text, event, chat_from))

    def _take_events(self, events: Sequence[Event]) -> None:
        seat = self.seat
        for event in events[self._seen_events:]:
            seen = redact(event, seat)
            self._add(str(seen), seen)
            if isinstance(event, RoundEnded) and self.table.game.phase is not Phase.OVER:
                self._hold = True
        self._seen_events = len(events)

    def _take_chat(self, chat) -> None:
        by_name = {name: seat for seat, name in reversed([(s.seat, s.name) for s in self.seats])}
        for line in chat[self._seen_chat:]:
            seat = by_name.get(line.name)
            if seat is None:  # a spectator, or a name the table does not know
                self._add(f"{line.name or '?'} says: {line.text}")
            else:
                self._add(line.text, chat_from=seat)
        self._seen_chat = len(chat)

    def _name(self, seat: int) -> str:
        names = {s.seat: s.name for s in self.seats}
        return names.get(seat, f"seat {seat}")

    def _note_status(self, peer) -> None:
        status = peer.status
        if status == self._status_seen:
            return
        before, self._status_seen = self._status_seen, status
        if self._handed_to is not None and status != "failed":
            return  # our own spectator's connection: only its failure is news
        if status == "reconnecting" and "handed to us" in peer.detail:
            self._taking = True
            self._add(f"seat {peer.seat} was handed to you: your program replays the game as "
                      "that seat, then you play on")
        elif status == "reconnecting":  # the countdown and the attempts are the status line's
            self._add(peer.detail.partition("; retrying")[0] or "connection lost")
        elif status == "playing" and before == "reconnecting":
            if not self._taking:
                self._add("reconnected")
        elif status == "lobby" and before in ("", "connecting"):
            self._add(f"joined the table as seat {peer.seat}" if peer.seat is not None else
                      "joined the table as a watcher")
        elif status == "playing" and before in ("", "connecting", "lobby"):
            self._add("the game starts")
        elif status == "failed":
            self._add(self.status)

    def _note_waiting(self, peer, table: PeerTable) -> None:
        """Seats that dropped or came back, and a dropped seat the table is waiting for."""
        absent = frozenset(peer.absent)
        for seat in sorted(absent - self._absent_seen):
            taker = self._taker(seat, peer, table)
            if taker is not None:  # its successor replays the game first, then plays on
                self._passing.add(seat)
                self._add(f"seat {seat} passes to {taker}")
            else:
                self._add(f"{self._name(seat)} " + ("left the game" if seat in peer.left
                                                   else "lost connection"))
        for seat in sorted(self._absent_seen - absent):
            if seat in self._passing:
                self._passing.discard(seat)
                self._arrived.add(table.holders[seat].sign_key)
                self._add(f"{self._name(seat)} takes seat {seat}")
            else:
                self._add(f"{self._name(seat)} is back")
        self._absent_seen = absent
        owed = table.owed()
        waiting = frozenset(absent & (set(table.game.to_move()) | set(owed)) - self._passing)
        for seat in sorted(waiting - self._waiting_seen):
            what = f": {owed[seat]}" if seat in owed else ""
            self._add(f"waiting for {self._name(seat)}{what} (V votes to void the round if "
                      "they do not come back)")
        self._waiting_seen = waiting

    def _taker(self, seat: int, peer, table: PeerTable) -> str | None:
        """Who takes ``seat``, if it is changing hands rather than lost: the stream handed it
        to a key that has not come yet, or the host already lists another key for it than
        the one our replica has reached (the hand-over is on its way to us)."""
        body = table.handovers.get(seat)
        if body is not None and body.sign_key not in self._arrived:
            return self._name(seat)
        shown = next((s for s in peer.lobby.seats if s.seat == seat), None) \
            if peer.lobby is not None else None
        if shown is not None and shown.fingerprint != fingerprint(table.holders[seat].sign_key):
            return shown.name
        return None

    def _note_audits(self, table: PeerTable | PublicTable) -> None:
        for round_no in sorted(set(getattr(table, "verdicts", {})) - self._seen_verdicts):
            self._seen_verdicts.add(round_no)
            self._audits[round_no] = self.audit(round_no)
            self._add(f"round {round_no} audited: {self.audit(round_no)}")
        audited = getattr(table, "rounds_audited", 0)  # a watcher's: its rounds audited clean
        if audited > self._audits_counted:
            self._audits_counted = audited
            self._audits[table.round] = "clean"
            self._add(f"round {table.round} audited: clean")
        if table.fault is not None and not self._fault_seen:
            self._fault_seen = True
            self._add(f"the game stopped: {table.fault}")
        if getattr(table, "complaint", None) is not None and not self._complained:
            self._complained = True
            self._add(f"the deal went wrong for you ({table.complaint}): you complained, and "
                      "the round is audited now")
        for protest in table.protests[self._protests_seen:]:
            self._add(f"{self._name(protest.seat)} protests the host's timeout: {protest.reason}"
                      + (" (its signed claim shows it)" if protest.claim is not None else ""))
        self._protests_seen = len(table.protests)
        if table.verdict is not None and not self._verdict_seen:
            self._verdict_seen = True
            self._add(self.cheat_line(table.verdict))

    def cheat_line(self, verdict) -> str:
        """Whom a round's audit named, in words for the table (the culprit ranks last)."""
        culprit = verdict.culprit
        who = "no one" if culprit is None else "the host" if culprit == HOST_AUTHOR else \
            f"seat {culprit} ({self._name(culprit)})"
        return (f"{who} cheated in the deal: {verdict.reason}; the round is void and the game "
                "over")

    def _track_window(self, table: PeerTable) -> None:
        """A newly opened claim window counts down the host's timeout from now."""
        window = table.game.window
        if window is None:
            self._window, self._deadline = None, None
        elif window is not self._window:
            self._window = window
            self._deadline = self.now() + self.claim_timeout


def _events(table) -> Sequence[Event]:
    """The events of a table shown: the seat's replica's, or a watcher's public game's."""
    events = getattr(table, "events", None)
    return events if events is not None else table.game.log


def _watched(game) -> PlayerView:
    """The game as a watcher sees it: every public fact, no hand, no seat of its own (seat -1:
    the console names no one "you" and offers no move)."""
    view = view_of(game, 0)
    view.seat, view.hand, view.must_lay_off = -1, (), ()
    view.may_claim = view.may_call_shanghai = view.went_down_now = False
    return view
