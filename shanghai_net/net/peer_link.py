"""A peer's connection to its host: `PeerLink`, the socket and the wire connection, a reader
that puts what arrives on a bounded inbox, and sends bounded by a timeout.  `Lost` says the
connection broke (worth a retry), `PeerError` that the game cannot go on; `PeerResult` is what a peer's run yields, counted across its
connections."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import trio

from ..engine.game import Phase
from ..table.seat import PeerTable
from ..wire import CLIENT, NEED_DATA, Connection, ConnectionClosed, RemoteProtocolError
from ..wire.messages import Chat, Error, Message

__all__ = ["PeerLink", "PeerResult", "Lost", "PeerError", "parse_address"]

log = logging.getLogger("shanghai_net.peer")


class PeerError(Exception):
    """The host refused us, or the game could not go on.  ``words``: what a person is told (a
    refusal's reason without its code; by default the message)."""

    def __init__(self, message: str, words: str | None = None) -> None:
        super().__init__(message)
        self.words = message if words is None else words


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
    unseated: str | None = None
    """Why this seat stopped before the game's end: the table gave the seat to someone else
    (it was voted gone), and its keys play no more."""
    _asked: dict = field(default_factory=dict, repr=False)
    """Stock cards requested for this seat and not yet in hand: token -> when (-1: dealt)."""

    def time_draws(self, table: PeerTable) -> None:
        """A stock card on its way to this seat: from the request to the card in the replica."""
        asked = self._asked
        now = time.perf_counter()
        new = [t for t, owed in table.outstanding.items() if owed.to == table.seat and t not in asked]
        for token in new:
            asked[token] = now if len(new) <= 3 else -1.0  # a round's deal is not a draw
        for token, since in list(asked.items()):
            if token in table.game.faces and token not in table.outstanding:
                if since >= 0 and table.game.phase is not Phase.DEALING:
                    self.draw_ms.append((now - since) * 1000)
                del asked[token]
            elif token[0] > table.public.generation + 1:
                del asked[token]


def parse_address(text: str, default_port: int = 7777) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        return text, default_port
    return host or "127.0.0.1", int(port)


class Lost(Exception):
    """The connection to the host broke (worth a retry)."""


class PeerLink:
    """The socket and the wire connection of one peer; a reader task puts what arrives on
    ``inbox`` (bounded: a peer that does not keep up stops reading)."""

    def __init__(self, stream: trio.SocketStream, result: PeerResult, timeout: float) -> None:
        self.stream = stream
        self.conn = Connection(CLIENT)
        self.result = result
        self.timeout = timeout
        self._sending = trio.Lock()

    async def send(self, msg: Message) -> None:
        """Send ``msg`` (the peer's loop and the front end's chat may send at once: one at a
        time, encoded in the order sent)."""
        async with self._sending:
            await self._send_all(self.conn.send(msg))

    async def send_raw(self, data: bytes) -> None:
        """Bytes as they are, bypassing the connection's checks (tests of bad input)."""
        async with self._sending:
            await self._send_all(data)

    async def _send_all(self, data: bytes) -> None:
        try:
            with trio.fail_after(self.timeout):
                await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError,
                trio.TooSlowError) as error:
            raise Lost(f"sending failed: {error!r}") from None
        self.result.bytes_out += len(data)

    async def read(self, inbox: trio.MemorySendChannel) -> None:
        """Every message from the host onto ``inbox``; `Lost` (also on ``inbox``) at the end."""
        try:
            while True:
                while True:
                    try:
                        event = self.conn.next_event()
                    except RemoteProtocolError as error:
                        log.warning("bad input from the host: %s", error)
                        if error.fatal:
                            raise Lost(str(error)) from None
                        continue
                    if event is NEED_DATA:
                        break
                    if isinstance(event, ConnectionClosed):
                        raise Lost("the host closed the connection")
                    await inbox.send(event)
                try:
                    data = await self.stream.receive_some(self.conn.room)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as error:
                    raise Lost(f"reading failed: {error!r}") from None
                self.result.bytes_in += len(data)
                self.conn.receive_data(data)
        except Lost as lost:
            await inbox.send(lost)
