"""The engine's Dealer seam on top of the mental-poker core: `MentalDealer`.

The engine names a hidden card by a token ``(generation, position)`` and asks its dealer for
shuffles, reveals and random picks (see :mod:`shanghai_net.engine.dealer`).  Here every request
is one protocol step run by every seat of a :class:`MentalTable`:

- ``Shuffle`` of generation 0 starts a round: the round before is audited, then fresh
  participants (fresh seeds, the new round number) shuffle the cards; a later generation is an
  empty-stock reshuffle of the public cards the engine gives, in its order.
- ``Reveal(token, seat)``: every other seat seals its per-card key for that seat, whose
  participant alone opens the card (a card that moves from one hand to another, the SHANGHAI
  penalty, is handed over: the old holder's key goes too).
- ``Reveal(token, None)``: a hand card is shown by its holder (all its keys), a stock card by
  every seat's own key; every seat checks.
- ``Pick``: commit-reveal among the parties.

One dealer serves any number of engine replicas of the same game (one per seat, each with
``viewer=seat``): the first replica to ask runs the step, the others get the same answer, and a
replica learns a face only from its own seat's participant (the seat it is dealt to, or a public
reveal that participant checked).  A replica with ``viewer=None`` learns every face any
participant opened: an in-process harness view for tests and simulations that no real peer has.

A move that shows hidden cards (meld, lay-off, discard) carries their faces, so the replicas
of the other seats must learn them first: :meth:`MentalDealer.publish` has the mover reveal a
card and every seat check it, and :meth:`MentalDealer.play` does that for every card a move
shows before applying the move to every replica.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from ..cards import Card
from ..engine.dealer import Pick, Request, Reveal, Shuffle, Token
from .audit import Verdict, opened_deck
from .errors import CheatDetected
from .generation import Generation
from .table import MentalTable

if TYPE_CHECKING:
    from ..engine.events import Event
    from ..engine.game import Game
    from ..engine.moves import Move

__all__ = ["MentalDealer", "cards_named"]


@dataclass
class _Answer:
    """One request as the table answered it, for every replica that asks it."""

    request: Request
    faces: dict[int | None, Card] = field(default_factory=dict)
    """viewer -> the face it learns (None: the harness view)."""
    value: int | None = None
    """A pick's result."""


class MentalDealer:
    """The engine's dealer, answering from a :class:`MentalTable`'s participants.

    ``table`` must not have shuffled yet: build it with ``round=0, deal=False`` (the first-dealer
    pick is drawn by round 0's participants, before the engine asks for round 1's shuffle)."""

    def __init__(self, table: MentalTable) -> None:
        if table.generation != -1:
            raise ValueError("the table has shuffled already: build it with deal=False")
        self.table = table
        self.verdicts: dict[int, Verdict] = {}
        """round number -> its audit's verdict."""
        self._audited: dict[int, list[Generation]] = {}
        self._log: list[_Answer] = []
        self._cursors: dict[Game, int] = {}

    # -- the Dealer seam -------------------------------------------------------------------------

    def handle(self, request: Request, game: Game) -> None:
        """Answer ``game``'s request: run its protocol step if no replica asked it before."""
        index = self._cursors.get(game, 0)
        if index == len(self._log):
            self._log.append(self._execute(request, game))
        answer = self._log[index]
        if answer.request != request:
            raise AssertionError(f"replica of viewer {game.viewer} asks {request}; request "
                                 f"{index} was {answer.request}: the replicas diverged")
        self._cursors[game] = index + 1
        if isinstance(request, Shuffle):
            game.fulfil_shuffle(request.generation)
        elif isinstance(request, Reveal):
            card = answer.faces.get(game.viewer)
            if card is not None:
                game.learn(request.token, card)
        else:
            game.fulfil_pick(answer.value)

    def _execute(self, request: Request, game: Game) -> _Answer:
        if isinstance(request, Shuffle):
            self._shuffle(request, game)
            return _Answer(request)
        self._require_open_round()
        if isinstance(request, Reveal):
            return _Answer(request, self._reveal(request))
        return _Answer(request, value=self.table.pick(request.n, request.parties))

    def _require_open_round(self) -> None:
        if self.table.round in self.verdicts:
            raise ValueError(f"round {self.table.round} is over: its seeds are revealed")

    def _shuffle(self, request: Shuffle, game: Game) -> None:
        table = self.table
        if game.rules.shuffle_proof != table.shuffle_proof:
            raise ValueError(f"the rules say shuffle_proof={game.rules.shuffle_proof}, the table "
                             f"{table.shuffle_proof}")
        if request.generation == 0:
            if request.round_no <= table.round and table.generation >= 0:
                raise ValueError(f"round {request.round_no} was dealt already")
            if table.generation >= 0:
                verdict = self.audit()
                if not verdict.clean:
                    raise CheatDetected(verdict.culprit, verdict.reason)
            table.new_round(request.round_no, request.cards)
            return
        expected = (table.round, table.generation + 1)
        if (request.round_no, request.generation) != expected:
            raise ValueError(f"asked to shuffle generation {request.generation} of round "
                             f"{request.round_no}; the next is generation {expected[1]} of round "
                             f"{expected[0]}")
        table.reshuffle(request.cards)

    def _reveal(self, request: Reveal) -> dict[int | None, Card]:
        generation, position = request.token
        if generation < 0:
            return {}  # a card that entered a hand face up: every replica knows it
        participants = self.table.participants
        if request.to is None:
            if participants[0].public_card(generation, position) is None:
                self.table.open_public(position, generation)
            faces: dict[int | None, Card] = {
                p.seat: p.public_card(generation, position) for p in participants}
            faces[None] = faces[0]
            return faces
        holder = next((p.seat for p in participants
                       if position in p.generation(generation).mine), None)
        if holder is None:
            card = self.table.open_to(position, request.to, generation)
        elif holder != request.to:
            card = self.table.hand_over(position, holder, request.to, generation)
        else:
            card = participants[holder].open(generation, position)
        return {request.to: card, None: card}

    # -- moves that show cards -------------------------------------------------------------------

    def publish(self, seat: int, card: Card) -> tuple[Token, Card]:
        """``seat`` shows its hidden ``card``: it publishes every key of the card's position and
        every seat checks them (a forged key is named at once: :class:`CheatDetected`).  The
        token and the card every seat saw, for each replica to ``learn`` before the move."""
        self._require_open_round()
        generation, position = self.table.participants[seat].token_of(card)
        shown = self.table.open_public(position, generation)
        if shown != card:
            raise AssertionError(f"seat {seat} showed {card!r} but every seat opened {shown!r}")
        return (generation, position), shown

    def play(self, games: Sequence[Game], move: Move) -> list[list[Event]]:
        """Make ``move`` in every replica of ``games``; each replica's events.

        The hidden cards the move names (see :func:`cards_named`) are shown first, but only once
        the mover's own replica (or the harness view) has found the move legal, so a refused
        move shows nothing; every replica then learns them and applies the move."""
        seat = move.seat
        participants = self.table.participants
        held = set(participants[seat].hand().values()) if 0 <= seat < len(participants) else set()
        shown = [card for card in cards_named(move) if card in held]
        if shown:
            judge = next((g for g in games if g.viewer == seat), None) or \
                next((g for g in games if g.viewer is None), None)
            if judge is None:
                raise ValueError(f"no replica in games knows seat {seat}'s cards")
            if not judge.is_legal(move):
                judge.apply(move)  # raises IllegalMoveError with the engine's reason
                raise AssertionError(f"{move!r}: is_legal and apply disagree")
            for card in shown:
                token, face = self.publish(seat, card)
                for game in games:
                    game.learn(token, face)
        return [game.apply(move) for game in games]

    # -- the round's end -------------------------------------------------------------------------

    def audit(self, seats: Iterable[int] | None = None) -> Verdict:
        """End the current round: every seat reveals its seeds and the key shares it received,
        ``seats`` (default: all) recompute every step, and their common verdict is recorded in
        :attr:`verdicts`.  The round can go on no further.  A new round's shuffle calls this."""
        table = self.table
        if table.round in self.verdicts:
            return self.verdicts[table.round]
        verdict = table.audit(seats)
        self.verdicts[table.round] = verdict
        self._audited[table.round] = [table.participants[0].generation(number)
                                      for number in range(table.generation + 1)]
        return verdict

    @property
    def verdict(self) -> Verdict | None:
        """The last audited round's verdict."""
        return self.verdicts[max(self.verdicts)] if self.verdicts else None

    def decks(self, round_no: int) -> dict[int, tuple[Card, ...]]:
        """generation -> its cards in position order, opened from the seeds revealed at the
        audit of round ``round_no`` (for replaying the round, e.g. with
        ``LocalDealer(order=...)``).  Only for a round whose audit was clean."""
        verdict = self.verdicts.get(round_no)
        if verdict is None or not verdict.clean:
            raise ValueError(f"round {round_no} was not audited clean: {verdict}")
        return {g.context.generation: opened_deck(g) for g in self._audited[round_no]}

    @property
    def picks(self) -> list[tuple[Pick, int]]:
        """Every random pick so far and its result, in order."""
        return [(a.request, a.value) for a in self._log if isinstance(a.request, Pick)]


def cards_named(move: Move) -> Iterator[Card]:
    """Every card a move names, in its fields' order: a card of the mover's hidden hand among
    them is one the move shows (melded, laid off, traded or discarded)."""
    def walk(value: object) -> Iterator[Card]:
        if isinstance(value, Card):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                yield from walk(item)
    for f in dataclasses.fields(move):
        yield from walk(getattr(move, f.name))
