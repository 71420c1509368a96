"""The `Relay` between the client under test and the host: it forwards whole frames both
ways, notes what the client says and is told, and can put a frame of its own before the client,
change one of the host's, hold the host's back or cut the connection: how bad input, a fatal
frame, a dishonest host's word and a dropped connection are scripted."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Awaitable, Callable

import msgpack
import trio

from ..wire.framing import DEFAULT_MAX_FRAME, HEADER_SIZE, encode_frame

__all__ = ["Relay"]


@dataclass
class _Pair:
    """One connection of the client, and ours to the host for it."""

    number: int
    client: trio.SocketStream
    host: trio.SocketStream | None = None
    sending: trio.Lock = field(default_factory=trio.Lock)
    closed_by_client: trio.Event = field(default_factory=trio.Event)
    left: trio.Event = field(default_factory=trio.Event)
    """The client said ``bye`` on this connection or closed it."""
    proved: bool = False
    """The client sent a ``proof`` on this connection: it is rejoining its seat."""


class Relay:
    """Between the client and the host: forwards whole frames both ways and records what the
    client answers; `inject` puts a frame of its own before the client, `cut` drops the link."""

    def __init__(self, host_port: int) -> None:
        self.host_port = host_port
        self.pairs: list[_Pair] = []
        self.hello: dict | None = None
        self.answers: list[str] = []
        """Codes of the ``error`` messages the client sent (answers to our frames among them)."""
        self._answered = trio.Event()
        self.errors_to_client: list[dict] = []
        self.refusals: list[str] = []
        """Codes of the ``refused`` messages the host sent the client."""
        self.placed: list[int] = []
        """The seqs of the client's own messages, as the host's ``placed`` told it them."""
        self.round = 0
        """The deal round of the last ``deal`` body sent to the client."""
        self._moves: list[tuple[int, trio.Event]] = []
        self._rejoin_after = sys.maxsize
        self.rejoined = trio.Event()
        self.on_hello: Callable[[dict], Awaitable[None]] | None = None
        """Awaited with each ``hello`` of the client before it goes on to the host."""
        self.sent: dict[int, tuple[str, int]] = {}
        """Each game message the client sent, by its counter: its body kind, and the seq of the
        last game message the client had been sent then."""
        self.forwarded = -1
        """The seq of the last game message sent to the client."""
        self.rematches = 0
        """The ``rematch`` messages the client sent."""
        self.rewrite: Callable[[dict], dict | None] | None = None
        """Given each message of the host's for the client: the message to send it instead
        (None: that one)."""
        self.held = False
        """The host's frames go to the client no more (`hold`): what it was sent last is the
        last word it hears (the host closing its end neither closes the client's)."""

    @property
    def current(self) -> _Pair:
        return self.pairs[-1]

    async def serve(self, listeners, task_status=trio.TASK_STATUS_IGNORED) -> None:
        await trio.serve_listeners(self._pair, listeners, task_status=task_status)

    async def _pair(self, client: trio.SocketStream) -> None:
        pair = _Pair(len(self.pairs), client)
        self.pairs.append(pair)
        try:
            pair.host = await trio.open_tcp_stream("127.0.0.1", self.host_port)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._up, pair, nursery.cancel_scope)
                nursery.start_soon(self._down, pair, nursery.cancel_scope)
        except* (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # either end went away: so does the other
        finally:  # both ends, also when the kit is cancelled: the first close's checkpoint
            with trio.CancelScope(shield=True):  # must not skip the host's end (it would wait)
                for stream in (client, pair.host):
                    if stream is not None:
                        await trio.aclose_forcefully(stream)

    async def _up(self, pair: _Pair, scope: trio.CancelScope) -> None:
        """Client -> host, frame by frame as it came; what the client says is noted on the way."""
        async for frame, message in _frames(pair.client):
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "hello" and self.hello is None:
                self.hello = message
            if kind == "hello" and self.on_hello is not None:
                await self.on_hello(message)
            if kind == "error":
                self.answers.append(str(message.get("code")))
                self._answered.set()
                self._answered = trio.Event()
            if kind == "proof":
                pair.proved = True
            if kind == "bye":
                pair.left.set()
            if kind == "rematch":
                self.rematches += 1
            if kind == "game" and isinstance(message.get("counter"), int) \
                    and isinstance(message.get("body"), dict):
                self.sent[message["counter"]] = (str(message["body"].get("kind")), self.forwarded)
            if kind == "game" and pair.proved and pair.number > self._rejoin_after:
                self.rejoined.set()
            await pair.host.send_all(frame)
        pair.closed_by_client.set()
        pair.left.set()
        scope.cancel()

    async def _down(self, pair: _Pair, scope: trio.CancelScope) -> None:
        async for frame, message in _frames(pair.host):
            async with pair.sending:
                if self.held:
                    continue
                changed = self.rewrite(message) if self.rewrite and isinstance(message, dict) \
                    else None
                if changed is not None:
                    frame, message = encode_frame(changed), changed
                await pair.client.send_all(frame)
                if isinstance(message, dict):
                    self._seen(message)
        if self.held:  # the client hears nothing after its last word, the host's close neither
            await pair.left.wait()
        scope.cancel()

    def _seen(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "error":
            self.errors_to_client.append(message)
        if kind == "refused":
            self.refusals.append(str(message.get("code")))
        if kind in ("placed", "game") and isinstance(message.get("seq"), int):
            self.forwarded = max(self.forwarded, message["seq"])
        if kind == "placed" and isinstance(message.get("seq"), int):
            self.placed.append(message["seq"])
        body = message.get("body") if kind == "game" else None
        if not isinstance(body, dict):
            return
        if body.get("kind") == "deal":
            data = body.get("data")
            if isinstance(data, dict) and isinstance(data.get("round"), int):
                self.round = max(self.round, data["round"])
        elif body.get("kind") != "timeout":
            for round_no, event in self._moves:
                if self.round >= round_no:
                    event.set()

    async def first_move(self, round_no: int) -> None:
        """Until a move of round ``round_no`` (or later) has gone to the client."""
        event = trio.Event()
        self._moves.append((round_no, event))
        await event.wait()

    async def inject(self, frame: bytes) -> None:
        """Put ``frame`` before the client, between two whole frames of the host's."""
        pair = self.current
        try:
            async with pair.sending:
                await pair.client.send_all(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the client is gone: it will not answer, and the situation fails

    async def hold(self) -> None:
        """From now on forward nothing of the host's to the client (a frame on its way goes
        first): ``forwarded`` is then the last seq the client was sent."""
        async with self.current.sending:
            self.held = True

    async def answer(self, code: str) -> None:
        """Until the client has answered an ``error`` with ``code``."""
        while code not in self.answers:
            await self._answered.wait()

    async def cut(self) -> None:
        pair = self.current
        await trio.aclose_forcefully(pair.client)
        if pair.host is not None:
            await trio.aclose_forcefully(pair.host)

    def expect_rejoin(self) -> trio.Event:
        """An event set once the client, on a connection after the current one, has proved its
        seat and sent a game message again."""
        self._rejoin_after, self.rejoined = self.current.number, trio.Event()
        return self.rejoined


async def _frames(stream: trio.SocketStream):
    """Whole frames as they arrive, each with its decoded value (None if it does not decode)."""
    buffer = bytearray()
    while True:
        while len(buffer) >= HEADER_SIZE:
            length = int.from_bytes(buffer[:HEADER_SIZE], "big")
            if length > DEFAULT_MAX_FRAME or len(buffer) < HEADER_SIZE + length:
                break
            frame = bytes(buffer[:HEADER_SIZE + length])
            del buffer[:HEADER_SIZE + length]
            try:
                value = msgpack.unpackb(frame[HEADER_SIZE:], raw=False, strict_map_key=False)
            except Exception:  # the host judges the client's bytes; we only forward them
                value = None
            yield frame, value
        if len(buffer) >= HEADER_SIZE and int.from_bytes(buffer[:HEADER_SIZE], "big") > DEFAULT_MAX_FRAME:
            return  # a fatal frame: the stream cannot be read further
        try:
            data = await stream.receive_some()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return
        if not data:
            return
        buffer += data
