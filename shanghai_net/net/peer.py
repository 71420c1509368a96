"""A peer: connect to a host, say hello, get ready, then play one game through a `PeerTable`.

The loop is: read what the host sends; feed each sequenced game message to the table and queue
the bodies it asks for; let the player choose when the seat has a decision (a bot: `BotPlayer`,
a person: the console's session, which `nudge`s the peer when a move is ready); sign and send
what the `Outbox` releases.  Every wait on the host is bounded by ``fail_after``.

A dropped connection is retried with the same identity: the host knows the seat by its key, asks
for a proof (a signature over its fresh challenge), and sends the game again from the first
message this peer lacks (while the host still holds the old connection live, a pulled cable it
has not missed yet, it refuses the seat, and the peer tries again).  A peer that crashed starts
again from the game's first message; its deal secrets are the same because its randomness comes
from a per-game secret kept on disk (`GameSecrets`), so it recomputes, and does not send again,
every step it had sent.

Its parts, one concept a module: which keys and secrets play the seat as it changes hands
(`Holding`, handover.py), the rematch (`PeerRematch`, seat_rematch.py), the votes on a table held
up (`Voting`, voting.py), the player quitting (`Quitting`, quitting.py), and the connection
itself (`PeerLink`, peer_link.py).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import secrets
from typing import Callable

import trio

from ..deal.randomness import RandomBytes
from ..errors import IllegalMoveError
from ..identity import Identity
from ..table.fault import Fault
from ..table.outbox import Outbox
from ..table.public import PublicTable
from ..table.roster import Holder
from ..table.seat import PeerTable
from ..table.secret import SeatSecret
from ..table.watch import HostWatch
from ..wire import LocalProtocolError
from ..wire.messages import (PROTOCOL_NAME, PROTOCOL_VERSION, Bye, Chat, Error, GameMessage,
                             Hello, LobbyState, Message, NextGame, Ping, Placed, Pong, Ready,
                             Refused, StartGame, Welcome)
from ..wire.signing import sign_proof
from ..wire.state import State
from .handover import Holding, Reseat, Unseated
from .peer_link import Lost, PeerError, PeerLink, PeerResult
from .player import BotPlayer, Player
from .quitting import Quitting
from .resume import GameSecrets
from .seat_rematch import PeerRematch, play_on
from .voting import Voting

__all__ = ["Peer", "PeerError", "run_peer", "play_on"]

log = logging.getLogger("shanghai_net.peer")

RETRY_DELAYS = (0.5, 1, 2, 4, 8, 15, 30, 30, 30, 30)
"""Seconds between attempts to get back to a host that dropped us (about three minutes)."""

_NUDGE = object()


class Peer(Holding, PeerRematch, Quitting, Voting):
    """One seat's client of a networked table: connect, lobby, play, reconnect after a drop.

    The attributes below are what a front end shows; ``on_change()`` is called (on the trio
    thread) after any of them changes.  ``store``: where the per-game secret is kept so that a
    crashed peer can rejoin (None: ``random`` is used and only a dropped connection, not a crash,
    can be recovered).
    """

    table_type: type[PeerTable] = PeerTable
    """The seat's sans-IO table (tests put a cheating one in a subclass)."""

    def __init__(self, address: tuple[str, int], identity: Identity, player: Player | None = None,
                 *, name: str = "bot", role: str = "bot", join_code: str = "", table: str = "",
                 open_table: bool = False,
                 random: RandomBytes = secrets.token_bytes, store: GameSecrets | None = None,
                 secret: SeatSecret | None = None,
                 timeout: float = 30.0, lobby_timeout: float | None = 600.0,
                 game_timeout: float | None = None, idle_timeout: float = 600.0,
                 auto_ready: bool = True, reconnect: bool = True, retry_delays=RETRY_DELAYS,
                 void_after: float | None = None, person_vote_after: float | None = None,
                 worker_threads: bool = True,
                 successor: bool = False, rematch: bool | None = False,
                 on_change: Callable[[], None] | None = None,
                 on_table: Callable[[PeerTable], None] | None = None) -> None:
        self._options = {name: value for name, value in locals().items() if name != "self"}
        """What this peer was made with: the next game's peer is made with the same
        (`next_peer`)."""
        self.address = address
        self.identity = identity
        self.player = player or BotPlayer()
        self.name, self.role, self.join_code = name, role, join_code
        self.table_name, self.open_table = table, open_table
        """The table to sit at (`Hello.table`), and whether to open it if the host has none."""
        self.timeout, self.lobby_timeout = timeout, lobby_timeout
        self.game_timeout, self.idle_timeout = game_timeout, idle_timeout
        self.auto_ready, self.reconnect, self.retry_delays = auto_ready, reconnect, retry_delays
        self.void_after = void_after
        """Seconds a seat may be away, or owe the deal a step without a word, before this one
        votes to void the round (None: never by itself; a person votes with `vote_void`)."""
        self.person_vote_after = person_vote_after
        """A person's seat: seconds the console offers V with no key pressed before this seat
        votes for its person (`Voting.person_vote_at`; None: never by itself)."""
        self._offered_at: float | None = None
        """When this person's seat found V offered, or its person last pressed ``W``."""
        self.votes_for_person: list[int] = []
        """The seats this person's seat voted against by itself, in order (the log says so)."""
        self.worker_threads = worker_threads
        """Audit each round in a worker thread (the curve arithmetic releases the GIL), so that
        a console's screen and the pings go on meanwhile.  Off for tests on trio's autojump
        clock, to which a thread's work is no wait at all."""
        self._random, self._store = random, store
        self._own = secret or SeatSecret(random(32))
        """Our secret in this game: the box key of our hello, and the deal randomness of any
        seat we play (`table.secret`); ``secret``: one kept for us (a host's stand-in started
        again by the host resumed, `resume.StandInKeys`), else a fresh one."""
        self._secrets: list[SeatSecret] = [self._own]
        """The seat's secrets: those of the holders it was handed from, then our own."""
        self.waiting = successor
        """Watching until a seat is handed to us (`hand_over` on a holder's side)."""
        self.rematch = rematch
        """Once the game is over at a table that stays (its welcome says ``rematch``): ask for
        the next game at once (True: a bot agrees at once), let the front end ask
        (None: `ask_rematch`), or say bye and go (False)."""
        self.next_game: NextGame | None = None
        """Where the next game at the table is, once the host says (`next_peer` joins it)."""
        self._asked = False
        self._quit = False
        """The player left (`leave`): the run ends once its bye is out, and connects no more."""
        self.unasked: NextGame | None = None
        """A `next_game` the host sent though this seat never asked (a forged vote): ignored."""
        self._held = False
        """Our key has signed for the seat: one that loses it to another key stops playing."""
        self._on_change, self._on_table = on_change, on_table
        self.result = PeerResult(None, None)
        self.seat: int | None = None
        self.welcome: Welcome | None = None
        self.lobby: LobbyState | None = None
        self.start: StartGame | None = None
        self.table: PeerTable | PublicTable | None = None
        """The seat's table (a spectator's: the public one)."""
        self.outbox: Outbox | None = None
        self.status = "connecting"
        self.detail = ""
        self.absent: dict[int, float] = {}
        """Seats the host reports disconnected during the game, and since when."""
        self.stalling: dict[int, float] = {}
        """Seats that owe the deal a step, or an approval the next deal waits for
        (`PeerTable.waiting_for`), or that the host timed out as silent while the table
        waits on them (their move, say) and that have signed nothing since
        (`PeerTable.still_silent`), and since when the stream has brought nothing of theirs:
        one that stays connected and silent holds the table up as surely as one that left.
        With sharing on, the lobby's word ignored, the host's signed timeout is all that shows
        a seat that died at its move (the acceptance game's stall, issue 38)."""
        self.left: frozenset[int] = frozenset()
        """Of those, the seats whose player quit (said `bye`): they are not coming back."""
        self.chat = self.result.chat
        self.errors = self.result.errors
        self._link: PeerLink | None = None
        self._inbox: trio.MemorySendChannel | None = None
        self._quiet_until = 0
        self._welcomed = False
        self._decision: tuple | None = None
        self._move_at = -math.inf
        """When the player may make the decision in ``_decision`` (its think time over)."""
        self._deadline = math.inf
        self._watch: HostWatch | None = None
        self._complained_at: float | None = None
        """When this seat's complaint was first seen outstanding (trio time)."""
        self.kept_complaint: str | None = None
        """Our complaint, signed and sent, that the host kept from the table (`Voting`)."""
        self._keys_seen: tuple[bytes, ...] = ()
        """Each seat's signing key when `_holder_changed` last looked."""
        self._seat_holder: Holder | None = None
        """Who held our seat when `_holder_changed` last looked: a new `Holder` with the same
        keys is our seat seated again by a ``replace`` (its first player coming back)."""
        self._sign_public = identity.sign_public
        """Our signing key, derived from its seed once: `_holder_changed` compares it with the
        seat's holder after every message (issue 40)."""
        self._nonce: bytes | None = None
        """The nonce of our latest hello: a game started for us must commit to it."""

    # -- for the front end -----------------------------------------------------------------------

    def nudge(self) -> None:
        """The player may have a move now: ask it at once (sync, on the trio thread)."""
        if self._inbox is not None:
            try:
                self._inbox.send_nowait(_NUDGE)
            except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                pass  # the loop is busy and will ask the player anyway

    async def say(self, text: str) -> bool:
        """Chat to the table; False if there is no connection to say it on."""
        return await self._tell(Chat(text=text[:500]))

    async def set_ready(self, ready: bool) -> bool:
        """Say we are ready (or not) in the lobby; False if there is no seat to say it of."""
        return self.seat is not None and await self._tell(Ready(ready=ready))

    async def _tell(self, msg: Message) -> bool:
        """Send the front end's ``msg`` on the connection there is; False if there is none or
        it is lost (between two attempts to reconnect): the reader finds out on its own."""
        if self._link is None:
            return False
        try:
            await self._link.send(msg)
        except (Lost, LocalProtocolError):
            return False
        return True

    # -- the run ---------------------------------------------------------------------------------

    async def run(self) -> PeerResult:
        """Join, play the game to its end (reconnecting after drops); the result."""
        if self.game_timeout is not None:
            self._deadline = trio.current_time() + self.game_timeout
        attempt = 0
        while True:
            if self._quit:
                return self._left_table()
            try:
                await self._connection()
                if self._quit:
                    return self._left_table()
                if self._store is not None:
                    self._store.forget(self.table.game_id)
                self._set("over", "the game is over" if self.next_game is None else
                          f"the next game is at table {self.next_game.table}")
                return self.result
            except Unseated as gone:  # its secret has no more use: another plays the seat
                if self._store is not None:
                    self._store.forget(self.table.game_id)
                self.result.unseated = str(gone)
                self._set("over", str(gone))
                return self.result
            except Reseat as handed:
                self.table = self.start = self.outbox = self._watch = None
                self._quiet_until, self._welcomed = 0, False
                self._set("reconnecting", str(handed))
                continue
            except Lost as lost:
                failure = lost
            except PeerError as error:
                self._set("failed", str(error))
                raise
            finally:
                self._link = self._inbox = None
            if self._quit:
                return self._left_table()
            if self._welcomed:
                attempt, self._welcomed = 0, False  # it got back in: count afresh
            if self.welcome is None:  # never got in: trying again would only repeat it
                self._set("failed", f"{failure} (is a table hosted there?)")
                raise PeerError(self.detail)
            if not self.reconnect or attempt >= len(self.retry_delays):
                self._set("failed", str(failure))
                raise PeerError(f"lost the host: {failure}")
            delay = self.retry_delays[attempt]
            attempt += 1
            self._set("reconnecting", f"connection lost ({failure}); retrying in {delay:g} s "
                                      f"(attempt {attempt} of {len(self.retry_delays)})")
            await trio.sleep(delay)

    def _set(self, status: str, detail: str = "") -> None:
        self.status, self.detail = status, detail
        self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    async def _connection(self) -> None:
        """One connection: hello, then the lobby or the game, until the game is over."""
        try:
            with trio.fail_after(self.timeout):
                stream = await trio.open_tcp_stream(*self.address)
        except (OSError, trio.TooSlowError) as error:
            raise Lost(f"cannot reach {self.address[0]}:{self.address[1]}: {error}") from None
        failure: Exception | None = None
        async with stream, trio.open_nursery() as nursery:
            link = self._link = PeerLink(stream, self.result, self.timeout)
            send, inbox = trio.open_memory_channel(256)
            self._inbox = send
            nursery.start_soon(link.read, send)
            try:
                await self._converse(link, inbox)
            except (Lost, PeerError, Unseated, Reseat) as error:
                failure = error  # raised outside the nursery, as itself
            except LocalProtocolError:
                if not self._quit:  # after our bye the connection takes nothing more: we end
                    raise
            nursery.cancel_scope.cancel()
        if failure is not None and not self._quit:  # the host's bye or close answers ours
            raise failure

    async def _converse(self, link: PeerLink, inbox: trio.MemoryReceiveChannel) -> None:
        resume = self.table.chain.next_seq if self.table is not None else None
        self._nonce = self._random(32)  # a new one for every hello: see _check_fresh
        await link.send(Hello(protocol=PROTOCOL_NAME, version=PROTOCOL_VERSION,
                              name=self.name, sign_key=self.identity.sign_public,
                              box_key=self._own.box_public, join_code=self.join_code,
                              role=self._hello_role, resume=resume, nonce=self._nonce,
                              table=self.table_name, open=self.open_table, offer=self._offer))
        if self.outbox is not None:
            self.outbox.reconnected()
        deadline = trio.current_time() + self.timeout
        while True:
            if self._quit:
                await self._part(link)
                return
            await self._act(link)
            vote = self._vote_due()
            thought = self._move_at if self._move_at > trio.current_time() else math.inf
            kept = self._complaint_due()
            try:
                with trio.fail_at(min(deadline, self._deadline, vote, thought, kept)):
                    item = await inbox.receive()
            except trio.TooSlowError:
                now = trio.current_time()
                if now >= self._deadline:
                    raise PeerError(f"the game took longer than {self.game_timeout} s") from None
                if now >= kept:  # the host's fault: we stay, so that no one can say we left
                    await self._kept_from_table()
                    continue
                if now >= thought:
                    continue  # the player has thought enough: let it decide
                if now >= vote:
                    self._vote_by_itself(now)
                    continue
                raise Lost("the host went silent") from None
            # take everything that has arrived before acting: a step signed against a head
            # that is already behind would only come back ``stale``
            heard = False
            while item is not None:
                if isinstance(item, Lost):
                    if self.table is not None and self.table.finished:
                        return  # the host closed after the game: nothing lost
                    raise item
                if item is not _NUDGE:
                    heard = True
                    await self._on_message(link, item)
                if self.table is not None and self.table.finished and \
                        not await self._stay(link):
                    return
                try:
                    item = inbox.receive_nowait()
                except trio.WouldBlock:
                    item = None
                    if self._watch is not None and not self.replaying:
                        self._watch.caught_up()  # what comes next, comes as the host sends it
            if heard:  # a nudge of our own player says nothing about the host
                deadline = trio.current_time() + self._patience()

    def _patience(self) -> float:
        if self.start is None:
            return self.timeout if self.welcome is None else (
                math.inf if self.lobby_timeout is None else self.lobby_timeout)
        return self.idle_timeout

    async def _on_message(self, link: PeerLink, msg: Message) -> None:
        if isinstance(msg, GameMessage):
            await self._on_game(msg)
        elif isinstance(msg, Placed):
            await self._on_game(self._placed(msg), own=True)
        elif isinstance(msg, Welcome):
            self.welcome, self.seat, self.result.seat = msg, msg.seat, msg.seat
            self._quiet_until = msg.sequenced
            if self._watch is not None:
                self._watch.behind()  # until we replayed to ``sequenced`` and took what came since
            if msg.seat is None and self._hello_role != "spectator":
                raise PeerError("the host gave us no seat")
            if msg.challenge is not None and msg.table.get("replacing") is True and \
                    self.outbox is not None:  # our seat's table is of no use: another key
                # played the seat since; follow the game from its start, as a replacement does
                self.table = self.outbox = None
                self._keys_seen = ()
                raise Lost(f"seat {self.seat} changed hands while we were away: following "
                           "the game from its start to take it back")
            if msg.challenge is not None:  # our seat in a running game: prove its key is ours
                game_id = self.table.game_id if self.table is not None else msg.game_id
                if game_id is None:
                    raise PeerError("the host's rejoin challenge names no game")
                await link.send(sign_proof(self.identity.sign_key, game_id, msg.challenge))
                return  # back in once the host takes the proof: it sends the game again
            self._welcomed = True
            self._set("lobby" if self.start is None else "playing", "" if self.start is None
                      else "rejoined" if self.outbox is not None else self._following())
            if self.auto_ready and self._hello_role != "spectator" and self.start is None and \
                    not msg.table.get("started"):  # a spectator has no seat to be ready in
                await link.send(Ready(ready=True))
        elif isinstance(msg, StartGame):
            try:
                self._on_start(msg)
            except (ValueError, KeyError) as error:  # rules, seats or keys we cannot play by
                raise PeerError(f"cannot play the game the host started: {error}") from None
            if not self._welcomed:  # the host took our rejoin proof
                self._welcomed = True  # (following the game to take the seat back: not yet)
                self._set("playing", "rejoined" if self.outbox is not None else self._following())
        elif isinstance(msg, LobbyState):
            self.lobby = msg
            if self.start is not None:
                now = trio.current_time()
                self.absent = {s.seat: self.absent.get(s.seat, now)
                               for s in msg.seats if not s.connected}
                self.left = frozenset(s.seat for s in msg.seats if s.left and not s.connected)
            self._changed()
        elif isinstance(msg, Refused):
            if msg.code == "table_full" and self.table is not None:
                # our seat, still held by our old connection: the host has not missed it yet
                raise Lost("the host has not yet missed our old connection")
            raise PeerError(f"refused: {msg.code}: {msg.reason}",
                            words=f"the host refused: {msg.reason}")
        elif isinstance(msg, Error):
            self.errors.append(msg)
            if self.outbox is not None:
                self.outbox.error(msg)
                self._report()
            if hasattr(self.player, "on_error"):
                self.player.on_error(msg)
            self._changed()
        elif isinstance(msg, Ping):
            await link.send(Pong(nonce=msg.nonce))
        elif isinstance(msg, Chat):
            self.chat.append(msg)
            self._changed()
        elif isinstance(msg, NextGame):
            if not self._asked:  # the host's word is no seat's: we go (protocol.md 6.6)
                log.warning("%s named a next game (table %s) this seat did not ask for",
                            self._host(), msg.table)
                self.unasked = msg
                return
            self.next_game = msg
            self._changed()
        elif isinstance(msg, Bye):
            if self.table is None or not self.table.finished:
                raise PeerError(f"the host ended the game: {msg.reason}")

    @property
    def _hello_role(self) -> str:
        return "spectator" if self.waiting else self.role

    @property
    def _offer(self) -> str | None:
        """What our hello offers while we watch for a seat to be handed to us: to play it as
        our role does (the lobby lists the offer, so that the seats see our keys)."""
        return self.role if self.waiting and self.role in ("player", "bot") else None

    def _host(self) -> str:
        """The host, as an error names it."""
        shown = self.welcome.table.get("host_fingerprint") if self.welcome else None
        return f"the host {shown}" if isinstance(shown, str) else "the host"

    def _placed(self, placed: Placed) -> GameMessage:
        """Our own message that the host says it sequenced at ``placed.seq``."""
        mine = self.outbox.unplaced.get(placed.counter) if self.outbox is not None else None
        if mine is None:
            raise PeerError(f"{self._host()} placed a message {placed.counter} of ours at seq "
                            f"{placed.seq} that we have not sent (or had refused)")
        return dataclasses.replace(mine, seq=placed.seq)

    async def _on_game(self, msg: GameMessage, own: bool = False) -> None:
        table, outbox = self.table, self.outbox
        if table is None:
            raise PeerError("a game message before start_game")
        answer = outbox.answer if outbox is not None else None
        try:
            bodies = table.receive(msg, own)
            if table.audit_due:  # the round's audit, while the console and pings go on
                outcome = await trio.to_thread.run_sync(table.run_audit)
                more = table.finish_audit(outcome)  # a spectator's table sends nothing
                if more:
                    bodies = [*bodies, *more]
        except Fault as fault:
            raise PeerError(str(fault)) from None
        self._holder_changed()
        if outbox is None or self.outbox is not outbox:  # a spectator, or a seat just taken
            self._changed()  # (over): what the table it took over from owes goes nowhere
            return
        outbox.push(bodies)
        outbox.sequenced(msg)
        self._shares_kept(msg)
        now = trio.current_time()
        self.stalling = {seat: now if msg.author == seat else self.stalling.get(seat, now)
                         for seat in table.waiting_for() | table.still_silent()
                         if seat != table.seat}
        if not self.replaying:  # the host's timeouts of us, judged by our own clock
            protest = self._watch.judge(msg, answer, now)
            if protest is not None:
                outbox.push([protest])
        self._watch.seen(now)
        self._report()
        self.result.time_draws(table)
        self._changed()

    def _report(self) -> None:
        """Tell the player what became of the moves it chose."""
        outcome = getattr(self.player, "outcome", None)
        for move, refused in self.outbox.take_outcomes():
            if outcome is not None and move is not None:
                outcome(move, refused)

    @property
    def replaying(self) -> bool:
        """Rejoined, and the game's messages up to the rejoin are not all in yet: send nothing."""
        return self.table is not None and self.table.chain.next_seq < self._quiet_until

    async def _act(self, link: PeerLink) -> None:
        """Let the player move if it may; send what the outbox releases."""
        table, outbox = self.table, self.outbox
        if outbox is None or self.replaying or link.conn.our_state is not State.GAME:
            return  # nothing to do, or not until the host has taken us (back) into the game
        if table.fault is not None:
            raise PeerError(str(table.fault))
        extra = getattr(self.player, "extra", None)  # a test player's raw frames or messages
        if extra is not None:
            for item in extra(table, outbox):
                if isinstance(item, GameMessage):
                    outbox.sent_past(item)
                await (link.send_raw(item) if isinstance(item, bytes) else link.send(item))
        sends = []
        # twice if polling dropped the move on its way (its moment passed: a claim on an
        # earlier discard, a call another seat's beat): choose again now, for nothing else
        # wakes this loop while the table waits for this seat; a new move is never dropped
        for _ in range(2):
            self._choose(table, outbox)
            busy = outbox.busy
            try:
                while (msg := outbox.poll()) is not None:
                    sends.append(msg)
            except Fault as fault:  # the host's stream asks for what this seat must not send
                raise PeerError(str(fault)) from None
            if not busy or outbox.busy:
                break
        self._report()
        for msg in sends:
            await link.send(msg)

    def _choose(self, table: PeerTable, outbox: Outbox) -> None:
        """Ask the player for a move, if the seat may make one and none is on its way."""
        if outbox.busy or not table.can_move() or not self._thought(table):
            return
        move = self.player.choose(table)
        if move is None:
            return
        try:
            outbox.push(table.submit(move), move)
        except IllegalMoveError as error:
            log.warning("seat %d chose an illegal move: %s", table.seat, error)
            outcome = getattr(self.player, "outcome", None)
            if outcome is not None:
                outcome(move, str(error))

    def _thought(self, table: PeerTable) -> bool:
        """Whether the player's think time (``player.think``) for this decision has passed;
        a decision is the seat's chance to move at one point of the game.  Bots think only
        while a person sits at the table (a seat the lobby shows as a player): a table of bots
        plays at full speed."""
        think = getattr(self.player, "think", 0)
        people = self.lobby is not None and any(s.kind == "player" for s in self.lobby.seats)
        if not think or not people:
            return True
        decision = (table.round, table.version, table.game.phase)
        if self._decision != decision:
            self._decision, self._move_at = decision, trio.current_time() + think
        return trio.current_time() >= self._move_at


async def run_peer(address: tuple[str, int], identity: Identity, player: Player | None = None,
                   **options) -> PeerResult:
    """Join the table at ``address`` and play its game (a `Peer`, see its options), and, with
    ``rematch=True``, every rematch the table plays after it; the last game's result."""
    return await play_on(Peer(address, identity, player, **options))


