"""Where the deal's randomness comes from: always injected, never global.

A real client passes ``secrets.token_bytes``; tests, benchmarks and replays pass ``seeded(...)``.
"""

from __future__ import annotations

import hashlib
import itertools
from typing import Callable

RandomBytes = Callable[[int], bytes]
"""``random(n)`` returns ``n`` fresh unpredictable bytes."""

_TAG = b"shanghai-net v1 seeded random"


def seeded(seed: bytes) -> RandomBytes:
    """A deterministic byte source (SHAKE-256 in counter mode): reproducible, not secret."""
    counter = itertools.count()

    def take(n: int) -> bytes:
        return hashlib.shake_256(_TAG + seed + next(counter).to_bytes(8, "big")).digest(n)

    return take
