"""Signatures and the hash chain over game messages.

Each game message is signed by its author over canonical bytes that bind it to the game, its
place in the sequence and the hash of the message before it.  So the host, which orders the
messages, can neither forge a move, nor drop or reorder one without every peer noticing.

Canonical bytes are the msgpack encoding (``use_bin_type=True``, so str and bin stay apart) of the
array ``[DOMAIN, game_id, seq, prev, author, body]`` where, recursively inside ``body``, every map
has its keys (always strings) sorted by their UTF-8 bytes and every array keeps its order.
msgpack-python writes every integer and every length in its shortest form and every float as
float64, so the bytes are a pure function of the values.

A seat rejoining a running game proves that it holds its key by signing the host's fresh
challenge (`proof_bytes`), so knowing a seat's public key is not enough to take its place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .errors import RemoteProtocolError
from .messages import Body, GameMessage, Proof, StartGame

__all__ = ["DOMAIN", "GENESIS", "START_DOMAIN", "canonical", "signed_bytes", "sign_game",
           "chain_hash", "start_digest", "Chain", "PROOF_DOMAIN", "proof_bytes", "sign_proof",
           "check_proof"]

DOMAIN = "shanghai-net/v1/game"
"""Separates these signatures from any other use of the same key."""

GENESIS = bytes(32)
"""A chain's head before any message when no ``start_game`` binds it (unit tests of the chain);
a game's chain starts at its `start_digest`."""

START_DOMAIN = "shanghai-net/v1/start"


def start_digest(start: Mapping) -> bytes:
    """The ``prev`` of a game's first message (seq 0): SHA-256 of the canonical bytes of the
    ``start_game`` map (its wire form, ``type`` included), so that every message of the game
    also vouches that its author was given the same seats, keys and rules as every other peer:
    a host that gave two peers different ``start_game`` maps breaks the chain at seq 0."""
    return hashlib.sha256(msgpack.packb([START_DOMAIN, canonical(start)],
                                        use_bin_type=True)).digest()

PROOF_DOMAIN = b"shanghai-net v1 rejoin"
"""Begins a rejoin proof's signed bytes: no game message's bytes (a msgpack array) begin so."""


def canonical(value: Any) -> Any:
    """``value`` with every map's keys sorted and arrays as lists, ready to pack."""
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise ValueError(f"map key {key!r} is not a string")
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, (list, tuple)):
        return [canonical(item) for item in value]
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    raise ValueError(f"{type(value).__name__} has no msgpack form")


def signed_bytes(game_id: bytes, seq: int, prev: bytes, author: int, body: Mapping) -> bytes:
    """The exact bytes an author signs for a game message."""
    return msgpack.packb([DOMAIN, game_id, seq, prev, author, canonical(body)], use_bin_type=True)


def sign_game(key: Ed25519PrivateKey, game_id: bytes, seq: int, prev: bytes, author: int,
              body: Body) -> GameMessage:
    sig = key.sign(signed_bytes(game_id, seq, prev, author, body.to_wire()))
    return GameMessage(seq=seq, prev=prev, author=author, body=body, sig=sig)


def chain_hash(game_id: bytes, msg: GameMessage) -> bytes:
    """SHA-256 of the signed bytes followed by the signature: the next message's ``prev``."""
    data = signed_bytes(game_id, msg.seq, msg.prev, msg.author, msg.body_wire)
    return hashlib.sha256(data + msg.sig).digest()


class Chain:
    """One game's sequence of signed messages, as far as it has been verified.

    The host appends each move it accepts (the first valid one for each seq wins; a move signed
    against an older head is ``stale`` and its author re-signs); every peer appends what the host
    relays, so any forgery, gap or reordering raises here.
    """

    def __init__(self, game_id: bytes, seat_keys: Mapping[int, bytes],
                 genesis: bytes = GENESIS) -> None:
        self.game_id = game_id
        self.head = genesis
        self.next_seq = 0
        self._checked: tuple[GameMessage, bytes] | None = None
        """The message `check` verified last, and its chain hash."""
        self._keys: dict[int, Ed25519PublicKey] = {}
        for seat, raw in seat_keys.items():
            try:
                self._keys[seat] = Ed25519PublicKey.from_public_bytes(raw)
            except ValueError:
                raise RemoteProtocolError(
                    "bad_signature", f"seat {seat}'s key {raw.hex()} is not an Ed25519 key"
                ) from None

    def sign(self, key: Ed25519PrivateKey, author: int, body: Body) -> GameMessage:
        """``body`` signed by ``author`` as the next message after the current head."""
        return sign_game(key, self.game_id, self.next_seq, self.head, author, body)

    def check(self, msg: GameMessage) -> bytes:
        """Verify that ``msg`` is the valid next message; returns its chain hash."""
        if msg.seq < self.next_seq:
            raise RemoteProtocolError(
                "stale", f"seq {msg.seq} is already taken; the next is {self.next_seq}", msg.seq)
        if msg.seq > self.next_seq:
            raise RemoteProtocolError(
                "broken_chain", f"seq {msg.seq} skips ahead of {self.next_seq}", msg.seq)
        if msg.prev != self.head:
            raise RemoteProtocolError(
                "broken_chain", f"seq {msg.seq} has prev {msg.prev.hex()}, expected "
                f"{self.head.hex()}", msg.seq)
        public = self._keys.get(msg.author)
        if public is None:
            raise RemoteProtocolError(
                "bad_signature", f"seq {msg.seq}: author {msg.author} has no seat", msg.seq)
        data = signed_bytes(self.game_id, msg.seq, msg.prev, msg.author, msg.body_wire)
        try:
            public.verify(msg.sig, data)
        except InvalidSignature:
            raise RemoteProtocolError(
                "bad_signature", f"seq {msg.seq}: signature does not verify with seat "
                f"{msg.author}'s key", msg.seq) from None
        digest = hashlib.sha256(data + msg.sig).digest()
        self._checked = (msg, digest)
        return digest

    def append(self, msg: GameMessage) -> bytes:
        """Verify ``msg`` and make it the new head; returns the new head hash.  The message
        `check` has just verified is not verified twice."""
        last = self._checked
        self.head = last[1] if last is not None and last[0] is msg else self.check(msg)
        self._checked = None
        self.next_seq += 1
        return self.head


def signed_by(start: StartGame, msg: GameMessage) -> None:
    """Raise ``bad_signature`` unless ``msg`` carries its author's signature (its seat's key in
    ``start``), wherever in the chain it was meant to go (evidence shown out of the chain)."""
    keys = {s.seat: s.sign_key for s in start.seats}
    try:
        Ed25519PublicKey.from_public_bytes(keys[msg.author]).verify(
            msg.sig, signed_bytes(start.game_id, msg.seq, msg.prev, msg.author, msg.body_wire))
    except (InvalidSignature, KeyError, ValueError):
        raise RemoteProtocolError("bad_signature", f"a message said to be seat {msg.author}'s "
                                                   "does not carry its signature") from None


def proof_bytes(game_id: bytes, challenge: bytes) -> bytes:
    """The exact bytes a rejoining seat signs: the game's id and the host's fresh challenge bind
    the proof to this game and this connection, so it cannot be replayed."""
    if len(game_id) != 16 or len(challenge) != 32:
        raise ValueError("a rejoin proof needs a 16-byte game id and a 32-byte challenge")
    return PROOF_DOMAIN + game_id + challenge


def sign_proof(key: Ed25519PrivateKey, game_id: bytes, challenge: bytes) -> Proof:
    return Proof(sig=key.sign(proof_bytes(game_id, challenge)))


def check_proof(sign_key: bytes, game_id: bytes, challenge: bytes, proof: Proof) -> None:
    """Raise ``bad_signature`` unless ``proof`` is the holder of ``sign_key`` answering
    ``challenge`` in game ``game_id``."""
    try:
        Ed25519PublicKey.from_public_bytes(sign_key).verify(
            proof.sig, proof_bytes(game_id, challenge))
    except (InvalidSignature, ValueError):
        raise RemoteProtocolError(
            "bad_signature", "the rejoin proof does not verify with the seat's key") from None
