"""The deal's messages, their canonical bytes and their signatures.

Every message a peer may later have to show a third party is signed with its author's Ed25519
key over ``msgpack([SIGN_TAG, kind, body])``, where ``body`` is the message's fields in declaration
order without the signature and the context flattened to ``[game_id, round, generation]``.
The same plain form (with the signature appended) is what :meth:`Message.to_plain` produces for
saving and for sealing a :class:`KeyShare`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey


SIGN_TAG = b"shanghai-net v1 deal message"


@dataclass(frozen=True)
class Context:
    """Which shuffle a message belongs to.  Picks use their round's context with generation 0."""

    game_id: bytes
    round: int
    generation: int

    def __post_init__(self) -> None:
        if not isinstance(self.game_id, bytes) or len(self.game_id) > 0xFFFF:
            raise ValueError(f"game_id must be at most 65535 bytes, got {self.game_id!r}")
        for name in ("round", "generation"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value < 2**32:
                raise ValueError(f"{name} must be an integer in [0, 2**32), got {value!r}")

    def encode(self) -> bytes:
        """``u16 len(game_id) || game_id || u32 round || u32 generation`` (big-endian)."""
        return (len(self.game_id).to_bytes(2, "big") + self.game_id
                + self.round.to_bytes(4, "big") + self.generation.to_bytes(4, "big"))


class Message:
    """Base of the signed messages: frozen dataclasses with ``context`` first, ``signature`` last."""

    kinds: ClassVar[dict[str, type[Message]]] = {}
    context: Context
    author: int
    signature: bytes

    def __init_subclass__(cls) -> None:
        Message.kinds[cls.__name__] = cls

    def body(self) -> list[Any]:
        values = [getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "signature"]
        context = values[0]
        return [[context.game_id, context.round, context.generation], *values[1:]]

    def signed_bytes(self) -> bytes:
        return msgpack.packb([SIGN_TAG, type(self).__name__, self.body()])

    def to_plain(self) -> list[Any]:
        return [type(self).__name__, *self.body(), self.signature]

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


def sign(message: Message, key: Ed25519PrivateKey) -> Message:
    return dataclasses.replace(message, signature=key.sign(message.signed_bytes()))


def verify(message: Message, key: Ed25519PublicKey) -> None:
    """ValueError unless the author signed this exact message.

    Not :class:`CheatDetected`: anyone on the way may have altered it, so it names no one."""
    try:
        key.verify(message.signature, message.signed_bytes())
    except InvalidSignature:
        raise ValueError(f"{type(message).__name__} does not carry seat {message.author}'s "
                         "signature: altered or forged on the way") from None


@dataclass(frozen=True)
class Commitment(Message):
    """``digest`` = SHA-256 commitment to the author's seed for this generation (see seeds.py)."""

    context: Context
    author: int
    digest: bytes
    signature: bytes = b""


@dataclass(frozen=True)
class PassOutput(Message):
    """The author's output of pass ``phase`` (1: key and permute, 2: per-card re-key)."""

    context: Context
    author: int
    phase: int
    points: tuple[bytes, ...]
    proof: bytes = b""
    signature: bytes = b""


@dataclass(frozen=True)
class KeyShare(Message):
    """The author's per-card keys for ``positions``, for ``recipient`` only (sent sealed)."""

    context: Context
    author: int
    recipient: int
    positions: tuple[int, ...]
    keys: tuple[bytes, ...]
    signature: bytes = b""


@dataclass(frozen=True)
class KeyReveal(Message):
    """Keys of one position made public: all of them (by its owner) or the author's own."""

    context: Context
    author: int
    position: int
    keys: tuple[tuple[int, bytes], ...]
    signature: bytes = b""


@dataclass(frozen=True)
class SeedReveal(Message):
    """The author's seed for this generation, revealed at round end for the audit."""

    context: Context
    author: int
    seed: bytes
    signature: bytes = b""


@dataclass(frozen=True)
class PickCommitment(Message):
    """Commitment to a nonce for random pick ``pick``: an index in ``range(n)`` among ``parties``."""

    context: Context
    pick: int
    n: int
    parties: tuple[int, ...]
    author: int
    digest: bytes
    signature: bytes = b""


@dataclass(frozen=True)
class PickReveal(Message):
    context: Context
    pick: int
    author: int
    nonce: bytes
    signature: bytes = b""
