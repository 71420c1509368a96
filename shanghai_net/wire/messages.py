"""The message catalogue: one frozen dataclass per message type and per game body kind.

A message on the wire is a map with a string ``type``; a game move is the ``body`` map of a
``game`` message, with a string ``kind``.  Decoding checks every declared field and ignores
unknown ones, so a newer peer may add fields without breaking an older one.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, ClassVar, Sequence

from ..cards import MAX_DECKS, MAX_JOKERS, deck
from ..rules.ruleset import check_rules, rules_schema
from .errors import RemoteProtocolError
from .fields import (AnyMap, Blob, Bool, Bytes, Float, Int, ListOf, Nullable, OneOf, RecordOf, Spec, Text,
                     bad, decode_fields, fields_to_wire, wire_field)

__all__ = [
    "PROTOCOL_NAME", "PROTOCOL_VERSION", "CARD_COUNT", "MAX_SEATS",
    "Message", "Body", "MESSAGE_TYPES", "BODY_KINDS", "decode_message",
    "Hello", "Welcome", "Proof", "Refused", "Ready", "SeatInfo", "Offer", "LobbyState", "PlayerSeat", "DealerPick",
    "StartGame", "game_id_of", "Chat", "GameMessage", "Placed", "Error", "Ping", "Pong", "Bye",
    "Rematch", "NextGame",
    "DrawStock", "TakeDiscard", "MayI", "PassClaim", "CallShanghai", "GoDown", "LayOff",
    "SwapJoker", "BuyJoker", "Discard", "Rearrange", "Deal", "Timeout", "Complaint", "ShareComplained", "Protest", "VoidRound", "Leave", "Replace", "Approve", "HandOver",
    "HOST_AUTHOR", "MAX_OFFERS",
    "NOTICES", "OwedStep", "Owed",
]

PROTOCOL_NAME = "shanghai-net"
PROTOCOL_VERSION = 10
CARD_COUNT = len(deck(MAX_DECKS, MAX_JOKERS))
"""Physical card ids on the wire are 0 .. CARD_COUNT-1 (see shanghai_net.cards)."""
MAX_SEATS = 8
SEALED_MIN, SEALED_MAX = 32 + 16 + 32, 32 + 16 + 30 * 32
"""A ``hand_over``'s sealed secrets: a key, a tag and 1 to 30 secrets of 32 bytes."""

SEAT = Int(0, MAX_SEATS - 1)
HOST_AUTHOR = MAX_SEATS
"""The ``author`` of a game message signed by the host (with ``start_game.host_key``): only a
``timeout`` body may have it (see docs/protocol.md, section 11)."""
AUTHOR = Int(0, HOST_AUTHOR)
CARD = Int(0, CARD_COUNT - 1)
CARDS = ListOf(CARD, CARD_COUNT)
MELD = Int(0, 255)
END = Nullable(OneOf("low", "high"))
SEQ = Int(0, 2**63 - 1)
NAME = Text(32, min_len=1)
CODE = Text(32, min_len=1)
REASON = Text(500)
JOIN_CODE = Text(16)
TABLE_NAME = Text(32)
PRESET = Text(32)
KEY = Blob(32)
GAME_NONCE = Blob(32)
TIMEOUT = Float(0.0, 86400.0)
NONCE = Int(0, 2**64 - 1)
TOTAL = Int(-(2**31), 2**31 - 1)


class RuleValues(Spec):
    """House rules: rule name -> value in the field's own type (protocol/schema/rules.json).

    ``"false"`` for a boolean is refused naming the rule, never read as true in some language."""

    def check(self, value, path):
        try:
            return check_rules(value, path)
        except ValueError as error:
            raise RemoteProtocolError("bad_message", str(error)) from None

    def schema(self):
        return rules_schema()


RULES = RuleValues()


def _registered(registry: dict[str, type], attr: str, name: str):
    def register(cls: type) -> type:
        setattr(cls, attr, name)
        cls = dataclasses.dataclass(frozen=True, slots=True)(cls)
        registry[name] = cls
        return cls
    return register


class Message:
    """A top-level message; ``TYPE`` is its wire ``type``."""

    __slots__ = ()
    TYPE: ClassVar[str]

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.TYPE, **fields_to_wire(self)}

    @classmethod
    def from_wire(cls, value: dict[str, Any]) -> Message:
        return decode_fields(cls, value, cls.TYPE)


class Body:
    """The body of a game message; ``KIND`` is its wire ``kind``."""

    __slots__ = ()
    KIND: ClassVar[str]

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.KIND, **fields_to_wire(self)}


MESSAGE_TYPES: dict[str, type[Message]] = {}
BODY_KINDS: dict[str, type[Body]] = {}


def message_type(name: str):
    return _registered(MESSAGE_TYPES, "TYPE", name)


def body_kind(name: str):
    return _registered(BODY_KINDS, "KIND", name)


def decode_message(value: dict[str, Any]) -> Message:
    """The message a decoded frame holds; raises ``unknown_message`` or ``bad_message``."""
    kind = value.get("type")
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RemoteProtocolError("unknown_message", f"type {kind!r:.40}")
    return cls.from_wire(value)


# -- handshake -----------------------------------------------------------------------------------

@message_type("hello")
class Hello(Message):
    """Client -> host, first: who I am and which protocol version I speak."""

    protocol: str = wire_field(Text(32, min_len=1))
    version: int = wire_field(Int(0, 65535))
    name: str = wire_field(NAME)
    sign_key: bytes = wire_field(KEY)
    box_key: bytes = wire_field(KEY)
    join_code: str = wire_field(JOIN_CODE)
    role: str = wire_field(OneOf("player", "spectator", "bot"))
    resume: int | None = wire_field(Nullable(SEQ), default=None)
    """Rejoining a running game: the first seq the client still needs (it holds the ones before;
    0 after a crash).  A seat is recognised by its ``sign_key``, whatever this says."""
    nonce: bytes | None = wire_field(Nullable(GAME_NONCE), default=None)
    """Fresh random bytes for every hello (required of players and bots): the game id commits to
    every seat's nonce, so no single party chooses it (`StartGame.nonces`)."""
    table: str = wire_field(TABLE_NAME, default="")
    """The table to sit at, by the name the host gives it (one host holds several, each
    announced by name, `net.discovery`); empty: the host's first table."""
    open: bool = wire_field(Bool(), default=False)
    """Open a table of that name if the host has none (with the host's preset and seats), so
    a person in a lobby can start a second game; else a ``table`` the host does not hold is
    refused ``unknown_table``."""
    notices: tuple[str, ...] = wire_field(ListOf(Text(32, min_len=1), 16), default=())
    """The host notices the client asks for (`NOTICES`); a name the host does not know is
    ignored, so a client may ask for notices of a newer protocol."""
    offer: str | None = wire_field(Nullable(OneOf("player", "bot")), default=None)
    """A spectator offers to take a seat a player hands it (protocol.md 11.9), to play it as a
    person (``"player"``) or a bot; the host lists the offer in `LobbyState.offers`, so that
    the seats see its keys.  None: no offer (a host that knows nothing of offers ignores it,
    and the client simply watches)."""


@message_type("welcome")
class Welcome(Message):
    """Host -> client: joined; ``seat`` is None for a spectator."""

    version: int = wire_field(Int(0, 65535))
    seat: int | None = wire_field(Nullable(SEAT))
    table: dict = wire_field(AnyMap())
    sequenced: int = wire_field(SEQ, default=0)
    """Game messages sequenced so far (0 in the lobby): a rejoining seat replays up to here
    before it sends anything."""
    challenge: bytes | None = wire_field(Nullable(Blob(32)), default=None)
    """Set when the Hello named a seat of a running game: a fresh nonce that the seat's key must
    sign (`Proof`) before the seat is handed over, since its public key is no secret."""
    game_id: bytes | None = wire_field(Nullable(Blob(16)), default=None)
    """The running game's id, sent with ``challenge`` (a peer that crashed does not know it)."""


@message_type("proof")
class Proof(Message):
    """Client -> host, answering a Welcome's ``challenge``: the seat's Ed25519 signature over
    ``shanghai_net.wire.signing.proof_bytes`` (the game id and the challenge)."""

    sig: bytes = wire_field(Blob(64))


@message_type("refused")
class Refused(Message):
    """Host -> client instead of Welcome; the host closes after sending it."""

    code: str = wire_field(CODE)
    reason: str = wire_field(REASON)


# -- lobby ---------------------------------------------------------------------------------------

@message_type("ready")
class Ready(Message):
    """Client -> host: the player is (or is no longer) ready to start."""

    ready: bool = wire_field(Bool())


@dataclasses.dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat as the lobby shows it."""

    seat: int = wire_field(SEAT)
    name: str = wire_field(NAME)
    fingerprint: str = wire_field(Text(19))
    ready: bool = wire_field(Bool())
    connected: bool = wire_field(Bool())
    kind: str = wire_field(OneOf("player", "bot"))
    left: bool = wire_field(Bool(), default=False)  # said `bye` in a running game: gone for good
    host_run: bool = wire_field(Bool(), omit_default=True, default=False)
    """The host's own process runs this seat (its bot or stand-in): it holds no seed share
    (docs/dealing.md, "Holders"), and a seat the host did not start refuses a start_game that
    says so of it."""


MAX_OFFERS = 16
"""The most offers a ``lobby_state`` lists (the oldest first)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Offer:
    """A watcher offering to take a seat handed to it: the keys a ``hand_over`` to it names,
    and the fingerprint of its signing key, which the holder compares out loud."""

    name: str = wire_field(NAME)
    fingerprint: str = wire_field(Text(19))
    sign_key: bytes = wire_field(KEY)
    box_key: bytes = wire_field(KEY)
    kind: str = wire_field(OneOf("player", "bot"))


@message_type("lobby_state")
class LobbyState(Message):
    """Host -> clients, whenever the lobby changes (and during a game, for who is connected)."""

    seats: tuple[SeatInfo, ...] = wire_field(ListOf(RecordOf(SeatInfo), MAX_SEATS))
    preset: str = wire_field(PRESET)
    rules: dict = wire_field(RULES)
    join_code: str = wire_field(JOIN_CODE)
    offers: tuple[Offer, ...] = wire_field(ListOf(RecordOf(Offer), MAX_OFFERS), default=())
    """The watchers connected now who offer to take a seat (`Hello.offer`), oldest first: only
    keys a ``hand_over`` may name (none that plays a seat, is proposed for one, or is the
    host's)."""
    result: tuple[int, ...] = wire_field(ListOf(TOTAL, MAX_SEATS), default=())
    """The final totals, by seat, of the last game played at this table (empty: none yet):
    after a game, and in the lobby of its rematch (the host's word; every seat computed its
    own)."""
    rematch: tuple[int, ...] | None = wire_field(Nullable(ListOf(SEAT, MAX_SEATS)), default=None)
    """Once the game is over at a host that keeps the table: the seats that asked for a rematch
    (`Rematch`), so far; None: no game over, or no rematch offered."""
    share_threshold: int | None = wire_field(Nullable(Int(2, MAX_SEATS - 1)), omit_default=True,
                                             default=None)
    """The table's sharing setting resolved over the seats shown (docs/dealing.md, "The price"):
    ``t``, or nil for off; the running game's once it started.  A seat refuses a start_game
    whose ``share_threshold`` is not the one its lobby showed last."""


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerSeat:
    """A seat of a started game with the keys its moves are checked against."""

    seat: int = wire_field(SEAT)
    name: str = wire_field(NAME)
    sign_key: bytes = wire_field(KEY)
    box_key: bytes = wire_field(KEY)
    host_run: bool = wire_field(Bool(), omit_default=True, default=False)
    """The host's own process runs this seat (its bot): it holds no seed share (docs/dealing.md,
    "Holders"); off the wire when false."""


@dataclasses.dataclass(frozen=True, slots=True)
class DealerPick:
    """How the first dealer is chosen: a coin flip among the seats, or a fixed seat."""

    method: str = wire_field(OneOf("coin_flip", "fixed"))
    seat: int | None = wire_field(Nullable(SEAT), default=None)


@message_type("start_game")
class StartGame(Message):
    """Host -> clients: the game begins; fixes the game id, the seats' keys and the rules, and
    the host's time limits that every seat can hold it to."""

    game_id: bytes = wire_field(Blob(16))
    """``game_id_of(host_nonce, nonces)``: a seat checks that its nonce is in it."""
    host_nonce: bytes = wire_field(GAME_NONCE)
    nonces: tuple[bytes, ...] = wire_field(ListOf(GAME_NONCE, MAX_SEATS))
    """The nonce of each seat's hello, in seat order."""
    seats: tuple[PlayerSeat, ...] = wire_field(ListOf(RecordOf(PlayerSeat), MAX_SEATS))
    preset: str = wire_field(PRESET)
    rules: dict = wire_field(RULES)
    first_dealer_pick: DealerPick = wire_field(RecordOf(DealerPick))
    claim_timeout: float = wire_field(TIMEOUT)
    """Seconds the host's claim windows wait for a seat before its ``timeout``."""
    audit_timeout: float = wire_field(TIMEOUT)
    """Seconds the table waits for every seat's ``seeds`` after a complaint."""
    host_key: bytes | None = wire_field(Nullable(KEY), default=None)
    share_threshold: int | None = wire_field(Nullable(Int(2, MAX_SEATS - 1)), omit_default=True,
                                             default=None)
    """Sharing on (docs/dealing.md): ``t``, the seed shares that rebuild a lost seat; nil (and
    then off the wire, so that a table without it signs version 9's bytes): sharing off."""
    received: dict | None = dataclasses.field(default=None, init=False, compare=False, repr=False)
    """The map this start_game was decoded from, as it came (None: built here).  Every
    signature binds the digest of the start_game map (`wire.signing.start_digest`), so every
    party hashes the map it received, fields it does not know and the number forms the host
    chose included, never its own encoding of what it decoded: a later version may add fields
    to start_game without parting an older peer from the chain at seq 0."""

    @classmethod
    def from_wire(cls, value: dict[str, Any]) -> StartGame:
        start = decode_fields(cls, value, cls.TYPE)
        object.__setattr__(start, "received", value)
        return start

    def to_wire(self) -> dict[str, Any]:
        """The map as it came, if it was received (see ``received``); else its encoding."""
        return dict(self.received) if self.received is not None else Message.to_wire(self)

    @property
    def host_run(self) -> tuple[int, ...]:
        """The seats whose player map says ``host_run``: the host's own, no share holders."""
        return tuple(p.seat for p in self.seats if p.host_run)


GAME_ID_DOMAIN = b"shanghai-net v1 game id"


def game_id_of(host_nonce: bytes, nonces: Sequence[bytes]) -> bytes:
    """The game id every party contributes to: the first 16 bytes of SHA-256 over the domain, the
    host's nonce and the seats' nonces in seat order (protocol.md 6.2)."""
    return hashlib.sha256(GAME_ID_DOMAIN + host_nonce + b"".join(nonces)).digest()[:16]


@message_type("chat")
class Chat(Message):
    """Chat text; the host fills ``name`` with the sender's name when it relays it."""

    text: str = wire_field(Text(500))
    name: str | None = wire_field(Nullable(NAME), default=None)


# -- game ----------------------------------------------------------------------------------------

class BodySpec(Spec):
    """A game body: a map whose ``kind`` picks the Body class."""

    def check(self, value, path):
        if not isinstance(value, dict):
            raise bad(path, "a map", value)
        kind = value.get("kind")
        cls = BODY_KINDS.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise RemoteProtocolError(
                "unknown_message", f"{path}.kind: game body kind {kind!r:.40}")
        return decode_fields(cls, value, path)

    def to_wire(self, value):
        return value.to_wire()

    def schema(self):
        return {"type": "object", "required": ["kind"],
                "properties": {"kind": {"type": "string", "enum": sorted(BODY_KINDS)}}}


@message_type("game")
class GameMessage(Message):
    """A signed game message (see shanghai_net.wire.signing).

    Its author signs ``author``, ``counter`` (its own count of messages, rising), the ``basis``
    it decided on (a move: the seq and chain hash of the last message it had seen; any other
    body: none, since deal steps, votes and complaints commute) and ``body``.  The host fills in
    ``seq`` as it sequences the message; an author leaves it off.  ``signed_body`` keeps the
    body map exactly as received, unknown fields included, because the signature covers it; a
    locally built message has None there and signs ``body.to_wire()``.
    """

    author: int = wire_field(AUTHOR)
    counter: int = wire_field(SEQ)
    body: Body = wire_field(BodySpec())
    sig: bytes = wire_field(Blob(64))
    seq: int | None = wire_field(Nullable(SEQ), default=None)
    basis_seq: int | None = wire_field(Nullable(SEQ), default=None)
    basis_head: bytes | None = wire_field(Nullable(Blob(32)), default=None)
    signed_body: dict | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def body_wire(self) -> dict[str, Any]:
        return self.signed_body if self.signed_body is not None else self.body.to_wire()

    def to_wire(self) -> dict[str, Any]:
        """Without the fields that are nil (an author's ``seq``, a deal step's basis)."""
        wire = {"type": self.TYPE, "seq": self.seq, "author": self.author,
                "counter": self.counter, "basis_seq": self.basis_seq,
                "basis_head": self.basis_head, "body": self.body_wire, "sig": self.sig}
        return {name: value for name, value in wire.items() if value is not None}

    @classmethod
    def from_wire(cls, value: dict[str, Any]) -> GameMessage:
        try:
            decoded = decode_fields(cls, value, cls.TYPE)
        except RemoteProtocolError as exc:
            counter = value.get("counter")
            if type(counter) is int and counter >= 0:
                exc.ref_counter = counter
            raise
        return dataclasses.replace(decoded, signed_body=value["body"])


@message_type("placed")
class Placed(Message):
    """Host -> the connection that sent a game message, in place of relaying it back: the
    author's message ``counter`` is sequenced at ``seq``.  The author holds the message, so it
    appends it to its chain as if relayed in full; the other clients get it in full."""

    seq: int = wire_field(SEQ)
    counter: int = wire_field(SEQ)


@body_kind("draw_stock")
class DrawStock(Body):
    """Take the top stock card (its face reaches only the drawer, through the deal)."""


@body_kind("take_discard")
class TakeDiscard(Body):
    """Take the top discard on one's own turn."""


@body_kind("may_i")
class MayI(Body):
    """Ask for the discard out of turn (with a penalty card), in the claim window."""


@body_kind("pass_claim")
class PassClaim(Body):
    """Decline the discard in the claim window, so it can close before its timeout."""


@dataclasses.dataclass(frozen=True, slots=True)
class _CardOnMeld(Body):
    """A card that goes on table meld ``meld`` (0-based), at ``end`` of a run (None for a set)."""

    card: int = wire_field(CARD)
    meld: int = wire_field(MELD)
    end: str | None = wire_field(END)


@body_kind("call_shanghai")
class CallShanghai(_CardOnMeld):
    """Call SHANGHAI: ``card``, the top discard, plays on ``meld``; its discarder pays."""


@body_kind("go_down")
class GoDown(Body):
    """Lay down the round's contract: each inner list is one meld's cards."""

    melds: tuple[tuple[int, ...], ...] = wire_field(ListOf(CARDS, 16))


@body_kind("lay_off")
class LayOff(_CardOnMeld):
    """Lay ``card`` from the hand off on ``meld``."""


@body_kind("swap_joker")
class SwapJoker(Body):
    """Put ``replacement`` in the joker's place on ``meld`` and lengthen the meld with
    ``extension`` at ``end``; the joker goes to the hand."""

    meld: int = wire_field(MELD)
    joker: int = wire_field(CARD)
    replacement: int = wire_field(CARD)
    extension: int = wire_field(CARD)
    end: str | None = wire_field(END, default=None)


@body_kind("buy_joker")
class BuyJoker(Body):
    """Trade ``replacement`` for the joker on ``meld``, paying the joker's owner."""

    meld: int = wire_field(MELD)
    joker: int = wire_field(CARD)
    replacement: int = wire_field(CARD)


@body_kind("discard")
class Discard(Body):
    """Discard ``card``; ``shanghai`` declares that it plays on the table."""

    card: int = wire_field(CARD)
    shanghai: bool = wire_field(Bool())


@body_kind("rearrange")
class Rearrange(Body):
    """The whole table after rearranging, and which hand cards went into it."""

    table: tuple[tuple[int, ...], ...] = wire_field(ListOf(CARDS, 256))
    played: tuple[int, ...] = wire_field(CARDS)


@body_kind("deal")
class Deal(Body):
    """One step of the mental-poker deal; ``data`` is laid out per step by
    shanghai_net.table.bodies (protocol.md 11.2): each step's schema is one entry of anyOf."""

    step: str = wire_field(Text(64, min_len=1))
    data: dict = wire_field(AnyMap())


@body_kind("timeout")
class Timeout(Body):
    """Host only (author 8): ``seat`` let the time run out.  ``what`` is ``"claim"``: a claim
    window's time, applied by every peer as that seat's pass_claim; ``"seeds"``: the time the
    table gives every seat to open its seeds for a round's audit ran out, and the seat is named
    absent (it, or the host that relays it: no evidence against the seat); ``"silent"`` (v8):
    the table has waited the table's ``audit_timeout`` with nothing sequenced while the seat
    owed it a deal step or an approval, and the seat counts as silent until it signs again
    (a vote that it left then needs fewer seats, protocol.md 11.5).  Only with sharing on
    (docs/dealing.md, "Version 10 messages"): ``"shares"``: the seat's ``share_reveal`` for a
    lost seat's rebuild did not come within ``audit_timeout`` (no evidence against it either);
    ``"vote"``: the votes naming ``seat`` reached 11.5's bar but not ``t`` holders' votes, and
    none came for ``audit_timeout``: the round is void as without sharing."""

    seat: int = wire_field(SEAT)
    what: str = wire_field(OneOf("claim", "seeds", "silent", "shares", "vote"), default="claim")


@body_kind("protest")
class Protest(Body):
    """A seat says the host wronged it with the ``timeout`` at ``seq`` (sent well before the
    agreed claim time by the seat's own clock, or in place of a claim the seat had sent);
    ``claim``: that claim, the seat's own signed ``game`` message the host did not sequence, as
    evidence.  Every party records and shows it; the game goes on."""

    seq: int = wire_field(SEQ)
    reason: str = wire_field(REASON)
    claim: dict | None = wire_field(Nullable(AnyMap()), default=None)


SHARES_COMPLAINED = MAX_SEATS - 1
"""The most shares one ``complaint`` names: one of each other seat's commit of the generation
whose bad share stopped its holder (a holder sends nothing more of it, so no later generation
is dealt before the round stops)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ShareComplained:
    """Which seed share a ``complaint`` is of (sharing on): ``dealer``'s of ``generation``."""

    dealer: int = wire_field(SEAT)
    generation: int = wire_field(Int(0, 2**32 - 1))


@body_kind("complaint")
class Complaint(Body):
    """A seat found a fault in the deal that only it can see (a box sealed for it, or a card of
    its own, that does not open): the round stops and is audited at once; the audit names the
    seat at fault, or the complainer if every step matches its seed."""

    round: int = wire_field(Int(0, 255))
    reason: str = wire_field(REASON)
    share: tuple[ShareComplained, ...] | None = wire_field(
        Nullable(ListOf(RecordOf(ShareComplained), SHARES_COMPLAINED)), omit_default=True,
        default=None)
    """Sharing on: every share the complainer found bad so far (its box does not open, or it
    is off its commitments), one a dealer; nil, and then off the wire, for any other fault."""


@body_kind("void_round")
class VoidRound(Body):
    """A seat's vote to void round ``round`` because ``seat`` left it for good: when more than
    half the seats have voted so (the same round and seat), the round scores nothing, ``seat``
    pays the rules' ``leave_penalty``, its seat waits for a ``replace``, and the round's
    contract is dealt again (protocol.md 11.8)."""

    round: int = wire_field(Int(0, 255))
    seat: int = wire_field(SEAT)


@body_kind("leave")
class Leave(Body):
    """Version 10: the author's player quits the game, signed into the chain before its
    ``bye`` (docs/dealing.md, "Version 10 messages"): its last message, for its key's later
    messages are refused (``wrong_state``) until another holder takes the seat.  With sharing
    on it is what the reference clients vote on at once (the seat's own word that it is gone,
    where the lobby's ``left`` is only the host's), and the only table they send it at."""


@body_kind("replace")
class Replace(Body):
    """Host only (author 8): from the start of a round's deal, ``seat`` is played with these
    keys by ``name`` (``role``: a person or a bot), once every seat the rule names has sent its
    ``approve`` of this message; the seat's score and money carry over (protocol.md 11.8)."""

    seat: int = wire_field(SEAT)
    name: str = wire_field(NAME)
    role: str = wire_field(OneOf("player", "bot"))
    sign_key: bytes = wire_field(KEY)
    box_key: bytes = wire_field(KEY)


@body_kind("approve")
class Approve(Body):
    """A seat agrees to the host's ``replace`` sequenced at ``seq``."""

    seq: int = wire_field(SEQ)


@body_kind("hand_over")
class HandOver(Body):
    """A seat hands itself over (protocol.md 11.9): from the next message its author's seat is
    signed for with ``sign_key`` by ``name``; from the next round's deal its shares are sealed
    to ``box_key``; ``sealed`` carries the seat's secrets, sealed to ``box_key`` (only the
    successor can open them)."""

    name: str = wire_field(NAME)
    role: str = wire_field(OneOf("player", "bot"))
    sign_key: bytes = wire_field(KEY)
    box_key: bytes = wire_field(KEY)
    sealed: bytes = wire_field(Bytes(SEALED_MIN, SEALED_MAX))


# -- any time ------------------------------------------------------------------------------------

@message_type("error")
class Error(Message):
    """Answers bad input; ``ref_counter`` names the game message of the receiver's it is about
    (by the author's counter), ``ref_seq`` a sequenced one, if any."""

    code: str = wire_field(CODE)
    reason: str = wire_field(REASON)
    ref_seq: int | None = wire_field(Nullable(SEQ), default=None)
    ref_counter: int | None = wire_field(Nullable(SEQ), default=None)


@message_type("ping")
class Ping(Message):
    """Either side: are you there?  Answered by a Pong with the same nonce."""

    nonce: int = wire_field(NONCE)


@message_type("pong")
class Pong(Message):
    """Answers a Ping with its nonce."""

    nonce: int = wire_field(NONCE)


@message_type("bye")
class Bye(Message):
    """The sender will send nothing more and closes once the other side has answered Bye."""

    reason: str = wire_field(REASON)


# -- after a game: the next one at the same table ------------------------------------------------

@message_type("rematch")
class Rematch(Message):
    """Client -> host, a seat once its game is over (at a host whose ``welcome.table`` said
    ``rematch``): this seat wants to play the next game at the table, with the same seats.  A
    wish, not consent: the seat agrees to a game only by its own fresh hello in its lobby."""


@message_type("next_game")
class NextGame(Message):
    """Host -> each seat that asked for the rematch, once every seat still at the table did:
    the next game waits in the lobby of ``table`` (the same seats kept for the same keys, in
    the same order), the ``game``-th at this table; the host then says ``bye`` and closes."""

    table: str = wire_field(Text(32, min_len=1))
    game: int = wire_field(Int(2, 2**31 - 1))


# -- host notices (only to a client that asked for them in its hello) -----------------------------

NOTICES = ("owed",)
"""The host notices a client may ask for in ``Hello.notices``."""
DEAL_STEPS = ("commit", "pass", "shares", "reveal", "seeds", "pick_commit", "pick_reveal")
"""The steps of the deal a ``deal`` body may carry (docs/protocol.md, section 11.2)."""
SHARING_DEAL_STEPS = ("share_reveal",)
"""The deal steps only a table with sharing on has (docs/dealing.md, "Version 10 messages"):
a holder's published shares of a seat lost mid-round."""
STEP = OneOf(*DEAL_STEPS, *SHARING_DEAL_STEPS)
POSITION = Int(0, 0xFFFF)
U32 = Int(0, 2**32 - 1)


class SparseRecordOf(RecordOf):
    """A record whose nil and empty optional fields stay off the wire (a notice is sent often)."""

    def to_wire(self, value):
        return {key: item for key, item in fields_to_wire(value).items()
                if item is not None and item != []}


@dataclasses.dataclass(frozen=True, slots=True)
class OwedStep:
    """One deal message a seat owes, with what it must say: ``generation`` for a commit, a
    pass (with its ``phase``), shares (for seat ``to``, the cards at ``positions``) and a
    reveal (of ``position``: ``keys`` "own", the seat's own key of a card no hand holds, or
    "all", every seat's key of a card of its hand); ``generations`` for seeds (one body, a
    seed for each); ``pick`` for a pick (a commitment also binds ``n`` and ``parties``)."""

    seat: int = wire_field(SEAT)
    step: str = wire_field(STEP)
    round: int = wire_field(Int(0, 255))
    why: str = wire_field(Text(200))
    """What it owes in words, for a person waiting on the table."""
    generation: int | None = wire_field(Nullable(U32), default=None)
    phase: int | None = wire_field(Nullable(Int(1, 2)), default=None)
    to: int | None = wire_field(Nullable(SEAT), default=None)
    positions: tuple[int, ...] = wire_field(ListOf(POSITION, 0xFFFF), default=())
    position: int | None = wire_field(Nullable(POSITION), default=None)
    keys: str | None = wire_field(Nullable(OneOf("own", "all")), default=None)
    generations: tuple[int, ...] = wire_field(ListOf(U32, 255), default=())
    pick: int | None = wire_field(Nullable(U32), default=None)
    n: int | None = wire_field(Nullable(Int(1, 2**32 - 1)), default=None)
    parties: tuple[int, ...] = wire_field(ListOf(SEAT, MAX_SEATS), default=())


@message_type("owed")
class Owed(Message):
    """Host -> a client that asked for ``"owed"``: every deal message each seat owes once the
    game message ``seq`` is applied (nil: at ``start_game``, before any).  Sent after that
    message whenever what is owed changed; the host's word, not evidence (protocol.md 11.7)."""

    seq: int | None = wire_field(Nullable(SEQ))
    owes: tuple[OwedStep, ...] = wire_field(ListOf(SparseRecordOf(OwedStep), 4096))
