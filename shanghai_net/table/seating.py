"""R1's replacement seated mid-round (sharing on; docs/dealing.md, "The replacement takes the
hand from that turn"), as every party reads it off the stream: `MidRoundSeating`, the part of
`StreamTable` that holds it.

A ``replace`` of a seat lost this round (R1) takes effect at the approval that completes it, the
round going on (`Roster._approve`), once no key share of a card dealt to the seat is owed (else
at the ``shares`` body that pays the last one).  From that message every other seat that is not
vacant, and whose keys of a generation are not public (rebuilt), owes the seat one ``shares``
box for each generation of its hand: its key of every hidden card of the hand, sealed to the
replacement's box key under the ``"handed box"`` derivation (deal/handed.py).  The deal is not
settled until they are all in and the seat is rebuilt: the replacement must hold its hand before
anyone moves.  A seat that never sends them owes a step, and is voted gone like any staller.

Every party keeps the running round's deal as a list of events in stream order
(``round_events``); a replacement's table replays them into its deal participant
(`follow_round`), as MentalTable.replace does in one process: it learns the round from the
signed stream alone, and no secret.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

from ..deal.box import SealedShare
from ..deal.participant import Participant
from ..deal.table import follow_event
from ..wire.messages import OwedStep
from .bodies import DealStep
from .fault import Fault

__all__ = ["MidRoundSeating", "follow_round"]


class MidRoundSeating:
    """The part of `StreamTable` that seats a lost seat's replacement mid-round: see the
    module.  ``handed_owed`` and ``round_events`` are reset with the round's counts."""

    def _reset_seating(self) -> None:
        self.handed_owed: dict[tuple[int, int], dict[int, tuple[int, ...]]] = {}
        """(seat, generation) -> sender -> the positions of the seat's hand it owes the seat's
        replacement, handed on."""
        self.handed_from: dict[tuple[int, int], set[int]] = {}
        """(seat, generation) -> the seats that handed its hand on (once each)."""
        self.round_events: list[tuple] = []
        """The running round's deal in stream order, as a replacement's participant follows it
        (`follow_round`)."""

    def _takes_seat_now(self, seat: int) -> bool:
        """A seat lost this round (R1) and still vacant, while the round runs, once no draw's
        key share to it is owed: each such share is sealed to the box key the seat had when
        the card was drawn, so it must be sequenced before the seating, where the audit opens
        it with that key (else the ``shares`` body that pays the last one seats it, `_on_shares`;
        docs/dealing-review.md, review of the code (session 18) #2)."""
        return self.share_threshold is not None and seat in self.rebuilds and \
            seat in self.vacant and not self.waiting_audit and self.accusation is None and \
            not any(owed.to == seat for owed in self.outstanding.values())

    def _seated_now(self, seat: int) -> None:
        """The replacement of lost ``seat`` plays it from this message: the handed boxes it is
        owed, and every party's deal follows it (`_seated_own`)."""
        holders = self._holders_now()  # of a restarted generation's fresh commit
        box_key = self.holders[seat].box_key
        hand = self.public.hands[seat]
        for generation in sorted(self.generations):
            positions = {p for g, p in hand if g == generation}
            public = self.rebuilt_lost(generation)
            for sender in range(self.players):
                if positions and sender != seat and sender not in self.vacant and \
                        sender not in public:  # (no key share of the hand is owed now)
                    self.handed_owed.setdefault((seat, generation), {})[sender] = \
                        tuple(sorted(positions))
        self.public.seat_back(seat)
        self.replay.seat_back(seat, self.public)
        self.round_events.append(("seat", seat, X25519PublicKey.from_public_bytes(box_key),
                                  holders))
        self._seated_own(seat, box_key, holders)

    def _seated_own(self, seat: int, box_key: bytes, holders: tuple[int, ...]) -> None:
        """The party's deal follows the seating (the public table's records: a seat's
        participant overrides it): boxes to the seat go to ``box_key`` from here, and a
        generation whose passes have not begun waits for the replacement's fresh commit, dealt
        to ``holders``."""
        for generation in self.generations:
            sharing = self._generation_record(generation).sharing
            sharing.successors[seat] = box_key
            sharing.replaced_at.setdefault(seat, len(self._generation_record(generation).boxes))
            if not self._passes.get(generation):
                sharing.recommitted[seat] = tuple(h for h in holders if h != seat)

    def _drop_sender(self, seat: int) -> None:
        """``seat`` is lost: its keys come from its seed once rebuilt, not in a handed box."""
        for key in list(self.handed_owed):
            self.handed_owed[key].pop(seat, None)
            if not self.handed_owed[key]:
                del self.handed_owed[key]

    def hands_handed(self) -> bool:
        """No handed box is owed, and every seat played again after its loss is rebuilt: its
        replacement can open its hand, so a move may come."""
        return not self.handed_owed and all(rebuild.rebuilt for seat, rebuild in
                                            self.rebuilds.items() if seat not in self.vacant)

    def _owed_handed(self) -> Iterator[OwedStep]:
        for (seat, generation), senders in sorted(self.handed_owed.items()):
            for sender, positions in sorted(senders.items()):
                yield OwedStep(sender, "shares", self.round,
                               f"its keys of seat {seat}'s hand for its replacement",
                               generation=generation, to=seat, positions=positions)

    # -- the shares a seat sends ---------------------------------------------------------------

    def _sorted_shares(self, author: int, step: DealStep
                       ) -> tuple[list[SealedShare], list[SealedShare]]:
        """A ``shares`` body's boxes as (handed on, key shares of draws); Fault naming
        ``author`` for a box no one asked of it: a key share not owed, a handed box whose
        positions are not the seat's hand or not those it owes, or a second one."""
        handed, drawn, claimed = [], [], set()
        for sealed in step.sealed:
            generation, seat = sealed.context.generation, sealed.recipient
            owing = {(generation, p) for p, owed in ((p, self.outstanding.get((generation, p)))
                                                     for p in sealed.positions)
                     if owed is not None and owed.to == seat and author in owed.owing}
            if len(owing) == len(sealed.positions) and not owing & claimed:
                claimed |= owing
                drawn.append(sealed)
                continue
            where = f"seat {author}: a box handing seat {seat}'s hand of generation {generation} on"
            owed = self.handed_owed.get((seat, generation), {}).get(author)
            if owed is None and author in self.handed_from.get((seat, generation), ()):
                raise Fault(author, f"{where}, a second one")
            if owed is None:
                position = next(p for p in sealed.positions
                                if (generation, p) not in owing or (generation, p) in claimed)
                raise Fault(author, f"seat {author}: a key share for position {position} of "
                                    f"generation {generation} that no one asked of it (no key "
                                    f"share for position {position} is owed to seat {seat})")
            hand = {p for g, p in self.public.hands[seat] if g == generation}
            if not set(sealed.positions) <= hand:
                raise Fault(author, f"{where} holds positions "
                                    f"{sorted(set(sealed.positions) - hand)}, not in its hand")
            if tuple(sorted(sealed.positions)) != owed or len(sealed.positions) != len(owed):
                raise Fault(author, f"{where} holds positions {list(sealed.positions)}, not the "
                                    f"{list(owed)} it owes")
            handed.append(sealed)
        return handed, drawn

    def _on_shares(self, author: int, step: DealStep) -> None:
        """A sequenced ``shares`` body: key shares of draws and boxes handing a hand on."""
        handed, drawn = self._sorted_shares(author, step)
        for sealed in drawn:
            for position in sealed.positions:
                self.outstanding[(sealed.context.generation, position)].owing.discard(author)
        for key in [k for k, owed in self.outstanding.items() if not owed.owing]:
            del self.outstanding[key]
        for sealed in handed:
            key = (sealed.recipient, sealed.context.generation)
            del self.handed_owed[key][author]
            if not self.handed_owed[key]:
                del self.handed_owed[key]
            self.handed_from.setdefault(key, set()).add(author)
            self.round_events.append(("handed", sealed))
            self._seat_handed(author, sealed)
        self.round_events.extend(("box", sealed) for sealed in drawn)
        step.sealed = drawn
        self._seat_shares(author, step)
        paid = {sealed.recipient for sealed in drawn}
        for seq in [seq for seq, p in sorted(self.proposals.items()) if p.body.seat in paid]:
            self._seat_approved(seq)  # the key shares its seating waited for are in

    def _seat_handed(self, author: int, sealed: SealedShare) -> None:
        """A handed box, as the party's deal keeps it (a seat's participant overrides it)."""
        self._generation_record(sealed.context.generation).sharing.handed.append(sealed)


def follow_round(participant: Participant, events: Iterable[tuple]) -> None:
    """A replacement's participant takes the running round's events in stream order, as its
    seat would have (docs/dealing.md, "How the replacement learns the round"): each generation
    dealt with its holders and each card handed over by the game (a SHANGHAI penalty), and, as
    MentalTable.replace replays them, each deal message, each box (its predecessor's it cannot
    open), each loss, ``"shares"`` timeout, seating (its own included), handed box and pick."""
    for event in events:
        kind, *what = event
        if kind == "generation":
            participant.follow_generation(*what)
        elif kind == "hand over":
            participant.hand_over(*what)
        else:
            follow_event(participant, event)
