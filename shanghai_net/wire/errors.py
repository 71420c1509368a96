"""Protocol errors and the one list of their codes.

Every error that crosses the wire carries a stable ``code`` from ``ERROR_CODES`` (what a program
branches on) and a free-text ``reason`` (what a human reads).  ``LocalProtocolError`` means *we*
tried something the protocol forbids (a bug on this side); ``RemoteProtocolError`` means the other
side sent something wrong and is usually answered with an ``Error`` message.
"""

from __future__ import annotations

__all__ = [
    "ERROR_CODES",
    "FATAL_CODES",
    "ProtocolError",
    "LocalProtocolError",
    "RemoteProtocolError",
]

ERROR_CODES: dict[str, str] = {
    # framing (shanghai_net.wire.framing)
    "frame_too_large": "a frame's length prefix is over the receiver's cap; fatal: the stream "
                       "cannot be resynchronised, so the connection is closed",
    "malformed_frame": "the frame is not exactly one msgpack map with a string 'type' within the "
                       "limits (ext types, non-string map keys, nesting deeper than 32, trailing "
                       "bytes, stream ended inside a frame); the next frame is read normally",
    # messages (shanghai_net.wire.messages)
    "unknown_message": "the message type or game body kind is not known to the receiver",
    "bad_message": "a field is missing or has the wrong type or range",
    # connection state machine (shanghai_net.wire.connection)
    "wrong_state": "the message is not allowed in the connection's current state or for the "
                   "sender's role",
    "version": "the Hello names another protocol or a version the host does not speak",
    # signatures and chain (shanghai_net.wire.signing)
    "bad_signature": "a game message's signature does not verify with its author's seat key, "
                     "or the author has no seat; Refused: a rejoin proof does not verify",
    "broken_chain": "a game message's seq skips ahead, or a move's basis is not a link of the "
                    "chain",
    "stale": "a game message was signed against a chain head that has since moved on; the "
             "author re-signs its move against the new head",
    # used by the host and peers (shanghai_net.net) when refusing or answering
    "join_code": "Refused: the Hello's join code is wrong",
    "table_full": "Refused: no free seat for a player or bot, the key already sits at the "
                  "table, or the table has as many spectators as it takes",
    "unknown_table": "Refused: the Hello names a table the host does not hold (the reason "
                     "names it and the tables it does)",
    "illegal_move": "the move is not allowed by the rules in the current game state",
    "out_of_turn": "the move is legal only on another seat's turn or outside a claim window",
    "timeout": "the other side was silent for too long (Refused: no hello, or no rejoin "
               "proof, in time)",
    "abuse": "too many bad messages, or messages over budget; the connection is closed",
    "rate_limited": "the connection sends more than the receiver's budget (messages or chats "
                    "per second); what is over it is dropped until the sender slows down",
}
"""Every error code, with what it means.  Codes are stable across protocol versions."""

FATAL_CODES = frozenset({"frame_too_large"})
"""Codes after which the connection cannot go on (everything else is answered and survived)."""


class ProtocolError(Exception):
    """A protocol violation with a stable ``code`` and a human ``reason``."""

    def __init__(self, code: str, reason: str, ref_seq: int | None = None,
                 ref_counter: int | None = None) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unlisted error code {code!r}: add it to ERROR_CODES")
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason
        self.ref_seq = ref_seq
        self.ref_counter = ref_counter
        """The author's counter of the game message refused (the sender knows no seq yet)."""

    @property
    def fatal(self) -> bool:
        return self.code in FATAL_CODES


class LocalProtocolError(ProtocolError):
    """This side tried to send or do something the protocol does not allow."""


class RemoteProtocolError(ProtocolError):
    """The other side sent something the protocol does not allow."""
