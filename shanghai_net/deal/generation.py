"""One shuffle of one list of cards, as one participant saw it: the public transcript and its own
secrets.  The audit reads these; save/restore writes and reads them."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import msgpack

from ..cards import Card, card_from_id
from .box import SealedShare
from .group import card_point, card_points
from .messages import Commitment, Context, KeyReveal, KeyShare, Message, PassOutput, SeedReveal
from .seeds import SeedKeys
from .shares import GenerationShares


@dataclass
class Generation:
    context: Context
    cards: tuple[Card, ...]
    seats: int
    seat: int
    seed: bytes | None
    """This seat's seed; ``None`` for a replacement until its seat's seed is rebuilt."""
    commitments: dict[int, Commitment] = field(default_factory=dict)
    passes: list[PassOutput] = field(default_factory=list)
    received_shares: list[KeyShare] = field(default_factory=list)
    """Key shares this seat received, opened from their boxes."""
    boxes: list[SealedShare] = field(default_factory=list)
    """Every sealed share of the generation the stream carried, whoever it was for: the audit
    opens each one with its sender's seed."""
    given: dict[int, int] = field(default_factory=dict)
    """position -> the seat this participant sent its key for it to."""
    mine: dict[int, Card] = field(default_factory=dict)
    """Positions opened to this participant and not revealed since."""
    reveals: list[KeyReveal] = field(default_factory=list)
    public: dict[int, Card] = field(default_factory=dict)
    seed_reveals: dict[int, SeedReveal] = field(default_factory=dict)
    sharing: GenerationShares | None = None
    """Sharing on: the generation's holders and the shares this seat holds."""

    @property
    def size(self) -> int:
        return len(self.cards)

    @cached_property
    def keys(self) -> SeedKeys:
        if self.seed is None:
            raise ValueError(f"generation {self.context.generation}: seat {self.seat}'s seed is "
                             "not rebuilt yet")
        return SeedKeys(self.context, self.seat, self.seed, self.size)

    def seat_keys(self, seat: int) -> SeedKeys:
        """Another seat's keys, from its rebuilt seed (sharing on)."""
        if seat == self.seat and self.seed is not None:
            return self.keys
        return self.sharing.rebuilt_keys(self.context, seat, self.size)

    @cached_property
    def card_points(self) -> dict[bytes, Card]:
        return card_points(self.cards)

    def seed_of(self, seat: int) -> bytes | None:
        """``seat``'s seed as this participant knows it: revealed, or rebuilt (sharing on)."""
        reveal = self.seed_reveals.get(seat)
        if reveal is not None:
            return reveal.seed
        return self.sharing.rebuilt.get(seat) if self.sharing else None

    def step_input(self, step: int) -> list[bytes]:
        """What pass step ``step`` (0 .. 2·seats-1) multiplies."""
        if step == 0:
            return [card_point(card.id) for card in self.cards]
        return list(self.passes[step - 1].points)

    def step_of(self, step: int) -> tuple[int, int]:
        """(phase, seat) of pass step ``step``: pass 1 in seat order, then pass 2."""
        return 1 + step // self.seats, step % self.seats

    @property
    def final_deck(self) -> tuple[bytes, ...]:
        if len(self.passes) != 2 * self.seats:
            raise ValueError(f"generation {self.context.generation} is not shuffled yet "
                             f"({len(self.passes)} of {2 * self.seats} passes)")
        return self.passes[-1].points

    def received(self, position: int) -> dict[int, bytes]:
        """seat -> key, for the keys of ``position`` this participant received."""
        return {share.author: key for share in self.received_shares
                if share.recipient == self.seat
                for p, key in zip(share.positions, share.keys) if p == position}

    def revealed(self, position: int) -> dict[int, bytes]:
        return {seat: key for reveal in self.reveals if reveal.position == position
                for seat, key in reveal.keys}

    def transcript_digest(self) -> bytes:
        """SHA-256 over the broadcasts in order: seats compare it to catch a seat (or a relay)
        that showed different seats different messages."""
        h = hashlib.sha256(b"shanghai-net v2 transcript" + self.context.encode())
        for message in (*sorted(self.commitments.values(), key=lambda c: c.author), *self.passes,
                        *sorted(self.reveals, key=lambda r: (r.position, r.author))):
            h.update(msgpack.packb(message.to_plain()))
        return h.digest()

    def to_plain(self) -> list[Any]:
        """Everything, seed included, as msgpack-ready lists (for saving to the seat's own disk)."""
        messages = [list(self.commitments.values()), self.passes, self.received_shares,
                    self.reveals, list(self.seed_reveals.values())]
        shared = [] if self.sharing is None else [self.sharing.to_plain()]
        return [list(dataclasses.astuple(self.context)), [card.id for card in self.cards],
                self.seats, self.seat, self.seed,
                [[m.to_plain() for m in group] for group in messages],
                sorted(self.given.items()), sorted((p, c.id) for p, c in self.mine.items()),
                sorted((p, c.id) for p, c in self.public.items()),
                [[b.author, b.recipient, list(b.positions), b.epk, b.ciphertext]
                 for b in self.boxes], *shared]

    @classmethod
    def from_plain(cls, plain: Any) -> Generation:
        context, card_ids, seats, seat, seed, messages, given, mine, public, boxes, *shared = plain
        commitments, passes, received_shares, reveals, seed_reveals = (
            [Message.from_plain(m) for m in group] for group in messages)
        context = Context(*context)
        return cls(context, tuple(map(card_from_id, card_ids)), seats, seat, seed,
                   {c.author: c for c in commitments}, passes, received_shares,
                   [SealedShare(context, a, r, tuple(ps), epk, box) for a, r, ps, epk, box in boxes],
                   dict(map(tuple, given)), {p: card_from_id(c) for p, c in mine}, reveals,
                   {p: card_from_id(c) for p, c in public}, {r.author: r for r in seed_reveals},
                   GenerationShares.from_plain(context, shared[0]) if shared else None)
