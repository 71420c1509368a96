"""Version 10's dropout-tolerant deal as simple_bot plays it (docs/dealing.md, "The scheme"
through "Version 10 messages"): with ``start_game.share_threshold`` ``t`` not nil, each seed is a
scalar that its dealer shares among the generation's holders, Shamir over the scalar field of
Ed25519's prime-order subgroup with Feldman commitments, one sealed share a holder in its
``commit``.  Part of clients/simple_bot.py (see its docstring); like it, it imports nothing from
``shanghai_net``.

Notation as in the design: ``L`` the group's order, ``B`` its base point, holder seat ``j`` at
the abscissa ``j + 1``, scalars 32 bytes little-endian."""

from __future__ import annotations

import hashlib
import struct

from nacl import bindings as sodium

from simple_bot_deal import box_cipher

L = 2**252 + 27742317777372353535851937790883648493
"""The order of Ed25519's prime-order subgroup."""
SHARE_DOMAIN = b"shanghai-net v8 seed share"
"""The tag of a share box (a name: "v8" is the design's first number, not a version)."""
KEY_DOMAIN = b"shanghai-net v1 key"


def derive(ctx: bytes, seat: int, label: bytes, inputs: bytes, seed: bytes):
    """SHAKE-256 of ``seat``'s ``seed`` read under ``label`` ("One registry of labels")."""
    return hashlib.shake_256(KEY_DOMAIN + ctx + bytes([seat, len(label)]) + label + inputs + seed)


def scalar(value: int) -> bytes:
    return (value % L).to_bytes(32, "little")


def is_scalar(value) -> bool:
    """A canonical nonzero scalar (what a seed and a share must be)."""
    return isinstance(value, bytes) and len(value) == 32 and 0 < int.from_bytes(value, "little") < L


def seed_scalar(random) -> bytes:
    """A seed with sharing on: 64 random bytes reduced mod L, drawn again if zero ("The seed
    becomes a scalar")."""
    while True:
        seed = sodium.crypto_core_ed25519_scalar_reduce(random(64))
        if any(seed):
            return seed


def polynomial(ctx: bytes, dealer: int, t: int, seed: bytes, holders: list[int]) -> list[int]:
    """``a_0 = s`` and ``a_1 .. a_{t-1}`` from the seed's share stream, 64-byte chunks reduced
    mod L, a zero skipped; all drawn again from the next chunks if some holder's share is 0
    ("Sharing at the commit", 1)."""
    stream = derive(ctx, dealer, b"share coefficient", bytes([t]), seed)
    taken = 0

    def chunk() -> int:
        nonlocal taken
        taken += 64
        return int.from_bytes(sodium.crypto_core_ed25519_scalar_reduce(
            stream.digest(taken)[taken - 64:]), "little")

    while True:
        coefficients = [int.from_bytes(seed, "little")]
        while len(coefficients) < t:
            value = chunk()
            if value:
                coefficients.append(value)
        if all(evaluate(coefficients, j + 1) for j in holders):
            return coefficients


def evaluate(coefficients: list[int], x: int) -> int:
    value = 0
    for a in reversed(coefficients):
        value = (value * x + a) % L
    return value


def feldman(coefficients: list[int]) -> list[bytes]:
    """``C_k = a_k·B``, unclamped."""
    return [sodium.crypto_scalarmult_ed25519_base_noclamp(scalar(a)) for a in coefficients]


def share_fits(commitments: list[bytes], holder: int, share: bytes) -> bool:
    """``y·B == Σ x^k·C_k`` at the holder's abscissa ("The holder's check, at once"); every
    commitment must be a point of the group (libsodium refuses one that is not)."""
    if not commitments or not is_scalar(share) or not all(
            isinstance(c, bytes) and len(c) == 32 for c in commitments) \
            or not sodium.crypto_core_ed25519_is_valid_point(commitments[0]):
        return False
    x, expected = holder + 1, commitments[0]
    try:
        for k, point in enumerate(commitments[1:], start=1):
            term = sodium.crypto_scalarmult_ed25519_noclamp(scalar(x**k), point)
            expected = sodium.crypto_core_ed25519_add(expected, term)
    except Exception:  # a point outside the group (or a product of one)
        return False
    return sodium.crypto_scalarmult_ed25519_base_noclamp(share) == expected


def share_associated_data(ctx: bytes, dealer: int, holder: int, t: int) -> bytes:
    return SHARE_DOMAIN + ctx + bytes([dealer, holder, t])


def seal_share(ctx: bytes, dealer: int, holder: int, t: int, seed: bytes, share: int,
               holder_key: bytes) -> dict:
    """Holder ``holder``'s box of the dealer's commit: its secret read from the seed, the share
    sealed to the holder's box key ("Sharing at the commit", 4)."""
    secret = derive(ctx, dealer, b"share box", bytes([holder]), seed).digest(32)
    epk = sodium.crypto_scalarmult_base(secret)
    cipher = box_cipher(secret, holder_key, epk, holder_key, SHARE_DOMAIN)
    box = cipher.encrypt(bytes(12), scalar(share), share_associated_data(ctx, dealer, holder, t))
    return {"to": holder, "epk": epk, "box": box}


def commit_sharing(ctx: bytes, dealer: int, t: int, seed: bytes,
                   holder_keys: dict[int, bytes]) -> dict:
    """What a commit carries with sharing on, beside its digest: ``feldman`` and one share box
    for each of the commit's holders (seat -> box key), ascending."""
    holders = sorted(holder_keys)
    coefficients = polynomial(ctx, dealer, t, seed, holders)
    return {"feldman": feldman(coefficients),
            "shares": [seal_share(ctx, dealer, j, t, seed, evaluate(coefficients, j + 1),
                                  holder_keys[j]) for j in holders]}


def open_share(ctx: bytes, dealer: int, holder: int, t: int, entry: dict, commitments: list,
               own_secret: bytes, own_public: bytes) -> bytes | None:
    """The holder's share from its box, if the box opens and the share is on the dealer's
    ``t`` commitments; None else (the holder then complains of it)."""
    if len(commitments) != t or not isinstance(entry.get("epk"), bytes) \
            or not isinstance(entry.get("box"), bytes):
        return None
    try:
        cipher = box_cipher(own_secret, entry["epk"], entry["epk"], own_public, SHARE_DOMAIN)
        share = cipher.decrypt(bytes(12), entry["box"],
                               share_associated_data(ctx, dealer, holder, t))
    except Exception:  # InvalidTag; or no key agreement with a low-order epk (libsodium)
        return None
    return share if share_fits(commitments, holder, share) else None


def seed_from_shares(shares: dict[int, bytes]) -> bytes:
    """The secret at 0 of the polynomial through ``t`` shares (holder seat -> share): Lagrange,
    ``s = Σ λ_j y_j`` with ``λ_j = Π x_m / (x_m - x_j)`` ("The rebuild")."""
    total = 0
    for j, y in shares.items():
        weight = 1
        for m in shares:
            if m != j:
                weight = weight * (m + 1) * pow(m - j, -1, L) % L
        total = (total + weight * int.from_bytes(y, "little")) % L
    return scalar(total)


def pick_nonce(ctx: bytes, seat: int, pick: int, seed: bytes) -> bytes:
    """A pick's nonce read from the seat's seed of the pick's nonce generation ("Picks are
    decided at the commit"): rebuilt with the seed, so no one chooses a pick by leaving."""
    return derive(ctx, seat, b"pick nonce", struct.pack(">I", pick), seed).digest(32)
