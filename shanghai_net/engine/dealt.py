"""The machinery every Shanghai engine shares: a game dealt through the Dealer seam.

`DealtGame` names every card by a `Token` and asks a `Dealer` for shuffles, faces and random picks
(`learn`, `fulfil_shuffle`, `fulfil_pick` answer them; inputs nest when a dealer answers at once).
It holds the hands, the table, the log, and applies a move through the subclass's ``_HANDLERS``,
refusing it with the state unchanged; `check` tries a move on a copy.  The end of a round (every
hand shown, then scored), the pot, the ranking and the result are the same for every game.

The contract `Game` (engine/game.py) and the `CarouselGame` (engine/carousel.py) each add their
flow and moves; the discard pile and claim window stay empty in a game that has none (carousel),
so a `PlayerView` reads every game alike.
"""

from __future__ import annotations

import copy
import functools
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Callable

from ..cards import Card
from ..errors import IllegalMoveError
from ..rules.melds import Meld
from ..rules.ruleset import RuleSet
from ..rules.scoring import penalty
from .dealer import Dealer, Pick, Request, Reveal, Shuffle, Token
from .events import (Event, GameEnded, GameResult, PotReturned, RoundEnded, RoundResult, RoundVoided,
                     SeatLost, WentOut)
from .moves import Move

__all__ = ["DealtGame", "Phase", "ClaimWindow"]


class Phase(StrEnum):
    STARTING = "starting"  # waiting for the random first dealer
    DEALING = "dealing"  # waiting for the round's shuffle
    DRAW = "draw"  # the seat to play draws; the discard may be claimed
    PLAY = "play"  # the seat to play melds, lays off, discards
    SCORING = "scoring"  # waiting for the hands left to be shown
    OVER = "over"


@dataclass
class ClaimWindow:
    """Who may still claim the top discard, in priority order (turn order after the drawer)."""

    card: Card
    order: tuple[int, ...]
    claimed: set[int] = field(default_factory=set)
    passed: set[int] = field(default_factory=set)
    declined: bool = False  # the drawer chose the stock; the window closes once all have decided

    def undecided(self) -> list[int]:
        return [s for s in self.order if s not in self.claimed and s not in self.passed]

    def winner(self) -> int | None | bool:
        """The seat that gets the card, None if nobody, False while it is not yet known."""
        for seat in self.order:
            if seat in self.claimed:
                return seat
            if seat not in self.passed:
                return False
        return None


def _public(card: Card) -> Token:
    return (-1, card.id)


class DealtGame(ABC):
    """A game of one table dealt through a `Dealer`: the subclass validates the table, then calls
    this ``__init__``, which asks for the first dealer (a synchronous dealer starts the game);
    with ``start=False`` it asks for nothing: a position laid out by hand (a search's sampled
    deal) sets its state and goes on from there."""

    _HANDLERS: dict[type, Callable]
    """Each move type this game accepts, and the method that applies it."""

    def __init__(self, rules: RuleSet, players: int, dealer: Dealer | None = None, viewer: int | None = None,
                 start: bool = True):
        self.rules = rules
        self.players = players
        self.viewer = viewer
        self.dealer = dealer
        self.round_no = 0
        """The deal, from 1: it names the deal's cryptographic context, so it moves on with every
        deal, a voided round's deal again too, and no number is used twice."""
        self.contract_no = 0
        """The round as the rules count it, from 1 (a contract game's contract): a voided round
        dealt again (`void_round`) keeps its number, so the rules never see a voided round."""
        self.dealer_seat: int | None = None
        self.turn = 0
        self.phase = Phase.STARTING
        self.scores = [0] * players
        self.money = [rules.stake] * players if rules.money else [0] * players
        self.rebuys = [0] * players
        self.pot = 0
        self.pot_paid = [0] * players
        """What goes back to each seat if nobody wins the pot still on the table: what it put in,
        and its share of a leaver's penalty (`_fine_into_pot`)."""
        self.progress = [0] * players
        self._ledgers: list[tuple] = []
        self._lost_paid: dict[int, list[int]] = {}
        """Round -> the seats lost in it for good that paid (`lose_seat`): a void of the round
        charges them again, the ledgers it restores having taken their charge back."""
        """Scores, money, rebuys, the pot and progress as each round began (`_reset_round`), and
        its contract number and dealer, by round number (0: the game's start): a voided round is
        taken back to its own, whatever it paid or scored, and dealt again from there."""
        self.results: list[RoundResult] = []
        self.result: GameResult | None = None
        self._pending: list[tuple[Request, Callable[..., None] | None]] = []
        self._requests: list[Request] = []
        self._events: list[Event] = []
        self._depth = 0
        self.log: list[Event] = []
        """Every event so far, in order (the table's log)."""
        self._reset_round()
        if start:
            self._entry(self._pick_first_dealer)

    # -- what each game answers ----------------------------------------------------------------

    @abstractmethod
    def _start_round(self, again: bool = False) -> None:
        """Deal the next round (asking for its shuffle); ``again``: the round just voided, dealt
        again (`_next_deal`)."""

    @abstractmethod
    def _game_over(self) -> bool:
        """Whether the round just scored was the last."""

    @abstractmethod
    def legal_moves(self, seat: int) -> Iterator[Move]:
        """The moves ``seat`` may make now."""

    @abstractmethod
    def contract(self, seat: int) -> tuple[int, int]:
        """(sets, runs) this seat must lay down now."""

    @abstractmethod
    def final_contract(self, seat: int) -> bool:
        """True where the contract is melded all at once."""

    @abstractmethod
    def may_call_shanghai(self, seat: int) -> bool:
        """Whether ``seat`` may call SHANGHAI on the top discard now."""

    # -- round state ---------------------------------------------------------------------------

    def _next_deal(self, again: bool) -> None:
        """Number the next deal and clear the table for it: a new ``round_no`` always, a new
        ``contract_no`` unless the round is a voided one dealt again."""
        self.round_no += 1
        if not again:
            self.contract_no += 1
        self._reset_round()

    def _reset_round(self) -> None:
        self._ledgers.append(self._ledger())
        n = self.players
        self.generation = -1
        self.stock: list[Token] = []  # the top card is the last
        self.faces: dict[Token, Card] = {}
        self.token_of: dict[Card, Token] = {}
        self.hands: list[list[Token]] = [[] for _ in range(n)]
        self.table: list[Meld] = []
        self.meld_owner: list[int] = []
        self.placed_by: dict[Card, int] = {}
        self.discard: list[Card] = []
        self.shanghaied: set[Card] = set()
        self.window: ClaimWindow | None = None
        self.down = [False] * n
        self.claims_left: list[int | None] = [self.rules.claims_per_round] * n  # None: no limit
        self.absent: set[int] = set()  # lost this round (`lose_seat`) and not yet taken back
        self.must_lay_off: set[Card] = set()
        self.went_down_now = False

    # -- dealer inputs -------------------------------------------------------------------------

    @property
    def requests(self) -> list[Request]:
        """Requests for a dealer that have not been handed out yet (taken by the caller)."""
        out, self._requests = self._requests, []
        return out

    @property
    def awaiting(self) -> list[Request]:
        """The requests this game still waits for (each handed out once by ``requests``)."""
        return [request for request, _ in self._pending]

    @property
    def waiting(self) -> bool:
        """True while the game waits for the dealer (or for owed stock cards)."""
        return bool(self._pending)

    def learn(self, token: Token, card: Card) -> list[Event]:
        """The face of ``token`` as the dealer revealed it to this viewer."""
        known = self.faces.get(token)
        if known is not None:
            if known != card:
                raise IllegalMoveError(f"{token} was revealed as {known}, now as {card}")
            return []  # nothing waits for a face known already (a game waits only for unknown ones)
        self.faces[token] = card
        self.token_of[card] = token
        return self._entry(self._resolve, lambda r: isinstance(r, Reveal) and r.token == token)

    def fulfil_shuffle(self, generation: int) -> list[Event]:
        return self._entry(self._resolve, lambda r: isinstance(r, Shuffle) and r.generation == generation)

    def fulfil_pick(self, value: int) -> list[Event]:
        for request, _ in self._pending:
            if isinstance(request, Pick):
                if not 0 <= value < request.n:
                    raise IllegalMoveError(f"random pick {value} is outside 0..{request.n - 1}")
                return self._entry(self._resolve, lambda r: r is request, value)
        raise IllegalMoveError("no random pick was asked for")

    def _entry(self, action: Callable[..., None], *args) -> list[Event]:
        """Run an input; the outermost one settles owed draws and hands back the events.

        A synchronous dealer answers from inside a move, so inputs nest; only the outermost
        call may draw the owed cards and collect what happened.
        """
        self._depth += 1
        try:
            action(*args)
            if self._depth == 1:
                self._advance()
        finally:
            self._depth -= 1
        if self._depth:
            return []
        out, self._events = self._events, []
        return out

    def _ask(self, request: Request, then: Callable[..., None] | None = None, wait: bool = True) -> None:
        if wait:
            self._pending.append((request, then))
        if self.dealer is None:
            self._requests.append(request)
        else:
            self.dealer.handle(request, self)

    def _resolve(self, match, *args) -> None:
        for i, (request, then) in enumerate(self._pending):
            if match(request):
                del self._pending[i]
                if then:
                    then(*args)
                return

    def _emit(self, event: Event) -> None:
        self._events.append(event)
        self.log.append(event)

    def _reveal(self, token: Token, to: int | None, then: Callable[[], None] | None = None) -> None:
        """Ask for a face; wait only if this viewer is entitled to it and does not know it."""
        entitled = self.viewer is None or to is None or to == self.viewer
        if token in self.faces or not entitled:
            self._ask(Reveal(token, to), wait=False)
            if then:
                then()
        else:
            self._ask(Reveal(token, to), then)

    def _advance(self) -> None:
        """After the outermost input: what the game does on its own (the contract game draws the
        cards it owes)."""

    # -- the flow ------------------------------------------------------------------------------

    def _ledger(self) -> tuple:
        """Every ledger as it stands, what a void of the round takes them back to."""
        return (tuple(self.scores), tuple(self.money), tuple(self.rebuys), self.pot,
                tuple(self.pot_paid), tuple(self.progress), self.contract_no, self.dealer_seat)

    def _pick_first_dealer(self) -> None:
        self._ask(Pick(self.players, tuple(range(self.players)), "first dealer"), self._first_dealer)

    def _first_dealer(self, value: int) -> None:
        self.dealer_seat = value
        self._start_round()

    def _new_generation(self, cards: tuple[Card, ...], then: Callable[[], None]) -> None:
        # what waits is a partial of methods, not a closure: a deep copy of the game (a seat
        # taken over at a round's start copies the public replica) then waits on its own
        self.generation += 1
        self._ask(Shuffle(self.round_no, self.generation, cards),
                  functools.partial(self._shuffled, self.generation, len(cards), then))

    def _shuffled(self, generation: int, size: int, then: Callable[[], None]) -> None:
        self.stock = [(generation, p) for p in range(size - 1, -1, -1)]
        then()

    # -- knowledge helpers ---------------------------------------------------------------------

    def hand(self, seat: int) -> list[Card]:
        """The faces of a seat's hand that this viewer knows."""
        tokens = self.hands[seat]
        try:  # asked for every decision: read at once where every face is known (the usual case)
            return list(map(self.faces.__getitem__, tokens))
        except KeyError:
            return [self.faces[t] for t in tokens if t in self.faces]

    def _holds(self, seat: int, card: Card, move: Move) -> Token:
        token = self.token_of.get(card)
        if token is None or token not in self.hands[seat]:
            raise self._illegal(move, f"seat {seat} does not hold {card}")
        return token

    def _illegal(self, move: Move, why: str) -> IllegalMoveError:
        return IllegalMoveError(f"{move.text()!r} by seat {move.seat}: {why}")

    def _take_from_hand(self, seat: int, card: Card) -> None:
        self.hands[seat].remove(self.token_of[card])

    def _to_hand(self, seat: int, card: Card) -> None:
        token = _public(card)
        self.faces[token] = card
        self.token_of[card] = token
        self.hands[seat].append(token)

    def _pay(self, seat: int, amount: int, to: int | None = None) -> None:
        while self.money[seat] < amount:
            self.money[seat] += self.rules.stake
            self.rebuys[seat] += 1
        self.money[seat] -= amount
        if to is not None:
            self.money[to] += amount

    def _into_pot(self, seat: int, amount: int) -> None:
        self._pay(seat, amount)
        self.pot += amount
        self.pot_paid[seat] += amount

    def _fine_into_pot(self, seat: int, amount: int) -> None:
        """A penalty into the pot, for whoever wins it as any pot; if nobody ever does, it goes
        back (`_return_pot`) to the other seats, never to the one that paid it: equal shares,
        what does not divide one each to the seats after the payer, in turn."""
        self._pay(seat, amount)
        self.pot += amount
        others = [(seat + k) % self.players for k in range(1, self.players)]
        share, rest = divmod(amount, len(others))
        for i, other in enumerate(others):
            self.pot_paid[other] += share + (i < rest)

    def _return_pot(self) -> None:
        """A pot nobody won when the game ends goes back to whoever put it in (money is kept)."""
        if not self.pot:
            return
        for seat, paid in enumerate(self.pot_paid):
            self.money[seat] += paid
        self._emit(PotReturned(tuple(self.pot_paid)))
        self.pot = 0
        self.pot_paid = [0] * self.players

    # -- queries and apply ---------------------------------------------------------------------

    def to_move(self) -> list[int]:
        """Seats that have a decision to make now, the seat to play first."""
        if self._pending or self.phase not in (Phase.DRAW, Phase.PLAY):
            return []
        if self.phase is Phase.PLAY:
            return [self.turn]
        seats = [] if self.window and self.window.declined else [self.turn]
        if self.window:
            seats += self.window.undecided()
        return seats

    def apply(self, move: Move) -> list[Event]:
        """Make the move; raise IllegalMoveError (state unchanged) if the rules refuse it."""
        if self.phase is Phase.OVER:
            raise self._illegal(move, "the game is over")
        if self._pending:
            raise self._illegal(move, "the game is waiting for the dealer")
        if not 0 <= move.seat < self.players:
            raise self._illegal(move, f"there is no seat {move.seat}")
        handler = self._HANDLERS.get(type(move))
        if handler is None:
            raise IllegalMoveError(f"{move!r}: not a move of this game")
        return self._entry(handler, self, move)

    def void_round(self, scored: bool = False, *, leaver: int | None = None, go_on: bool = False) -> list[Event]:
        """The table voids the running round: it scores nothing and pays nothing (its ante and
        what it paid for jokers go back), every ledger taken back to where the round began.

        ``leaver``: the seat whose leaving for good voided it (the deal cannot go on without its
        keys) pays ``rules.leave_penalty`` (`_charge_leaver`), so that leaving never buys a bad
        round back for free.  ``go_on``: the game goes on, a replacement in the seat: the same
        contract is dealt again as the next ``round_no`` (a deal's number is never used twice)
        with the same ``contract_no``, by the same dealer (the void round never happened, so
        the deal does not pass on); carousel deals its next hand.  Else the game ends with the
        rounds before it, a pot nobody won returned as at any game's end (a deal's audit
        convicted a cheat).  ``scored``: the round is the one just scored, whose audit the
        table was still waiting for when the vote came (the next one has begun, with no move,
        or the game has ended): its score is taken back, and the next round's ante with it."""
        if self.phase is Phase.OVER and not scored:
            raise IllegalMoveError("void the round: the game is over")
        if leaver is not None and not 0 <= leaver < self.players:
            raise IllegalMoveError(f"void the round: there is no seat {leaver}")
        round_no = self.round_no
        if scored:
            if not self.results:
                raise IllegalMoveError("void the round: no round has been scored")
            round_no = self.results.pop().round_no
        scores, money, rebuys, self.pot, pot_paid, progress, contract_no, dealer = self._ledgers[round_no]
        self.scores, self.money, self.rebuys = list(scores), list(money), list(rebuys)
        self.pot_paid, self.progress = list(pot_paid), list(progress)
        self._pending.clear()
        self._requests.clear()
        self.window = None
        penalty = 0 if leaver is None else self._charge_leaver(leaver)
        for seat in self._lost_paid.pop(round_no, ()):
            if seat != leaver:  # it left for good before the void: still charged, once
                self._charge_leaver(seat)
        self._emit(RoundVoided(round_no, leaver, penalty, self.rules.money, go_on))
        if go_on:
            self.result = None
            self.contract_no, self.dealer_seat = contract_no, dealer
            if dealer is None:  # voided before the first deal: the first dealer is picked again
                self._ledgers[round_no] = self._ledger()  # still round 0: its leaver has paid
                return self._entry(self._pick_first_dealer)
            return self._entry(self._start_round, True)
        self._finish()
        out, self._events = self._events, []
        return out

    def lose_seat(self, seat: int, *, pays: bool = True) -> list[Event]:
        """The table lost ``seat`` for good in the running round, and the round goes on (its
        part of the deal is rebuilt, docs/dealing.md R1): it pays ``rules.leave_penalty`` now
        unless not ``pays`` (the table's rule: a host's stand-in does not)
        (a void of the round later takes it back with the round and charges it once again),
        claim windows leave it out until `seat_back`, and its hand waits for its replacement
        (the game waits at its turn)."""
        if self.phase is Phase.OVER or not 0 <= seat < self.players or seat in self.absent:
            raise IllegalMoveError(f"lose seat {seat}: no seat of the running round")
        return self._entry(self._lose_seat, seat, pays)

    def _lose_seat(self, seat: int, pays: bool) -> None:
        self.absent.add(seat)
        penalty = self._charge_leaver(seat) if pays else 0
        if pays:
            self._lost_paid.setdefault(self.round_no, []).append(seat)
        self._emit(SeatLost(self.round_no, seat, penalty, self.rules.money))
        self._left_out(seat)

    def _left_out(self, seat: int) -> None:
        """Hook: a game with claim windows passes for lost ``seat`` in the open one."""

    def seat_back(self, seat: int) -> None:
        """Lost ``seat``'s replacement plays it from here: claim windows count it again."""
        self.absent.discard(seat)

    def _charge_leaver(self, seat: int) -> int:
        """What the seat that left pays, ``leave_penalty``: money into the pot (the next round's
        winner takes it), else points on its score (the fewest points win every points game,
        carousel's too; progression ranks by contracts first, where it only breaks a tie)."""
        penalty = self.rules.leave_penalty
        if self.rules.money:
            self._fine_into_pot(seat, penalty)
        else:
            self.scores[seat] += penalty
        return penalty

    def check(self, move: Move) -> None:
        """Raise the IllegalMoveError that ``apply`` would, changing nothing (it tries a copy)."""
        probe = copy.copy(self)
        memo = {id(self): probe}
        # immutable, not needed by the probe, or a cache of values (the contract game's Discards)
        shared = ("rules", "dealer", "log", "result", "_discards")
        probe.__dict__ = {k: v if k in shared else copy.deepcopy(v, memo) for k, v in self.__dict__.items()}
        probe.__dict__.update(log=[], _events=[], _requests=[], dealer=None)
        probe.apply(move)

    def is_legal(self, move: Move) -> bool:
        """Whether ``apply`` would accept the move."""
        try:
            self.check(move)
        except IllegalMoveError:
            return False
        return True

    def _need_phase(self, move: Move, phase: Phase, own_turn: bool = True) -> None:
        if self.phase is not phase:
            raise self._illegal(move, f"not now: the game is in its {self.phase.value} phase")
        if own_turn and move.seat != self.turn:
            raise self._illegal(move, f"it is seat {self.turn}'s turn")

    # -- the end of a round and of the game -----------------------------------------------------

    def _maybe_out(self, seat: int) -> bool:
        if self.hands[seat] or self.must_lay_off:
            return False
        self._emit(WentOut(seat))
        self._end_round(seat)
        return True

    def _end_round(self, winner: int | None, ended: str = "out") -> None:
        self.phase = Phase.SCORING
        self.window = None
        hidden = [t for hand in self.hands for t in hand]
        remaining = set(hidden)
        for token in hidden:
            self._reveal(token, None, functools.partial(self._shown, remaining, token, winner,
                                                        ended))
        if not hidden:
            self._score_round(winner, ended)

    def _shown(self, remaining: set[Token], token: Token, winner: int | None, ended: str) -> None:
        """A hand's card shown at the round's end; the last one scores the round.  (Each
        callback a request waits with is a method of the game's, never a closure: a copy of the
        game, a replacement's taken mid-round, answers its own requests, not the original's.)"""
        remaining.discard(token)
        if not remaining:
            self._score_round(winner, ended)

    def _score_round(self, winner: int | None, ended: str) -> None:
        rules = self.rules
        hands = tuple(tuple(self.faces[t] for t in hand) for hand in self.hands)
        points = [0] * self.players
        if rules.money:
            before = [self.money[s] - rules.stake * self.rebuys[s] for s in range(self.players)]
            for seat, hand in enumerate(hands):
                if seat != winner and (winner is not None or rules.dead_round_scores):
                    self._into_pot(seat, rules.penny_per_card * len(hand))
            if winner is not None:
                self.money[winner] += self.pot
                self.pot = 0
                self.pot_paid = [0] * self.players
            # what each paid or won: a rebuy from the bank is neither
            totals = self._standing()
            points = [totals[s] - before[s] for s in range(self.players)]
        else:
            for seat, hand in enumerate(hands):
                if seat == winner:
                    points[seat] = rules.winner_bonus
                elif winner is not None or rules.dead_round_scores:
                    points[seat] = penalty(rules, hand)
                self.scores[seat] += points[seat]
            totals = tuple(self.scores)
        if rules.progression:
            for seat in range(self.players):
                self.progress[seat] += self.down[seat]
        result = RoundResult(self.round_no, winner, hands, tuple(points), totals, ended)
        self.results.append(result)
        self._emit(RoundEnded(result))
        if self._game_over():
            self._finish()
        else:
            self.dealer_seat = (self.dealer_seat + 1) % self.players
            self._start_round()

    def _standing(self) -> tuple[int, ...]:
        """Each seat's total now: points, or money held less the stakes bought."""
        rules = self.rules
        if rules.money:
            return tuple(self.money[s] - rules.stake * self.rebuys[s] for s in range(self.players))
        return tuple(self.scores)

    def _finish(self) -> None:
        rules = self.rules
        self._return_pot()
        totals = self._standing()
        # contracts completed first (progression: "the score that's been kept only used to break
        # possible ties", seed 000), then the most money or the fewest points
        sign = -1 if rules.money else 1
        key = lambda s: (-self.progress[s], sign * totals[s], s)  # noqa: E731
        ranking = tuple(sorted(range(self.players), key=key))
        best = key(ranking[0])[:-1]
        winners = tuple(s for s in ranking if key(s)[:-1] == best)
        self.result = GameResult(totals, ranking, winners, tuple(self.results))
        self.phase = Phase.OVER
        self._emit(GameEnded(self.result))
