"""Every game message the host sequenced, kept once for every connection: `History`.

Each connection's writer sends it from its own cursor (`client.Client`), so a seat that rejoins
starts from an earlier cursor and a slow one lags without holding anybody up.  Each message is
encoded once, and the connection it came in on is kept: that one is answered `placed`, not sent
the message again.  The ``owed`` notice (protocol.md 11.7) lives here too, since a client is
sent it only after the messages it reflects.
"""

from __future__ import annotations

from ..table.public import PublicTable
from ..wire import encode_frame
from ..wire.messages import GameMessage, Owed

__all__ = ["History"]


class History:
    def __init__(self, max_frame: int) -> None:
        self.max_frame = max_frame
        self.messages: list[GameMessage] = []
        """Every sequenced game message, in order (what a rejoining seat is sent again)."""
        self.frames: list[bytes] = []
        """``messages`` encoded, once for every client."""
        self.origins: list[int | None] = []
        """The number of the connection each message came in on (None: the host's own, or one
        read back from a transcript): that one is answered `Placed`, not sent it again."""
        self.owed: Owed | None = None
        """The latest ``owed`` notice (kept only while some client asks for it)."""
        self.owed_frame: bytes | None = None
        self.owed_after = 0
        """Game messages a client is sent before ``owed``: those it reflects."""
        self._owed_at = -1
        """``len(messages)`` when ``owed`` was last brought up to date."""

    def __len__(self) -> int:
        return len(self.messages)

    def append(self, msg: GameMessage, origin: int | None) -> bytes:
        """Keep ``msg``, which came in on connection ``origin``; its frame."""
        frame = encode_frame(msg.to_wire(), self.max_frame)
        self.messages.append(msg)
        self.frames.append(frame)
        self.origins.append(origin)
        return frame

    def load(self, messages: list[GameMessage]) -> None:
        """Start from a transcript's messages (their connections are not known)."""
        self.messages = list(messages)
        self.frames = [encode_frame(msg.to_wire(), self.max_frame) for msg in messages]
        self.origins = [None] * len(messages)

    def note_owed(self, public: PublicTable | None, wanted: bool) -> None:
        """Bring the ``owed`` notice up to date, if some client asks for it (``wanted``): a new
        notice only when what is owed changed (one a client has had is not sent again)."""
        if public is None or self._owed_at == len(self.messages) or not wanted:
            return
        self._owed_at = len(self.messages)
        owes = tuple(public.owed_steps())
        if self.owed is not None and self.owed.owes == owes:
            return
        self.owed = Owed(seq=self.messages[-1].seq if self.messages else None, owes=owes)
        self.owed_frame = encode_frame(self.owed.to_wire(), self.max_frame)
        self.owed_after = len(self.messages)
