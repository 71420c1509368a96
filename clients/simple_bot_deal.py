"""The deal's byte layouts (docs/security.md, "Byte layouts") and one shuffle as simple_bot's
seat sees it.  Part of clients/simple_bot.py (see its docstring); like it, it imports nothing
from ``shanghai_net``."""

from __future__ import annotations

import hashlib
import struct

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from nacl import bindings as sodium

from simple_bot_wire import BotStopped

BOX_DOMAIN = b"shanghai-net v2 box"


# --------------------------------------------------------------------------------------------
# The deal's byte layouts (security.md, "Byte layouts").

def context(game_id: bytes, round_no: int, generation: int) -> bytes:
    return struct.pack(">H", len(game_id)) + game_id + struct.pack(">II", round_no, generation)


def card_point(card: int) -> bytes:
    digest = hashlib.sha512(b"shanghai-net v1 card" + struct.pack(">H", card)).digest()
    return sodium.crypto_core_ed25519_from_uniform(digest[:32])


def seed_commitment(ctx: bytes, seat: int, seed: bytes) -> bytes:
    return hashlib.sha256(b"shanghai-net v1 seed commitment" + ctx + bytes([seat]) + seed).digest()


def key_stream(ctx: bytes, seat: int, label: bytes, index: int, attempt: int, seed: bytes):
    return hashlib.shake_256(b"shanghai-net v1 key" + ctx + bytes([seat, len(label)]) + label
                             + struct.pack(">HB", index, attempt) + seed)


def derive_scalar(ctx: bytes, seat: int, label: bytes, index: int, seed: bytes) -> bytes:
    for attempt in range(256):
        scalar = sodium.crypto_core_ed25519_scalar_reduce(
            key_stream(ctx, seat, label, index, attempt, seed).digest(64))
        if any(scalar):
            return scalar
    raise BotStopped("no nonzero scalar in 256 attempts")


def permutation(ctx: bytes, seat: int, seed: bytes, n: int) -> list[int]:
    """Fisher-Yates driven by SHAKE-256 words, rejecting the biased top of the range."""
    stream = key_stream(ctx, seat, b"permutation", 0, 0, seed).digest(8 * n + 4096)
    words = (int.from_bytes(stream[i:i + 4], "big") for i in range(0, len(stream), 4))
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - 2**32 % bound
        word = next(w for w in words if w < limit)
        j = word % bound
        order[i], order[j] = order[j], order[i]
    return order


def times(scalar: bytes, point: bytes) -> bytes:
    return sodium.crypto_scalarmult_ed25519_noclamp(scalar, point)


def product(scalars) -> bytes:
    total = (1).to_bytes(32, "little")
    for scalar in scalars:
        total = sodium.crypto_core_ed25519_scalar_mul(total, scalar)
    return total


def box_cipher(own_secret: bytes, peer_pub: bytes, epk: bytes, recipient_pub: bytes,
               domain: bytes = BOX_DOMAIN) -> ChaCha20Poly1305:
    """The cipher of one box: X25519 between the box's own key (``epk``) and the recipient's;
    ``own_secret`` is the box secret (sender) or the recipient's box key (recipient); ``domain``
    tells what it seals (key shares, or with sharing on a seed share)."""
    shared = sodium.crypto_scalarmult(own_secret, peer_pub)
    key = HKDF(hashes.SHA256(), length=32, salt=b"",
               info=domain + epk + recipient_pub).derive(shared)
    return ChaCha20Poly1305(key)


def box_associated_data(ctx: bytes, sender: int, recipient: int, positions: list[int]) -> bytes:
    return (BOX_DOMAIN + ctx + bytes([sender, recipient]) + struct.pack(">H", len(positions))
            + b"".join(struct.pack(">H", p) for p in positions))


def pick_digest(ctx: bytes, pick: int, n: int, parties: list[int], author: int,
                nonce: bytes) -> bytes:
    return hashlib.sha256(b"shanghai-net v1 pick commitment" + ctx + struct.pack(">II", pick, n)
                          + bytes([len(parties), *parties, author]) + nonce).digest()


def pick_result(ctx: bytes, pick: int, n: int, nonces: list[bytes]) -> int:
    limit = 2**64 - 2**64 % n
    counter = 0
    while True:
        digest = hashlib.sha256(b"shanghai-net v1 pick result" + ctx + struct.pack(">II", pick, n)
                                + b"".join(nonces) + struct.pack(">I", counter)).digest()
        word = int.from_bytes(digest[:8], "big")
        if word < limit:
            return word % n
        counter += 1


# --------------------------------------------------------------------------------------------
# One shuffle ("generation") of a round, as this seat sees it.

class Generation:
    """The cards of one shuffle, the passes sequenced so far, this seat's secrets and the keys
    it holds for positions it may open; with sharing on (docs/dealing.md), its holders, each
    dealer's Feldman commitments and the seed shares this seat holds."""

    def __init__(self, game_id: bytes, round_no: int, number: int, cards: list[int],
                 seat: int, seed: bytes, holders: list[int] | None = None) -> None:
        self.round_no, self.number, self.cards, self.seat = round_no, number, cards, seat
        self.ctx = context(game_id, round_no, number)
        self.seed = seed
        self.commits: dict[int, bytes] = {}
        self.holders = holders
        """Sharing on: the seats holding shares, fixed at the message that asked for this
        shuffle (a commit's holders are these but its dealer); None: sharing off."""
        self.feldman: dict[int, list[bytes]] = {}
        """dealer -> its commitments C_0..C_{t-1}."""
        self.held: dict[int, bytes] = {}
        """dealer -> this seat's share of its seed (checked when its commit was sequenced)."""
        self.outputs: list[list[bytes]] = []
        """Pass outputs in sequence order: every seat's pass 1, then every seat's pass 2."""
        self.keys: dict[int, dict[int, bytes]] = {}
        """position -> seat -> that seat's key for it (shares sent to us, public reveals)."""
        self._lookup: dict[bytes, int] | None = None

    def card_key(self, position: int) -> bytes:
        return derive_scalar(self.ctx, self.seat, b"card key", position, self.seed)

    def box_secret(self, recipient: int, positions: list[int]) -> bytes:
        """The X25519 secret of the box carrying this seat's keys of ``positions``."""
        return hashlib.shake_256(
            b"shanghai-net v1 key" + self.ctx + bytes([self.seat, 3]) + b"box"
            + bytes([recipient]) + struct.pack(">H", len(positions))
            + b"".join(struct.pack(">H", p) for p in positions) + self.seed).digest(32)

    def sealed_keys(self, recipient: int, positions: list[int], recipient_key: bytes,
                    secret: bytes) -> dict:
        """This seat's keys of ``positions`` sealed to ``recipient`` (its box key
        ``recipient_key``) under the box secret ``secret``: one box of a ``shares`` body."""
        epk = sodium.crypto_scalarmult_base(secret)
        cipher = box_cipher(secret, recipient_key, epk, recipient_key)
        sealed = cipher.encrypt(bytes(12), b"".join(self.card_key(p) for p in positions),
                                box_associated_data(self.ctx, self.seat, recipient, positions))
        return {"to": recipient, "positions": positions, "epk": epk, "box": sealed}

    def my_pass(self, phase: int) -> list[bytes]:
        return self.pass_of(self.seat, self.seed, phase)

    def pass_of(self, seat: int, seed: bytes, phase: int) -> list[bytes]:
        """``seat``'s next pass with its ``seed`` (ours, or a lost seat's rebuilt one).  Pass 1:
        every point times the pass key, permuted.  Pass 2: the pass-key layer of each position
        replaced by its per-card key."""
        points = self.outputs[-1] if self.outputs else [card_point(c) for c in self.cards]
        pass_key = derive_scalar(self.ctx, seat, b"pass key", 0, seed)
        if phase == 1:
            order = permutation(self.ctx, seat, seed, len(points))
            return [times(pass_key, points[order[t]]) for t in range(len(points))]
        unlayer = sodium.crypto_core_ed25519_scalar_invert(pass_key)
        return [times(sodium.crypto_core_ed25519_scalar_mul(
            unlayer, derive_scalar(self.ctx, seat, b"card key", j, seed)), point)
            for j, point in enumerate(points)]

    def open(self, position: int, keys) -> int:
        """The card at ``position`` of the final deck, with every seat's key for it."""
        if self._lookup is None:
            self._lookup = {card_point(card): card for card in self.cards}
        strip = sodium.crypto_core_ed25519_scalar_invert(product(keys))
        card = self._lookup.get(times(strip, self.outputs[-1][position]))
        if card is None:
            raise BotStopped(f"round {self.round_no} generation {self.number} position "
                             f"{position} opens to no card")
        return card


class Pick:
    """A commit-reveal random pick among ``parties``; ``then`` gets the result."""

    def __init__(self, round_no: int, number: int, n: int, parties: list[int], then,
                 nonce: bytes) -> None:
        self.round_no, self.number, self.n = round_no, number, n
        self.parties, self.then, self.nonce = parties, then, nonce
        self.commits: dict[int, bytes] = {}
        self.nonces: dict[int, bytes] = {}
        self.generation: int | None = None
        """Sharing on: the generation whose seeds give the nonces, fixed as the pick begins
        (None: drawn, as with sharing off)."""
        self.public: set[int] = set()
        """Sharing on: the parties whose seed of ``generation`` was public, or being rebuilt,
        as the pick began: they draw their nonces."""
