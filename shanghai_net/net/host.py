"""The host of one table: `Host`, a lobby, then the relay and sequencer of one game.

Its parts each own one concern: `link.Connections` reads and writes every connection within its
budget (protocol.md 9.1: bytes paced, messages and chat over their rates dropped and then
closed, at most ``in_flight`` game messages of one connection waiting, bounded bodies); the
`lobby.Lobby` seats players, starts the game and lets a seat rejoin with its key;
`sequencer.Sequencer` checks and sequences every game message and runs the claim timer; the
`history.History` keeps every sequenced message once, which each connection's writer sends from
its own cursor; the `transcript.Transcript` appends the game to a file, from which a crashed host
takes the game up (``resume``).  `Host` routes each message to its part and runs them.

The host holds no secret of any seat: its only replica of the game is a `PublicTable`.
"""

from __future__ import annotations

import logging

import trio

from ..identity import Identity
from ..rules.ruleset import preset as get_preset
from ..table.public import PublicTable
from ..table.start import MIN_CLAIM_TIMEOUT
from ..wire.messages import Bye, Chat, Error, GameMessage, Hello, Message, Ping, Pong, Proof, \
    Ready, Replace, StartGame
from ..wire.state import State
from .client import Client
from .config import BOT_VOID_AFTER, HostConfig
from .history import History
from .link import Connections
from .lobby import Lobby
from .peer import Peer, PeerError
from .player import BotPlayer
from .sequencer import Sequencer
from .transcript import Transcript, load_transcript

__all__ = ["HostConfig", "Host", "serve"]

log = logging.getLogger("shanghai_net.host")



class Host:
    """One table: a lobby, then one game.  ``await host.run(listeners)`` or use `serve`."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self.identity = config.identity or Identity(config.random(32), config.random(32))
        self.history = History(config.max_frame)
        start = public = None
        if config.resume is not None:
            start, public, messages = load_transcript(config.resume, self.identity)
            self.history.load(messages)
            self.rules, self.players = public.rules, public.players
        else:
            rules = get_preset(config.preset)
            self.rules = rules.override(**config.rules) if config.rules else rules
            self.players = config.players
        if config.claim_timeout < MIN_CLAIM_TIMEOUT:
            raise ValueError(f"a claim timeout of {config.claim_timeout:g} s is under the "
                             f"protocol's minimum of {MIN_CLAIM_TIMEOUT:g} s")
        if not self.rules.min_players <= self.players <= self.rules.max_players:
            raise ValueError(f"{self.rules.name} is for {self.rules.min_players}-"
                             f"{self.rules.max_players} players, not {self.players}")
        self.transcript = Transcript(config.record)
        self.started = trio.Event()
        if start is not None:
            self.started.set()
        barred: set[bytes] = set()
        self.connections = Connections(config, self.history, barred, self._on_message,
                                       self._closed)
        self.sequencer = Sequencer(config, self.identity.sign_key, self.history,
                                   self.connections.clients, self.transcript, public)
        self.lobby = Lobby(config, self.identity, self.rules, self.players,
                           self.connections.clients, self.history, barred, start, self._begin,
                           self.sequencer.note_owed, lambda: self.sequencer.public)
        self.sequencer.on_roster = self.lobby.changed
        self.port: int | None = None
        self.reach: tuple[tuple[str, int], str] | None = None
        """Where this host's own stand-in bots connect: an address of its listener, and the
        table name their hello gives."""
        self.stand_ins: list[Peer] = []
        """The bots this host seated in seats the table voted gone."""
        self._stand_in_scopes: dict[Peer, trio.CancelScope] = {}

    @property
    def start(self) -> StartGame | None:
        return self.lobby.start

    @property
    def public(self) -> PublicTable | None:
        return self.sequencer.public

    @property
    def seats(self) -> list[Client | None]:
        return self.lobby.seats

    @property
    def clients(self) -> set[Client]:
        return self.connections.clients

    @property
    def barred(self) -> set[bytes]:
        return self.lobby.barred

    @property
    def done(self) -> trio.Event:
        return self.sequencer.done

    @property
    def timeouts(self) -> int:
        return self.sequencer.timeouts

    @property
    def sequenced(self) -> int:
        return len(self.history)

    async def run(self, listeners: list[trio.SocketListener],
                  task_status=trio.TASK_STATUS_IGNORED) -> PublicTable | None:
        """Serve until the game is over (every seat audited its last round); its public table."""
        self.transcript.open()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self.sequencer.run)
                if listeners:  # else `tables.TableServer` listens and hands connections in
                    nursery.start_soon(trio.serve_listeners, self.connections.handle, listeners)
                    self.port = listeners[0].socket.getsockname()[1]
                    self.reach = (loopback(listeners[0]), "")
                if self.config.stand_in is not None:
                    nursery.start_soon(self._seat_stand_ins, nursery)
                task_status.started(self.port)
                await self.done.wait()
                with trio.move_on_after(self.config.send_timeout):
                    while self.connections.sending() or any(
                            bot.status not in ("over", "failed") for bot in self.stand_ins):
                        await trio.sleep(0.01)  # let the history's tail and the byes go out,
                        # and our own stand-ins read them
                nursery.cancel_scope.cancel()
        finally:
            self.transcript.close()
        return self.public

    async def serve_connection(self, stream: trio.abc.HalfCloseableStream) -> None:
        """Serve a connection accepted elsewhere (`tables.TableServer` read its hello to find
        this table; ``stream`` gives those bytes again)."""
        await self.connections.handle(stream)

    def propose(self, seat: int, name: str, role: str, sign_key: bytes,
                box_key: bytes) -> trio.Event:
        """Propose that ``seat`` be played with these keys from the next round's deal; the seats
        approve it (a seat the table voted gone: every seat still playing).  Set once the
        proposal is sequenced: the lobby then lets the key in."""
        return self.sequencer.propose(Replace(seat=seat, name=name, role=role,
                                              sign_key=sign_key, box_key=box_key))

    async def _seat_stand_ins(self, nursery: trio.Nursery) -> None:
        """Seat a bot of ``config.stand_in``'s level, with fresh keys, in every seat the table
        votes gone: it connects like any other bot, follows the game, and plays the seat from
        the next round's deal, once the seats still playing approve it."""
        async for seat in self.sequencer.vacancies:
            if self.reach is None:
                log.warning("seat %d is vacant, and this host has no address its bots reach", seat)
                continue
            if seat in self.lobby.offering or any(
                    p.body.seat == seat for p in self.public.proposals.values()):
                continue  # its first holder, or a late arrival, is taking it already
            address, table = self.reach
            identity = Identity(self.config.random(32), self.config.random(32))
            bot = Peer(address, identity, BotPlayer(self.config.stand_in), name="bot",
                       join_code=self.config.join_code, table=table, random=self.config.random,
                       void_after=BOT_VOID_AFTER, worker_threads=self.config.worker_threads)
            self.stand_ins.append(bot)
            await self.propose(seat, "bot", "bot", identity.sign_public, bot.box_public).wait()
            nursery.start_soon(self._run_stand_in, seat, bot)

    async def _run_stand_in(self, seat: int, bot: Peer) -> None:
        if self.public.seat_of_key(bot.identity.sign_public) is None:
            self.stand_ins.remove(bot)  # another's proposal took the place of its own
            return
        with trio.CancelScope() as scope:
            self._stand_in_scopes[bot] = scope
            try:
                await bot.run()
            except PeerError as error:  # the table goes on: the seat is voted gone again
                log.warning("the stand-in for seat %d stopped: %s", seat, error)
        self._stand_in_scopes.pop(bot, None)

    def _retire_stand_ins(self) -> None:
        """Stop the stand-ins whose key no longer plays a seat or is proposed for one (a
        first holder's or a late arrival's proposal took the place of theirs before the deal
        seated them; one that played its seat stops by itself when the stream unseats it)."""
        for bot, scope in list(self._stand_in_scopes.items()):
            if self.public.seat_of_key(bot.identity.sign_public) is None:
                scope.cancel()
                del self._stand_in_scopes[bot]
                self.stand_ins.remove(bot)

    async def _offer(self, client: Client, hello: Hello, body: Replace) -> None:
        """Propose ``body`` (the lobby's: a first holder coming back to its seat, or a late
        arrival taking a stand-in's), then answer ``hello`` as the lobby does a proposed key's
        (protocol.md 11.8)."""
        log.info("proposing %s (%s) for seat %d", hello.name, hello.role, body.seat)
        try:
            await self.sequencer.propose(body).wait()
        finally:
            self.lobby.offering.pop(body.seat, None)
        self._retire_stand_ins()
        if client.connected and not client.closing:
            self.lobby.on_hello(client, hello, offered=True)

    def _begin(self, start: StartGame) -> None:
        self.sequencer.begin(start)
        self.started.set()

    def _closed(self, client: Client) -> None:
        self.lobby.closed(client)

    async def _on_message(self, client: Client, msg: Message) -> None:
        """Route what a client sent to the part that owns it."""
        if isinstance(msg, Hello):
            offer = self.lobby.on_hello(client, msg)
            if offer is not None:
                await self._offer(client, msg, offer)
        elif isinstance(msg, Proof):
            self.lobby.on_proof(client, msg)
        elif isinstance(msg, Ready):
            self.lobby.on_ready(client, msg.ready)
        elif isinstance(msg, Chat):
            if client.over_budget(client.budget.chat(trio.current_time()), "chat"):
                return
            relayed = Chat(text=msg.text, name=client.name)
            for other in list(self.clients):
                if other.conn.our_state in (State.LOBBY, State.GAME):
                    other.queue(relayed)
        elif isinstance(msg, GameMessage):
            await self.sequencer.submit(client, msg)
        elif isinstance(msg, Ping):
            client.queue(Pong(nonce=msg.nonce))
        elif isinstance(msg, Bye):
            client.left = self.start is not None  # a player who quits is not coming back
            client.queue(Bye(reason="bye"))
            client.closing = True
        elif isinstance(msg, Error):
            log.info("%s reports %s: %s", client.name, msg.code, msg.reason)


def loopback(listener: trio.SocketListener) -> tuple[str, int]:
    """An address of ``listener`` that this machine reaches: its own, or loopback for one bound
    to every interface."""
    address, port = listener.socket.getsockname()[:2]
    wildcard = {"0.0.0.0": "127.0.0.1", "::": "::1"}
    return wildcard.get(address, address), port


async def serve(config: HostConfig, port: int = 7777, host: str = "0.0.0.0",
                task_status=trio.TASK_STATUS_IGNORED) -> Host:
    """Listen on ``host:port`` (port 0: any) and run one table until its game is over."""
    table = Host(config)
    listeners = await trio.open_tcp_listeners(port, host=host)
    await table.run(listeners, task_status=task_status)
    return table
