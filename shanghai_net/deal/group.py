"""The prime-order group of Ed25519 as the deal uses it: card points, scalars, multiplications.

Only libsodium's *unclamped* multiplication is used: clamping changes the scalar, so a·a⁻¹ would
not cancel.  libsodium's unclamped multiplication refuses a point that is non-canonical, of small
order or outside the prime-order subgroup (the checks of ``crypto_core_ed25519_is_valid_point``),
so multiplying a received point also validates it; :class:`InvalidPoint` then names which one.
Every multiplication is counted (:func:`multiplications`) so the benchmark can compare its time
with the floor that the multiplications alone set.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Iterable, Sequence

from nacl.bindings import (
    crypto_core_ed25519_from_uniform,
    crypto_core_ed25519_is_valid_point,
    crypto_core_ed25519_scalar_invert,
    crypto_core_ed25519_scalar_mul,
    crypto_core_ed25519_scalar_reduce,
)
from nacl._sodium import ffi as _ffi, lib as _lib

from ..cards import Card

ORDER = 2**252 + 27742317777372353535851937790883648493
"""L, the order of the prime-order subgroup."""

POINT_BYTES = 32
SCALAR_BYTES = 32
CARD_TAG = b"shanghai-net v1 card"

_multiplications = 0


def multiplications() -> int:
    """How many scalar multiplications this process has done so far."""
    return _multiplications


class InvalidPoint(ValueError):
    """A point that is not an element of the prime-order subgroup (``index`` in its list)."""

    def __init__(self, index: int, point: bytes) -> None:
        super().__init__(f"point {index} ({point.hex()}) is not a valid point of the group")
        self.index = index


def is_valid_point(point: bytes) -> bool:
    return (isinstance(point, bytes) and len(point) == POINT_BYTES
            and crypto_core_ed25519_is_valid_point(point))


@functools.lru_cache(maxsize=None)
def card_point(card_id: int) -> bytes:
    """The point of one physical card: hashed to the curve, so no one knows its discrete log."""
    uniform = hashlib.sha512(CARD_TAG + card_id.to_bytes(2, "big")).digest()[:32]
    return crypto_core_ed25519_from_uniform(uniform)


def card_points(cards: Iterable[Card]) -> dict[bytes, Card]:
    """Point -> card, to recognise a decrypted card."""
    return {card_point(card.id): card for card in cards}


def reduce_scalar(wide: bytes) -> bytes | None:
    """A 64-byte hash output reduced mod L; ``None`` for zero, which is no key."""
    scalar = crypto_core_ed25519_scalar_reduce(wide)
    return None if scalar == bytes(SCALAR_BYTES) else scalar


def is_scalar(scalar: bytes) -> bool:
    """A canonical nonzero scalar: what every key must be."""
    return (isinstance(scalar, bytes) and len(scalar) == SCALAR_BYTES
            and 0 < int.from_bytes(scalar, "little") < ORDER)


def invert(scalar: bytes) -> bytes:
    return crypto_core_ed25519_scalar_invert(scalar)


def scalar_mul(a: bytes, b: bytes) -> bytes:
    return crypto_core_ed25519_scalar_mul(a, b)


def scalar_product(scalars: Iterable[bytes]) -> bytes:
    return functools.reduce(crypto_core_ed25519_scalar_mul, scalars)


def multiply_all(scalar: bytes, points: Sequence[bytes]) -> list[bytes]:
    """``scalar·P`` for every point; raises :class:`InvalidPoint` for the first bad point."""
    return multiply_each([scalar] * len(points), points)


def multiply_each(scalars: Sequence[bytes], points: Sequence[bytes]) -> list[bytes]:
    """``scalars[j]·points[j]`` for every j; raises :class:`InvalidPoint` for the first bad point.

    Calls libsodium's ``crypto_scalarmult_ed25519_noclamp`` without PyNaCl's per-call argument
    checks (done here once for the batch), to keep Python out of the hot loop."""
    global _multiplications
    if len(scalars) != len(points) or not all(map(is_scalar, scalars)):
        raise ValueError(f"{len(scalars)} scalars for {len(points)} points, or a bad scalar")
    for index, point in enumerate(points):
        if type(point) is not bytes or len(point) != POINT_BYTES:
            raise InvalidPoint(index, point if isinstance(point, bytes) else b"")
    out = []
    buffer = _ffi.new("unsigned char[]", POINT_BYTES)
    view = _ffi.buffer(buffer)
    mult = _lib.crypto_scalarmult_ed25519_noclamp
    for scalar, point in zip(scalars, points):
        if mult(buffer, scalar, point) != 0:
            _raise_invalid(points)
            raise AssertionError("libsodium refused a valid point: is the scalar zero?")
        out.append(view[:])
    _multiplications += len(out)
    return out


def multiply(scalar: bytes, point: bytes) -> bytes:
    return multiply_all(scalar, [point])[0]


def multiply_base(scalars: Sequence[bytes]) -> list[bytes]:
    """``scalar·B`` for every scalar, B the group's base point: libsodium's fixed-base
    ``crypto_scalarmult_ed25519_base_noclamp``, about four times faster than multiplying B as
    any point; counted as a multiplication."""
    global _multiplications
    if not all(map(is_scalar, scalars)):
        raise ValueError("a bad scalar")
    out = []
    buffer = _ffi.new("unsigned char[]", POINT_BYTES)
    view = _ffi.buffer(buffer)
    for scalar in scalars:
        if _lib.crypto_scalarmult_ed25519_base_noclamp(buffer, scalar) != 0:
            raise AssertionError("libsodium refused to multiply the base point")
        out.append(view[:])
    _multiplications += len(out)
    return out


def _raise_invalid(points: Sequence[bytes]) -> None:
    for index, point in enumerate(points):
        if not is_valid_point(point):
            raise InvalidPoint(index, point)
