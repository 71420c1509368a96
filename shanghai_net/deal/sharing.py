"""Verifiable threshold sharing of a seat's seed, so that ``t`` other seats can rebuild it when
the seat is lost (docs/dealing.md; not yet wired into the table protocol).

Shamir sharing over the scalar field of Ed25519's prime-order subgroup (the group deal/group.py
uses), with Feldman commitments ``C_k = a_k·B``: a holder checks its share against the
commitments alone, and a seed, rebuilt or revealed, is checked against the seat's SHA-256 seed
commitment (:func:`check_seed`).  Holder seat ``j`` holds ``f(j + 1)``, never ``f(0)``.

Byte layouts (``ctx`` = :meth:`Context.encode`; scalars 32-byte little-endian, canonical):

- seed with sharing on: a uniform nonzero scalar (64 random bytes reduced mod L), its encoding;
- every derivation from a seed reads ``SHAKE-256(b"shanghai-net v1 key" || ctx || u8 seat
  || u8 len(label) || label || ... || seed)`` under one label of :data:`DERIVATION_LABELS`, the
  one registry of them (deal/seeds.py's and the dropout-tolerant deal's), no label twice;
- coefficient stream of a seed: ``SHAKE-256(b"shanghai-net v1 key" || ctx || u8 dealer || u8 17
  || b"share coefficient" || u8 t || seed)`` read as consecutive 64-byte chunks, each reduced
  mod L, a zero skipped; all ``t-1`` are drawn again from the next chunks if some share is zero;
- share box secret: ``SHAKE-256(b"shanghai-net v1 key" || ctx || u8 dealer || u8 9
  || b"share box" || u8 holder || seed)``, 32 bytes, an X25519 secret; the box is deal/box.py's
  (HKDF-SHA256 over the X25519 secret, ChaCha20-Poly1305 with a zero nonce) under the tag
  ``b"shanghai-net v8 seed share"``, associated data ``tag || ctx || u8 dealer || u8 holder
  || u8 t``, plaintext the 32-byte share: 48 bytes.

``t`` is always the table's (``start_game.share_threshold``), never read from what a dealer
sent: a dealer that deals with another threshold is named by every check.

Nothing here does I/O or draws randomness of its own: :func:`split` takes its coefficients from
an injected source, which the dealer makes its seed's coefficient stream.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Mapping, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from nacl.bindings import crypto_core_ed25519_add

from .box import NONCE, box_cipher, raw_public
from .errors import CheatDetected
from .group import (InvalidPoint, ORDER, SCALAR_BYTES, is_scalar, is_valid_point, multiply_base,
                    multiply_each, reduce_scalar)
from .messages import Context
from .randomness import RandomBytes
from .seeds import KEY_TAG, commitment_digest

BASE_POINT = bytes.fromhex("5866666666666666666666666666666666666666666666666666666666666666")
"""B, the generator of the prime-order subgroup (RFC 8032)."""
SHARE_TAG = b"shanghai-net v8 seed share"
SHARE_BOX_BYTES = SCALAR_BYTES + 16


DERIVATION_LABELS: tuple[tuple[bytes, str], ...] = (
    (b"pass key", "deal/seeds.py: the pass-1 key a"),
    (b"card key", "deal/seeds.py: a per-card key k_j"),
    (b"permutation", "deal/seeds.py: the pass-1 permutation"),
    (b"box", "deal/seeds.py: the secret of a key-share box"),
    (b"share coefficient", "sharing: the coefficients of the seed's sharing"),
    (b"share box", "sharing: the secret of a seed-share box"),
    (b"handed box", "sharing (docs/dealing.md): a lost hand's key-share box to its replacement"),
    (b"pick nonce", "sharing (docs/dealing.md): a pick's nonce, rebuildable with the seed"),
)
"""Every label a seed is read under after ``KEY_TAG || ctx || u8 seat``, and what it is for: the
derivations are told apart by their label alone, so no label may serve two purposes."""


def seed_stream(context: Context, seat: int, label: bytes, inputs: bytes, seed: bytes):
    """The SHAKE-256 stream of ``seat``'s ``seed`` read under ``label`` (a ValueError if the label
    is not in :data:`DERIVATION_LABELS`), ``inputs`` between the label and the seed."""
    if label not in dict(DERIVATION_LABELS):
        raise ValueError(f"{label!r} is no registered derivation label")
    return hashlib.shake_256(KEY_TAG + context.encode() + bytes([seat, len(label)]) + label
                             + inputs + seed)


def abscissa(holder: int) -> int:
    """Where holder seat ``holder``'s share is taken: ``holder + 1``, never 0 (the secret)."""
    return holder + 1


def _int(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def _scalar(value: int) -> bytes:
    return (value % ORDER).to_bytes(SCALAR_BYTES, "little")


def seed_scalar(random: RandomBytes) -> bytes:
    """A seed with sharing on: a uniform nonzero scalar, so that it can be Shamir-shared as it
    is."""
    scalar = reduce_scalar(random(64))
    while scalar is None:
        scalar = reduce_scalar(random(64))
    return scalar


def coefficient_stream(context: Context, dealer: int, threshold: int,
                       seed: bytes) -> RandomBytes:
    """The dealer's coefficients as a source for :func:`split`: consecutive 64-byte chunks of the
    seed's SHAKE-256 stream, so the sharing is a function of the seed (sent again unchanged after
    a crash, recomputed by the audit once the seed is known).  ``t`` is in the input, so the
    coefficients of one threshold are no prefix of another's."""
    stream = seed_stream(context, dealer, b"share coefficient", bytes([threshold]), seed)
    taken = 0

    def take(n: int) -> bytes:
        nonlocal taken
        taken += n
        return stream.digest(taken)[taken - n:]

    return take


@dataclass(frozen=True)
class Sharing:
    """A dealt secret: the public Feldman ``commitments`` (``C_0`` first) and each holder's share
    (private: each goes sealed to its holder alone)."""

    commitments: tuple[bytes, ...]
    shares: dict[int, bytes]

    @property
    def threshold(self) -> int:
        return len(self.commitments)


def split(secret: bytes, threshold: int, holders: Sequence[int], random: RandomBytes) -> Sharing:
    """Shares of ``secret`` for ``holders`` (seats), any ``threshold`` of which rebuild it.

    The coefficients are drawn from ``random`` 64 bytes at a time, reduced mod L, a zero skipped;
    if some share comes out zero (no share may be: zero is no key) they are all drawn again."""
    if not is_scalar(secret):
        raise ValueError("the secret to share must be a canonical nonzero scalar")
    if len(set(holders)) != len(holders) or not all(0 <= h < 255 for h in holders):
        raise ValueError(f"holders {list(holders)} are not distinct seats")
    if not 1 <= threshold <= len(holders):
        raise ValueError(f"a threshold of {threshold} among {len(holders)} holders")
    while True:
        coefficients = [_int(secret)] + [_int(seed_scalar(random)) for _ in range(threshold - 1)]
        shares = {h: _evaluate(coefficients, abscissa(h)) for h in holders}
        if all(shares.values()):
            break
    commitments = multiply_base([_scalar(a) for a in coefficients])
    return Sharing(tuple(commitments), {h: _scalar(y) for h, y in shares.items()})


def _evaluate(coefficients: Sequence[int], x: int) -> int:
    value = 0
    for a in reversed(coefficients):
        value = (value * x + a) % ORDER
    return value


def share_fits(commitments: Sequence[bytes], holder: int, share: bytes) -> bool:
    """``share·B == Σ (x^k)·C_k`` with ``x`` the holder's abscissa: the share lies on the
    committed polynomial.  ``t`` multiplications; every commitment is validated, ``C_k`` for
    ``k > 0`` by being multiplied (libsodium refuses a point outside the subgroup), ``C_0``, only
    added, explicitly (a validity check costs a third of a multiplication)."""
    if not commitments or not is_valid_point(commitments[0]) or not is_scalar(share) \
            or not (isinstance(holder, int) and 0 <= holder < 255):
        return False
    x = abscissa(holder)
    try:
        terms = multiply_each([_scalar(x**k) for k in range(1, len(commitments))],
                              list(commitments[1:]))
    except InvalidPoint:
        return False
    expected = commitments[0]
    for term in terms:
        expected = crypto_core_ed25519_add(expected, term)
    return multiply_base([share])[0] == expected


def _check_count(commitments: Sequence[bytes], dealer: int, threshold: int) -> None:
    """As many commitments as the table's threshold, whatever the dealer dealt with."""
    if len(commitments) != threshold:
        raise CheatDetected(dealer, f"seat {dealer}: {len(commitments)} share commitments, "
                                    f"not the table's {threshold}")


def check_commitments(commitments: Sequence[bytes], dealer: int, threshold: int) -> None:
    """What every party checks of a dealer's commitments, holder or not: ``threshold`` valid
    points; else CheatDetected naming the dealer."""
    _check_count(commitments, dealer, threshold)
    for k, point in enumerate(commitments):
        if not is_valid_point(point):
            raise CheatDetected(dealer, f"seat {dealer}: share commitment {k} is not a valid "
                                        "point of the group")


def interpolate(points: Mapping[int, int], at: int) -> int:
    """The value at ``at`` of the polynomial of degree ``len(points) - 1`` through ``points``
    (abscissa -> value, mod L): Lagrange."""
    total = 0
    for xj, yj in points.items():
        weight = 1
        for xm in points:
            if xm != xj:
                weight = weight * (xm - at) * pow(xm - xj, -1, ORDER) % ORDER
        total = (total + weight * yj) % ORDER
    return total


def check_seed(context: Context, dealer: int, seed: bytes, digest: bytes) -> None:
    """A seed with sharing on is the secret its dealer shared only if it is a canonical nonzero
    scalar whose SHA-256 commitment is the dealer's ``digest``; else CheatDetected naming the
    dealer, with the same verdict whichever way the seed came (revealed at the audit, or rebuilt)."""
    if not is_scalar(seed) or commitment_digest(context, dealer, seed) != digest:
        raise CheatDetected(dealer, f"seat {dealer}: its seed of generation {context.generation} "
                                    "is not a canonical nonzero scalar on its commitment, so not "
                                    "the secret it shared")


def rebuild(context: Context, dealer: int, threshold: int, commitments: Sequence[bytes],
            digest: bytes, published: Mapping[int, bytes]) -> bytes:
    """The dealer's seed from the shares its holders published (holder seat -> share, in the
    order the stream sequenced them), checked against its commitments and its seed digest;
    ``threshold`` is the table's.

    Commitments of another count than the table's name the dealer; a published share off the
    commitments names its holder (it vouched for it by passing); fewer than ``t`` shares is a
    ValueError (nothing learned, nobody at fault); a rebuilt seed off the dealer's digest names
    the dealer (it shared another secret than its seed).  ``s·B == C_0`` needs no check: ``t``
    shares on ``t`` commitments give it."""
    check_commitments(commitments, dealer, threshold)
    for holder, share in published.items():
        if holder == dealer or not share_fits(commitments, holder, share):
            raise CheatDetected(holder, f"seat {holder}: published a share of seat {dealer}'s "
                                        f"seed for generation {context.generation} that is off "
                                        "its commitments")
    if len(published) < threshold:
        raise ValueError(f"{len(published)} shares of seat {dealer}'s seed for generation "
                         f"{context.generation}, {threshold} needed to rebuild it")
    return seed_from_shares(context, dealer, digest, dict(list(published.items())[:threshold]))


def seed_from_shares(context: Context, dealer: int, digest: bytes,
                     used: Mapping[int, bytes]) -> bytes:
    """The dealer's seed from ``t`` shares already checked against its commitments (holder ->
    share), checked against its seed ``digest`` (:func:`check_seed`: off it names the dealer).
    R1 checks each published share as it is sequenced, against the dealer's one commit, so its
    rebuild calls this directly; :func:`rebuild` checks the shares first."""
    seed = _scalar(interpolate({abscissa(h): _int(y) for h, y in used.items()}, 0))
    check_seed(context, dealer, seed, digest)
    return seed


# -- sealing one share to its holder ------------------------------------------------------------

@dataclass(frozen=True)
class SealedSeedShare:
    """One holder's share as the dealer's commit carries it: the header is public (the
    threshold is the table's, not the box's)."""

    context: Context
    dealer: int
    holder: int
    epk: bytes
    box: bytes


def share_box_secret(context: Context, dealer: int, holder: int, seed: bytes) -> bytes:
    """The X25519 secret of the box carrying ``holder``'s share: from the dealer's seed, one a
    holder, so that showing one opens that box alone and the audit can open them all."""
    return seed_stream(context, dealer, b"share box", bytes([holder]), seed).digest(32)


def _associated_data(sealed: SealedSeedShare, threshold: int) -> bytes:
    return SHARE_TAG + sealed.context.encode() + bytes([sealed.dealer, sealed.holder, threshold])


def seal_share(secret: bytes, holder_key: X25519PublicKey, context: Context, dealer: int,
               holder: int, threshold: int, share: bytes) -> SealedSeedShare:
    """``share`` sealed for ``holder`` alone under the box secret ``secret``; the header (context,
    seats) and the table's ``threshold`` are bound by the associated data, so a relay can move
    it nowhere."""
    ephemeral = X25519PrivateKey.from_private_bytes(secret)
    epk = raw_public(ephemeral.public_key())
    header = SealedSeedShare(context, dealer, holder, epk, b"")
    cipher = box_cipher(ephemeral.exchange(holder_key), epk, raw_public(holder_key), SHARE_TAG)
    return SealedSeedShare(context, dealer, holder, epk,
                           cipher.encrypt(NONCE, share, _associated_data(header, threshold)))


def open_share(own: X25519PrivateKey, sealed: SealedSeedShare, commitments: Sequence[bytes],
               threshold: int) -> bytes:
    """The holder's check, at once: the dealer's commitments are the table's ``threshold`` valid
    points and its box opens to a share on them; else CheatDetected naming the dealer (the
    holder's complaint, which the audit decides)."""
    try:
        shared = own.exchange(X25519PublicKey.from_public_bytes(sealed.epk))
    except ValueError:
        shared = None  # a low-order epk: no key agreement, the box cannot open
    return _checked(shared, raw_public(own.public_key()), sealed, commitments, threshold)


def open_share_with_secret(secret: bytes, holder_key: X25519PublicKey, sealed: SealedSeedShare,
                           commitments: Sequence[bytes], threshold: int) -> bytes:
    """The same check by anyone who knows the box secret (the audit, from the dealer's seed)."""
    ephemeral = X25519PrivateKey.from_private_bytes(secret)
    if raw_public(ephemeral.public_key()) != sealed.epk:
        raise CheatDetected(sealed.dealer, f"seat {sealed.dealer}: the share box for seat "
                                           f"{sealed.holder} has a box key its seed does not give")
    return _checked(ephemeral.exchange(holder_key), raw_public(holder_key), sealed, commitments,
                    threshold)


def _checked(shared: bytes | None, holder_key: bytes, sealed: SealedSeedShare,
             commitments: Sequence[bytes], threshold: int) -> bytes:
    dealer, where = sealed.dealer, f"seat {sealed.dealer}'s share for seat {sealed.holder}"
    _check_count(commitments, dealer, threshold)  # share_fits validates every point
    try:
        if shared is None:
            raise InvalidTag
        share = box_cipher(shared, sealed.epk, holder_key, SHARE_TAG).decrypt(
            NONCE, sealed.box, _associated_data(sealed, threshold))
    except InvalidTag:
        raise CheatDetected(dealer, f"seat {dealer}: {where} does not authenticate: altered, "
                                    "misdirected, relabelled or sealed wrong") from None
    if not share_fits(commitments, sealed.holder, share):
        raise CheatDetected(dealer, f"seat {dealer}: {where} is off its commitments")
    return share


# -- the dealer's side and the audit's, as docs/dealing.md puts them together -------------------

def deal_seed(context: Context, dealer: int, seed: bytes, threshold: int,
              holder_keys: Mapping[int, X25519PublicKey]) -> tuple[tuple[bytes, ...],
                                                                   list[SealedSeedShare]]:
    """What the dealer's commit carries: the commitments, and one sealed share for each holder
    (seat -> box key, every seat but the dealer, in seat order), all functions of the seed."""
    sharing = _seed_sharing(context, dealer, seed, threshold, holder_keys)
    boxes = [seal_share(share_box_secret(context, dealer, h, seed), holder_keys[h], context,
                        dealer, h, threshold, sharing.shares[h]) for h in sorted(holder_keys)]
    return sharing.commitments, boxes


def _seed_sharing(context: Context, dealer: int, seed: bytes, threshold: int,
                  holder_keys: Mapping[int, X25519PublicKey]) -> Sharing:
    if dealer in holder_keys:
        raise ValueError(f"seat {dealer} cannot hold a share of its own seed")
    return split(seed, threshold, sorted(holder_keys),
                 coefficient_stream(context, dealer, threshold, seed))


def audit_dealing(context: Context, dealer: int, threshold: int, seed: bytes, digest: bytes,
                  commitments: Sequence[bytes], boxes: Sequence[SealedSeedShare],
                  holder_keys: Mapping[int, X25519PublicKey]) -> None:
    """With the dealer's seed known (revealed or rebuilt): it is the scalar its digest commits to
    (:func:`check_seed`), its commitments are its seed's at the table's ``threshold``, and every
    box opens with the box secret its seed gives to the share its seed gives; else
    CheatDetected naming the dealer."""
    check_seed(context, dealer, seed, digest)
    check_commitments(commitments, dealer, threshold)
    expected = _seed_sharing(context, dealer, seed, threshold, holder_keys)
    if tuple(commitments) != expected.commitments:
        raise CheatDetected(dealer, f"seat {dealer}: its share commitments of generation "
                                    f"{context.generation} are not its seed's")
    holders = [(b.context, b.dealer, b.holder) for b in boxes]
    if holders != [(context, dealer, h) for h in sorted(holder_keys)]:
        raise CheatDetected(dealer, f"seat {dealer}: its share boxes of generation "
                                    f"{context.generation} are not one for each other seat")
    for sealed in boxes:
        open_share_with_secret(share_box_secret(context, dealer, sealed.holder, seed),
                               holder_keys[sealed.holder], sealed, commitments, threshold)
