"""Frames: a 4-byte big-endian length, then that many bytes holding one msgpack map.

The length prefix is what keeps a stream usable after garbage: a frame that does not decode is
dropped whole and the next one is read normally.  Only a length over the cap is fatal, because
skipping that many bytes would mean buffering (or trusting) them.
"""

from __future__ import annotations

import struct
from itertools import chain
from typing import Any

import msgpack

from .errors import LocalProtocolError, RemoteProtocolError

__all__ = [
    "DEFAULT_MAX_FRAME", "MAX_DEPTH", "HEADER_SIZE", "encode_frame", "decode_frame_body",
    "FrameDecoder",
]

DEFAULT_MAX_FRAME = 1 << 20
"""Largest frame body accepted, in bytes (1 MiB)."""

MAX_DEPTH = 32
"""Deepest nesting of maps and arrays accepted; the top-level map is depth 1."""

_HEADER = struct.Struct(">I")
HEADER_SIZE = _HEADER.size


def encode_frame(value: dict[str, Any], max_frame: int = DEFAULT_MAX_FRAME) -> bytes:
    """One frame holding ``value`` packed with bin and str types kept apart."""
    body = msgpack.packb(value, use_bin_type=True)
    if len(body) > max_frame:
        raise LocalProtocolError(
            "frame_too_large", f"a {value.get('type')!r} frame of {len(body)} bytes is over the "
            f"cap of {max_frame}")
    return _HEADER.pack(len(body)) + body


def _check_shape(value: Any) -> None:
    """Depth limit and string map keys, checked a level at a time without recursion (input may
    nest deeply) and with the per-item work done by C loops: a frame of many small items costs
    about what unpacking it did, which the reader's byte budget bounds."""
    level = [value]
    for depth in range(1, MAX_DEPTH + 2):
        if not level:
            return
        if depth > MAX_DEPTH:
            raise RemoteProtocolError("malformed_frame", f"nesting deeper than {MAX_DEPTH}")
        maps = [item for item in level if type(item) is dict]
        if maps and set(map(type, chain.from_iterable(maps))) - {str}:
            key = next(k for k in chain.from_iterable(maps) if not isinstance(k, str))
            raise RemoteProtocolError("malformed_frame", f"map key {key!r:.40} is not a string")
        children = list(chain.from_iterable([item.values() if type(item) is dict else item
                                             for item in level]))
        kinds = set(map(type, children))
        level = [child for child in children if type(child) is list or type(child) is dict] \
            if list in kinds or dict in kinds else []


def decode_frame_body(body: bytes, max_frame: int = DEFAULT_MAX_FRAME) -> dict[str, Any]:
    """The map one frame's body holds; raises ``malformed_frame`` for anything else."""
    try:
        value = msgpack.unpackb(
            body, raw=False, strict_map_key=True, max_bin_len=max_frame, max_str_len=max_frame,
            max_array_len=max_frame, max_map_len=max_frame // 2, max_ext_len=0)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise RemoteProtocolError(
            "malformed_frame", f"frame of {len(body)} bytes is not one msgpack value: {exc}"
        ) from None
    if not isinstance(value, dict):
        raise RemoteProtocolError(
            "malformed_frame", f"top level is {type(value).__name__} {value!r:.40}, not a map")
    _check_shape(value)
    kind = value.get("type")
    if not isinstance(kind, str):
        raise RemoteProtocolError("malformed_frame", f"'type' is {kind!r:.40}, not a string")
    return value


class FrameDecoder:
    """Splits a byte stream into decoded frames; holds at most ``max_frame + 4`` bytes.

    Feed bytes with ``receive_data`` (``b""`` means the stream ended) and call ``next_frame``
    until it returns ``None`` before feeding more; never feed more than ``room`` bytes at once.
    """

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._ended = False
        self._fatal: RemoteProtocolError | None = None

    @property
    def room(self) -> int:
        """How many more bytes ``receive_data`` accepts now."""
        return self.max_frame + HEADER_SIZE - len(self._buffer)

    @property
    def ended(self) -> bool:
        """The stream ended and every byte of it has been handed out."""
        return self._ended and not self._buffer

    def receive_data(self, data: bytes) -> None:
        if self._ended:
            raise LocalProtocolError("wrong_state", "data received after the end of the stream")
        if not data:
            self._ended = True
        elif len(data) > self.room:
            raise LocalProtocolError(
                "frame_too_large", f"{len(data)} bytes fed with room for {self.room}: "
                "drain next_frame() first and read at most .room bytes")
        else:
            self._buffer += data

    def next_frame(self) -> dict[str, Any] | None:
        """The next decoded frame, or ``None`` until more bytes arrive."""
        if self._fatal is not None:
            raise self._fatal
        if len(self._buffer) < HEADER_SIZE:
            return self._truncated()
        (size,) = _HEADER.unpack_from(self._buffer)
        if size > self.max_frame:
            self._fatal = RemoteProtocolError(
                "frame_too_large", f"frame of {size} bytes is over the cap of {self.max_frame}")
            self._buffer.clear()
            raise self._fatal
        if len(self._buffer) < HEADER_SIZE + size:
            return self._truncated()
        body = bytes(self._buffer[HEADER_SIZE:HEADER_SIZE + size])
        del self._buffer[:HEADER_SIZE + size]
        return decode_frame_body(body, self.max_frame)

    def _truncated(self) -> None:
        """Wait for more bytes, unless the stream ended: then the partial frame is an error."""
        if self._ended and self._buffer:
            held = len(self._buffer)
            self._buffer.clear()
            raise RemoteProtocolError("malformed_frame", f"stream ended {held} bytes into a frame")
        return None
