"""The carousel engine: Shanghai as manipulation rummy (seed 001, the ``carousel`` preset).

No contracts and no discard.  On a turn the player melds from the hand, adds to any meld on the
table and rearranges the table freely, all in one move: `Rearrange`, the table's complete new
arrangement plus the hand cards played into it.  `apply` accepts any Rearrange whose table is a
partition of the old table's cards and the played cards into valid melds (no table card goes back
to a hand) and which plays at least one card (two where the hand could play two, see below).

The rules as this engine plays them:

- Deal: the first dealer by a random pick, then the deal passes to the left (the next seat).
  Ten cards each, dealt in batches of 3, 3, 3 and 1 starting left of the dealer; the rest is the
  stock.  The player left of the dealer starts, play goes clockwise.
- A turn: a player who can play must: at least two cards when two or more can be played
  (`must_play`, seed 001's "at least more than one"), else the one; one Rearrange ends the turn.
  A player who cannot draws from the stock (`DrawStock`), one card a move, until the hand can
  play; then the player must play (any valid Rearrange: it necessarily uses a drawn card, since
  nothing was playable before) and the turn ends.
- The stock runs out (the seed is silent; our decision): a player who cannot play and finds the
  stock empty passes (`PassClaim`, notation ``pass``).  When every player has passed in a row,
  nobody can ever play again: the hand is blocked (`Blocked`) and scored as usual, with no winner.
- The hand ends when a player melds the last card: 0 for them, 1 point a card left for the rest.
  Hands go on until a player's total reaches ``target_score`` (default 25): that player loses, the
  game's result ranks the seats by lowest total.

``legal_moves(seat)`` cannot list every rearrangement.  It gives the moves the solver offers
(`shanghai_net.rules.carousel_solver`): first the play with the most cards (`best_play`), then
each single card laid on a meld without rearranging; when the hand cannot play, `DrawStock` (or
`PassClaim` once the stock is empty).  `apply` accepts any valid Rearrange, listed or not.

"Must play if able" is checked only where this replica knows the whole hand (a networked peer
sees only its own; for another seat `legal_moves` offers just the draw or the pass); the hands
shown at the end of the hand make it auditable afterwards.  A replica applies another seat's
Rearrange once it has learnt the played cards (the net layer reveals them before the move).

`CarouselGame` shares the machinery of every engine (`DealtGame`, engine/dealt.py): the Dealer seam
(tokens, requests, `learn`, `fulfil_shuffle`, `fulfil_pick`), `apply`, `to_move`, `is_legal`, the
log, scoring and the result, and `view_of` reads it like any game (contracts show as (0, 0)).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass

from ..cards import Card, deck, format_cards
from ..rules.carousel_solver import best_play, can_play
from ..rules.melds import Meld, arrange, extend, why_not_meld
from ..rules.ruleset import RuleSet
from .dealer import Dealer, Token
from .dealt import DealtGame, Phase
from .events import PLAIN, Drew, Event, RoundStarted, Words
from .moves import DrawStock, Move, PassClaim, Rearrange, parse_move

__all__ = ["CarouselGame", "Rearranged", "Passed", "Blocked", "deal_batches"]


@dataclass(frozen=True, slots=True)
class Rearranged(Event):
    seat: int
    played: tuple[Card, ...]
    table: tuple[Meld, ...]

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)} plays {w.cards(self.played)}; the table: {w.melds(self.table)}"


@dataclass(frozen=True, slots=True)
class Passed(Event):
    seat: int

    def describe(self, w: Words = PLAIN) -> str:
        return f"{w.seat(self.seat)} cannot play, the stock is empty: passes"


@dataclass(frozen=True, slots=True)
class Blocked(Event):
    round_no: int

    def describe(self, w: Words = PLAIN) -> str:
        return f"hand {self.round_no} is blocked: nobody can play and the stock is empty"


def deal_batches(hand_size: int) -> tuple[int, ...]:
    """Batches of three and the rest: 10 cards are dealt 3, 3, 3, 1."""
    return (3,) * (hand_size // 3) + ((hand_size % 3,) if hand_size % 3 else ())


class CarouselGame(DealtGame):
    def __init__(self, rules: RuleSet, players: int, dealer: Dealer | None = None, viewer: int | None = None,
                 start: bool = True):
        if rules.game != "carousel":
            raise ValueError(f"preset {rules.name} is not a carousel game")
        if not rules.min_players <= players <= rules.max_players:
            raise ValueError(f"{rules.name} is for {rules.min_players}-{rules.max_players} players, not {players}")
        if players * rules.hand_size >= 52 * rules.decks + rules.jokers:
            raise ValueError(f"{rules.decks} decks are too few to deal {players} hands")
        super().__init__(rules, players, dealer, viewer, start)

    def _reset_round(self) -> None:
        super()._reset_round()
        self.passes = 0  # passes in a row since the last play
        self.drawn: list[Card] = []  # what the seat to play has drawn this turn (if this viewer knows)

    # -- the contract game's questions, answered for carousel ---------------------------------------

    def contract(self, seat: int) -> tuple[int, int]:
        return (0, 0)

    def final_contract(self, seat: int) -> bool:
        return False

    def may_call_shanghai(self, seat: int) -> bool:
        return False  # no discard to call

    def _game_over(self) -> bool:
        return max(self.scores) >= self.rules.target_score

    # -- the flow ------------------------------------------------------------------------------

    def _start_round(self, again: bool = False) -> None:
        self._next_deal(again)
        self.phase = Phase.DEALING
        self._emit(RoundStarted(self.round_no, self.dealer_seat, "meld, add and rearrange freely", again))
        self._new_generation(tuple(deck(self.rules.decks, self.rules.jokers)), self._deal)

    def _deal(self) -> None:
        n = self.players
        for batch in deal_batches(self.rules.hand_size):
            for k in range(n):
                seat = (self.dealer_seat + 1 + k) % n
                for _ in range(batch):
                    token = self.stock.pop()
                    self.hands[seat].append(token)
                    self._reveal(token, seat)
        self.turn = (self.dealer_seat + 1) % n
        self.phase = Phase.PLAY

    def _next_turn(self) -> None:
        self.turn = (self.turn + 1) % self.players
        self.drawn = []

    # -- queries -------------------------------------------------------------------------------

    def table_cards(self) -> list[Card]:
        return [c for meld in self.table for c in meld.cards]

    def knows_hand(self, seat: int) -> bool:
        """Whether this replica knows every card of the seat's hand."""
        return all(t in self.faces for t in self.hands[seat])

    def can_play(self, seat: int) -> bool | None:
        """Whether the seat's hand can play now (None: this replica does not know the hand)."""
        if not self.knows_hand(seat):
            return None
        return can_play(self.rules, self.table, self.hand(seat))

    def legal_moves(self, seat: int) -> Iterator[Move]:
        """The solver's best play and each plain lay-off; else draw, or pass on an empty stock."""
        if self._pending or self.phase is not Phase.PLAY or seat != self.turn:
            return
        hand = self.hand(seat)
        best = best_play(self.rules, self.table, hand) if self.knows_hand(seat) else None
        if best is None:
            yield DrawStock(seat) if self.stock else PassClaim(seat)
            return
        yield Rearrange(seat, best.table, best.played)
        if self._must_play(len(best.played)) > 1:
            return
        melds = [m.cards for m in self.table]
        for card in dict.fromkeys(hand):
            for i, meld in enumerate(self.table):
                longer = extend(self.rules, meld, card)
                if longer is not None:
                    yield Rearrange(seat, (*melds[:i], longer.cards, *melds[i + 1:]), (card,))

    def parse(self, text: str, seat: int) -> Move:
        """A move in the notation of `moves`, with the physical cards of this seat's hand and the table."""
        spare: dict[tuple, list[Card]] = {}
        for card in self.hand(seat):
            spare.setdefault(card.face, []).append(card)

        def from_hand(card: Card) -> Card:
            copies = spare.get(card.face)
            return copies.pop(0) if copies else card

        return parse_move(text, seat, from_hand, self.table_cards())

    # -- apply ---------------------------------------------------------------------------------

    def _must_not_play(self, move: Move) -> None:
        if self.can_play(move.seat):
            raise self._illegal(move, "you can play, so you must (at least one card)")

    def _must_play(self, playable: int) -> int:
        """How many cards a play must put down when the hand can play ``playable`` at most: seed
        001's "at least more than one" (`must_play`, 2) before drawing; after drawing, one card
        ("If they can play that card, they must")."""
        return min(playable, 1 if self.drawn else self.rules.must_play)

    def _draw(self, move: DrawStock) -> None:
        self._need_phase(move, Phase.PLAY)
        self._must_not_play(move)
        if not self.stock:
            raise self._illegal(move, "the stock is empty: pass")
        seat = move.seat
        token = self.stock.pop()
        self.hands[seat].append(token)
        self.passes = 0
        self._reveal(token, seat, functools.partial(self._drawn, seat, token))

    def _drawn(self, seat: int, token: Token) -> None:
        card = self.faces.get(token)
        if card is not None:
            self.drawn.append(card)
        self._emit(Drew(seat, card))

    def _pass(self, move: PassClaim) -> None:
        self._need_phase(move, Phase.PLAY)
        self._must_not_play(move)
        if self.stock:
            raise self._illegal(move, "the stock is not empty: draw")
        self.passes += 1
        self._emit(Passed(move.seat))
        if self.passes >= self.players:
            self._emit(Blocked(self.round_no))
            self._end_round(None, "stuck")
        else:
            self._next_turn()

    def _rearrange(self, move: Rearrange) -> None:
        self._need_phase(move, Phase.PLAY)
        seat = move.seat
        if not move.played:
            raise self._illegal(move, "play at least one card from your hand")
        if len(set(move.played)) != len(move.played):
            raise self._illegal(move, "a card is played twice")
        for card in move.played:
            self._holds(seat, card, move)
        melds = self._new_table(move)
        if self.knows_hand(seat) and len(move.played) < self.rules.must_play:
            best = best_play(self.rules, self.table, self.hand(seat))
            need = self._must_play(len(best.played)) if best else 1
            if len(move.played) < need:
                raise self._illegal(move, f"you can play {len(best.played)} cards, so you must play at least {need}")
        before = {m.cards: owner for m, owner in zip(self.table, self.meld_owner)}
        for card in move.played:
            self._take_from_hand(seat, card)
            self.placed_by[card] = seat
        self.table = melds
        self.meld_owner = [before.get(m.cards, seat) for m in melds]
        self.passes = 0
        self._emit(Rearranged(seat, move.played, tuple(melds)))
        if not self._maybe_out(seat):
            self._next_turn()

    def _new_table(self, move: Rearrange) -> list[Meld]:
        """The melds of the new table, if it is the old table's cards and the played ones."""
        seen: set[Card] = set()
        for group in move.table:
            for card in group:
                if card in seen:
                    raise self._illegal(move, f"{card} is on the new table twice")
                seen.add(card)
        old = set(self.table_cards())
        back = sorted(c for c in old if c not in seen)
        if back:
            raise self._illegal(move, f"{format_cards(back)} must stay on the table (no table card goes back to a hand)")
        stray = sorted(c for c in seen if c not in old and c not in move.played)
        if stray:
            raise self._illegal(move, f"{format_cards(stray)} is neither on the table nor played")
        unplaced = [c for c in move.played if c not in seen]
        if unplaced:
            raise self._illegal(move, f"{format_cards(unplaced)} is played but placed in no meld")
        unchanged = {frozenset(m.cards): m for m in self.table}
        melds = []
        for group in move.table:
            meld = unchanged.get(frozenset(group)) or (arrange(self.rules, group) if group else None)
            if meld is None:
                why = why_not_meld(self.rules, group) if group else "empty"
                raise self._illegal(move, f"{format_cards(group)} is no meld: {why}")
            melds.append(meld)
        return melds

    _HANDLERS = {
        DrawStock: _draw,
        PassClaim: _pass,
        Rearrange: _rearrange,
    }

