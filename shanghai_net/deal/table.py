"""Every seat of a deal in one process, passing each other's messages: the harness that tests,
the benchmark and the engine adapter drive.

Each seat keeps its own :class:`Participant`; a card opened "to seat X" is opened by X's
participant alone from the keys the others sealed for it.  Messages go through the same checks
they would meet on the network (boxes, pass checks), so a cheating participant (a
subclass that overrides :meth:`Participant.outgoing`) is caught exactly as it would be there.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ..cards import Card, deck
from .audit import Verdict
from .box import SealedShare
from .errors import CheatDetected
from .messages import Message
from .participant import Participant
from .randomness import RandomBytes


class MentalTable:
    """``players`` seats (3..8) dealing ``cards`` (default: two decks and four jokers)."""

    def __init__(self, players: int, random: RandomBytes, *, cards: Sequence[Card] | None = None,
                 game_id: bytes = b"shanghai-net game", round: int = 1, shuffle_proof: bool = False,
                 participant_types: Mapping[int, type[Participant]] | None = None,
                 deal: bool = True, share_threshold: int | None = None,
                 holders: Iterable[int] | None = None) -> None:
        if not 3 <= players <= 8:
            raise ValueError(f"a table seats 3 to 8 players, not {players}")
        self._random = random
        self._box = [X25519PrivateKey.from_private_bytes(random(32)) for _ in range(players)]
        self.roster = [b.public_key() for b in self._box]
        """Every seat's box key: what the participants seal to."""
        self._types = dict(participant_types or {})
        self._game_id = game_id
        self.shuffle_proof = shuffle_proof
        self.share_threshold = share_threshold
        """Sharing on: the table's ``t``, or ``None`` (sharing off)."""
        self.holders = None if share_threshold is None else tuple(
            range(players) if holders is None else holders)
        """The seats that are dealt shares (the table layer's rules 1 to 4 say which)."""
        self.complaints: list[CheatDetected] = []
        """With sharing on, what the seats raised on a broadcast, in order (their complaints)."""
        self.vacant: set[int] = set()
        """Seats lost mid-round (R1) and not yet replaced: they send nothing."""
        self._stream: list[tuple] = []
        """With sharing on, what the stream carried, in order: a replacement follows it."""
        self._dealt: dict[int, tuple] = {}
        """generation -> its cards and holders: what a replacement follows."""
        self._seats = players
        self.new_round(round, (deck(2, 4) if cards is None else cards) if deal else None)

    def new_round(self, round: int, cards: Sequence[Card] | None = None) -> None:
        """Fresh participants for round ``round`` (same identities, nothing carried over), and,
        given ``cards``, their shuffle as the round's generation 0.  ``deal=False`` at
        construction leaves the table with round ``round``'s participants and no shuffle yet."""
        self.round = round
        self.participants = [
            self._types.get(seat, Participant)(seat, self.roster, self._game_id, round,
                                               self._box[seat], self._random, self.shuffle_proof,
                                               self.share_threshold)
            for seat in range(self._seats)]
        self.generation = -1
        self._picks = 0
        self.vacant.clear()
        self._stream.clear()
        self._dealt.clear()
        if cards is not None:
            self.reshuffle(cards)

    @property
    def players(self) -> int:
        return len(self.participants)

    def _live(self) -> list[Participant]:
        return [p for p in self.participants if p.seat not in self.vacant]

    def _broadcast(self, *messages: Message, sender: int | None = None) -> None:
        """Deliver each message to every seat but the sender (by default its author).  With
        sharing on every seat gets every message even when one complains (the stream carries
        them to all), and the first complaint is raised after."""
        raised = len(self.complaints)
        for message in messages:
            if self.share_threshold is not None:
                self._stream.append(("message", message))
            for participant in self._live():
                if participant.seat != (message.author if sender is None else sender):
                    try:
                        participant.receive(message)
                    except CheatDetected as cheat:
                        if self.share_threshold is None:
                            raise
                        self.complaints.append(cheat)
        if len(self.complaints) > raised:
            raise self.complaints[raised]

    def reshuffle(self, cards: Sequence[Card]) -> int:
        """Shuffle ``cards`` afresh, with fresh seeds, as the next generation; its number."""
        self.commit(cards)
        self.passes()
        return self.generation

    def commit(self, cards: Sequence[Card]) -> int:
        """The first half of :meth:`reshuffle`: every seat commits to a fresh seed."""
        self.generation += 1
        holders = {} if self.holders is None else {"holders": self.holders}
        self._dealt[self.generation] = (tuple(cards), self.holders)
        self._broadcast(*[p.start_generation(self.generation, cards, **holders)
                          for p in self._live()])
        return self.generation

    def passes(self, steps: int | None = None, generation: int | None = None) -> None:
        """The second half of :meth:`reshuffle`: the passes, in turn, or the next ``steps`` of
        them (a rebuilt seat's are made by every party, not sent)."""
        generation = self._current(generation)
        while steps != 0 and (step := self._live()[0].next_step(generation)) is not None:
            if step[1] in self.vacant:
                raise ValueError(f"generation {generation} waits for vacant seat {step[1]}")
            self._broadcast(self.participants[step[1]].make_pass(generation))
            steps = None if steps is None else steps - 1

    def final_deck(self, generation: int | None = None) -> tuple[bytes, ...]:
        return self.participants[0].final_deck(self._current(generation))

    def _current(self, generation: int | None) -> int:
        return self.generation if generation is None else generation

    def open_many_to(self, positions: Iterable[int], seat: int,
                     generation: int | None = None) -> list[Card]:
        """Deal ``positions`` to ``seat``: one sealed share from every other seat, opened by it."""
        generation = self._current(generation)
        positions = tuple(positions)
        recipient = self.participants[seat]
        public = self._public_seats(generation)
        boxes = [sender.share_keys(generation, seat, positions) for sender in self._live()
                 if sender.seat != seat and sender.seat not in public]
        self._show_boxes(boxes)
        for sealed in boxes:
            recipient.receive_share(sealed)
        return [recipient.open(generation, p) for p in positions]

    def _show_boxes(self, boxes: Sequence[SealedShare]) -> None:
        """The stream shows every box to every seat, for the audit."""
        for sealed in boxes:
            if self.share_threshold is not None:
                self._stream.append(("box", sealed))
            for participant in self._live():
                if participant.seat not in (sealed.author, sealed.recipient):
                    participant.record_box(sealed)

    def _public_seats(self, generation: int) -> set[int]:
        """The seats whose keys of ``generation`` are public: rebuilt (sharing on)."""
        sharing = self._live()[0].generation(generation).sharing
        return set(sharing.rebuilt) if sharing else set()

    def open_to(self, position: int, seat: int, generation: int | None = None) -> Card:
        """The card at ``position`` as ``seat``'s participant decrypts it (no one else sees it)."""
        return self.open_many_to([position], seat, generation)[0]

    def hand_over(self, position: int, holder: int, recipient: int,
                  generation: int | None = None) -> Card:
        """Move ``holder``'s hidden card at ``position`` to ``recipient`` (a SHANGHAI penalty:
        every seat knows from the public game that it moves): every seat records the move, then
        every seat but the recipient, the old holder included, seals its key for the recipient,
        which opens it.  The old holder has seen the card; no one else has."""
        generation = self._current(generation)
        for participant in self._live():
            participant.hand_over(generation, position, holder, recipient)
        return self.open_to(position, recipient, generation)

    def open_public(self, position: int, generation: int | None = None) -> Card:
        """Turn ``position`` face up: its holder reveals it, or every seat its own key if no one
        holds it; every seat checks it."""
        generation = self._current(generation)
        holders = [p for p in self._live() if position in p.generation(generation).mine]
        revealers = holders or self._live()
        for participant in revealers:
            reveal = (participant.reveal if holders else participant.reveal_own_key)(generation,
                                                                                     position)
            self._broadcast(reveal)
        cards = {p.public_card(generation, position) for p in self._live()}
        if len(cards) != 1 or None in cards:
            raise AssertionError(f"seats disagree on position {position}: {cards}")
        return cards.pop()

    def pick(self, n: int, parties: Sequence[int]) -> int:
        """An index in ``range(n)`` drawn by commit-reveal among ``parties``."""
        number = self._picks
        self._picks += 1
        parties = sorted(parties)
        self._record(("pick", number, n, parties))
        for message in [self.participants[s].pick_commit(number, n, parties) for s in parties]:
            self._broadcast(message)
        for message in [self.participants[s].pick_reveal(number) for s in parties]:
            self._broadcast(message)
        results = {p.pick_result(number) for p in self.participants}
        if len(results) != 1:
            raise AssertionError(f"seats disagree on pick {number}: {results}")
        return results.pop()

    def audit(self, seats: Iterable[int] | None = None, silent: Iterable[int] = ()) -> Verdict:
        """Round end: every seat but the ``silent`` ones reveals its seeds; ``seats`` (default
        all) each recompute everything, the silent seats' steps from their seeds rebuilt from
        the shares in the others' seeds (sharing on) or not at all; their common verdict."""
        silent = frozenset(silent)
        for participant in self._live():
            if participant.seat not in silent:
                self._broadcast(*participant.reveal_seeds())
        for generation in range(self.generation + 1):
            if len({p.transcript_digest(generation) for p in self._live()}) != 1:
                raise AssertionError(f"seats saw different broadcasts in generation {generation}")
        chosen = [p.seat for p in self._live()] if seats is None else seats
        verdicts = {self._audited_by(self.participants[s], silent) for s in chosen}
        if len(verdicts) != 1:
            raise AssertionError(f"seats reach different verdicts: {verdicts}")
        return verdicts.pop()

    @staticmethod
    def _audited_by(participant: Participant, silent: frozenset[int]) -> Verdict:
        """One seat's verdict, the seats it cannot rebuild (sharing on; all ``silent`` ones,
        off) left out of its audit."""
        try:
            absent = participant.rebuild_silent(silent)
        except CheatDetected as cheat:
            return Verdict(cheat.culprit, cheat.reason)
        return participant.audit(absent=absent)

    def save(self, seat: int) -> bytes:
        return self.participants[seat].save()

    def restore(self, seat: int, saved: bytes) -> None:
        """Replace ``seat``'s participant (as after a crash) by one restored from ``saved``."""
        self.participants[seat] = type(self.participants[seat]).restore(
            saved, self.roster, self._box[seat], self._random)

    # -- sharing on: a seat lost mid-round (R1) and its replacement --------------------------

    def lose(self, seat: int, replacement: X25519PrivateKey | None = None,
             silent: Iterable[int] = ()) -> None:
        """The vote that decides ``seat`` lost is sequenced: it is vacant and no holder any
        more; every other holder of its rebuilt generations publishes its shares, but the
        ``silent`` ones, which the host times out; every party rebuilds the seat.  Given a
        ``replacement`` box key, the replacement is then seated (:meth:`replace`).
        NotRebuildable (every party's) when it cannot be rebuilt."""
        self.holders = tuple(h for h in self.holders if h != seat)
        self.vacant.add(seat)
        self._record(("lose", seat, self.holders))
        for holder in self._live()[0].owing(seat):
            if holder in silent:
                self._record(("time out", seat, holder))
            else:
                self._broadcast(self.participants[holder].share_reveal(seat))
        if replacement is not None:
            self.replace(seat, replacement)

    def _record(self, event: tuple, skip: int | None = None) -> None:
        """An event of the stream that is no deal message: every live seat (but ``skip``, its
        sender) takes it."""
        self._stream.append(event)
        for participant in self._live():
            if participant.seat != skip:
                follow_event(participant, event)

    def replace(self, seat: int, box_key: X25519PrivateKey) -> Participant:
        """Seat a replacement in lost ``seat``: it follows the stream so far (its seat's seed
        rebuilt, its own where a generation restarts, which it commits to afresh)."""
        if seat not in self.vacant:
            raise ValueError(f"seat {seat} is not vacant")
        self._box[seat] = box_key
        self._record(("seat", seat, box_key.public_key(), self.holders))
        replacement = self._types.get(seat, Participant)(
            seat, self.roster, self._game_id, self.round, box_key, self._random,
            self.shuffle_proof, self.share_threshold)
        for number, (cards, holders) in self._dealt.items():
            replacement.follow_generation(number, cards, holders)
        for event in self._stream:
            follow_event(replacement, event)
        self.participants[seat] = replacement
        self.vacant.discard(seat)
        for number in self._dealt:
            if replacement.next_step(number) == (1, 0) and seat not in \
                    self._live()[0].generation(number).commitments:
                self._broadcast(replacement.recommit(number))
        self._hand_on(seat)
        return replacement

    def _hand_on(self, seat: int) -> None:
        """Every other live seat hands the replacement in ``seat`` its keys of the seat's
        hidden cards; the replacement opens them, from its rebuilt seed and theirs."""
        replacement = self.participants[seat]
        for number in self._dealt:
            for sender in self._live():
                if sender.seat != seat and (sealed := sender.hand_to_replacement(number, seat)):
                    self._record(("handed", sealed), skip=sender.seat)
            for position in replacement.handed_positions(number):
                replacement.open(number, position)


def follow_event(participant: Participant, event: tuple) -> None:
    """Take one event of the stream, as the seat would have seen it sequenced."""
    kind, *what = event
    if kind == "message":
        participant.receive(what[0])
    elif kind == "box":
        participant.record_box(what[0])
    elif kind == "lose":
        participant.lose(*what)
    elif kind == "time out":
        participant.time_out_shares(*what)
    elif kind == "pick":
        participant.expect_pick(*what)
    elif kind == "handed":
        if what[0].author != participant.seat:
            participant.record_handed(what[0])
    else:
        participant.seat_replacement(*what)
