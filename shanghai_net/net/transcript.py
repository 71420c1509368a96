"""The host's transcript on disk: ``start_game``, then every sequenced game message, as frames,
appended as the game grows (`Transcript`); read back to verify a game (`read_record`, which
keeps the whole frames of a record torn by a crash, or `read_transcript`) or to take it up after
a crash (`load_transcript`, every message checked again)."""

from __future__ import annotations

import logging
import math
import os
import struct
from pathlib import Path
from typing import BinaryIO

from ..identity import Identity
from ..table.fault import Fault
from ..table.public import PublicTable
from ..wire import FrameDecoder, decode_message
from ..wire.errors import RemoteProtocolError
from ..wire.framing import DEFAULT_MAX_FRAME, HEADER_SIZE
from ..wire.messages import GameMessage, Message, StartGame

__all__ = ["Transcript", "load_transcript", "read_record", "read_transcript"]

log = logging.getLogger("shanghai_net.host")


class Transcript:
    """Frames appended to ``path`` (none kept when ``path`` is None), each flushed at once.  The
    file is made with its first frame (``start_game``): a lobby whose game never started leaves
    no empty record behind."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._open = False
        self._file: BinaryIO | None = None

    def open(self) -> None:
        self._open = self.path is not None

    def close(self) -> None:
        self._open = False
        if self._file is not None:
            self._file.close()
            self._file = None

    def write(self, frame: bytes) -> None:
        if self._open and self._file is None:
            self._file = open(self.path, "ab")
        if self._file is not None:
            self._file.write(frame)
            self._file.flush()


def load_transcript(path: Path, identity: Identity) -> tuple[StartGame, PublicTable,
                                                            list[GameMessage]]:
    """Take up the game of a transcript where it stopped: every message checked again.  A
    ``ValueError`` says why it cannot be (another host's, a game over, a message refused)."""
    whole = _whole_frames(path)
    messages = read_transcript(path, whole)
    if not messages or not isinstance(messages[0], StartGame):
        raise ValueError(f"{path}: not a transcript (it does not begin with start_game)")
    start, history = messages[0], messages[1:]
    if start.host_key not in (None, identity.sign_public):
        raise ValueError(f"{path} was hosted with another key; resume it as the user who "
                         f"hosted it (this host is {identity.fingerprint})")
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
    if whole < path.stat().st_size:  # only now that it is known to be this host's game
        log.warning("%s: cutting a torn frame at its end", path)
        with open(path, "r+b") as stream:
            stream.truncate(whole)
    return start, public, history


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


def read_record(path: Path) -> tuple[list[Message], int]:
    """The messages of a transcript's whole frames, and how many bytes of a last frame cut short
    follow them (0: none): a host that died while writing a frame leaves its first bytes.  A
    frame whose length is over the cap is no torn frame but a broken one: `ProtocolError`, as
    for any frame that does not decode."""
    whole = _whole_frames(path)
    torn = path.stat().st_size - whole
    if torn >= HEADER_SIZE:
        with open(path, "rb") as stream:
            stream.seek(whole)
            (size,) = struct.unpack(">I", stream.read(HEADER_SIZE))
        if size > DEFAULT_MAX_FRAME:
            raise RemoteProtocolError("frame_too_large", f"a frame of {size} bytes at byte "
                                      f"{whole}, over the cap of {DEFAULT_MAX_FRAME}")
    return read_transcript(path, whole), torn


def read_transcript(path: Path, length: int | None = None) -> list[Message]:
    """The messages of a transcript file (its first ``length`` bytes): ``start_game``, then
    every sequenced game message."""
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
