"""End-to-end sealing of private key material from one seat to another.

A relay between the two learns nothing and cannot move a share to another position, seat or
shuffle: the associated data binds all of them.  Each box has its own X25519 key pair, derived
from the sender's seed of the generation (``SeedKeys.box_secret``), so that

- a box is a function of what it carries: sending it again (after a crash) gives the same bytes,
  and no key or nonce is ever used for two plaintexts;
- once the round's seeds are revealed, anyone can open every box of the round and check what its
  sender sealed: a complaint of a box that does not open, or holds a wrong key, is decided from
  the transcript, and never rests on the recipient's word.

Layout:

- ephemeral secret ``e`` = ``SeedKeys.box_secret(recipient, positions)``; ``epk`` its X25519 public
  key, sent with the box;
- key: ``HKDF-SHA256(X25519(e, recipient), salt=b"", length=32,
  info=b"shanghai-net v2 box" || epk || recipient X25519 public)``;
- associated data: ``b"shanghai-net v2 box" || ctx || u8 sender || u8 recipient
  || u16 count || u16 position...``;
- ChaCha20-Poly1305 with a nonce of 12 zero bytes (every box has a key of its own);
- plaintext: the sender's 32-byte per-card key of each position, in the header's order.
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .messages import Context, KeyShare

BOX_TAG = b"shanghai-net v2 box"
"""v2: the plaintext is the bare keys (v1 boxes held a signed, msgpack-encoded share)."""
NONCE = bytes(12)
KEY_BYTES = 32
BOX_OVERHEAD = 16
"""The ChaCha20-Poly1305 tag: a box is 32 bytes a position and this."""


@dataclass(frozen=True)
class SealedShare:
    """A sealed :class:`KeyShare`: the header is public, the keys are not."""

    context: Context
    author: int
    recipient: int
    positions: tuple[int, ...]
    epk: bytes
    """The box's own X25519 public key (its secret comes from the author's seed)."""
    ciphertext: bytes


def raw_public(key: X25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def box_cipher(shared: bytes, epk: bytes, recipient: bytes, tag: bytes = BOX_TAG
               ) -> ChaCha20Poly1305:
    """The AEAD of one box: its key is HKDF-SHA256 over the X25519 ``shared`` secret, bound to
    ``tag`` (what is sealed: key shares, or a seat's secrets handed over), ``epk`` and the
    recipient's public key."""
    key = HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=b"",
               info=tag + epk + recipient).derive(shared)
    return ChaCha20Poly1305(key)


def associated_data(context: Context, sender: int, recipient: int,
                    positions: tuple[int, ...]) -> bytes:
    return (BOX_TAG + context.encode() + bytes([sender, recipient]) + len(positions).to_bytes(2, "big")
            + b"".join(p.to_bytes(2, "big") for p in positions))


def seal(secret: bytes, recipient_key: X25519PublicKey, context: Context, sender: int,
         recipient: int, positions: tuple[int, ...], plaintext: bytes) -> SealedShare:
    """Seal ``plaintext`` for ``recipient_key`` under the box secret ``secret`` (32 bytes)."""
    ephemeral = X25519PrivateKey.from_private_bytes(secret)
    epk = raw_public(ephemeral.public_key())
    cipher = box_cipher(ephemeral.exchange(recipient_key), epk, raw_public(recipient_key))
    ad = associated_data(context, sender, recipient, positions)
    return SealedShare(context, sender, recipient, positions, epk,
                       cipher.encrypt(NONCE, plaintext, ad))


def unseal(own: X25519PrivateKey, sealed: SealedShare) -> bytes:
    """The plaintext, opened by its recipient; ValueError if the box was altered, misdirected or
    relabelled on the way, or sealed wrong."""
    try:
        shared = own.exchange(X25519PublicKey.from_public_bytes(sealed.epk))
    except ValueError:
        shared = None  # a low-order epk: no key agreement, so the box cannot open
    return _open(shared, sealed, raw_public(own.public_key()))


def unseal_with_secret(secret: bytes, recipient_key: X25519PublicKey,
                       sealed: SealedShare) -> bytes:
    """The plaintext, opened by anyone who knows the box secret (the audit, once the sender's
    seed is revealed); ValueError if ``epk`` is not the secret's or the box does not open."""
    ephemeral = X25519PrivateKey.from_private_bytes(secret)
    if raw_public(ephemeral.public_key()) != sealed.epk:
        raise ValueError(f"sealed share from seat {sealed.author} to seat {sealed.recipient} for "
                         f"positions {list(sealed.positions)} carries a box key its seed does not "
                         "give")
    return _open(ephemeral.exchange(recipient_key), sealed, raw_public(recipient_key))


def share_in(plaintext: bytes, sealed: SealedShare) -> KeyShare:
    """The key share an opened box holds: one 32-byte key per position of its header, in the
    header's order (the recipient taking it, and the audit checking it, read the same);
    ValueError saying what is wrong.  The header itself is bound by the associated data, and
    the box by its author's signature on the game message that carried it."""
    if len(plaintext) != KEY_BYTES * len(sealed.positions):
        raise ValueError(f"it holds {len(plaintext)} bytes, not a 32-byte key for each of "
                         f"{len(sealed.positions)} positions")
    keys = tuple(plaintext[i:i + KEY_BYTES] for i in range(0, len(plaintext), KEY_BYTES))
    return KeyShare(sealed.context, sealed.author, sealed.recipient, sealed.positions, keys)


def _open(shared: bytes | None, sealed: SealedShare, recipient: bytes) -> bytes:
    ad = associated_data(sealed.context, sealed.author, sealed.recipient, sealed.positions)
    try:
        if shared is None:
            raise ValueError("no shared secret")
        return box_cipher(shared, sealed.epk, recipient).decrypt(NONCE, sealed.ciphertext, ad)
    except (InvalidTag, ValueError):
        raise ValueError(f"sealed share from seat {sealed.author} to seat {sealed.recipient} for "
                         f"positions {list(sealed.positions)} does not authenticate: altered, "
                         "misdirected, relabelled or sealed wrong") from None
