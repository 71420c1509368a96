"""A seat's seed, its commitment, and everything derived from it for one generation.

Byte layouts (``ctx`` = :meth:`Context.encode`, integers big-endian):

- commitment: ``SHA-256(b"shanghai-net v1 seed commitment" || ctx || u8 seat || seed)``
- derivation input: ``b"shanghai-net v1 key" || ctx || u8 seat || u8 len(label) || label
  || u16 index || u8 attempt || seed``, read with SHAKE-256:
  - pass-1 key a: label ``b"pass key"``, index 0, 64 bytes reduced mod L;
  - per-card key k_j: label ``b"card key"``, index j, 64 bytes reduced mod L;
  - a zero scalar (probability 2^-252) moves to the next ``attempt``;
  - permutation: label ``b"permutation"``, index 0, attempt 0: the SHAKE-256 stream read as
    32-bit words drives Fisher-Yates; a word w is used for bound b only if
    ``w < 2^32 - 2^32 mod b`` (rejection sampling, so no modulo bias), as ``w mod b``.
- box secret of a sealed share (``deal.box``): ``SHAKE-256(b"shanghai-net v1 key" || ctx || u8 seat
  || u8 3 || b"box" || u8 recipient || u16 count || u16 position... || seed)``, 32 bytes.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from typing import Iterator

from .group import invert, reduce_scalar, scalar_mul
from .messages import Context

SEED_BYTES = 32
COMMIT_TAG = b"shanghai-net v1 seed commitment"
KEY_TAG = b"shanghai-net v1 key"


def commitment_digest(context: Context, seat: int, seed: bytes) -> bytes:
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        raise ValueError(f"a seed is {SEED_BYTES} bytes, got {seed!r:.80}")
    return hashlib.sha256(COMMIT_TAG + context.encode() + bytes([seat]) + seed).digest()


def fisher_yates(stream_seed: bytes, n: int) -> list[int]:
    """A uniform permutation of ``range(n)`` read from the SHAKE-256 stream of ``stream_seed``."""
    order = list(range(n))
    words = _words(stream_seed)
    for i in range(n - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - 2**32 % bound
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % bound
        order[i], order[j] = order[j], order[i]
    return order


def _words(stream_seed: bytes) -> Iterator[int]:
    offset, length = 0, 1024
    while True:
        stream = hashlib.shake_256(stream_seed).digest(length)
        for k in range(offset, length, 4):
            yield int.from_bytes(stream[k:k + 4], "big")
        offset, length = length, 2 * length


class SeedKeys:
    """What one seat's seed fixes in one generation of ``size`` cards."""

    def __init__(self, context: Context, seat: int, seed: bytes, size: int) -> None:
        self._prefix = KEY_TAG + context.encode() + bytes([seat])
        self._seed = seed
        self.pass_key = self._scalar(b"pass key", 0)
        self.pass_key_inverse = invert(self.pass_key)
        self.card_keys = [self._scalar(b"card key", j) for j in range(size)]
        self.permutation = fisher_yates(self._input(b"permutation", 0, 0), size)

    @cached_property
    def layer_swaps(self) -> list[bytes]:
        """``a⁻¹·k_j`` for every position: pass 2 replaces layer a by k_j in one multiplication."""
        return [scalar_mul(self.pass_key_inverse, k) for k in self.card_keys]

    def box_secret(self, recipient: int, positions: tuple[int, ...]) -> bytes:
        """The X25519 secret of the box that carries this seat's keys of ``positions`` to
        ``recipient``: one box, one key, and the audit can open it once the seed is known."""
        label = b"box"
        header = (bytes([len(label)]) + label + bytes([recipient]) + len(positions).to_bytes(2, "big")
                  + b"".join(p.to_bytes(2, "big") for p in positions))
        return hashlib.shake_256(self._prefix + header + self._seed).digest(32)

    def _input(self, label: bytes, index: int, attempt: int) -> bytes:
        return (self._prefix + bytes([len(label)]) + label + index.to_bytes(2, "big")
                + bytes([attempt]) + self._seed)

    def _scalar(self, label: bytes, index: int) -> bytes:
        for attempt in range(256):
            scalar = reduce_scalar(hashlib.shake_256(self._input(label, index, attempt)).digest(64))
            if scalar is not None:
                return scalar
        raise AssertionError("256 zero scalars in a row: SHAKE-256 is broken")
