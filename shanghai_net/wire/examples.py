"""One example of every message type and game body kind, built from fixed test keys.

Shared by the tests, protocol/make_vectors.py and the docs, so that the golden vectors, the
schemas and the test-suite all cover the same complete catalogue.  The keys are public test keys:
never use them for play.
"""

from __future__ import annotations

import dataclasses

import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .messages import (PROTOCOL_VERSION, Approve, Body, BuyJoker, Bye, CallShanghai, Chat, Complaint, Deal, DealerPick,
                       Discard, DrawStock, Error, GoDown, Hello, LayOff, LobbyState, MayI, Message, NextGame,
                       Offer, Owed, OwedStep, PassClaim, Ping, Placed, PlayerSeat, Pong, Protest,
                       HandOver, Leave, Ready, Rearrange, Refused, Rematch, Replace, SeatInfo, StartGame, SwapJoker, TakeDiscard,
                       Timeout, VoidRound, Welcome, game_id_of)
from .signing import sign_game, sign_proof, start_digest
from ..identity import fingerprint

__all__ = ["GAME_ID", "HOST_NONCE", "NONCES", "CHALLENGE", "fixed_seed", "sign_key", "box_key", "public_bytes", "EXAMPLE_BODIES",
           "example_messages"]

HOST_NONCE = bytes([0x48]) * 32
NONCES = tuple(bytes([seat + 1]) * 32 for seat in range(3))
"""The host's and the three seats' nonces in the examples (real ones are fresh random bytes)."""
GAME_ID = game_id_of(HOST_NONCE, NONCES)
CHALLENGE = bytes(range(32))
"""The host's rejoin challenge in the examples (a real one is fresh random bytes)."""


def fixed_seed(purpose: str, seat: int) -> bytes:
    """The fixed 32-byte seed of a test key: SHA-256 of "shanghai-net test <purpose> <seat>"."""
    return hashlib.sha256(f"shanghai-net test {purpose} {seat}".encode()).digest()


def sign_key(seat: int) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(fixed_seed("sign", seat))


def box_key(seat: int) -> X25519PrivateKey:
    return X25519PrivateKey.from_private_bytes(fixed_seed("box", seat))


def public_bytes(key: Ed25519PrivateKey | X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


OFFER_SIGN_KEY, OFFER_BOX_KEY = bytes(range(96, 128)), bytes(range(128, 160))
"""The keys of "bea", who watches the example game and offers to take a seat (the lobby's
``offers``), and is handed one (``hand_over``)."""

EXAMPLE_BODIES: tuple[Body, ...] = (
    DrawStock(),
    TakeDiscard(),
    MayI(),
    PassClaim(),
    CallShanghai(card=6, meld=1, end="high"),
    GoDown(melds=((6, 58, 110), (20, 21, 22, 23))),
    LayOff(card=24, meld=1, end="high"),
    SwapJoker(meld=1, joker=208, replacement=25, extension=26, end="high"),
    BuyJoker(meld=0, joker=209, replacement=162),
    Discard(card=51, shanghai=False),
    Rearrange(table=((6, 58, 110, 162), (20, 21, 22, 23, 24)), played=(162,)),
    Timeout(seat=2),
    VoidRound(round=2, seat=1),
    Leave(),
    Replace(seat=1, name="bot", role="bot", sign_key=bytes(range(32, 64)),
            box_key=bytes(range(64, 96))),
    Approve(seq=44),
    HandOver(name="bea", role="player", sign_key=OFFER_SIGN_KEY, box_key=OFFER_BOX_KEY,
             sealed=bytes(range(80))),
    Timeout(seat=1, what="seeds"),
    Complaint(round=2, reason="position 17 of generation 0 does not open to a card of its deck"),
    Protest(seq=41, reason="timed out 0.2 s after the claim window opened (agreed: 10 s)"),
    Deal(step="commit", data={"round": 1, "generation": 0, "digest": bytes(range(32))}),
)


def example_start() -> StartGame:
    """The example game's ``start_game``: three seats with the public test keys."""
    players = tuple(
        PlayerSeat(seat=s, name=n, sign_key=public_bytes(sign_key(s)),
                   box_key=public_bytes(box_key(s)))
        for s, n in enumerate(("Ann", "Bob", "Cy")))
    return StartGame(game_id=GAME_ID, host_nonce=HOST_NONCE, nonces=NONCES, seats=players,
                     preset="classic", rules={"jokers": 4},
                     first_dealer_pick=DealerPick(method="coin_flip"), claim_timeout=10.0,
                     audit_timeout=60.0)


def example_messages() -> tuple[Message, ...]:
    """One message of every type; the game message is seat 0's discard signed at seq 0."""
    start = example_start()
    players = start.seats
    return (
        Hello(protocol="shanghai-net", version=PROTOCOL_VERSION, name="Ann", sign_key=players[0].sign_key,
              box_key=players[0].box_key, join_code="PLUM-42", role="player", nonce=NONCES[0],
              table="kitchen", notices=("owed",)),
        Welcome(version=PROTOCOL_VERSION, seat=0, table={"preset": "classic", "players": 3}),
        sign_proof(sign_key(0), GAME_ID, CHALLENGE),
        Refused(code="join_code", reason="the join code is wrong"),
        Ready(ready=True),
        LobbyState(
            seats=(SeatInfo(seat=0, name="Ann", fingerprint="a1b2-c3d4-e5f6-0718", ready=True,
                            connected=True, kind="player"),
                   SeatInfo(seat=1, name="Bob", fingerprint="0f1e-2d3c-4b5a-6978", ready=False,
                            connected=True, kind="bot")),
            preset="classic", rules={"jokers": 4, "claims_per_round": 3, "joker_buy": True},
            join_code="PLUM-42",
            offers=(Offer(name="bea", fingerprint=fingerprint(OFFER_SIGN_KEY),
                          sign_key=OFFER_SIGN_KEY, box_key=OFFER_BOX_KEY, kind="player"),)),
        start,
        Chat(text="good luck!", name="Ann"),
        dataclasses.replace(sign_game(sign_key(0), start_digest(start.to_wire()), 0, 7,
                                      Discard(card=51, shanghai=False), (11, bytes(range(32)))),
                            seq=12),
        Placed(seq=12, counter=7),
        Owed(seq=12, owes=(
            OwedStep(seat=0, step="shares", round=1, why="key shares for seat 1", generation=0,
                     to=1, positions=(11, 14)),
            OwedStep(seat=2, step="shares", round=1, why="key shares for seat 1", generation=0,
                     to=1, positions=(11, 14)),
            OwedStep(seat=1, step="reveal", round=1, why="its key of a card turned up",
                     generation=0, position=33, keys="own"))),
        Error(code="out_of_turn", reason="it is seat 1's turn", ref_counter=7),
        Ping(nonce=12345),
        Pong(nonce=12345),
        Bye(reason="game over"),
        Rematch(),
        NextGame(table="kitchen", game=2),
    )
