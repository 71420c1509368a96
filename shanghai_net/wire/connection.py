"""One peer-to-host connection, sans IO: bytes in, messages out; messages in, bytes out.

The caller owns the socket, the clock and any randomness.  It feeds received bytes to
``receive_data`` (``b""`` when the stream ends), calls ``next_event`` until ``NEED_DATA``, and
writes what ``send`` returns.  What the other side did wrong raises ``RemoteProtocolError`` (answer
it with ``error.code``; only fatal codes end the connection); what this side tries wrongly raises
``LocalProtocolError``.
"""

from __future__ import annotations

import dataclasses
from enum import Enum

from .errors import LocalProtocolError, RemoteProtocolError
from .framing import DEFAULT_MAX_FRAME, HEADER_SIZE, FrameDecoder, decode_frame_body, encode_frame
from .messages import (PROTOCOL_NAME, PROTOCOL_VERSION, GameMessage, Hello, Message, Welcome,
                       decode_message)
from .state import ConnectionState, Role, State

__all__ = ["Connection", "ConnectionClosed", "NEED_DATA", "SUPPORTED_VERSIONS"]

SUPPORTED_VERSIONS = frozenset({PROTOCOL_VERSION})


class _Signal(Enum):
    NEED_DATA = "need_data"


NEED_DATA = _Signal.NEED_DATA
"""``next_event`` has nothing until more bytes arrive."""


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectionClosed:
    """The other side's stream ended; nothing more will come from it."""


class Connection:
    """The protocol state of one connection, seen from ``our_role``."""

    def __init__(self, our_role: Role, max_frame: int = DEFAULT_MAX_FRAME,
                 versions: frozenset[int] = SUPPORTED_VERSIONS) -> None:
        self.our_role = our_role
        self.their_role = our_role.other
        self.max_frame = max_frame
        self.versions = versions
        self._state = ConnectionState()
        self._decoder = FrameDecoder(max_frame)
        self._fatal: RemoteProtocolError | None = None
        self._hello: Hello | None = None
        self._refusal: str | None = None

    @property
    def our_state(self) -> State:
        return self._state.states[self.our_role]

    @property
    def their_state(self) -> State:
        return self._state.states[self.their_role]

    @property
    def room(self) -> int:
        """The most bytes ``receive_data`` accepts now (read at most this many)."""
        return self._decoder.room

    def receive_data(self, data: bytes) -> None:
        self._decoder.receive_data(data)

    def next_event(self) -> Message | ConnectionClosed | _Signal:
        if self._fatal is not None:
            raise self._fatal
        try:
            frame = self._decoder.next_frame()
        except RemoteProtocolError as exc:
            if exc.fatal:
                self._fatal = exc
                self._state.process_error(self.their_role)
            raise
        if frame is None:
            if self._decoder.ended:
                self._state.process_closed(self.their_role)
                return ConnectionClosed()
            return NEED_DATA
        msg = decode_message(frame)
        try:
            self._state.process_message(self.their_role, msg.TYPE)
        except LocalProtocolError as exc:
            game = msg if isinstance(msg, GameMessage) else None
            raise RemoteProtocolError(exc.code, exc.reason, game and game.seq,
                                      game and game.counter) from None
        self._check_handshake(msg)
        return msg

    def send(self, msg: Message, frame: bytes | None = None) -> bytes:
        """The bytes of one frame holding ``msg``, if it may be sent now.  ``frame``: ``msg``
        already encoded by `encode_frame` and decoded back (the host sends each game message to
        every client, and encodes and checks it once)."""
        if frame is None:
            frame = self.encode(msg)
        if isinstance(msg, Welcome) and self._refusal is not None:
            raise LocalProtocolError("wrong_state", f"the Hello must be refused: {self._refusal}")
        self._state.process_message(self.our_role, msg.TYPE)
        if isinstance(msg, Hello):
            self._note_hello(msg)
        return frame

    def encode(self, msg: Message) -> bytes:
        """One frame holding ``msg``, checked by decoding it back as the other side will."""
        try:
            frame = encode_frame(msg.to_wire(), self.max_frame)
            decode_message(decode_frame_body(frame[HEADER_SIZE:], self.max_frame))
        except RemoteProtocolError as exc:
            raise LocalProtocolError(exc.code, exc.reason) from None
        except (TypeError, ValueError, OverflowError) as exc:
            raise LocalProtocolError("bad_message", f"{msg.TYPE}: {exc}") from None
        return frame

    def _note_hello(self, hello: Hello) -> None:
        self._hello = hello
        self._state.spectator = hello.role == "spectator"

    def _check_handshake(self, msg: Message) -> None:
        """Version agreement: the host checks the Hello, the client checks the Welcome."""
        if isinstance(msg, Hello):
            self._note_hello(msg)
            if msg.protocol != PROTOCOL_NAME:
                self._refusal = f"protocol {msg.protocol!r:.40} is not {PROTOCOL_NAME!r}"
            elif msg.version not in self.versions:
                spoken = ", ".join(map(str, sorted(self.versions)))
                self._refusal = (f"protocol version {msg.version} is not spoken here: this host "
                                 f"speaks version{'s' * (len(self.versions) > 1)} {spoken} (a "
                                 "program of another version cannot share its table)")
            if self._refusal is not None:
                raise RemoteProtocolError("version", self._refusal)
        elif isinstance(msg, Welcome) and self._hello and msg.version != self._hello.version:
            raise RemoteProtocolError(
                "version", f"Welcome says version {msg.version}, the Hello asked for "
                f"{self._hello.version}")
