"""Commit-reveal random picks among a set of parties: an index in ``range(n)`` none could steer.

- nonce commitment: ``SHA-256(b"shanghai-net v1 pick commitment" || ctx || u32 pick || u32 n
  || u8 count || u8 party... || u8 author || nonce)`` with a 32-byte nonce;
- sharing on: a party's nonce is ``SHAKE-256(b"shanghai-net v1 key" || ctx || u8 seat
  || u8 10 || b"pick nonce" || u32 pick || seed)``, 32 bytes, with the ``ctx`` and ``seed`` of
  its seed of the latest generation whose commits were all in when the pick began;
- result: the first ``SHA-256(b"shanghai-net v1 pick result" || ctx || u32 pick || u32 n
  || nonce of each party in party order || u32 counter)`` (counter 0, 1, ...) whose first 8 bytes,
  as a big-endian w, satisfy ``w < 2^64 - 2^64 mod n``; the pick is ``w mod n``.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

from .messages import Context
from .sharing import seed_stream

NONCE_BYTES = 32
COMMIT_TAG = b"shanghai-net v1 pick commitment"
RESULT_TAG = b"shanghai-net v1 pick result"


def _header(tag: bytes, context: Context, pick: int, n: int) -> bytes:
    return tag + context.encode() + pick.to_bytes(4, "big") + n.to_bytes(4, "big")


def nonce_digest(context: Context, pick: int, n: int, parties: Sequence[int], author: int,
                 nonce: bytes) -> bytes:
    if not isinstance(nonce, bytes) or len(nonce) != NONCE_BYTES:
        raise ValueError(f"a pick nonce is {NONCE_BYTES} bytes, got {nonce!r:.80}")
    return hashlib.sha256(_header(COMMIT_TAG, context, pick, n) + bytes([len(parties), *parties])
                          + bytes([author]) + nonce).digest()


def pick_index(context: Context, pick: int, n: int, nonces: Sequence[bytes]) -> int:
    """The pick from every party's nonce (in party order): uniform if one nonce is."""
    if n < 1:
        raise ValueError(f"cannot pick an index in range({n})")
    limit = 2**64 - 2**64 % n
    base = _header(RESULT_TAG, context, pick, n) + b"".join(nonces)
    counter = 0
    while True:
        word = int.from_bytes(hashlib.sha256(base + counter.to_bytes(4, "big")).digest()[:8], "big")
        if word < limit:
            return word % n
        counter += 1


def seed_nonce(context: Context, seat: int, pick: int, seed: bytes) -> bytes:
    """Sharing on: ``seat``'s nonce for pick ``pick``, read from its seed of the generation of
    ``context``: rebuilt with the seed, so no party chooses a pick's outcome by leaving."""
    return seed_stream(context, seat, b"pick nonce", pick.to_bytes(4, "big"),
                       seed).digest(NONCE_BYTES)
