"""A peer: connect to a host, say hello, get ready, then play one game through a `PeerTable`.

The loop is: read what the host sends; feed each sequenced game message to the table and queue
the bodies it asks for; let the player choose when the seat has a decision (a bot: `BotPlayer`);
sign and send what the `Outbox` releases.  Every wait on the host is bounded by ``fail_after``.
"""

from __future__ import annotations

import logging
import random as random_module
import secrets
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

import trio

from ..bots import make_bot
from ..engine.game import Phase
from ..engine.moves import DrawStock, MayI, Move, PassClaim
from ..engine.view import view_of
from ..errors import IllegalMoveError
from ..identity import Identity
from ..wire import CLIENT, NEED_DATA, Connection, ConnectionClosed, RemoteProtocolError
from ..wire.messages import (PROTOCOL_NAME, PROTOCOL_VERSION, Bye, Chat, Error, GameMessage,
                             Hello, LobbyState, Message, Ping, Pong, Ready, Refused, StartGame,
                             Welcome)
from .table import Fault, Outbox, PeerTable

__all__ = ["Player", "BotPlayer", "PeerResult", "PeerError", "run_peer", "parse_address"]

log = logging.getLogger("shanghai_net.peer")


class Player(Protocol):
    def choose(self, table: PeerTable) -> Move | None:
        """A move for ``table.seat`` now (``table.can_move()`` is true), or None to stay silent."""


class BotPlayer:
    """A bot from `shanghai_net.bots` choosing from the seat's replica; ``claims=False`` makes
    it stay silent in claim windows (the host's timeout then passes for it)."""

    def __init__(self, level: str = "basic", rng: random_module.Random | None = None,
                 claims: bool = True) -> None:
        self.bot = make_bot(level, rng or random_module.Random())
        self.claims = claims

    def choose(self, table: PeerTable) -> Move | None:
        moves = table.legal_moves()
        if not moves:
            return None
        if not self.claims and all(isinstance(m, (MayI, PassClaim)) for m in moves):
            return None
        return self.bot.choose(view_of(table.game, table.seat), moves)


class PeerError(Exception):
    """The host refused us, or the game could not go on."""


@dataclass
class PeerResult:
    seat: int | None
    table: PeerTable | None
    errors: list[Error] = field(default_factory=list)
    """Every error the host answered (stale ones included)."""
    draw_ms: list[float] = field(default_factory=list)
    """Per stock draw of this seat: from its request to the card in hand, in milliseconds."""
    bytes_in: int = 0
    bytes_out: int = 0
    chat: list[Chat] = field(default_factory=list)


def parse_address(text: str, default_port: int = 7777) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        return text, default_port
    return host or "127.0.0.1", int(port)


class _Link:
    """The socket and the wire connection of one peer."""

    def __init__(self, stream: trio.SocketStream, result: PeerResult, timeout: float) -> None:
        self.stream = stream
        self.conn = Connection(CLIENT)
        self.result = result
        self.timeout = timeout
        self.pending: list[Message] = []

    async def send(self, msg: Message) -> None:
        data = self.conn.send(msg)
        with trio.fail_after(self.timeout):
            await self.stream.send_all(data)
        self.result.bytes_out += len(data)

    async def send_raw(self, data: bytes) -> None:
        """Bytes as they are, bypassing the connection's checks (tests of bad input)."""
        with trio.fail_after(self.timeout):
            await self.stream.send_all(data)
        self.result.bytes_out += len(data)

    async def receive(self, deadline: float = float("inf")) -> list[Message]:
        """Every message the next read brings (at least one, unless the stream ended)."""
        out: list[Message] = []
        while not out:
            while True:
                try:
                    event = self.conn.next_event()
                except RemoteProtocolError as error:
                    log.warning("bad input from the host: %s", error)
                    if error.fatal:
                        raise PeerError(str(error)) from None
                    continue
                if event is NEED_DATA:
                    break
                if isinstance(event, ConnectionClosed):
                    if out:
                        return out
                    raise PeerError("the host closed the connection")
                out.append(event)
            if out:
                break
            with trio.fail_at(deadline):
                data = await self.stream.receive_some(self.conn.room)
            self.result.bytes_in += len(data)
            self.conn.receive_data(data)
        return out


async def run_peer(address: tuple[str, int], identity: Identity, player: Player | None = None, *,
                   name: str = "bot", role: str = "bot", join_code: str = "",
                   random: Callable[[int], bytes] = secrets.token_bytes,
                   timeout: float = 30.0, lobby_timeout: float | None = 600.0,
                   game_timeout: float | None = None, idle_timeout: float = 600.0,
                   on_table: Callable[[PeerTable], None] | None = None) -> PeerResult:
    """Join the table at ``address`` and play one game; the result when it is over.

    ``timeout`` bounds each wait for an answer of the host; ``lobby_timeout`` the wait for the
    game to start; ``game_timeout`` (None: none) the whole game; ``idle_timeout`` a silence of
    the host during the game (players may think for a while)."""
    player = player or BotPlayer()
    result = PeerResult(None, None)
    with trio.fail_after(timeout):
        stream = await trio.open_tcp_stream(*address)
    async with stream:
        link = _Link(stream, result, timeout)
        await link.send(Hello(protocol=PROTOCOL_NAME, version=PROTOCOL_VERSION, name=name,
                              sign_key=identity.sign_public, box_key=identity.box_public,
                              join_code=join_code, role=role))
        start = await _lobby(link, result, timeout, lobby_timeout)
        if result.seat is None:
            raise PeerError("spectating is not supported by this client yet")
        table = PeerTable(start, result.seat, identity.sign_key, identity.box_key, random)
        result.table = table
        if on_table is not None:
            on_table(table)
        deadline = float("inf") if game_timeout is None else trio.current_time() + game_timeout
        await _play(link, table, Outbox(table, identity.sign_key), player, result, deadline,
                    idle_timeout)
        with trio.move_on_after(2):
            await link.send(Bye(reason="game over"))
    return result


async def _lobby(link: _Link, result: PeerResult, timeout: float,
                 lobby_timeout: float | None) -> StartGame:
    deadline = trio.current_time() + timeout
    while True:
        for msg in await link.receive(deadline):
            if isinstance(msg, Refused):
                raise PeerError(f"refused: {msg.code}: {msg.reason}")
            if isinstance(msg, Welcome):
                result.seat = msg.seat
                if msg.seat is not None:
                    await link.send(Ready(ready=True))
                deadline = (float("inf") if lobby_timeout is None
                            else trio.current_time() + lobby_timeout)
            elif isinstance(msg, StartGame):
                return msg
            elif isinstance(msg, Ping):
                await link.send(Pong(nonce=msg.nonce))
            elif isinstance(msg, Chat):
                result.chat.append(msg)
            elif isinstance(msg, Error):
                result.errors.append(msg)
            elif isinstance(msg, (LobbyState,)):
                pass


async def _play(link: _Link, table: PeerTable, outbox: Outbox, player: Player,
                result: PeerResult, deadline: float, idle_timeout: float) -> None:
    outbox.push(table.start())
    seat = table.seat
    asked: dict[tuple[int, int], float] = {}
    while not table.finished:
        if table.fault is not None:
            raise PeerError(str(table.fault))
        extra = getattr(player, "extra", None)  # a test player's raw frames or messages
        if extra is not None:
            for item in extra(table, outbox):
                if isinstance(item, bytes):
                    await link.send_raw(item)
                else:
                    await link.send(item)
        # the player, when this seat has a decision to make
        if not outbox.busy and table.can_move():
            move = player.choose(table)
            if move is not None:
                try:
                    outbox.push(table.submit(move), move)
                except IllegalMoveError as error:
                    log.warning("seat %d chose an illegal move: %s", seat, error)
        msg = outbox.poll()
        if msg is not None:
            await link.send(msg)
        for incoming in await link.receive(min(deadline, trio.current_time() + idle_timeout)):
            if isinstance(incoming, GameMessage):
                try:
                    outbox.push(table.receive(incoming))
                except Fault as fault:
                    raise PeerError(str(fault)) from None
                outbox.sequenced(incoming)
            elif isinstance(incoming, Error):
                result.errors.append(incoming)
                outbox.error(incoming)
                if hasattr(player, "on_error"):
                    player.on_error(incoming)
            elif isinstance(incoming, Ping):
                await link.send(Pong(nonce=incoming.nonce))
            elif isinstance(incoming, Chat):
                result.chat.append(incoming)
            elif isinstance(incoming, Bye):
                if not table.finished:
                    raise PeerError(f"the host ended the game: {incoming.reason}")
        _time_draws(table, asked, result)


def _time_draws(table: PeerTable, asked: dict, result: PeerResult) -> None:
    """A stock card on its way to this seat: from the request to the card in the replica."""
    now = time.perf_counter()
    new = [t for t, owed in table.outstanding.items() if owed.to == table.seat and t not in asked]
    for token in new:
        asked[token] = now if len(new) <= 3 else -1.0  # a round's deal is not a draw
    for token, since in list(asked.items()):
        if token in table.game.faces and token not in table.outstanding:
            if since >= 0 and table.game.phase is not Phase.DEALING:
                result.draw_ms.append((now - since) * 1000)
            del asked[token]
        elif token[0] > table.public.generation + 1:
            del asked[token]
