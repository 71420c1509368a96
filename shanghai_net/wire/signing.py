"""Signatures and the hash chain over game messages.

Each game message is signed by its author over canonical bytes that bind it to the game (its
start digest: the game id, the seats, their keys and the rules, as this peer was given them), its
author's own counter (rising, so nothing can be replayed or moved before another of the same
author's) and, for a move, the ``basis``: the seq and chain hash of the last message the author
had seen when it decided.  Steps that commute (deal steps, votes, complaints) carry no basis, so
another seat's message sequenced meanwhile never makes them stale.  The host orders the messages
into a hash chain that every peer recomputes; each move's basis names a link of it, so a host
that shows two peers two different orders is caught at the next move either of them signs.

Canonical bytes are the msgpack encoding (``use_bin_type=True``, so str and bin stay apart) of the
array ``[DOMAIN, start, author, counter, basis_seq, basis_head, body]`` (nil for no basis)
where, recursively inside ``body``, every map has its keys (always strings) sorted by their UTF-8
bytes and every array keeps its order.  msgpack-python writes every integer and every length in
its shortest form and every float as float64, so the bytes are a pure function of the values.
A message's chain hash is SHA-256 over ``msgpack([CHAIN_DOMAIN, seq, prev])``, the signed bytes
and the signature, where ``prev`` is the chain hash of the message before (the start digest for
seq 0).  The host sends only ``seq``: every peer knows ``prev``, its own head, so a host that
showed two peers two orders leaves them two heads, and the next move either signs names a basis
the other's chain does not hold.

A seat rejoining a running game proves that it holds its key by signing the host's fresh
challenge (`proof_bytes`), so knowing a seat's public key is not enough to take its place.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from .errors import RemoteProtocolError
from .messages import Body, GameMessage, Proof

__all__ = ["DOMAIN", "CHAIN_DOMAIN", "GENESIS", "START_DOMAIN", "canonical", "signed_bytes",
           "sign_wire", "sign_game", "chain_hash", "start_digest", "Chain", "PROOF_DOMAIN", "proof_bytes",
           "sign_proof", "check_proof"]

DOMAIN = "shanghai-net/v4/game"
"""Separates these signatures from any other use of the same key (and from earlier versions')."""

CHAIN_DOMAIN = "shanghai-net/v4/chain"

GENESIS = bytes(32)
"""A chain's head before any message when no ``start_game`` binds it (unit tests of the chain);
a game's chain starts at its `start_digest`."""

START_DOMAIN = "shanghai-net/v1/start"


def start_digest(start: Mapping) -> bytes:
    """The chain's head before a game's first message (seq 0): SHA-256 of the canonical bytes of
    the ``start_game`` map (its wire form, ``type`` included), so that every message of the game
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


def signed_bytes(start: bytes, author: int, counter: int, basis_seq: int | None,
                 basis_head: bytes | None, body: Mapping) -> bytes:
    """The exact bytes an author signs for a game message of the game whose `start_digest` is
    ``start``: a peer given another ``start_game`` than the others (another seat's box key, say)
    cannot take a single message of theirs, nor they one of its."""
    return msgpack.packb([DOMAIN, start, author, counter, basis_seq, basis_head,
                          canonical(body)], use_bin_type=True)


def _signed(start: bytes, msg: GameMessage) -> bytes:
    return signed_bytes(start, msg.author, msg.counter, msg.basis_seq, msg.basis_head,
                        msg.body_wire)


def _body_at(start: bytes, msg: GameMessage) -> int:
    """Where ``msg``'s body begins in its signed bytes: after the array's header and its six
    first elements (msgpack writes an array's elements one after another; the nil packed
    here in the body's place is one byte)."""
    return len(msgpack.packb([DOMAIN, start, msg.author, msg.counter, msg.basis_seq,
                              msg.basis_head, None], use_bin_type=True)) - 1


def sign_wire(key: Ed25519PrivateKey, start: bytes, author: int, counter: int,
              body: Mapping, basis: tuple[int, bytes] | None = None) -> dict[str, Any]:
    """The wire map of ``body`` (any map: unknown fields are signed too) signed by ``author``
    as its message number ``counter``, decided on ``basis`` (seq, chain hash) if it is a move;
    unsequenced: the host fills in ``seq``."""
    basis_seq, basis_head = basis if basis is not None else (None, None)
    sig = key.sign(signed_bytes(start, author, counter, basis_seq, basis_head, body))
    wire = {"type": GameMessage.TYPE, "author": author, "counter": counter, "body": dict(body),
            "sig": sig}
    return wire if basis is None else {**wire, "basis_seq": basis_seq, "basis_head": basis_head}


def sign_game(key: Ed25519PrivateKey, start: bytes, author: int, counter: int, body: Body,
              basis: tuple[int, bytes] | None = None) -> GameMessage:
    """`sign_wire` of a body this side built."""
    wire = sign_wire(key, start, author, counter, body.to_wire(), basis)
    return GameMessage(author=author, counter=counter, body=body, sig=wire["sig"],
                       basis_seq=wire.get("basis_seq"), basis_head=wire.get("basis_head"))


def chain_hash(start: bytes, prev: bytes, msg: GameMessage) -> bytes:
    """The chain's head after ``msg`` (of the game whose start digest is ``start``), placed at
    its seq after the head ``prev``."""
    return _link(msg, prev, _signed(start, msg))


def _link(msg: GameMessage, prev: bytes, signed: bytes) -> bytes:
    """The chain hash of ``msg`` placed at its seq after ``prev``, given its signed bytes."""
    placing = msgpack.packb([CHAIN_DOMAIN, msg.seq, prev], use_bin_type=True)
    return hashlib.sha256(placing + signed + msg.sig).digest()


class Chain:
    """One game's sequence of signed messages, as far as it has been verified.

    The host places each message it accepts as the next link (`place`); every peer appends
    what the host relays, so any forgery, gap, replay or reordering raises here.  A message is
    refused ``stale`` when its author's counter does not rise; a move's basis must name a link
    of this chain (whether a move since makes it stale is the table's rule, not the chain's).
    """

    def __init__(self, seat_keys: Mapping[int, bytes], genesis: bytes = GENESIS) -> None:
        self.start = genesis
        """The game's start digest: every signature binds it."""
        self.head = genesis
        self.next_seq = 0
        self.links: list[bytes] = []
        """The chain hash after each seq (a basis names one)."""
        self.counters: dict[int, int] = {}
        """Author -> the counter of its last message in the chain."""
        self._checked: tuple[GameMessage, bytes] | None = None
        """The message `check` verified last, and its chain hash."""
        self._checked_signed: tuple[GameMessage, bytes] | None = None
        """The message `check` verified last, and its signed bytes (`body_digest`), kept
        after `append`: a table looks a deal body up once it is in the chain."""
        self._keys: dict[int, VerifyKey] = {}
        for seat, raw in seat_keys.items():
            try:
                self._keys[seat] = VerifyKey(raw)
            except (TypeError, ValueError):
                raise RemoteProtocolError(
                    "bad_signature", f"seat {seat}'s key {raw.hex()} is not 32 bytes") from None

    def rekey(self, author: int, raw: bytes) -> None:
        """From the next message on, ``author``'s messages are checked with the key ``raw`` (a
        seat the table gave to someone else); its counter goes on rising across holders."""
        try:
            self._keys[author] = VerifyKey(raw)
        except (TypeError, ValueError):
            raise RemoteProtocolError(
                "bad_signature", f"seat {author}'s new key {raw.hex()} is not 32 bytes") from None

    def signed_by_author(self, msg: GameMessage) -> None:
        """Raise ``bad_signature`` unless ``msg`` carries the signature of its author's key now,
        sequenced or not (evidence shown out of the chain)."""
        public = self._keys.get(msg.author)
        if public is None or not _verifies(public, msg.sig, _signed(self.start, msg)):
            raise RemoteProtocolError("bad_signature", f"a message said to be seat {msg.author}'s "
                                                       "does not carry its signature")

    @property
    def basis(self) -> tuple[int, bytes] | None:
        """What a move decided now names: the last link (None before any)."""
        return (self.next_seq - 1, self.head) if self.next_seq else None

    def next_counter(self, author: int) -> int:
        return self.counters.get(author, -1) + 1

    def sign(self, key: Ed25519PrivateKey, author: int, body: Body,
             counter: int | None = None) -> GameMessage:
        """``body`` signed by ``author`` (its next counter unless given) on the current head as
        its basis, placed as the next link: what the host does with its own messages, and
        tests with anyone's."""
        if counter is None:
            counter = self.next_counter(author)
        return self.place(sign_game(key, self.start, author, counter, body, self.basis))

    def place(self, msg: GameMessage) -> GameMessage:
        """``msg`` as the next link: the sequencer's seq filled in."""
        return dataclasses.replace(msg, seq=self.next_seq)

    def check(self, msg: GameMessage, own: bool = False) -> bytes:
        """Verify that ``msg`` is the valid next message; returns its chain hash.  ``own``: it
        was signed on this side (the host answered it with `Placed`), so its signature is not
        checked again."""
        ref = msg.seq
        if msg.seq is None:
            raise RemoteProtocolError("bad_message", "a sequenced message needs its seq",
                                      ref, msg.counter)
        if msg.seq < self.next_seq:
            raise RemoteProtocolError(
                "stale", f"seq {msg.seq} is already taken; the next is {self.next_seq}", ref)
        if msg.seq > self.next_seq:
            raise RemoteProtocolError(
                "broken_chain", f"seq {msg.seq} skips ahead of {self.next_seq}", ref)
        public = self._keys.get(msg.author)
        if public is None:
            raise RemoteProtocolError(
                "bad_signature", f"seq {msg.seq}: author {msg.author} has no seat", ref)
        last = self.counters.get(msg.author, -1)
        if msg.counter <= last:
            raise RemoteProtocolError(
                "stale", f"author {msg.author}'s counter {msg.counter} does not rise above "
                f"{last}, its last in the chain", ref, msg.counter)
        if (msg.basis_seq is None) != (msg.basis_head is None):
            raise RemoteProtocolError("bad_message", "basis_seq and basis_head go together",
                                      ref, msg.counter)
        if msg.basis_seq is not None and (
                msg.basis_seq >= self.next_seq or self.links[msg.basis_seq] != msg.basis_head):
            raise RemoteProtocolError(
                "broken_chain", f"the basis (seq {msg.basis_seq}, {msg.basis_head.hex()}) is "
                "not a link of this chain", ref, msg.counter)
        data = _signed(self.start, msg)
        if not own and not _verifies(public, msg.sig, data):
            raise RemoteProtocolError(
                "bad_signature", f"message {msg.counter} of author {msg.author}: signature "
                f"does not verify with seat {msg.author}'s key", ref, msg.counter)
        digest = _link(msg, self.head, data)
        self._checked = (msg, digest)
        self._checked_signed = (msg, data)
        return digest

    def body_digest(self, msg: GameMessage) -> bytes:
        """SHA-256 of the canonical bytes (protocol.md 8.1) of ``msg``'s body as decoded, the
        unknown fields beside its kind left out: the body's identity word for word (8.3), the
        same for a copy signed again with another counter or its fields in another order.
        When the body was signed with none of those fields, these are the tail of the signed
        bytes `check` computed if ``msg`` was the message checked last, as every deal step is
        at every party before its table looks it up: then the body is not encoded again."""
        known = msg.body.to_wire()
        last = self._checked_signed
        if last is not None and last[0] is msg and msg.body_wire.keys() == known.keys():
            return hashlib.sha256(memoryview(last[1])[_body_at(self.start, msg):]).digest()
        return hashlib.sha256(msgpack.packb(canonical(known), use_bin_type=True)).digest()

    def append(self, msg: GameMessage) -> bytes:
        """Verify ``msg`` and make it the new head; returns the new head hash.  The message
        `check` has just verified is not verified twice."""
        last = self._checked
        self.head = last[1] if last is not None and last[0] is msg else self.check(msg)
        self._checked = None
        self.links.append(self.head)
        self.counters[msg.author] = msg.counter
        self.next_seq += 1
        return self.head


def _verifies(key: VerifyKey, sig: bytes, data: bytes) -> bool:
    """Whether ``sig`` is ``key``'s Ed25519 signature of ``data``, as libsodium checks it
    (strict: a small-order key or R, or a non-canonical S, never verifies; protocol.md 8.1).
    One checker for every signature of the game, so no two parties can disagree on one; and
    twice as fast here as the cryptography package's, where every party checks every message."""
    try:
        key.verify(data, sig)
    except BadSignatureError:
        return False
    return True


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
        key = VerifyKey(sign_key)
    except (TypeError, ValueError):
        key = None
    if key is None or not _verifies(key, proof.sig, proof_bytes(game_id, challenge)):
        raise RemoteProtocolError(
            "bad_signature", "the rejoin proof does not verify with the seat's key") from None
