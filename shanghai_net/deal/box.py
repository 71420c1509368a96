"""End-to-end sealing of private key material from one seat to another.

A relay between the two learns nothing and cannot move a share to another position, seat or
shuffle: the associated data binds all of them.

- key: ``HKDF-SHA256(X25519(own, peer), salt=None, length=32,
  info=b"shanghai-net v1 box" || sender X25519 public || recipient X25519 public)``,
  one key per direction;
- associated data: ``b"shanghai-net v1 box" || ctx || u8 sender || u8 recipient
  || u16 count || u16 position...``;
- ChaCha20-Poly1305 with a fresh 12-byte nonce from the injected random source.
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .messages import Context
from .randomness import RandomBytes

BOX_TAG = b"shanghai-net v1 box"
NONCE_BYTES = 12


@dataclass(frozen=True)
class SealedShare:
    """A sealed :class:`KeyShare`: the header is public, the keys are not."""

    context: Context
    author: int
    recipient: int
    positions: tuple[int, ...]
    nonce: bytes
    ciphertext: bytes


def _raw(key: X25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def box_cipher(own: X25519PrivateKey, sender: X25519PublicKey,
               recipient: X25519PublicKey) -> ChaCha20Poly1305:
    """The cipher for messages from ``sender`` to ``recipient``; ``own`` is either's private key."""
    peer = recipient if _raw(own.public_key()) == _raw(sender) else sender
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
               info=BOX_TAG + _raw(sender) + _raw(recipient)).derive(own.exchange(peer))
    return ChaCha20Poly1305(key)


def associated_data(context: Context, sender: int, recipient: int,
                    positions: tuple[int, ...]) -> bytes:
    return (BOX_TAG + context.encode() + bytes([sender, recipient]) + len(positions).to_bytes(2, "big")
            + b"".join(p.to_bytes(2, "big") for p in positions))


def seal(cipher: ChaCha20Poly1305, context: Context, sender: int, recipient: int,
         positions: tuple[int, ...], plaintext: bytes, random: RandomBytes) -> SealedShare:
    nonce = random(NONCE_BYTES)
    ad = associated_data(context, sender, recipient, positions)
    return SealedShare(context, sender, recipient, positions, nonce,
                       cipher.encrypt(nonce, plaintext, ad))


def unseal(cipher: ChaCha20Poly1305, sealed: SealedShare) -> bytes:
    """The plaintext; ValueError if the box was altered, misdirected or relabelled on the way."""
    ad = associated_data(sealed.context, sealed.author, sealed.recipient, sealed.positions)
    try:
        return cipher.decrypt(sealed.nonce, sealed.ciphertext, ad)
    except (InvalidTag, ValueError):
        raise ValueError(f"sealed share from seat {sealed.author} to seat {sealed.recipient} for "
                         f"positions {list(sealed.positions)} does not authenticate: altered, "
                         "misdirected or relabelled") from None
