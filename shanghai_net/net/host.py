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
from collections.abc import Awaitable, Callable

import trio

from ..identity import Identity, IdentityError
from ..rules.ruleset import preset as get_preset
from ..table.public import PublicTable
from ..table.secret import SeatSecret
from ..table.start import MIN_CLAIM_TIMEOUT
from ..wire import RemoteProtocolError
from ..wire.messages import Bye, Chat, Error, GameMessage, Hello, Message, NextGame, Ping, Pong, \
    Proof, Ready, Rematch, Replace, StartGame
from ..wire.state import State
from .client import Client
from .config import BOT_VOID_AFTER, HostConfig
from .history import History
from .link import Connections
from .lobby import Lobby
from .peer import Peer, PeerError
from .player import BotPlayer
from .rematch import Previous, RematchVotes
from .resume import GameSecrets, StandInKeys
from .sequencer import Sequencer
from .transcript import Transcript, load_transcript

__all__ = ["HostConfig", "Host", "serve"]

log = logging.getLogger("shanghai_net.host")



class Host:
    """One table: a lobby, then one game.  ``await host.run(listeners)`` or use `serve`.

    ``next_table``: where a rematch is played (`tables.TableServer` opens a table for the
    `Previous` game and gives its name).  With it, the table stays once its game is over: its
    seats may ask for a rematch (protocol.md 6.6), and when every seat still there has, each is
    told the table of the next game; without it, the host says ``bye`` at the game's end."""

    def __init__(self, config: HostConfig,
                 next_table: Callable[[Previous], Awaitable[str]] | None = None) -> None:
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
        self.next_table = next_table
        self.lobby.rematch = self.sequencer.keeps_table = next_table is not None
        self.game = config.previous.game if config.previous is not None else 1
        """This game's number at the table (a rematch's is one more than the game before)."""
        self._settled = trio.Event()
        """The seats agreed on a rematch, or nobody is left to ask."""
        self.port: int | None = None
        self.reach: tuple[tuple[str, int], str] | None = None
        """Where this host's own stand-in bots connect: an address of its listener, and the
        table name their hello gives."""
        self.stand_ins: list[Peer] = []
        """The bots this host seated in seats the table voted gone."""
        self.stand_in_keys = StandInKeys(config.record) if config.record is not None else None
        """Where their keys are kept, beside the transcript, for a host resumed from it."""
        self._stand_in_scopes: dict[Peer, trio.CancelScope] = {}
        self.fillers: list[Peer] = []
        """The bots this host sent to a rematch's open seats (`_fill`)."""
        self._nursery: trio.Nursery | None = None
        self._waiting = trio.CancelScope()
        """Waits for the game; cancelled when a rematch's lobby closes before it starts."""

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
                self._nursery = nursery
                nursery.start_soon(self.sequencer.run)
                if listeners:  # else `tables.TableServer` listens and hands connections in
                    nursery.start_soon(trio.serve_listeners, self.connections.handle, listeners)
                    self.port = listeners[0].socket.getsockname()[1]
                    self.reach = (loopback(listeners[0]), "")
                if self.config.stand_in is not None:
                    nursery.start_soon(self._seat_stand_ins, nursery)
                    if self.config.resume is not None:
                        self._restart_stand_ins(nursery)
                if self.lobby.kept is not None:
                    nursery.start_soon(self._release_kept)
                task_status.started(self.port)
                with self._waiting:
                    await self.done.wait()
                if self.sequencer.keeps_table and self.public is not None and \
                        self.public.finished:
                    await self._after_game()
                with trio.move_on_after(self.config.send_timeout):
                    while self.connections.sending() or any(
                            bot.status not in ("over", "failed")
                            for bot in self.stand_ins + self.fillers):
                        await trio.sleep(0.01)  # let the history's tail and the byes go out,
                        # and our own stand-ins read them
                nursery.cancel_scope.cancel()
        finally:
            self.transcript.close()
        if self.stand_in_keys is not None and self.public is not None and self.public.finished:
            self.stand_in_keys.forget()  # the game is over: its stand-ins' keys have no use
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
            bot = self._stand_in(kept=True)
            self.stand_ins.append(bot)
            await self.propose(seat, "bot", "bot", bot.identity.sign_public,
                               bot.box_public).wait()
            nursery.start_soon(self._run_stand_in, seat, bot)

    def _stand_in(self, kept: bool = False, keys: tuple[Identity, SeatSecret,
                                                        GameSecrets | None] | None = None) -> Peer:
        """A bot of ``config.stand_in``'s level, which connects to this table over ``reach`` as
        any other bot does: with ``keys`` kept (`StandInKeys`), else fresh ones, kept beside
        the transcript if ``kept`` (a stand-in, not a rematch's filler) and there is one."""
        address, table = self.reach
        if keys is None:
            identity = Identity(self.config.random(32), self.config.random(32))
            secret = SeatSecret(self.config.random(32))
            store = self.stand_in_keys.keep(identity, secret) \
                if kept and self.stand_in_keys is not None else None
            keys = identity, secret, store
        identity, secret, store = keys
        return Peer(address, identity, BotPlayer(self.config.stand_in), name="bot",
                    join_code=self.config.join_code, table=table, random=self.config.random,
                    store=store, secret=secret, void_after=BOT_VOID_AFTER,
                    worker_threads=self.config.worker_threads)

    def _restart_stand_ins(self, nursery: trio.Nursery) -> None:
        """A host resumed from its transcript starts again each stand-in whose keys it kept
        there and that plays a seat or is proposed for one (protocol.md 11.5: else the table
        votes it gone, which voids a deal)."""
        try:
            kept = StandInKeys(self.config.resume).kept() if self.reach is not None else []
        except (OSError, IdentityError) as error:  # the table votes them gone: one void deal
            log.warning("the stand-ins' kept keys are not used: %s", error)
            kept = []
        for keys in kept:
            seat = self.public.seat_of_key(keys[0].sign_public)
            if seat is not None:
                bot = self._stand_in(keys=keys)
                self.stand_ins.append(bot)
                nursery.start_soon(self._run_stand_in, seat, bot)

    def _fill(self) -> None:
        """A rematch's lobby changed: once every kept seat is held again, send a bot of our
        own to each seat still open (protocol.md 6.6; `KeptSeats.to_fill`)."""
        kept = self.lobby.kept
        if kept is None or self.start is not None or self.config.stand_in is None or \
                self.reach is None or self._nursery is None:
            return
        seated = {c.hello.sign_key for c in self.seats if c is not None and c.hello is not None}
        coming = sum(bot.status not in ("over", "failed") and bot.identity.sign_public
                     not in seated for bot in self.fillers)
        for _ in range(kept.to_fill(self.lobby.held, coming)):
            bot = self._stand_in()
            self.fillers.append(bot)
            log.info("rematch: a bot of ours (%s) comes to an open seat", self.config.stand_in)
            self._nursery.start_soon(self._run_filler, bot)

    async def _run_filler(self, bot: Peer) -> None:
        try:
            await bot.run()
        except PeerError as error:  # a person took the seat first, say: the lobby goes on
            log.info("our bot for an open seat stopped: %s", error)

    async def _release_kept(self) -> None:
        """A rematch's lobby: the kept seats whose players are not back within
        ``rematch_wait`` are released (`release_kept`)."""
        with trio.move_on_after(self.config.rematch_wait):
            await self.started.wait()
        if not self.started.is_set():
            log.info("rematch: the wait of %g s for the kept seats is over",
                     self.config.rematch_wait)
            self.release_kept()

    def release_kept(self) -> None:
        """A rematch's lobby: every kept seat nobody holds is open from now on (our bots fill
        it); a lobby with no person in it then closes."""
        for seat in self.lobby.kept.expire(self.lobby.held):
            log.info("rematch: seat %d is open, its player did not come back", seat)
        self.lobby.changed()
        self._after_lobby_change()

    def _after_lobby_change(self) -> None:
        """Fill a rematch's open seats, or close its lobby if no person is left in it."""
        kept = self.lobby.kept
        if kept is None or self.start is not None or self._waiting.cancel_called:
            return
        if not kept.abandoned(self.lobby.people):
            self._fill()
            return
        log.info("rematch: no person is left in the lobby after the wait: the table closes")
        for client in list(self.clients):
            client.finish(Bye(reason="game over"))
        self._waiting.cancel()

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
        (protocol.md 11.8).  The lobby offers only what the table's rule lets the host sign
        (`Lobby._offer`), so a vacant seat the stand-in loop left to this offer is taken."""
        log.info("proposing %s (%s) for seat %d", hello.name, hello.role, body.seat)
        try:
            await self.sequencer.propose(body).wait()
        finally:
            self.lobby.offering.pop(body.seat, None)
        self._retire_stand_ins()
        if client.connected and not client.closing:
            self.lobby.on_hello(client, hello, offered=True)

    async def _after_game(self) -> None:
        """The game is over and the table stays: wait for the seats to ask for a rematch (or to
        leave, or for ``rematch_wait``), then send each seat that asked where the next game is,
        and everyone ``bye``."""
        votes = self._votes()
        self.lobby.changed()  # the result, and who asks for a rematch
        self._settle()
        with trio.move_on_after(self.config.rematch_wait):
            await self._settled.wait()
        if votes.agreed:
            previous = votes.previous(self.players, self.lobby.result, self.game)
            table = await self.next_table(previous)
            log.info("rematch: game %d at table %s", previous.game, table)
        for client in list(self.clients):
            if client.seat is None or self.seats[client.seat] is not client:
                continue  # told at the game's end
            if votes.agreed and client.seat in votes.votes:
                client.queue(NextGame(table=table, game=previous.game))
                client.finish(Bye(reason="rematch"))
            else:
                client.finish(Bye(reason="game over"))

    def _votes(self) -> RematchVotes:
        """Who asks for a rematch: opened with the seats still at the table."""
        lobby = self.lobby
        if lobby.votes is None:
            lobby.votes = RematchVotes({
                s: (c.hello.sign_key, c.hello.role == "player") for s, c in enumerate(self.seats)
                if c is not None and c.connected and not c.closing and c.hello is not None})
            result = self.public.game.result
            lobby.result = tuple(result.totals) if result is not None else ()
        return lobby.votes

    def _rematch(self, client: Client) -> None:
        """A seat asks for a rematch; a vote that may not be is refused, and the table goes
        on."""
        public = self.public
        try:
            if not self.sequencer.keeps_table or public is None or not public.finished:
                raise ValueError("no game is over at this table: a rematch is asked for once "
                                 "the game is, at a host that keeps its tables")
            self._votes().vote(client.seat if client.seat is not None and
                               self.seats[client.seat] is client else None)
        except ValueError as error:
            client.error(RemoteProtocolError("wrong_state", f"rematch: {error}"))
            return
        self.lobby.changed()
        self._settle()

    def _settle(self) -> None:
        votes = self.lobby.votes
        if votes is not None and (votes.agreed or votes.hopeless):
            self._settled.set()

    def _begin(self, start: StartGame) -> None:
        self.sequencer.begin(start)
        self.started.set()

    def _closed(self, client: Client) -> None:
        self.lobby.closed(client)
        self._after_lobby_change()
        self.sequencer.seats_changed()
        votes = self.lobby.votes
        if votes is not None and client.seat is not None and self.seats[client.seat] is client:
            votes.leave(client.seat)  # it is not at the table for a rematch
            self.lobby.changed()
            self._settle()

    async def _on_message(self, client: Client, msg: Message) -> None:
        """Route what a client sent to the part that owns it."""
        if isinstance(msg, Hello):
            offer = self.lobby.on_hello(client, msg)
            if offer is not None:
                await self._offer(client, msg, offer)
            self._after_lobby_change()
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
        elif isinstance(msg, Rematch):
            self._rematch(client)
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
