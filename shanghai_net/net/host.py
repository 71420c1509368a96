"""The host: a trio TCP server with a lobby, then the relay and sequencer of one game.

Lobby: seats (lowest free seat first), names, a join code, ready flags, the table's preset and
house-rule overrides; the game starts when every seat is filled and ready.  Game: each signed
game message from a seat is checked (chain, author, the public replica's rules) and, if good,
given the next seq and sent to everyone, its author included; bad input gets an ``error`` with
its code and the game goes on.  Claim windows time out: the host signs a ``timeout`` body for
each silent seat.  The transcript (``start_game``, then every sequenced message, as frames) is
appended to a file as it grows, and a crashed host takes the game up from it (``resume``); a
seat that drops rejoins with its key and is sent the game from where it left.

The host holds no secret of any seat: no `Participant`, only a `PublicTable` (a replica with
``viewer=-1``) fed the same stream.  Game messages are kept once, in ``history``; each
connection's writer sends them from its own cursor, so a slow peer lags (and is dropped after
``send_timeout``) without holding the sequencer.  Every wait on a peer is bounded: the hello, each
send, and silence (the host pings; a peer that answers nothing is dropped).

No connection can freeze the table (protocol.md 9.1): each is read within its budget
(`budget.Budget`: bytes paced, messages and chat over their rates dropped and then closed,
stale answers past racing counted as bad), has at most ``in_flight`` game messages waiting for
the sequencer, and may send only game bodies of bounded size; spectators are capped, and a
client too slow to read misses chat, not the game.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import struct
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import msgpack
import trio

from ..identity import Identity, fingerprint
from ..rules.ruleset import preset as get_preset
from ..wire import (HOST, ConnectionClosed, Connection, NEED_DATA, ProtocolError,
                    RemoteProtocolError, LocalProtocolError, check_proof, encode_frame)
from ..wire.messages import (NOTICES, PROTOCOL_VERSION, Bye, Chat, DealerPick, Error, GameMessage,
                             Hello, HOST_AUTHOR, LobbyState, Message, Owed, Ping, Placed,
                             PlayerSeat, Pong, Proof, Ready, Refused, SeatInfo, StartGame, Timeout,
                             Welcome, game_id_of)
from ..wire.messages import DEAL_STEPS, Deal
from ..wire.state import State
from ..table.bodies import parse_deal
from .budget import Budget, Limits, Verdict
from ..table.fault import Fault
from ..table.public import PublicTable

__all__ = ["HostConfig", "Host", "serve", "read_transcript"]

log = logging.getLogger("shanghai_net.host")


@dataclass
class HostConfig:
    players: int = 4
    preset: str = "davis"
    rules: dict[str, Any] = field(default_factory=dict)
    """House-rule overrides: field -> value, each in its field's type (protocol/schema/rules.json;
    `rules.ruleset.parse_rules` reads ``--rule`` text)."""
    join_code: str = ""
    claim_timeout: float = 10.0
    """Seconds a claim window stays open for seats that have not answered."""
    audit_timeout: float = 90.0
    """Seconds every seat has to open its seeds once a complaint stopped the round (in
    ``start_game``); a seat that has not is named.  Longer than a dropped peer's first
    reconnection attempts."""
    worker_threads: bool = True
    """Check the heavy deal steps (passes, a round's last seeds) in a worker thread, so that the
    process's other tables go on meanwhile.  Off for tests on trio's autojump clock, to which a
    thread's work is no wait at all."""
    hello_timeout: float = 10.0
    """Seconds a new connection has for its hello (and, rejoining a running game, its proof)."""
    send_timeout: float = 10.0
    """A peer that does not take a message within this many seconds is dropped."""
    ping_interval: float = 15.0
    """Seconds between the host's pings to a quiet connection."""
    silence_timeout: float = 50.0
    """A connection that sends nothing (not even a pong) for this long is dropped: its machine
    is gone, and its seat is shown as away (so the table can vote)."""
    record: Path | None = None
    resume: Path | None = None
    """A transcript to take the game up from (players, preset and rules come from it); the
    seats rejoin with their keys.  New messages are appended to ``record``."""
    max_body: int = 64 * 1024
    """Largest game body relayed, in packed bytes: the largest honest one is a round's ``seeds``
    (24 KB at 4 seats in a long round; a ``pass`` of 108 points for 8 seats is 6 KB)."""
    max_unknown: int = 1024
    """Bytes of a game body in fields its kind does not define (protocol.md 10) that are
    relayed; a body with more is refused ``bad_message`` before it is sequenced."""
    max_frame: int = 64 * 1024 + 4096
    """Largest frame read from a client: a game message of ``max_body`` and its envelope."""
    max_spectators: int = 16
    abuse_limit: int = 25
    """Bad messages tolerated from one connection before it is closed (``abuse``)."""
    queue: int = 512
    """Messages (other than the game's) buffered per connection; past it, chat, lobby states
    and pongs to it are dropped, anything else drops the connection."""
    in_flight: int = 16
    """Game messages of one connection waiting for the sequencer; past it, the host stops
    reading that connection, so no seat's messages wait behind another's flood."""
    message_rate: float = 300.0
    """Messages per second a connection may send (any type); ``message_burst`` at once."""
    message_burst: float = 600.0
    byte_rate: float = 512 * 1024
    """Bytes per second read from a connection (``byte_burst`` at once); past it the host reads
    it more slowly, and TCP holds the sender back."""
    byte_burst: float = 1024 * 1024
    chat_rate: float = 2.0
    """Chats per second a connection may send (``chat_burst`` at once)."""
    chat_burst: float = 20.0
    stale_rate: float = 100.0
    """Stale game messages per second a connection may send (``stale_burst`` at once: peers
    race, so some are normal); beyond, each counts towards ``abuse_limit``."""
    stale_burst: float = 1000.0
    patience: int = 200
    """Messages dropped over budget before the connection is closed (``abuse``)."""
    random: Callable[[int], bytes] = os.urandom
    identity: Identity | None = None


class _Client:
    """One connection.  Game messages are not queued per connection: its writer sends the host's
    history from ``cursor`` on, so a seat that rejoins simply starts from an earlier cursor, and
    a slow one lags (until ``send_timeout``) without holding the sequencer up."""

    def __init__(self, host: Host, stream: trio.abc.Stream) -> None:
        self.host = host
        self.number = next(host._connections)
        """This connection's own number: a seat that comes back is another connection."""
        self.stream = stream
        config = host.config
        self.conn = Connection(HOST, config.max_frame)
        self.budget = Budget(host.limits)
        self.in_flight = trio.Semaphore(config.in_flight)
        """Taken for each game message passed to the sequencer, given back once it is handled."""
        self.outq: deque[Message] = deque()
        """Messages other than sequenced game messages, sent before the history."""
        self.last: Message | None = None
        """Sent once the history is through (the game's ``bye``)."""
        self.wake = trio.Event()
        self.hello: Hello | None = None
        self.seat: int | None = None
        self.ready = False
        self.connected = True
        self.strikes = 0
        self.in_game = False
        """``start_game`` is queued: the history follows, from ``cursor``."""
        self.cursor = 0
        self.errors_sent: list[Error] = []
        self.sending = False
        """The writer has taken frames off the queues and is sending them."""
        self.closing = False
        self.left = False
        """It said `bye` during the game: its seat is shown as left, not as a lost link."""
        self.rejoining: tuple[int, bytes] | None = None
        """(seat, challenge): the Hello named this seat of the running game; waiting for the
        `Proof` that this connection holds its key."""
        self.owed_sent: Owed | None = None
        """The last ``owed`` notice sent (only to a client whose hello asked for it)."""

    @property
    def wants_owed(self) -> bool:
        return self.hello is not None and "owed" in self.hello.notices

    def _owed_due(self) -> bool:
        """The host's latest ``owed`` notice is for this client now: it asked for notices, has
        been sent every game message the notice reflects, and was last sent another list (a
        client that fell behind may have missed the notices in between, back to the same)."""
        host = self.host
        if not self.wants_owed or host.owed is None or self.owed_sent is host.owed or \
                self.cursor < host.owed_after:
            return False
        if self.owed_sent is not None and self.owed_sent.owes == host.owed.owes:
            self.owed_sent = host.owed  # nothing new to say
            return False
        return True

    @property
    def name(self) -> str:
        return self.hello.name if self.hello else "?"

    def queue(self, msg: Message) -> bool:
        """Queue ``msg`` without waiting; False if it was not queued.  A lobby state replaces
        one still queued; a peer too far behind misses chat, lobby states and pongs, and is
        dropped only for what it must not miss."""
        if not self.connected:
            return False
        if isinstance(msg, LobbyState):
            for i, queued in enumerate(self.outq):
                if isinstance(queued, LobbyState):
                    self.outq[i] = msg
                    return True
        if len(self.outq) >= self.host.config.queue:
            if not isinstance(msg, _DROPPABLE):
                self.drop("its queue is full")
            return False
        self.outq.append(msg)
        self.wake.set()
        return True

    def finish(self, msg: Message) -> None:
        """Send ``msg`` after the rest of the history, then close."""
        self.last = msg
        self.wake.set()

    def error(self, error: ProtocolError) -> None:
        msg = Error(code=error.code, reason=error.reason[:500], ref_seq=error.ref_seq,
                    ref_counter=error.ref_counter)
        self.errors_sent.append(msg)
        self.queue(msg)

    def abuse(self, why: str) -> None:
        """Tell the peer it is being closed for abuse, and close once that is sent.  A seat of
        the running game closed for abuse has left it: it may not come back, and the table
        votes its round void at once (a seat that floods holds the table up as one that left
        does: every card needs its keys)."""
        self.queue(Error(code="abuse", reason=why))
        self.closing = True
        if self.seat is not None and self.in_game:
            self.left = True
            self.host.barred.add(self.seat)

    def drop(self, why: str) -> None:
        if self.connected:
            log.info("dropping %s (seat %s): %s", self.name, self.seat, why)
        self.connected = False
        self.wake.set()

    @property
    def next_due(self) -> bool:
        """Something is still to be sent, or on its way out (the writer's last batch)."""
        return self.sending or bool(self.outq) or self.last is not None or (
            self.in_game and (self.cursor < len(self.host.history) or self._owed_due()))

    def next_message(self) -> tuple[Message | None, bytes | None]:
        """What the writer sends next, if anything is due, and its frame if the host encoded it
        once for every client (a game message)."""
        if self.outq:
            return self.outq.popleft(), None
        host = self.host
        if self.in_game and not self.closing and self._owed_due():
            self.owed_sent = host.owed
            return host.owed, host.owed_frame
        if self.in_game and not self.closing and self.cursor < len(host.history):
            self.cursor += 1
            msg = host.history[self.cursor - 1]
            if host.origins[self.cursor - 1] == self.number:  # it holds the message: seq is news
                return Placed(seq=msg.seq, counter=msg.counter), None
            return msg, host.frames[self.cursor - 1]
        last, self.last = self.last, None
        return last, None


def _notices_sent(hello: Hello) -> dict[str, list[str]]:
    """The welcome's word on which notices the client asked for will come (none asked: none)."""
    sent = [name for name in NOTICES if name in hello.notices]
    return {"notices": sent} if hello.notices else {}


_DROPPABLE = (Chat, LobbyState, Pong)
"""What a peer that does not keep up may miss: chat, a lobby state (a newer one follows) and a
pong (it pings again)."""


class Host:
    """One table: a lobby, then one game.  ``await host.run(listeners)`` or use `serve`."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self.identity = config.identity or Identity(config.random(32), config.random(32))
        self._host_key = self.identity.sign_key
        self.start: StartGame | None = None
        self.public: PublicTable | None = None
        self.history: list[GameMessage] = []
        """Every sequenced game message, in order (what a rejoining seat is sent again)."""
        self.frames: list[bytes] = []
        """``history`` encoded, once for every client."""
        self.origins: list[int | None] = []
        """The number of the connection each message of ``history`` came in on (None: the
        host's own, or one read back from a transcript): that one is answered `Placed`, not
        sent it again."""
        self._connections = itertools.count()
        self.limits = Limits(config.message_rate, config.message_burst, config.byte_rate,
                             config.byte_burst, config.chat_rate, config.chat_burst,
                             config.stale_rate, config.stale_burst, config.patience)
        if config.resume is not None:
            self._load(config.resume)
            self.rules, self.players = self.public.rules, self.public.players
        else:
            rules = get_preset(config.preset)
            self.rules = rules.override(**config.rules) if config.rules else rules
            self.players = config.players
        if not self.rules.min_players <= self.players <= self.rules.max_players:
            raise ValueError(f"{self.rules.name} is for {self.rules.min_players}-"
                             f"{self.rules.max_players} players, not {self.players}")
        self.seats: list[_Client | None] = [None] * self.players
        self.clients: set[_Client] = set()
        self.bytes_in = 0
        self.bytes_out = 0
        self.timeouts = 0
        self.barred: set[int] = set()
        """Seats of the running game closed for abuse: they may not come back to it."""
        self.done = trio.Event()
        self.started = trio.Event()
        if self.start is not None:
            self.started.set()
        self.port: int | None = None
        self._inbox_send, self._inbox = trio.open_memory_channel[Any](math.inf)
        """Game messages for the sequencer (each connection has at most ``in_flight`` in it)
        and the claim timer's windows."""
        self._window: object | None = None
        self._deadline = math.inf
        self._window_changed = trio.Event()
        self._record = None
        self.owed: Owed | None = None
        """The latest ``owed`` notice (kept only while some client asks for it)."""
        self.owed_frame: bytes | None = None
        self.owed_after = 0
        """Game messages a client is sent before ``owed``: those it reflects."""
        self._owed_at = -1
        """``len(history)`` when ``owed`` was last brought up to date."""

    def _load(self, path: Path) -> None:
        """Take up the game of a transcript where it stopped: every message checked again."""
        whole = _whole_frames(path)
        messages = read_transcript(path, whole)
        if not messages or not isinstance(messages[0], StartGame):
            raise ValueError(f"{path}: not a transcript (it does not begin with start_game)")
        start, history = messages[0], messages[1:]
        if start.host_key not in (None, self.identity.sign_public):
            raise ValueError(f"{path} was hosted with another key; resume it as the user who "
                             f"hosted it (this host is {self.identity.fingerprint})")
        public = PublicTable(start)
        for msg in history:
            if not isinstance(msg, GameMessage):
                raise ValueError(f"{path}: a {msg.TYPE} among the game messages")
            try:
                public.receive(msg)
            except Fault as fault:
                raise ValueError(f"{path}: the game stopped at seq {msg.seq}: {fault}") from None
        if public.finished:
            raise ValueError(f"{path}: the game is over; nothing to resume")
        self.start, self.public, self.history = start, public, history
        self.frames = [encode_frame(msg.to_wire(), self.config.max_frame) for msg in history]
        self.origins = [None] * len(history)
        if whole < path.stat().st_size:  # only now that it is known to be this host's game
            log.warning("%s: cutting a torn frame at its end", path)
            with open(path, "r+b") as stream:
                stream.truncate(whole)

    @property
    def sequenced(self) -> int:
        return len(self.history)

    # -- running -------------------------------------------------------------------------------

    async def run(self, listeners: list[trio.SocketListener],
                  task_status=trio.TASK_STATUS_IGNORED) -> PublicTable | None:
        """Serve until the game is over (every seat audited its last round); its public table."""
        if self.config.record is not None:
            self._record = open(self.config.record, "ab")
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._sequencer)
                nursery.start_soon(self._claim_timer)
                if listeners:  # else `tables.TableServer` listens and hands connections in
                    nursery.start_soon(trio.serve_listeners, self._handle, listeners)
                    self.port = listeners[0].socket.getsockname()[1]
                if self.public is not None:  # resumed: a claim window may be open
                    self._track_window()
                task_status.started(self.port)
                await self.done.wait()
                with trio.move_on_after(self.config.send_timeout):
                    while any(c.connected and c.in_game and c.next_due for c in self.clients):
                        await trio.sleep(0.01)  # let the history's tail and the byes go out
                nursery.cancel_scope.cancel()
        finally:
            if self._record is not None:
                self._record.close()
        return self.public

    # -- one connection ------------------------------------------------------------------------

    async def serve_connection(self, stream: trio.abc.HalfCloseableStream) -> None:
        """Serve a connection accepted elsewhere (`tables.TableServer` read its hello to find
        this table; ``stream`` gives those bytes again)."""
        await self._handle(stream)

    async def _handle(self, stream: trio.SocketStream) -> None:
        client = _Client(self, stream)
        self.clients.add(client)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._writer, client, nursery.cancel_scope)
                nursery.start_soon(self._pinger, client)
                await self._reader(client)
                client.closing = True
                client.wake.set()
        except* (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # the peer went away
        except* Exception:  # a bug in serving one connection must not stop the table
            log.exception("the connection of %s failed", client.name)
        finally:
            client.connected = False
            self.clients.discard(client)
            if client.seat is not None and self.seats[client.seat] is client:
                if self.start is None:
                    self.seats[client.seat] = None
                self._lobby_changed()
            with trio.move_on_after(1) as scope:
                scope.shield = True
                await _close_gracefully(stream)

    async def _writer(self, client: _Client, scope: trio.CancelScope) -> None:
        try:
            while client.connected:
                data, last = self._due(client)
                if not data:
                    if client.closing:
                        break
                    client.wake = trio.Event()
                    await client.wake.wait()
                    continue
                client.sending = True
                with trio.fail_after(self.config.send_timeout):
                    await client.stream.send_all(data)
                client.sending = False
                self.bytes_out += len(data)
                if last:
                    break
        except (trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        client.connected = False
        scope.cancel()

    WRITE_BATCH = 1 << 16
    """Frames due to one client go out together up to this many bytes: one send and one wake-up
    of the reader for the shares a draw brings from every seat at once, not one each."""

    def _due(self, client: _Client) -> tuple[bytes, bool]:
        """The frames due to ``client`` now, joined; and whether the last of them ends the
        connection (a refusal, a bye, a fatal error)."""
        frames: list[bytes] = []
        size = 0
        while size < self.WRITE_BATCH:
            msg, frame = client.next_message()
            if msg is None:
                break
            try:
                data = client.conn.send(msg, frame)
            except LocalProtocolError as error:
                log.warning("not sending %s to %s: %s", msg.TYPE, client.name, error)
                continue
            frames.append(data)
            size += len(data)
            if isinstance(msg, (Refused, Bye)) or (isinstance(msg, Error) and msg.code in
                                                    ("abuse", "frame_too_large")):
                return b"".join(frames), True
        return b"".join(frames), False

    async def _pinger(self, client: _Client) -> None:
        """A ping now and then, which a live peer answers: a machine that is gone shows as
        silence (`_reader`), not as a seat connected for ever."""
        nonce = 0
        while client.connected:
            await trio.sleep(self.config.ping_interval)
            if client.hello is not None and client.conn.our_state in (State.LOBBY, State.GAME):
                nonce += 1
                client.queue(Ping(nonce=nonce))

    async def _reader(self, client: _Client) -> None:
        """Read, decode and act on what ``client`` sends, within its budget: bytes are read no
        faster than ``byte_rate``, messages over ``message_rate`` are dropped."""
        conn, budget = client.conn, client.budget
        deadline = trio.current_time() + self.config.hello_timeout
        while client.connected:
            if client.hello is not None and client.rejoining is None:
                deadline = trio.current_time() + self.config.silence_timeout
            try:
                with trio.fail_at(deadline):
                    data = await client.stream.receive_some(conn.room)
            except trio.TooSlowError:
                if client.hello is None or client.rejoining is not None:
                    client.queue(Refused(code="timeout", reason="no hello in time" if client.hello
                                         is None else "no proof of the seat's key in time"))
                else:
                    client.drop(f"silent for {self.config.silence_timeout:g} s")
                return
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return  # the peer went away (it may come back with its key)
            self.bytes_in += len(data)
            conn.receive_data(data)
            while True:
                try:
                    event = conn.next_event()
                except RemoteProtocolError as error:
                    if error.code == "version" and conn.our_state is State.ANSWER:
                        client.queue(Refused(code="version", reason=error.reason[:500]))
                        return
                    if client.hello is None and conn.our_state is State.HELLO:
                        # no hello yet, so no `error` may answer: refuse, naming what was wrong
                        client.queue(Refused(code=error.code, reason=error.reason[:500]))
                        return
                    if error.fatal:
                        client.error(error)
                        return
                    self._strike(client, error)
                    if client.closing:
                        return
                    continue
                if event is NEED_DATA:
                    break
                if isinstance(event, ConnectionClosed):
                    return
                if self._over_budget(client, budget.message(trio.current_time()), event.TYPE):
                    if client.closing:
                        return
                    continue
                try:
                    await self._on_message(client, event)
                except RemoteProtocolError as error:
                    self._strike(client, error)
                except (trio.Cancelled, KeyboardInterrupt):
                    raise
                except Exception as error:  # never let one peer's input stop the host
                    log.exception("input from %s failed", client.name)
                    client.error(RemoteProtocolError("bad_message", f"refused: {error}"))
                if not client.connected or client.closing:
                    return
            await trio.sleep_until(budget.read(trio.current_time(), len(data)))

    def _strike(self, client: _Client, error: ProtocolError) -> None:
        """Answer bad input; past ``abuse_limit`` bad messages the connection is closed."""
        client.error(error)
        client.strikes += 1
        if client.strikes > self.config.abuse_limit:
            client.abuse("too many bad messages")

    @staticmethod
    def _over_budget(client: _Client, verdict: Verdict, what: str) -> bool:
        """Whether input is dropped for being over budget (the sender is told once, and closed
        if it keeps on)."""
        if verdict is Verdict.PASS:
            return False
        if verdict is Verdict.TELL:
            client.error(RemoteProtocolError(
                "rate_limited", f"{what}: over this connection's budget; dropped until it slows "
                "down (see docs/protocol.md, section 9.1)"))
        elif verdict is Verdict.ABUSE:
            client.abuse(f"{client.budget.dropped} messages over budget")
        return True

    async def _on_message(self, client: _Client, msg: Message) -> None:
        if isinstance(msg, Hello):
            self._on_hello(client, msg)
        elif isinstance(msg, Proof):
            self._on_proof(client, msg)
        elif isinstance(msg, Ready):
            client.ready = msg.ready
            self._lobby_changed()
            self._maybe_start()
        elif isinstance(msg, Chat):
            if self._over_budget(client, client.budget.chat(trio.current_time()), "chat"):
                return
            relayed = Chat(text=msg.text, name=client.name)
            for other in list(self.clients):
                if other.conn.our_state in (State.LOBBY, State.GAME):
                    other.queue(relayed)
        elif isinstance(msg, GameMessage):
            self._check_body(msg)
            await client.in_flight.acquire()
            self._inbox_send.send_nowait((client, msg))
        elif isinstance(msg, Ping):
            client.queue(Pong(nonce=msg.nonce))
        elif isinstance(msg, Bye):
            client.left = self.start is not None  # a player who quits is not coming back
            client.queue(Bye(reason="bye"))
            client.closing = True
        elif isinstance(msg, Error):
            log.info("%s reports %s: %s", client.name, msg.code, msg.reason)

    # -- lobby ---------------------------------------------------------------------------------

    def _on_hello(self, client: _Client, hello: Hello) -> None:
        client.hello = hello
        if self.config.join_code and hello.join_code != self.config.join_code:
            client.queue(Refused(code="join_code", reason="the join code is wrong"))
            client.closing = True
            return
        if hello.role != "spectator" and hello.nonce is None:
            client.queue(Refused(code="bad_message", reason="hello.nonce: a player's or bot's "
                                 "hello needs 32 fresh bytes (the game id commits to them)"))
            client.closing = True
            return
        seat = challenge = None
        if self.start is not None and hello.role != "spectator":
            seat = next((p.seat for p in self.start.seats if p.sign_key == hello.sign_key), None)
            if seat is None:
                client.queue(Refused(code="table_full", reason="the game has started without you"))
                client.closing = True
                return
            if seat in self.barred:
                client.queue(Refused(code="abuse", reason=f"seat {seat} was closed for abuse: "
                                     "it may not come back to this game"))
                client.closing = True
                return
            # its public key is no secret: the seat is handed over only on a `proof`
            challenge = self.config.random(32)
            client.rejoining = (seat, challenge)
        elif hello.role != "spectator":
            twin = next((s for s, c in enumerate(self.seats) if c is not None and c.hello is not None
                         and c.hello.sign_key == hello.sign_key), None)
            if twin is not None:  # one key, one seat: else a rejoin could not tell them apart
                client.queue(Refused(code="table_full", reason=f"this key already sits at seat {twin}: "
                                     "a second player needs an identity of their own "
                                     "(shanghai join --fresh-identity, or --identity DIR)"))
                client.closing = True
                return
            free = [s for s, c in enumerate(self.seats) if c is None]
            if not free:
                client.queue(Refused(code="table_full", reason="no free seat at this table"))
                client.closing = True
                return
            seat = free[0]
            self.seats[seat] = client
            client.seat = seat
        elif sum(1 for c in self.clients if c is not client and c.connected and c.hello is not None
                 and c.hello.role == "spectator") >= self.config.max_spectators:
            client.queue(Refused(code="table_full", reason=f"this table has its "
                                 f"{self.config.max_spectators} spectators already"))
            client.closing = True
            return
        client.queue(Welcome(version=PROTOCOL_VERSION, seat=seat, table={
            "preset": self.rules.name, "players": self.players,
            "host_fingerprint": self.identity.fingerprint,
            "claim_timeout": self.config.claim_timeout, "started": self.start is not None,
            **_notices_sent(hello)},
            sequenced=len(self.history), challenge=challenge,
            game_id=None if challenge is None else self.start.game_id))
        if challenge is None:
            self._lobby_changed()
            if self.start is not None:  # a spectator: the start, then the history
                self._follow_game(client)

    def _on_proof(self, client: _Client, proof: Proof) -> None:
        """The answer to a rejoin challenge: the seat is this connection's if it signed it."""
        if client.rejoining is None:
            client.error(RemoteProtocolError("wrong_state", "no rejoin challenge to answer"))
            return
        (seat, challenge), client.rejoining = client.rejoining, None
        try:
            check_proof(self.start.seats[seat].sign_key, self.start.game_id, challenge, proof)
        except RemoteProtocolError as error:
            log.warning("%s failed to prove it holds seat %d's key", client.name, seat)
            client.queue(Refused(code=error.code, reason=error.reason))
            client.closing = True
            return
        self._rejoin(client, seat)
        self._lobby_changed()
        self._follow_game(client)

    def _rejoin(self, client: _Client, seat: int) -> None:
        """Give ``seat`` of the running game to ``client``, which proved it holds its key; its
        old connection, if any, is closed."""
        old = self.seats[seat]
        if old is not None and old is not client:
            old.drop("the seat rejoined on a new connection")
            old.closing = True
        self.seats[seat] = client
        client.seat = seat
        client.ready = True
        log.info("seat %d (%s) rejoined from seq %d", seat, client.name, client.hello.resume or 0)

    def _follow_game(self, client: _Client) -> None:
        """Send the running game to ``client``: the start, then the history from its cursor."""
        client.cursor = min(client.hello.resume or 0, len(self.history))
        client.in_game = client.queue(self.start)
        client.owed_sent = None
        self._note_owed()

    def _lobby_state(self) -> LobbyState:
        """Who sits where; in a game every seat is listed, a seat nobody holds as not connected
        (after a restart from the transcript, until its player rejoins)."""
        seats = []
        for s, c in enumerate(self.seats):
            if c is not None and c.hello is not None:
                seats.append(SeatInfo(seat=s, name=c.name[:32] or "?",
                                      fingerprint=fingerprint(c.hello.sign_key), ready=c.ready,
                                      connected=c.connected, left=c.left,
                                      kind="bot" if c.hello.role == "bot" else "player"))
            elif self.start is not None:
                player = self.start.seats[s]
                seats.append(SeatInfo(seat=s, name=player.name, ready=True, connected=False,
                                      fingerprint=fingerprint(player.sign_key), kind="player"))
        rules = self.start.rules if self.start is not None else self.config.rules
        return LobbyState(seats=tuple(seats), preset=self.rules.name, rules=dict(rules),
                          join_code=self.config.join_code)

    def _lobby_changed(self) -> None:
        """Everyone hears who sits where and who is connected (in a game: who left or came back)."""
        state = self._lobby_state()
        for client in list(self.clients):
            if client.hello is not None and client.conn.our_state in (State.ANSWER, State.LOBBY,
                                                                     State.GAME):
                client.queue(state)

    def _maybe_start(self) -> None:
        if self.start is not None or not all(c is not None and c.ready and c.connected
                                             for c in self.seats):
            return
        players = tuple(PlayerSeat(seat=s, name=c.name, sign_key=c.hello.sign_key,
                                   box_key=c.hello.box_key) for s, c in enumerate(self.seats))
        # no one party chooses the game id: it commits to every seat's hello nonce and ours
        host_nonce, nonces = self.config.random(32), tuple(c.hello.nonce for c in self.seats)
        self.start = StartGame(game_id=game_id_of(host_nonce, nonces), host_nonce=host_nonce,
                               nonces=nonces, seats=players, preset=self.rules.name,
                               rules={k: v for k, v in self.config.rules.items()},
                               first_dealer_pick=DealerPick(method="coin_flip"),
                               claim_timeout=self.config.claim_timeout,
                               audit_timeout=self.config.audit_timeout,
                               host_key=self.identity.sign_public)
        self.public = PublicTable(self.start)
        self._write(encode_frame(self.start.to_wire()))
        for client in list(self.clients):
            if client.hello is not None and client.connected:
                client.in_game = client.queue(self.start)
        self._note_owed()
        self.started.set()
        log.info("game %s started: %d seats", self.start.game_id.hex(), len(players))

    # -- the game ------------------------------------------------------------------------------

    def _write(self, frame: bytes) -> None:
        if self._record is not None:
            self._record.write(frame)
            self._record.flush()

    def _check_body(self, msg: GameMessage) -> None:
        """Refuse a game body the host would not relay and keep: over ``max_body`` bytes, or
        with more than ``max_unknown`` bytes its kind does not need (protocol.md 9.1).  Checked
        before the message reaches the sequencer, on the sender's own reader."""
        size = len(msgpack.packb(msg.body_wire, use_bin_type=True))
        if size > self.config.max_body:
            raise RemoteProtocolError("bad_message", f"game.body: {size} bytes, over the host's "
                                      f"cap of {self.config.max_body}", None, msg.counter)
        unknown = size - self._known_size(msg)
        if unknown > self.config.max_unknown:
            raise RemoteProtocolError(
                "bad_message", f"game.body: {unknown} bytes more than its known fields need, "
                f"over the host's cap of {self.config.max_unknown}", None, msg.counter)

    def _known_size(self, msg: GameMessage) -> int:
        """About the packed size of what ``msg``'s body holds in fields its kind defines (a
        deal step: the deal messages it carries, each with room for its field names; a body
        of another step is held to ``max_body`` only)."""
        body = msg.body
        if not isinstance(body, Deal) or body.step not in DEAL_STEPS:
            return len(msgpack.packb(body.to_wire(), use_bin_type=True))
        try:
            step = parse_deal(body, self.start.game_id if self.start else b"", msg.author)
        except (ValueError, TypeError):
            return math.inf  # malformed: the sequencer names what is wrong with it
        size = len(msgpack.packb({"kind": body.KIND, "step": body.step}, use_bin_type=True))
        for item in step.messages:
            size += len(msgpack.packb(item.to_plain(), use_bin_type=True)) + 64
        for share in step.sealed:
            size += len(share.epk) + len(share.ciphertext) + 3 * len(share.positions) + 64
        return size

    def _note_owed(self) -> None:
        """Bring the ``owed`` notice up to date with the history, if any client asks for it: a
        new notice only when what is owed changed (one a client has had is not sent again)."""
        if self.public is None or self._owed_at == len(self.history) or \
                not any(c.wants_owed and c.connected for c in self.clients):
            return
        self._owed_at = len(self.history)
        owes = tuple(self.public.owed_steps())
        if self.owed is not None and self.owed.owes == owes:
            return
        self.owed = Owed(seq=self.history[-1].seq if self.history else None, owes=owes)
        self.owed_frame = encode_frame(self.owed.to_wire(), self.config.max_frame)
        self.owed_after = len(self.history)

    async def _sequencer(self) -> None:
        async for client, item in self._inbox:
            try:
                if client is None:
                    await self._timeout(item)
                else:
                    await self._sequence(client, item)
            except (trio.Cancelled, KeyboardInterrupt):
                raise
            except Exception:  # a bug must not stop the table: log it and go on
                log.exception("sequencing failed")
                if client is not None:
                    client.error(RemoteProtocolError("illegal_move", "refused: the host could "
                                                     "not check this message", None, item.counter))
            finally:
                if client is not None:
                    client.in_flight.release()

    async def _sequence(self, client: _Client, msg: GameMessage) -> None:
        public = self.public
        if public is None or client.seat is None:
            self._strike(client, RemoteProtocolError("wrong_state", "no game of yours is running",
                                                     None, msg.counter))
            return
        if msg.author != client.seat:
            self._strike(client, RemoteProtocolError(
                "bad_signature", f"author {msg.author} is not your seat {client.seat}", None,
                msg.counter))
            return
        try:
            if self.config.worker_threads and isinstance(msg.body, Deal) and \
                    msg.body.step in _HEAVY_STEPS:
                msg = await trio.to_thread.run_sync(public.admit, msg)
            else:
                msg = public.admit(msg)
        except ProtocolError as error:
            if error.code == "stale" and not client.budget.stale(trio.current_time()):
                client.error(error)  # peers race: a few are normal
            else:
                self._strike(client, error)
            return
        await self._publish(msg, client.number)

    async def _publish(self, msg: GameMessage, origin: int | None = None) -> None:
        frame = encode_frame(msg.to_wire(), self.config.max_frame)
        self._write(frame)
        self.history.append(msg)
        self.frames.append(frame)
        self.origins.append(origin)
        self._note_owed()
        for client in list(self.clients):
            if client.in_game:
                client.wake.set()
        public = self.public
        if public.fault is not None:
            log.error("the game stopped: %s", public.fault)
        self._track_window()
        if public.finished or public.fault is not None:
            for client in list(self.clients):
                client.finish(Bye(reason="game over" if public.finished
                                  else str(public.fault)[:500]))
            self.done.set()
        await trio.lowlevel.checkpoint()

    def _track_window(self) -> None:
        """Keep the one timer the host runs: a claim window, or a stopped round's seeds."""
        public = self.public
        if public.accusation is not None and public.waiting_audit:
            current = ("seeds", public.round)
        else:
            window = public.open_window()
            current = window[0] if window else None
        if current is not self._window:
            self._window = current
            wait = self.config.audit_timeout if isinstance(current, tuple) else \
                self.config.claim_timeout
            self._deadline = trio.current_time() + wait if current is not None else math.inf
            self._window_changed.set()

    async def _claim_timer(self) -> None:
        while True:
            self._window_changed = trio.Event()
            with trio.move_on_at(self._deadline):
                await self._window_changed.wait()
                continue
            window = self._window
            if window is not None:
                self._deadline = math.inf  # before the send yields: a new window sets its own
                await self._inbox_send.send((None, window))

    async def _timeout(self, window: object) -> None:
        public = self.public
        if isinstance(window, tuple):  # a stopped round's seeds: the first silent seat is named
            if window == ("seeds", public.round) and public.waiting_audit:
                seat = min(set(range(public.players)) - public.seeds_from)
                msg = public.chain.sign(self._host_key, HOST_AUTHOR,
                                        Timeout(seat=seat, what="seeds"))
                public.timeout(msg)
                self.timeouts += 1
                await self._publish(msg)
            return
        current = public.open_window() if public else None
        if current is None or current[0] is not window:
            return
        for seat in current[1]:
            msg = public.chain.sign(self._host_key, HOST_AUTHOR, Timeout(seat=seat))
            public.timeout(msg)
            self.timeouts += 1
            await self._publish(msg)
            if public.open_window() is None or public.fault is not None:
                break


_HEAVY_STEPS = frozenset({"pass", "seeds"})
"""Deal steps whose checks take the host milliseconds (a pass's points; the last seeds of a round
start its whole audit): checked in a worker thread, so that the other tables of this process,
and this table's readers and writers, go on meanwhile (the curve arithmetic releases the GIL).
This table's sequencer waits for the answer, so nothing else changes its state meanwhile."""


def _whole_frames(path: Path) -> int:
    """The length of the transcript's whole frames: a host killed while writing may leave part
    of a frame at the end, to be cut before frames are appended after it."""
    with open(path, "rb") as stream:
        size = stream.seek(0, os.SEEK_END)
        end = 0
        while end + 4 <= size:
            stream.seek(end)
            length = struct.unpack(">I", stream.read(4))[0]
            if end + 4 + length > size:
                break
            end += 4 + length
        return end


async def _close_gracefully(stream: trio.SocketStream) -> None:
    """Close after the peer has read what we sent: our end of the stream first, then whatever
    it still sends is read and dropped (closing on unread input would reset the connection and
    could lose the last error we sent it)."""
    try:
        await stream.send_eof()
        while await stream.receive_some(65536):
            pass
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass
    finally:
        await stream.aclose()


async def serve(config: HostConfig, port: int = 7777, host: str = "0.0.0.0",
                task_status=trio.TASK_STATUS_IGNORED) -> Host:
    """Listen on ``host:port`` (port 0: any) and run one table until its game is over."""
    table = Host(config)
    listeners = await trio.open_tcp_listeners(port, host=host)
    await table.run(listeners, task_status=task_status)
    return table


def read_transcript(path: Path, length: int | None = None) -> list[Message]:
    """The messages of a transcript file (its first ``length`` bytes): ``start_game``, then
    every sequenced game message."""
    from ..wire import FrameDecoder, decode_message

    decoder = FrameDecoder()
    out: list[Message] = []
    left = math.inf if length is None else length
    with open(path, "rb") as stream:
        while True:
            chunk = stream.read(int(min(decoder.room, left)))
            left -= len(chunk)
            decoder.receive_data(chunk)
            while (frame := decoder.next_frame()) is not None:
                out.append(decode_message(frame))
            if not chunk:
                return out
