"""What a seat's whole game comes from, and how it changes hands: `SeatSecret`, `seal_secrets`.

A seat draws every deal secret (seeds, pick nonces, proof blinds) from a key derived from a
32-byte secret, and opens the key shares sealed to it with a box key derived from the same
secret; its ``hello`` carries that box key, so a box key serves one join, never the user's
identity.  Handing the seat over (protocol.md 11.9) is then one sealed message: the holder's
secrets, sealed end to end to the successor's own box key, let the successor replay the seat
from the stream as a crashed seat does and play on; nothing of the holder's identity goes with
them.  From the next deal the seat uses the successor's own secret, which no one else holds.

Sealed layout: ``epk`` (32 bytes, an X25519 key of the sender's) then ChaCha20-Poly1305 (zero
nonce: the key serves one box) under ``HKDF-SHA256(X25519(e, successor box key),
info=HANDOVER_TAG || epk || successor box key)``, the associated data ``HANDOVER_TAG || game id
|| u8 seat || successor sign key``, the plaintext the secrets one after another (32 bytes each).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from ..deal.box import box_cipher, raw_public
from ..deal.randomness import RandomBytes, chained
from ..wire.messages import SEALED_MAX

__all__ = ["SeatSecret", "seal_secrets", "open_secrets", "HANDOVER_TAG", "SECRET_BYTES",
           "MAX_SECRETS"]

SECRET_BYTES = 32
HANDOVER_TAG = b"shanghai-net v1 hand-over"
_KEY_DOMAIN = b"shanghai-net v1 game secret"
_BOX_DOMAIN = b"shanghai-net v1 seat box key"
MAX_SECRETS = (SEALED_MAX - 32 - 16) // SECRET_BYTES
"""The most secrets a ``hand_over`` carries: a seat handed on this many times in one game."""


@dataclass(frozen=True)
class SeatSecret:
    """One holder's secret of a seat: its box key and, in a given game, its deal randomness."""

    value: bytes

    def __post_init__(self) -> None:
        if len(self.value) != SECRET_BYTES:
            raise ValueError(f"a seat secret is {SECRET_BYTES} bytes, not {len(self.value)}")

    def __repr__(self) -> str:
        return f"SeatSecret(box {self.box_public.hex()[:16]})"  # never print the secret

    @property
    def box_key(self) -> X25519PrivateKey:
        return X25519PrivateKey.from_private_bytes(
            hashlib.sha256(_BOX_DOMAIN + self.value).digest())

    @property
    def box_public(self) -> bytes:
        return raw_public(self.box_key.public_key())

    def randomness(self, game_id: bytes, start_digest: bytes,
                   head: Callable[[], bytes]) -> RandomBytes:
        """The seat's deal randomness in the game of ``start_game`` digest ``start_digest``,
        bound to each draw's place in the chain (`deal.randomness.chained`)."""
        key = hashlib.sha256(_KEY_DOMAIN + game_id + start_digest + self.value).digest()
        return chained(key, head)


def _associated(game_id: bytes, seat: int, sign_key: bytes) -> bytes:
    return HANDOVER_TAG + game_id + bytes([seat]) + sign_key


def seal_secrets(secrets: Sequence[SeatSecret], box_key: bytes, game_id: bytes, seat: int,
                 sign_key: bytes, ephemeral: bytes) -> bytes:
    """``secrets`` sealed to the successor's ``box_key`` for ``seat`` of ``game_id``, bound to
    the successor's ``sign_key`` (a relay cannot move them to another seat, game or successor);
    ``ephemeral``: 32 fresh bytes of the sender's."""
    if not 0 < len(secrets) <= MAX_SECRETS:
        raise ValueError(f"between 1 and {MAX_SECRETS} secrets are handed over, not "
                         f"{len(secrets)}")
    e = X25519PrivateKey.from_private_bytes(ephemeral)
    epk = raw_public(e.public_key())
    cipher = box_cipher(e.exchange(X25519PublicKey.from_public_bytes(box_key)), epk, box_key,
                        HANDOVER_TAG)
    return epk + cipher.encrypt(bytes(12), b"".join(s.value for s in secrets),
                                _associated(game_id, seat, sign_key))


def open_secrets(sealed: bytes, box_key: X25519PrivateKey, game_id: bytes, seat: int,
                 sign_key: bytes) -> list[SeatSecret]:
    """The secrets in ``sealed`` (`seal_secrets`), opened with the successor's ``box_key``;
    ValueError if they were not sealed to it for this seat, game and signing key."""
    epk, ciphertext = sealed[:32], sealed[32:]
    mine = raw_public(box_key.public_key())
    try:
        shared = box_key.exchange(X25519PublicKey.from_public_bytes(epk))
        plain = box_cipher(shared, epk, mine, HANDOVER_TAG).decrypt(
            bytes(12), ciphertext, _associated(game_id, seat, sign_key))
    except (InvalidTag, ValueError):
        raise ValueError(f"the hand-over of seat {seat} does not open with our box key: it was "
                         "not sealed to us for this seat and game") from None
    if not plain or len(plain) % SECRET_BYTES:
        raise ValueError(f"the hand-over of seat {seat} holds {len(plain)} bytes, not whole "
                         "secrets")
    return [SeatSecret(plain[i:i + SECRET_BYTES]) for i in range(0, len(plain), SECRET_BYTES)]
