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
        """Version 9: the table's ``t``, or ``None`` (sharing off: version 8)."""
        self.holders = None if share_threshold is None else tuple(
            range(players) if holders is None else holders)
        """The seats that are dealt shares (the table layer's rules 1 to 4 say which)."""
        self.complaints: list[CheatDetected] = []
        """With sharing on, what the seats raised on a broadcast, in order (their complaints)."""
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
        if cards is not None:
            self.reshuffle(cards)

    @property
    def players(self) -> int:
        return len(self.participants)

    def _broadcast(self, *messages: Message, sender: int | None = None) -> None:
        """Deliver each message to every seat but the sender (by default its author).  With
        sharing on every seat gets every message even when one complains (the stream carries
        them to all), and the first complaint is raised after."""
        raised = len(self.complaints)
        for message in messages:
            for participant in self.participants:
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
        self.generation += 1
        holders = {} if self.holders is None else {"holders": self.holders}
        self._broadcast(*[p.start_generation(self.generation, cards, **holders)
                          for p in self.participants])
        for _ in range(2):
            for participant in self.participants:
                self._broadcast(participant.make_pass(self.generation))
        return self.generation

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
        boxes = [sender.share_keys(generation, seat, positions) for sender in self.participants
                 if sender.seat != seat]
        for sealed in boxes:  # the stream shows every box to every seat, for the audit
            for participant in self.participants:
                if participant.seat not in (sealed.author, seat):
                    participant.record_box(sealed)
        for sealed in boxes:
            recipient.receive_share(sealed)
        return [recipient.open(generation, p) for p in positions]

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
        for participant in self.participants:
            participant.hand_over(generation, position, holder, recipient)
        return self.open_to(position, recipient, generation)

    def open_public(self, position: int, generation: int | None = None) -> Card:
        """Turn ``position`` face up: its holder reveals it, or every seat its own key if no one
        holds it; every seat checks it."""
        generation = self._current(generation)
        holders = [p for p in self.participants if position in p.generation(generation).mine]
        revealers = holders or self.participants
        for participant in revealers:
            reveal = (participant.reveal if holders else participant.reveal_own_key)(generation,
                                                                                     position)
            self._broadcast(reveal)
        cards = {p.public_card(generation, position) for p in self.participants}
        if len(cards) != 1 or None in cards:
            raise AssertionError(f"seats disagree on position {position}: {cards}")
        return cards.pop()

    def pick(self, n: int, parties: Sequence[int]) -> int:
        """An index in ``range(n)`` drawn by commit-reveal among ``parties``."""
        number = self._picks
        self._picks += 1
        parties = sorted(parties)
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
        for participant in self.participants:
            if participant.seat not in silent:
                self._broadcast(*participant.reveal_seeds())
        for generation in range(self.generation + 1):
            if len({p.transcript_digest(generation) for p in self.participants}) != 1:
                raise AssertionError(f"seats saw different broadcasts in generation {generation}")
        chosen = range(self.players) if seats is None else seats
        verdicts = {self.participants[s].audit(absent=silent) for s in chosen}
        if len(verdicts) != 1:
            raise AssertionError(f"seats reach different verdicts: {verdicts}")
        return verdicts.pop()

    def save(self, seat: int) -> bytes:
        return self.participants[seat].save()

    def restore(self, seat: int, saved: bytes) -> None:
        """Replace ``seat``'s participant (as after a crash) by one restored from ``saved``."""
        self.participants[seat] = type(self.participants[seat]).restore(
            saved, self.roster, self._box[seat], self._random)
