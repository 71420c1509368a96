"""The deal's messages and their plain form.

A deal message carries no signature of its own: whoever carries it vouches for its author.  On
the network every deal step travels inside a game message its author signed over the step's
every field (docs/protocol.md, section 8), and that signed message is what a peer, the audit or
a third party rests on; a second signature inside it would only double the bytes and the checks.
:meth:`Message.to_plain` (the message's fields in declaration order, the context flattened to
``[game_id, round, generation]``) is the form a participant saves to its own disk.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Context:
    """Which shuffle a message belongs to.  Picks use their round's context with generation 0."""

    game_id: bytes
    round: int
    generation: int

    def __post_init__(self) -> None:
        if not isinstance(self.game_id, bytes) or len(self.game_id) > 0xFFFF:
            raise ValueError(f"game_id must be at most 65535 bytes, got {self.game_id!r:.60}")
        for name in ("round", "generation"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value < 2**32:
                raise ValueError(f"{name} must be an integer in [0, 2**32), got {value!r}")

    def encode(self) -> bytes:
        """``u16 len(game_id) || game_id || u32 round || u32 generation`` (big-endian)."""
        return (len(self.game_id).to_bytes(2, "big") + self.game_id
                + self.round.to_bytes(4, "big") + self.generation.to_bytes(4, "big"))


class Message:
    """Base of the deal's messages: frozen dataclasses with ``context`` first."""

    kinds: ClassVar[dict[str, type[Message]]] = {}
    context: Context
    author: int

    def __init_subclass__(cls) -> None:
        Message.kinds[cls.__name__] = cls

    def to_plain(self) -> list[Any]:
        context, *values = (getattr(self, f.name) for f in dataclasses.fields(self))
        return [type(self).__name__, [context.game_id, context.round, context.generation],
                *values]

    @staticmethod
    def from_plain(plain: Any) -> Message:
        """Inverse of :meth:`to_plain`; ValueError for anything that is not a known message."""
        try:
            kind, context, *rest = plain
            cls = Message.kinds[kind]
            return cls(Context(*context), *(_freeze(v) for v in rest))
        except (TypeError, ValueError, KeyError) as error:
            raise ValueError(f"not a deal message: {plain!r:.200} ({error})") from None


def _freeze(value: Any) -> Any:
    return tuple(_freeze(v) for v in value) if isinstance(value, (list, tuple)) else value


@dataclass(frozen=True)
class Commitment(Message):
    """``digest`` = SHA-256 commitment to the author's seed for this generation (see seeds.py)."""

    context: Context
    author: int
    digest: bytes


@dataclass(frozen=True)
class SharedCommitment(Commitment):
    """Sharing on: the seed digest, the Feldman commitments ``C_0 .. C_{t-1}`` of the
    seed's sharing, and one sealed share for each of the commit's holders, ascending, as
    ``(holder, epk, box)`` (deal/sharing.py).  The dealer's only message for its sharing."""

    feldman: tuple[bytes, ...]
    shares: tuple[tuple[int, bytes, bytes], ...]


@dataclass(frozen=True)
class PassOutput(Message):
    """The author's output of pass ``phase`` (1: key and permute, 2: per-card re-key)."""

    context: Context
    author: int
    phase: int
    points: tuple[bytes, ...]
    proof: bytes = b""


@dataclass(frozen=True)
class KeyShare(Message):
    """The author's per-card keys for ``positions``, for ``recipient`` only (sent sealed)."""

    context: Context
    author: int
    recipient: int
    positions: tuple[int, ...]
    keys: tuple[bytes, ...]


@dataclass(frozen=True)
class KeyReveal(Message):
    """Keys of one position made public: all of them (by its owner) or the author's own."""

    context: Context
    author: int
    position: int
    keys: tuple[tuple[int, bytes], ...]


@dataclass(frozen=True)
class SeedReveal(Message):
    """The author's seed for this generation, revealed at round end for the audit."""

    context: Context
    author: int
    seed: bytes


@dataclass(frozen=True)
class SharedSeedReveal(SeedReveal):
    """Sharing on: the seed, and the shares its author holds of this generation, as
    ``(dealer, share)`` for each dealer whose commit had the author among its holders, ascending;
    ``share`` is ``None`` only for a dealer the author complained of.  At the audit the shares
    are no secret any more, and they rebuild a seat whose seeds do not come."""

    shares: tuple[tuple[int, bytes | None], ...]


@dataclass(frozen=True)
class ShareReveal(Message):
    """Sharing on: the author's shares of lost seat ``seat``'s seeds, ``(generation, share)`` for
    each rebuilt generation whose commit had the author among its holders (context generation
    0, as a pick's)."""

    context: Context
    author: int
    seat: int
    shares: tuple[tuple[int, bytes], ...]


@dataclass(frozen=True)
class PickCommitment(Message):
    """Commitment to a nonce for random pick ``pick``: an index in ``range(n)`` among ``parties``."""

    context: Context
    pick: int
    n: int
    parties: tuple[int, ...]
    author: int
    digest: bytes


@dataclass(frozen=True)
class PickReveal(Message):
    context: Context
    pick: int
    author: int
    nonce: bytes
