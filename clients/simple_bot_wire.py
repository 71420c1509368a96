"""What crosses simple_bot's connection (docs/protocol.md sections 2, 3, 6 and 9): frames, the
fields of each message it reads, and the faults that stop the bot.  Part of clients/simple_bot.py
(see its docstring); like it, it imports nothing from ``shanghai_net``."""

from __future__ import annotations

import socket
import struct

import msgpack

MAX_FRAME = 1 << 20
HOST_AUTHOR = 8
"""The author number of the host's own game messages (``timeout``, ``replace``)."""



class BotStopped(Exception):
    """Something this bot cannot follow or a fault in the stream: it stops the game for us."""


class LinkLost(BotStopped):
    """The connection broke (or a fatal frame came): worth connecting again to rejoin."""


class Named(Exception):
    """The round's audit names a seat (11.6): the round is void and the game over."""

    def __init__(self, seat: int, why: str) -> None:
        super().__init__(f"seat {seat}: {why}")
        self.seat = seat


class SeatTaken(BotStopped):
    """The table voted our seat gone and gave it to another key (11.8): we play no more."""



class BadInput(Exception):
    """A frame this bot answers with ``error`` ``code`` and otherwise ignores (protocol.md 9)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code, self.reason = code, reason


# --------------------------------------------------------------------------------------------
# Framing (protocol.md section 2): a big-endian u32 length, then one msgpack map.

def pack(value) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def canonical(value):
    """Maps with their keys in sorted order, recursively (protocol.md 8.1)."""
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, (list, tuple)):
        return [canonical(item) for item in value]
    return value


class Link:
    """One TCP connection to the host, a frame at a time."""

    def __init__(self, address: tuple[str, int]) -> None:
        try:
            self.sock = socket.create_connection(address, timeout=30)
        except OSError as error:
            raise LinkLost(f"cannot connect: {error}") from None
        self.buffer = b""

    def send(self, message: dict) -> None:
        """Send one frame.  A connection the host has closed is not lost for what it sent
        before closing (the game's end and its bye, say): our send into it fails (our first
        one draws a reset, the next ones break the pipe), but that is left for the reader to
        find after everything already here (issue 28)."""
        body = pack(message)
        try:
            self.sock.sendall(struct.pack(">I", len(body)) + body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the host closed: `receive` reads what came first, then the end
        except OSError as error:
            raise LinkLost(f"sending failed: {error}") from None

    def close(self) -> None:
        self.sock.close()

    def receive(self, timeout: float) -> dict | None:
        """The next message, or None when none came within ``timeout`` seconds (0: none
        has arrived yet).  A frame that is not one map with a string ``type`` raises BadInput
        (the next frame is read normally); a length over the cap is fatal: LinkLost."""
        while True:
            if len(self.buffer) >= 4:
                (length,) = struct.unpack(">I", self.buffer[:4])
                if length > MAX_FRAME:
                    self.close()  # the stream cannot be resynchronised (protocol.md 2)
                    raise LinkLost(f"frame_too_large: {length} bytes")
                if len(self.buffer) >= 4 + length:
                    body, self.buffer = self.buffer[4:4 + length], self.buffer[4 + length:]
                    return decode_frame(body)
            self.sock.settimeout(timeout)
            try:
                chunk = self.sock.recv(65536)
            except (socket.timeout, BlockingIOError):
                return None
            except OSError as error:
                raise LinkLost(f"reading failed: {error}") from None
            if not chunk:
                raise LinkLost("the host closed the connection")
            self.buffer += chunk


def decode_frame(body: bytes) -> dict:
    """One frame's map; BadInput ``malformed_frame`` for anything else (protocol.md 2, 3)."""
    try:
        value = msgpack.unpackb(body, raw=False, strict_map_key=True)
    except Exception as error:  # msgpack's errors: bad bytes, ext types, trailing data, ...
        raise BadInput("malformed_frame", f"not one msgpack value: {error}") from None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise BadInput("malformed_frame", "not a map with a string type")
    return value


FIELDS = {
    "welcome": {"version": int, "seat": (int, type(None))},
    "refused": {"code": str, "reason": str},
    "start_game": {"game_id": bytes, "host_nonce": bytes, "nonces": list, "seats": list,
                   "preset": str, "rules": dict},
    "game": {"seq": int, "author": int, "body": dict, "sig": bytes},
    "placed": {"seq": int, "counter": int},
    "error": {"code": str, "reason": str},
    "ping": {"nonce": int},
    "bye": {},
    "next_game": {"table": str, "game": int},
    "lobby_state": {}, "chat": {}, "pong": {}, "hello": {}, "ready": {}, "proof": {},
}
"""The messages a client is sent (section 6), with the fields this bot reads and their types
(msgpack int, bin, str, array, map; nil where the catalogue allows it)."""


def check_fields(message: dict) -> None:
    """BadInput ``unknown_message`` or ``bad_message`` for a message this bot cannot read."""
    kind = message["type"]
    if kind not in FIELDS:
        raise BadInput("unknown_message", f"type {kind!r:.40}")
    for name, types in FIELDS[kind].items():
        value = message.get(name)
        if isinstance(value, bool) or not isinstance(value, types):
            raise BadInput("bad_message", f"{kind}.{name}: {value!r:.40} has the wrong type")
