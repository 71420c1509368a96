"""Where the deal's randomness comes from: always injected, never global.

A real client passes ``secrets.token_bytes``, or, to be able to rejoin after a crash,
``chained`` over a per-game key (`net.resume.GameSecrets`); tests, benchmarks and replays pass
``seeded(...)``.
"""

from __future__ import annotations

import hashlib
import itertools
from typing import Callable

RandomBytes = Callable[[int], bytes]
"""``random(n)`` returns ``n`` fresh unpredictable bytes."""

_TAG = b"shanghai-net v1 seeded random"
_CHAINED = b"shanghai-net v1 chained random"


def seeded(seed: bytes) -> RandomBytes:
    """A deterministic byte source (SHAKE-256 in counter mode): reproducible, not secret."""
    counter = itertools.count()

    def take(n: int) -> bytes:
        return hashlib.shake_256(_TAG + seed + next(counter).to_bytes(8, "big")).digest(n)

    return take


def chained(key: bytes, head: Callable[[], bytes]) -> RandomBytes:
    """Secret bytes bound to the place in the game they are drawn at: draw ``i`` (from 0) of ``n``
    bytes made while the chain's head is ``head()`` is SHAKE-256 over the domain, the 32-byte
    ``key``, the head, ``u32 n`` and ``u32 i``.

    A seat replaying its game after a crash draws, at every head, exactly what it drew before;
    a stream that differs from the one it saw (a host that sends it another history after the
    crash) moves the head, so no draw is ever made again for another purpose (a nonce shown in
    one history can never be a seed in another)."""
    last: bytes | None = None
    count = 0

    def take(n: int) -> bytes:
        nonlocal last, count
        at = head()
        if at != last:
            last, count = at, 0
        count += 1
        return hashlib.shake_256(_CHAINED + key + at + n.to_bytes(4, "big")
                                 + (count - 1).to_bytes(4, "big")).digest(n)

    return take
