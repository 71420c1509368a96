"""A round replayed with every card known, once its seeds have opened its decks.

During play no replica knows every hand, so a rule that depends on hidden cards is checked only
by the replica of the seat that moves: carousel's "must play if able" (a seat that could play
may not draw) is the one such rule.  At a round's end every seed is revealed and every deck
opens (`deal.audit.opened_deck`); replaying the round's moves on an engine that knows every
face (``viewer=None``) then checks them all, and names the seat whose move it refuses.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..cards import Card
from ..engine import DealtGame, new_game
from ..engine.dealer import Pick, Reveal, Shuffle, Token
from ..engine.moves import Move
from ..errors import IllegalMoveError
from ..rules.ruleset import RuleSet
from .fault import Fault

__all__ = ["FullReplay"]


@dataclass(frozen=True)
class _Lost:
    """A seat lost mid-round, among a round's moves (`FullReplay.lose`)."""

    seat: int
    pays: bool
    dealt: bool
    picked: int
    """The round's picks the live replica was given before it (round 1's first-dealer pick)."""
    awaited: frozenset[Token]
    """The cards turned up for all that the live replica still waited for (`_awaited`)."""


@dataclass(frozen=True)
class _Back:
    """A lost seat played again mid-round (`FullReplay.seat_back`)."""

    seat: int
    dealt: bool
    picked: int
    awaited: frozenset[Token]


def _awaited(live: DealtGame) -> frozenset[Token]:
    """The cards turned up for all that the live replica ``live`` still waits for (the first
    card of the discard pile, say): the replay answers them after a loss or seating, as
    ``live`` had, so that the claim window they open counts the seat as ``live``'s did."""
    return frozenset(request.token for request in live.awaiting
                     if isinstance(request, Reveal) and request.to is None)


def _dealt(live: DealtGame) -> bool:
    """Whether the live replica ``live`` had its deal shuffled (no shuffle awaited): then the
    replay answers the dealer before a loss or seating, as ``live`` had."""
    return not any(isinstance(request, Shuffle) for request in live.awaiting)


class FullReplay:
    """Feed it the stream's moves and pick results as the public replica takes them; at each
    round's audit, `replay` the round with its opened decks."""

    def __init__(self, rules: RuleSet, players: int) -> None:
        self.game = new_game(rules, players, None, None)
        self._inputs: list[tuple[int, Move | _Lost | _Back]] = []
        self._picks: deque[int] = deque()
        self.moves = 0
        """Moves replayed with every card known."""

    def move(self, author: int, move: Move) -> None:
        self._inputs.append((author, move))

    def pick(self, value: int) -> None:
        self._picks.append(value)

    def void(self, leaver: int | None) -> None:
        """The running round was voided because ``leaver`` left (None: a seat that pays
        nothing), and the game goes on: its moves
        will never be replayed (its decks never open), and this game voids it as every replica
        does, a round behind them."""
        self._answer(self.game.round_no, {})  # the first dealer's pick, if it waits for it
        for _, lost in self._inputs:  # a seat lost for good before the void still pays
            if isinstance(lost, _Lost):
                self.game.lose_seat(lost.seat, pays=lost.pays)
        self._inputs = []
        self._picks.clear()  # the voided round's own picks (its SHANGHAI calls') are not replayed
        self.game.void_round(False, leaver=leaver, go_on=True)

    def lose(self, seat: int, pays: bool, live: DealtGame) -> None:
        """``seat`` was lost mid-round and the round goes on (sharing on, R1): replayed in its
        place among the moves (``live``: the replica that lost it, as it stood)."""
        self._inputs.append((seat, _Lost(seat, pays, _dealt(live), len(self._picks),
                                         _awaited(live))))

    def seat_back(self, seat: int, live: DealtGame) -> None:
        """Lost ``seat``'s replacement was seated mid-round: replayed in its place too."""
        self._inputs.append((seat, _Back(seat, _dealt(live), len(self._picks),
                                         _awaited(live))))

    def replay(self, round_no: int, decks: Mapping[int, Sequence[Card]]) -> None:
        """Replay the moves since the last round's audit on the decks of round ``round_no``
        (generation -> cards by position); a move the full game refuses is its author's fault.
        A loss or a seating comes before the dealer's answers that follow it (a seat lost, and
        seated again, before the round's deal is dealt: its claim windows of that deal count
        it, as every replica's did), after those that came before it (a seat lost once the
        deal was dealt, before any move: the upcard's claim window passes for it).  The picks
        given before it are answered before it in any case: a seat lost in round 1's shuffle
        was lost in the round the first-dealer pick began, not in the pick (which would start
        the round afresh, counting the seat in its windows); and a card turned up for all that
        the live replica still waited for comes after it (a replacement seated between the deal
        and its first card turned up: that card's claim window counts the seat).  A seat lost,
        or seated again, while the hands were shown at the round's end is neither: knowing every
        face, this game scored the round at its last move, and no move of it is left to check
        (it checks moves: the live replicas keep the score, and charged the loss)."""
        inputs, self._inputs = self._inputs, []
        given = len(self._picks)
        for author, move in inputs:
            if isinstance(move, (_Lost, _Back)):
                if self._scored(round_no):
                    continue
                answered = given - len(self._picks)
                self._answer(round_no, decks if move.dealt else {},
                             max(0, move.picked - answered), move.awaited)
            if isinstance(move, _Lost):
                self.game.lose_seat(move.seat, pays=move.pays)
                continue
            if isinstance(move, _Back):
                self.game.seat_back(move.seat)
                continue
            self._answer(round_no, decks)
            try:
                self.game.apply(move)
            except IllegalMoveError as error:
                raise Fault(author, f"round {round_no} replayed with every card known: "
                                    f"{error}") from None
            self.moves += 1
            self._answer(round_no, decks)
        self._answer(round_no, decks)

    def _scored(self, round_no: int) -> bool:
        return any(result.round_no == round_no for result in self.game.results)

    def _answer(self, round_no: int, decks: Mapping[int, Sequence[Card]],
                picks: int | None = None, held: frozenset[Token] = frozenset()) -> None:
        """Answer what the game waits for from the round's opened decks and the picks in hand
        (the next round's shuffle waits for that round's audit); ``picks``: at most so many;
        ``held``: cards turned up for all that it leaves unanswered."""
        game = self.game
        progress = True
        while progress:
            progress = False
            game.requests  # noqa: B018 - drained: ``awaiting`` is what it still waits for
            for request in game.awaiting:
                if isinstance(request, Shuffle) and request.round_no == round_no and \
                        request.generation in decks:
                    game.fulfil_shuffle(request.generation)
                elif isinstance(request, Reveal) and request.token[0] in decks and \
                        request.token not in held:
                    generation, position = request.token
                    game.learn(request.token, decks[generation][position])
                elif isinstance(request, Pick) and self._picks and picks != 0:
                    game.fulfil_pick(self._picks.popleft())
                    picks = None if picks is None else picks - 1
                else:
                    continue
                progress = True
                break
