"""The basic bot's move read straight from a game that sees every card: the search's play-outs.

A play-out (`search`) runs basic bots in every seat for up to 40 moves, some 14,000 moves a davis
game, and asking each move the usual way, ``BasicBot.choose(view_of(game, seat),
game.legal_moves(seat))``, builds a `PlayerView` and lists every legal move (every go-down the
finder finds, every lay-off, the SHANGHAI test of every card in hand) to pick one: two thirds of
a move's cost (`legal_moves` 54%, `view_of` 12%).  `BasicPolicy` builds only the move the basic
bot would choose, from the game's own state: the draw from the top discard and the hand, the
discard from the hand's weights with the SHANGHAI test for that card alone, and a go-down only
for a hand not yet down.  The finder, what is left dearest, is asked only where a card drawn
since the seat's last hand without a go-down could make one (`may_use`), and its answers are
kept by the hand (a play-out's hands come again, in the other candidates' play-outs of the same
deal).

It is the basic bot, not a likeness of it: the same move from the same state and the same
generator, drawn the same number of times (tests/test_expert_search.py compares the two at every
decision of whole games of each preset, of play-outs, and of games with random moves among
them), so every move it makes is one `legal_moves` lists, and the search chooses as it did.
What it does not build itself (a joker to buy or swap, a state it has no rule for) it asks the
basic bot the usual way.  The engine applies every move, and refuses an illegal one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import Card
from ..engine.game import Game, Phase
from ..engine.moves import Discard, DrawStock, GoDown, LayOff, MayI, Move, PassClaim, TakeDiscard
from ..engine.view import view_of
from ..rules.contracts import Contract
from ..rules.finder import contract_options
from ..rules.melds import plays_on, run_bounds
from ..rules.ruleset import RuleSet
from .basic import BasicBot, discard_cost, worth_claiming, worth_taking

__all__ = ["BasicPolicy", "GoDowns", "may_use"]


class _Seen:
    """What the basic bot's weights read of a view: the rules and the seat's contract."""

    __slots__ = ("rules", "contract")

    def __init__(self, rules: RuleSet, contract: Contract):
        self.rules, self.contract = rules, contract


class GoDowns:
    """The go-down the basic bot makes from a hand not yet down (its melds; None: the hand holds
    none), by the contract, whether every card is melded, and the hand's cards: the finder's
    answer depends on the hand's cards, not their order, and a play-out's hands come again (the
    other candidates' play-outs of the same deal, the next search's).  A hand that holds none is
    kept by its faces besides (which copy of a face it holds does not matter then).

    A memo of a pure function, kept by an expert for its game (`ExpertBot`) and read by its
    play-outs' policies; forgotten when it grows large, or for other rules."""

    SIZE = 100_000

    def __init__(self) -> None:
        self.rules: RuleSet | None = None
        self.found: dict[tuple, tuple | None] = {}

    def memo(self, rules: RuleSet) -> dict[tuple, tuple | None]:
        if rules != self.rules or len(self.found) > self.SIZE:
            self.rules, self.found = rules, {}
        return self.found


def _go_down(game: Game, seat: int, hand: list[Card], contract: Contract, meld_all: bool,
             memo: dict[tuple, tuple | None]) -> tuple[GoDown | None, bool]:
    """The go-down the basic bot makes: of the first go-downs `legal_moves` lists (as many as it
    weighs), the first that melds the most cards; and whether the finder found none at all (not
    only none that keeps a card to discard)."""
    faces = (contract, meld_all, bytes(sorted([52 if c.is_joker else c.id % 52 for c in hand])))
    if faces in memo:
        return None, True
    cards = (contract, meld_all, bytes(sorted([c.id for c in hand])))
    melds = memo.get(cards, ())
    if melds == ():
        rules = game.rules
        best, most, raw = None, -1, False
        listed = 0
        for option in contract_options(rules, hand, contract, meld_all):
            raw = True
            if not game.leaves_no_discard(seat, [c for meld in option for c in meld]):
                used = sum(len(x) for x in option)
                if used > most:
                    best, most = option, used
                listed += 1
                if listed >= BasicBot.GO_DOWN_CHOICES:
                    break
        if not raw:
            memo[faces] = None
        memo[cards] = melds = best
    return (None if melds is None else GoDown(seat, melds)), faces in memo


def may_use(rules: RuleSet, hand: Sequence[Card], contract: tuple[int, int], new: Sequence[Card]) -> bool:
    """False only where no go-down of ``hand`` (a contract of sets and runs, not melded all at
    once) uses a card of ``new``: none of them has enough cards of its rank for a set, or of its
    suit around it for a run, counting every wild card of the hand (a bound: True says nothing).

    What the search's play-outs ask instead of the finder for a hand that the finder found no
    go-down in a turn ago, less its discard, with ``new`` the cards drawn or taken since: a
    go-down now must use one of them (a hand's go-downs are those of the hand less its cards,
    and more).  In davis two drawn cards in five fit no meld of the hand (seed 1, 4 games: 2,121
    of 5,301), and the finder is not asked for them."""
    if rules.runs_any_suit or any(rules.is_wild(c) for c in new):
        return True
    sets, runs = contract
    wilds = 0
    ranks = [0] * 14
    held = [0] * 4  # each suit's positions as bits (an ace at 1 and 14)
    for c in hand:
        if rules.is_wild(c):
            wilds += 1
        else:
            ranks[c.rank] += 1
            held[c.suit] |= _ACE if c.rank == 1 else 1 << c.rank
    if rules.max_wilds_per_meld is not None:
        wilds = min(wilds, rules.max_wilds_per_meld)
    if sets and any(ranks[c.rank] + wilds >= rules.least_set for c in new):
        return True
    if runs:
        lo, hi = run_bounds(rules)
        size = rules.least_run
        window = (1 << size) - 1
        for c in new:
            bits = held[c.suit]
            for p in (1, 14) if c.rank == 1 else (c.rank,):
                for low in range(max(lo, p - size + 1), min(p, hi - size + 1) + 1):
                    if (bits >> low & window).bit_count() + wilds >= size:
                        return True
    return False


_ACE = 1 << 1 | 1 << 14


def _first_lay_off(game: Game, seat: int, hand: list[Card]) -> LayOff | None:
    """The lay-off the basic bot makes: the first one of a freed joker `legal_moves` lists, else
    the first one."""
    owed = game.must_lay_off
    first = None
    for card in dict.fromkeys(hand):
        if first is not None and card not in owed:
            continue
        move = next(game.lay_offs(seat, card), None)
        if move is not None:
            if not owed or card in owed:
                return move
            first = move
    return first


class BasicPolicy:
    """The basic bot of a play-out: ``move(game, seat)`` is the move ``BasicBot(rng).choose(
    view_of(game, seat), game.legal_moves(seat))`` makes, for the first seat of
    ``game.to_move()`` in a game of the contract presets that sees every face, drawing from
    ``rng`` as the basic bot would (one draw for each card it may discard, in the hand's order).
    Made once a play-out: what it reads of the rules is read once; the go-downs it finds are
    kept in ``go_downs``, which outlives it."""

    def __init__(self, rules: RuleSet, rng: random.Random, go_downs: GoDowns):
        self.rules, self.rng = rules, rng
        self.memo = go_downs.memo(rules)
        self.seen: dict[Contract, _Seen] = {}
        self.none_in: dict[int, tuple[Contract, set[Card]]] = {}
        """Each seat's last hand that the finder found no go-down in (`may_use`)."""

    def _seen(self, contract: Contract) -> _Seen:
        seen = self.seen.get(contract)
        if seen is None:
            seen = self.seen[contract] = _Seen(self.rules, contract)
        return seen

    def move(self, game: Game, seat: int) -> Move:
        rules = self.rules
        phase = game.phase
        hand = game.hand(seat)
        down = game.down[seat]
        if phase is Phase.DRAW:
            discard = game.discard
            top = discard[-1] if discard else None
            if down:
                call = next(game.shanghai_calls(seat), None)
                if call is not None:
                    return call
            w = game.window
            if seat == game.turn and not (w and w.declined):
                if top is not None and top not in game.shanghaied:
                    if down:
                        wanted = plays_on(rules, game.table, top)
                    else:
                        wanted = worth_taking(self._seen(game.contract(seat)), top, hand)
                    if wanted:
                        return TakeDiscard(seat)
                return DrawStock(seat)
            if w and seat in w.undecided():
                if worth_claiming(self._seen(game.contract(seat)), top, hand, down, game.final_contract(seat)):
                    return MayI(seat)
                return PassClaim(seat)
        elif phase is Phase.PLAY and seat == game.turn:
            contract = game.contract(seat)
            owed = game.must_lay_off
            if not down:
                go_down = self._go_down(game, seat, hand, contract)
                if go_down is not None:
                    return go_down
                if not owed and not (rules.joker_buy and _jokers_on(game)):
                    return self._discard(game, seat, hand, contract)
            elif rules.lay_off_on_going_down_turn or not game.went_down_now:
                if not (rules.joker_swap and not owed and _jokers_on(game)):
                    lay_off = _first_lay_off(game, seat, hand)
                    if lay_off is not None:
                        return lay_off
                    if not owed:
                        return self._discard(game, seat, hand, contract)
            elif not owed:
                return self._discard(game, seat, hand, contract)
        # a joker to buy or swap, or a state the above does not know: the basic bot the usual way
        return BasicBot(self.rng).choose(view_of(game, seat), game.legal_moves(seat))

    def _go_down(self, game: Game, seat: int, hand: list[Card], contract: Contract) -> GoDown | None:
        """`_go_down`, where the finder is asked only if the cards drawn since the seat's last
        hand without a go-down could be part of one (`may_use`)."""
        meld_all = game.final_contract(seat)
        plain = not meld_all and isinstance(contract, tuple)  # sets and runs, not all at once
        last = self.none_in.get(seat) if plain else None
        if last is not None and last[0] == contract:
            held = last[1]
            if not may_use(self.rules, hand, contract, [c for c in hand if c not in held]):
                self.none_in[seat] = (contract, set(hand))
                return None
        go_down, none = _go_down(game, seat, hand, contract, meld_all, self.memo)
        if plain and none:
            self.none_in[seat] = (contract, set(hand))
        else:
            self.none_in.pop(seat, None)
        return go_down

    def _discard(self, game: Game, seat: int, hand: list[Card], contract: Contract) -> Discard:
        """`BasicBot._discard`: the least useful card, declared SHANGHAI where it plays on the
        table (only that card is tested, not every card of the hand)."""
        taken = game.taken
        barred = taken if taken is not None and not game.may_discard(seat, taken) else None
        cost = discard_cost(self._seen(contract), hand, self.rng.random)
        best = min((card for card in hand if card is not barred), key=cost)
        return Discard(seat, best, bool(self.rules.shanghai and game.playable_on_table(best)))


def _jokers_on(game: Game) -> bool:
    return any(c.is_joker for meld in game.table for c in meld.cards)
