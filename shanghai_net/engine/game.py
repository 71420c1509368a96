"""The game state machine for the contract presets, in the manner of python-chess.

``legal_moves(seat)`` lists what a seat may do now, ``apply(move)`` does it and returns the events,
and an illegal move raises `IllegalMoveError` quoting the move and why, leaving the state as it was.
Inputs from the dealer (`learn`, `fulfil_shuffle`, `fulfil_pick`) complete the requests the game
made; with a synchronous dealer they arrive at once.  No clocks: a claim window closes when every
seat in it has decided (the host turns a timeout into a pass).

A game holds one viewer's knowledge: ``viewer=None`` sees every face (simulation); a seat number
sees its own cards and what is public, as every networked peer does.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

from ..cards import Card, deck
from ..errors import IllegalMoveError
from ..rules.contracts import check_contract, describe_contract
from ..rules.finder import contract_options
from ..rules.melds import End, Meld, extend, plays_on, replace_wild, touching_faces
from ..rules.ruleset import Contract, MeldKind, RuleSet
from .dealer import Dealer, Pick, Token
from .dealt import ClaimWindow, DealtGame, Phase
from .events import (
    ClaimCalled, Claimed, ClaimPassed, Discarded, Drew, JokerBought, JokerSwapped, LaidOff,
    Reshuffled, RoundStarted, ShanghaiCalled, ShanghaiPenalty, TookDiscard, WentDown,
)
from .moves import (
    BuyJoker, CallShanghai, Discard, DrawStock, GoDown, LayOff, MayI, Move, PassClaim, SwapJoker,
    TakeDiscard,
)

__all__ = ["Game", "Phase", "ClaimWindow"]

_KEEP_A_DISCARD = "every turn ends with a discard: keep a card to discard (you go out by discarding)"


class Game(DealtGame):
    def __init__(self, rules: RuleSet, players: int, dealer: Dealer | None = None, viewer: int | None = None,
                 start: bool = True):
        self._discards: dict[tuple[int, int], Discard] = {}
        """Moves are values: each seat's Discard of each card is made once and listed again (every
        card of the hand, every turn), which is cheaper than building it every time."""
        if rules.game != "contract":
            raise ValueError(f"preset {rules.name} is not a contract game")
        if not rules.min_players <= players <= rules.max_players:
            raise ValueError(f"{rules.name} is for {rules.min_players}-{rules.max_players} players, not {players}")
        decks, jokers = rules.deck_size(players)
        if players * max(rules.hand_size, rules.last_round_hand_size) + 2 > 52 * decks + jokers:
            raise ValueError(f"{decks} decks are too few to deal {players} hands")
        super().__init__(rules, players, dealer, viewer, start)

    # -- round state ---------------------------------------------------------------------------

    def _reset_round(self) -> None:
        super()._reset_round()
        self.discarder: int | None = None
        self.owed: list[int] = []
        self.reshuffles = 0
        self.turns = 0
        self.taken: Card | None = None  # the discard taken this turn: it may not go straight back
        # the table, what plays on it (by face) and which melds each face touches (by face)
        self._on_table: tuple[tuple[Meld, ...], dict, dict] = ((), {}, {})

    # -- the flow ------------------------------------------------------------------------------

    def _start_round(self, again: bool = False) -> None:
        self._next_deal(again)
        rules = self.rules
        if rules.money:
            for seat in range(self.players):
                self._into_pot(seat, rules.ante)
        decks, jokers = rules.deck_size(self.players)
        self.phase = Phase.DEALING
        self._emit(RoundStarted(self.round_no, self.dealer_seat, self._contract_text(), again))
        self._new_generation(tuple(deck(decks, jokers)), self._deal)

    def _deal(self) -> None:
        n = self.players
        size = self.rules.hand_size if self.rules.progression else self.rules.deal_size(self.contract_no)
        for i in range(size * n):
            seat = (self.dealer_seat + 1 + i) % n
            token = self.stock.pop()
            self.hands[seat].append(token)
            self._reveal(token, seat)
        upturned = self.stock.pop()
        self.turn = (self.dealer_seat + 1) % n
        self.phase = Phase.DRAW
        # a bound method, not a closure: a deep copy of the game (a replacement taking over
        # mid-round copies the public replica) then turns the card up on its own pile
        self._reveal(upturned, None, functools.partial(self._turned_up, upturned))

    def _turned_up(self, upturned: Token) -> None:
        self.discard.append(self.faces[upturned])
        self.open_claim_window()

    def _advance(self) -> None:
        while self.owed and not self._pending:
            self._draw_owed()

    def _draw_owed(self) -> None:
        if not self.stock:
            self._refill_stock()
            return
        seat = self.owed.pop(0)
        token = self.stock.pop()
        self.hands[seat].append(token)
        self._reveal(token, seat, functools.partial(self._drew, seat, token))

    def _drew(self, seat: int, token: Token) -> None:
        self._emit(Drew(seat, self.faces.get(token)))

    def _refill_stock(self) -> None:
        """The stock is empty and a card is owed: the pile becomes a new generation of the deal
        (shuffled by the dealer, never by the engine).  Seed 002 keeps the top discard as the new
        pile; seed 000's pile "is turned over to form the 'draw from' pile" whole, the card a
        window was open on too, so its round goes on while the pile holds a card."""
        keep = 0 if self.rules.turn_pile_over else 1
        limit = self.rules.max_reshuffles
        if len(self.discard) <= keep or (limit is not None and self.reshuffles >= limit):
            self.owed.clear()
            self._end_round(None, "stuck")
            return
        self.reshuffles += 1
        cut = len(self.discard) - keep
        cards, self.discard = tuple(self.discard[:cut]), self.discard[cut:]
        self.shanghaied &= set(self.discard)
        if not self.discard:
            self.window = None
            self.discarder = None
        self._emit(Reshuffled(self.generation + 1, len(cards)))
        self._new_generation(cards, lambda: None)

    # -- knowledge helpers ---------------------------------------------------------------------

    def contract(self, seat: int) -> Contract:
        """(sets, runs) this seat must lay down now, or its phase's melds (`RuleSet.phases`)."""
        if self.rules.progression:
            return self.rules.contract(min(self.progress[seat], self.rules.rounds - 1) + 1)
        return self.rules.contract(max(self.contract_no, 1))

    def _contract_text(self) -> str:
        """The round's contract in words; with `progression` each seat's own, in seat order."""
        rules = self.rules
        if not rules.progression:
            return describe_contract(rules, self.contract(0))
        word = "phase" if rules.phases else "contract"
        numbers = ", ".join(str(min(self.progress[seat] + 1, rules.rounds)) for seat in range(self.players))
        return f"each player's own {word} ({numbers} by seat)"

    def final_contract(self, seat: int) -> bool:
        """True where the last contract is melded all at once (davis, good-miller round 7)."""
        if not self.rules.final_round_meld_all:
            return False
        if self.rules.progression:
            return self.progress[seat] >= self.rules.rounds - 1
        return self.contract_no == self.rules.rounds

    def _find_on_meld(self, meld: Meld, card: Card) -> Card | None:
        if card in meld.cards:
            return card
        return next((c for c in meld.cards if c.face == card.face), None)

    def playable_on_table(self, card: Card) -> bool:
        """Whether the card could be laid off on some meld now (the SHANGHAI test).

        Asked for every card of every discarding hand, so the answers are kept per face until the
        table changes."""
        return self._plays_on_table(self._known_of_table()[1], card)

    def _plays_on_table(self, known: dict, card: Card) -> bool:
        face = card.face
        plays = known.get(face)
        if plays is None:
            plays = known[face] = plays_on(self.rules, self.table, card)
        return plays

    def _touched(self, card: Card) -> Sequence[int]:
        """The melds ``card`` touches (`touches`), in table order: asked for every card of a hand
        that is down, every turn, so the table is indexed by the faces that touch each meld."""
        rank = card.rank
        if rank == 0 or (rank == 2 and self.rules.wild_twos):  # a wild card touches every meld
            return range(len(self.table))
        index = self._known_of_table()[2]
        if not index and self.table:
            for i, meld in enumerate(self.table):
                for face in touching_faces(meld):
                    at = index.setdefault(face, [])
                    if not at or at[-1] != i:
                        at.append(i)
        return index.get(card.face, ())

    def _known_of_table(self) -> tuple[tuple[Meld, ...], dict, dict]:
        """What is worked out about the table, kept until it changes (compared by value, so any
        change to the table is seen)."""
        table = tuple(self.table)
        if table != self._on_table[0]:
            self._on_table = (table, {}, {})
        return self._on_table

    def open_claim_window(self) -> None:
        """Open the claim window on the top discard to the seats that may claim it, in turn order
        (as a discard does; a position laid out by hand, as a search's sampled deal, opens it
        itself)."""
        self.window = None
        if not self.discard or self.discard[-1] in self.shanghaied:
            return
        order = tuple(
            seat
            for seat in ((self.turn + k) % self.players for k in range(1, self.players))
            if seat != self.discarder
            and seat not in self.absent
            and self._has_claims(seat)
            and (self.rules.claim_when_down or not self.down[seat])
        )
        if order:
            self.window = ClaimWindow(self.discard[-1], order)

    def _left_out(self, seat: int) -> None:
        if self.window and seat in self.window.undecided():
            self._pass_claim(PassClaim(seat))

    def _has_claims(self, seat: int) -> bool:
        """Claims left this round (None: the table set no limit)."""
        left = self.claims_left[seat]
        return left is None or left > 0

    def _expose_top(self) -> None:
        """A card taken off the pile uncovers the next one, which may be taken again."""
        self.discard.pop()
        if self.discard:
            self.shanghaied.discard(self.discard[-1])
        self.discarder = None

    # -- queries -------------------------------------------------------------------------------

    def legal_moves(self, seat: int) -> Iterator[Move]:
        """Every move ``seat`` may make now (go-downs up to which copy of equal cards is used)."""
        if self._pending or self.phase not in (Phase.DRAW, Phase.PLAY):
            return
        rules = self.rules
        if self.phase is Phase.DRAW:
            w = self.window
            if seat == self.turn and not (w and w.declined):
                yield DrawStock(seat)
                if self.discard and self.discard[-1] not in self.shanghaied:
                    yield TakeDiscard(seat)
            if w and seat in w.undecided():
                yield MayI(seat)
                yield PassClaim(seat)
            yield from self.shanghai_calls(seat)
            return
        if seat != self.turn:
            return
        hand = self.hand(seat)
        if not self.down[seat]:
            for melds in contract_options(rules, hand, self.contract(seat), self.final_contract(seat)):
                if not self.leaves_no_discard(seat, [c for meld in melds for c in meld]):
                    yield GoDown(seat, melds)
            if rules.joker_buy:
                yield from self._joker_buys(seat, hand)
        elif rules.lay_off_on_going_down_turn or not self.went_down_now:
            for card in dict.fromkeys(hand):
                yield from self.lay_offs(seat, card)
            if rules.joker_swap and not self.must_lay_off:
                yield from self._joker_swaps(seat, hand)
        if not self.must_lay_off:
            made = self._discards
            barred = self.taken if self.taken is not None and not self.may_discard(seat, self.taken) else None
            known = self._known_of_table()[1] if rules.shanghai else None
            for card in hand:
                if card is barred:
                    continue
                move = made.get((seat, card.id))
                if move is None:
                    move = made[(seat, card.id)] = Discard(seat, card)
                yield move
                if known is not None and self._plays_on_table(known, card):
                    yield Discard(seat, card, True)

    def may_discard(self, seat: int, card: Card) -> bool:
        """Whether ``seat`` may discard ``card`` now: not the discard just taken (that would let
        two players pass one card round for ever), unless it is the last card in hand.  A program
        choosing its discard without `legal_moves` asks this of the card it took."""
        return self.rules.discard_taken_card or card != self.taken or len(self.hands[seat]) == 1

    def leaves_no_discard(self, seat: int, played: list[Card]) -> bool:
        """Whether playing these cards (and the freed jokers still owed to the table) would leave
        nothing to discard where every turn ends with a discard (`out_by_discard`, good-miller:
        "At the end of your turn, you must discard one card"), the meld-all last round excepted.
        Such a go-down or lay-off is illegal: a program building its own go-down asks this."""
        if not self.rules.out_by_discard or self.final_contract(seat):
            return False
        owed = len(self.must_lay_off - set(played))
        return len(self.hands[seat]) - len(played) - owed < 1

    def shanghai_calls(self, seat: int) -> Iterator[CallShanghai]:
        """The SHANGHAI calls ``seat`` may make on the top discard now, in table order (none where
        it may not call): `legal_moves` lists them, and a program that knows it calls on the
        first asks for no other move."""
        if not self.may_call_shanghai(seat):
            return
        top = self.discard[-1]
        for i in self._touched(top):
            meld = self.table[i]
            for end in self._ends(meld):
                if extend(self.rules, meld, top, end):
                    yield CallShanghai(seat, i, end)

    def lay_offs(self, seat: int, card: Card) -> Iterator[LayOff]:
        """Where ``seat`` may lay ``card`` off, in table order, once it may lay off at all (down,
        in the play of its turn, and not on the turn it went down where the rules forbid it:
        the caller checks that, as `legal_moves` does): each meld end ``card`` extends, keeping a
        card to discard and a place for a freed joker.  `legal_moves` lists them for every card
        in hand; a program weighing one card asks for that card's alone."""
        for i in self._touched(card):
            meld = self.table[i]
            for end in self._ends(meld):
                longer = extend(self.rules, meld, card, end)
                if (longer and self._room_for_freed_joker(card, i, longer)
                        and not self.leaves_no_discard(seat, [card])):
                    yield LayOff(seat, card, i, end)

    def _room_for_freed_joker(self, card: Card, index: int, longer: Meld) -> bool:
        """A lay-off may not take the last place the freed joker could go (no move would be left)."""
        if not self.must_lay_off or card in self.must_lay_off:
            return True
        table = self.table[:index] + [longer] + self.table[index + 1 :]
        return all(plays_on(self.rules, table, joker) for joker in self.must_lay_off)

    def _ends(self, meld: Meld) -> tuple[End | None, ...]:
        return (End.LOW, End.HIGH) if meld.kind is MeldKind.RUN else (None,)

    def may_call_shanghai(self, seat: int) -> bool:
        """Whether ``seat`` may call SHANGHAI on the top discard now (if it plays on the table)."""
        return (
            self.rules.shanghai
            and self.phase is Phase.DRAW
            and bool(self.discard)
            and self.discarder is not None
            and seat != self.discarder
            and self.discard[-1] not in self.shanghaied
            and len(self.hands[seat]) >= max(1, self.rules.shanghai_caller_min_cards)
            and (self.rules.shanghai_after_stock or not self._chose_stock(seat))
        )

    def _chose_stock(self, seat: int) -> bool:
        """Whether ``seat`` is the drawer who chose the stock, waiting for the claims to settle."""
        return seat == self.turn and self.window is not None and self.window.declined

    def _joker_buys(self, seat: int, hand: list[Card]) -> Iterator[Move]:
        for i, meld in enumerate(self.table):
            for joker in meld.cards:
                if joker.is_joker:
                    for card in dict.fromkeys(hand):
                        if replace_wild(self.rules, meld, joker, card):
                            yield BuyJoker(seat, i, joker, card)

    def _joker_swaps(self, seat: int, hand: list[Card]) -> Iterator[Move]:
        for i, meld in enumerate(self.table):
            for joker in meld.cards:
                if not joker.is_joker:
                    continue
                for card in dict.fromkeys(hand):
                    swapped = replace_wild(self.rules, meld, joker, card)
                    if not swapped:
                        continue
                    for ext in hand:
                        if ext == card or self.leaves_no_discard(seat, [card, ext]):
                            continue
                        for end in self._swap_ends(meld, joker):
                            if self._swap_result(swapped, joker, ext, end, i) is not None:
                                yield SwapJoker(seat, i, joker, card, ext, end)

    def _swap_ends(self, meld: Meld, joker: Card) -> tuple[End | None, ...]:
        """A joker at a run's end is surrounded: the extension goes on that end."""
        if meld.kind is not MeldKind.RUN:
            return (None,)
        i = meld.cards.index(joker)
        if i == 0:
            return (End.LOW,)
        if i == len(meld.cards) - 1:
            return (End.HIGH,)
        return (End.LOW, End.HIGH)

    def _swap_result(self, swapped: Meld, joker: Card, ext: Card, end: End | None, index: int) -> Meld | None:
        longer = extend(self.rules, swapped, ext, end)
        if longer is None:
            return None
        table = list(self.table)
        table[index] = longer
        if not plays_on(self.rules, table, joker):
            return None  # the freed joker must be laid off this turn
        return longer

    # -- apply ---------------------------------------------------------------------------------

    def _draw_stock(self, move: DrawStock) -> None:
        self._need_phase(move, Phase.DRAW)
        w = self.window
        if w and w.declined:
            raise self._illegal(move, "you have already chosen the stock")
        if w:
            w.declined = True
            self._settle_window()
        else:
            self._begin_play()
            self.owed.append(move.seat)

    def _begin_play(self) -> None:
        self.taken = None
        self.window = None
        self.phase = Phase.PLAY
        self.went_down_now = False
        self.must_lay_off = set()

    def _take_discard(self, move: TakeDiscard) -> None:
        self._need_phase(move, Phase.DRAW)
        if self.window and self.window.declined:
            raise self._illegal(move, "you have already chosen the stock")
        if not self.discard:
            raise self._illegal(move, "the discard pile is empty")
        card = self.discard[-1]
        if card in self.shanghaied:
            raise self._illegal(move, f"{card} was discarded with SHANGHAI: draw from the stock")
        self._expose_top()
        self._to_hand(move.seat, card)
        self._begin_play()
        self.taken = card
        self._emit(TookDiscard(move.seat, card))

    def _may_i(self, move: MayI) -> None:
        self._need_phase(move, Phase.DRAW, own_turn=False)
        w = self.window
        if move.seat == self.turn:
            raise self._illegal(move, "it is your turn: take the discard instead")
        if not w or move.seat not in w.undecided():
            why = "you may not claim this discard now" if self._has_claims(move.seat) else "no claims left"
            raise self._illegal(move, why)
        w.claimed.add(move.seat)
        self._emit(ClaimCalled(move.seat, self.rules.claim_word))
        self._settle_window()

    def _pass_claim(self, move: PassClaim) -> None:
        self._need_phase(move, Phase.DRAW, own_turn=False)
        w = self.window
        if not w or move.seat not in w.undecided():
            raise self._illegal(move, "you have nothing to pass on")
        w.passed.add(move.seat)
        self._emit(ClaimPassed(move.seat))
        self._settle_window()

    def _settle_window(self) -> None:
        w = self.window
        if not w or not w.declined:
            return
        winner = w.winner()
        if winner is False:
            return
        turn = self.turn
        self._begin_play()
        if winner is not None:
            card = self.discard[-1]
            self._expose_top()
            self._to_hand(winner, card)
            if self.claims_left[winner] is not None:
                self.claims_left[winner] -= 1
            self._emit(Claimed(winner, card, self.rules.claim_penalty))
            self.owed.extend([winner] * self.rules.claim_penalty)
            if self.rules.reopen_after_claim and self.discard:
                # seed 000: the card a MAY I uncovers "may now be drawn or MAY I'd"
                self.phase = Phase.DRAW
                self.open_claim_window()
                return
        self.owed.append(turn)

    def _call_shanghai(self, move: CallShanghai) -> None:
        if not self.may_call_shanghai(move.seat):
            raise self._illegal(move, "no discard that may be called SHANGHAI now")
        card = self.discard[-1]
        longer = self._extended(move, card, "play on")
        victim = self.discarder
        caller = move.seat
        self._expose_top()
        self.table[move.meld] = longer
        self.placed_by[card] = caller
        self._emit(ShanghaiCalled(caller, card, move.meld, victim))

        self.window = None
        self._ask(Pick(len(self.hands[caller]), (caller, victim), "shanghai penalty"),
                  functools.partial(self._penalty_card, caller, victim))

    def _penalty_card(self, caller: int, victim: int, index: int) -> None:
        token = self.hands[caller].pop(index)
        self.hands[victim].append(token)
        self._reveal(token, victim, functools.partial(self._penalized, victim, caller, token))
        if not self._maybe_out(caller):  # a one-card caller (house rule) has just gone out
            self.open_claim_window()

    def _penalized(self, victim: int, caller: int, token: Token) -> None:
        self._emit(ShanghaiPenalty(victim, caller, self.faces.get(token)))

    def _go_down(self, move: GoDown) -> None:
        self._need_phase(move, Phase.PLAY)
        seat = move.seat
        if self.down[seat]:
            raise self._illegal(move, "you are already down")
        for meld in move.melds:
            for card in meld:
                self._holds(seat, card, move)
        contract = self.contract(seat)
        try:
            melds = check_contract(self.rules, contract, move.melds)
        except IllegalMoveError as exc:
            raise self._illegal(move, str(exc)) from None
        used = sum(len(m) for m in move.melds)
        if self.final_contract(seat) and used != len(self.hands[seat]):
            raise self._illegal(move, f"in the last round every card is melded at once ({used} of {len(self.hands[seat])})")
        if self.leaves_no_discard(seat, [c for meld in move.melds for c in meld]):
            raise self._illegal(move, _KEEP_A_DISCARD)
        for meld in melds:
            for card in meld.cards:
                self._take_from_hand(seat, card)
                self.placed_by[card] = seat
            self.table.append(meld)
            self.meld_owner.append(seat)
        self.down[seat] = True
        self.went_down_now = True
        self._emit(WentDown(seat, tuple(melds)))
        self._maybe_out(seat)

    def _lay_off(self, move: LayOff) -> None:
        self._need_phase(move, Phase.PLAY)
        seat = move.seat
        if not self.down[seat]:
            raise self._illegal(move, "you lay off only once you are down")
        if self.went_down_now and not self.rules.lay_off_on_going_down_turn:
            raise self._illegal(move, "you lay off from your next turn")
        self._holds(seat, move.card, move)
        if self.leaves_no_discard(seat, [move.card]):
            raise self._illegal(move, _KEEP_A_DISCARD)
        longer = self._extended(move, move.card, "go on")
        if not self._room_for_freed_joker(move.card, move.meld, longer):
            raise self._illegal(move, "that would leave nowhere to lay off the joker you freed")
        self._take_from_hand(seat, move.card)
        self.table[move.meld] = longer
        self.placed_by[move.card] = seat
        self.must_lay_off.discard(move.card)
        self._emit(LaidOff(seat, move.card, move.meld, move.end))
        self._maybe_out(seat)

    def _table_meld(self, move: LayOff | CallShanghai | SwapJoker | BuyJoker) -> Meld:
        """The meld a move names, or IllegalMoveError."""
        if not 0 <= move.meld < len(self.table):
            raise self._illegal(move, f"there is no meld {move.meld + 1}")
        return self.table[move.meld]

    def _extended(self, move: LayOff | CallShanghai, card: Card, verb: str) -> Meld:
        """The named meld with ``card`` laid off at the named end, or IllegalMoveError."""
        meld = self._table_meld(move)
        if move.end is not None and meld.kind is not MeldKind.RUN:
            # an end names a side of a run; legal_moves never offers one for a set
            raise self._illegal(move, f"meld {move.meld + 1} is a {self.rules.set_word}: it has no {move.end.value} end")
        longer = extend(self.rules, meld, card, move.end)
        if longer is None:
            raise self._illegal(move, f"{card} does not {verb} {meld}")
        return longer

    def _table_joker(self, move: SwapJoker | BuyJoker) -> tuple[Meld, Card]:
        meld = self._table_meld(move)
        joker = self._find_on_meld(meld, move.joker) if move.joker.is_joker else None
        if joker is None:
            raise self._illegal(move, f"there is no joker on meld {move.meld + 1}")
        return meld, joker

    def _swap_joker(self, move: SwapJoker) -> None:
        self._need_phase(move, Phase.PLAY)
        seat = move.seat
        if not self.rules.joker_swap:
            raise self._illegal(move, "these rules have no joker swap")
        if not self.down[seat]:
            raise self._illegal(move, "you swap a joker only once you are down")
        if self.must_lay_off:
            raise self._illegal(move, "lay off the joker you freed first")
        meld, joker = self._table_joker(move)
        for card in (move.replacement, move.extension):
            self._holds(seat, card, move)
        if move.replacement == move.extension:
            raise self._illegal(move, "the replacement and the extension are one card")
        if self.leaves_no_discard(seat, [move.replacement, move.extension]):
            raise self._illegal(move, _KEEP_A_DISCARD)
        swapped = replace_wild(self.rules, meld, joker, move.replacement)
        if swapped is None:
            raise self._illegal(move, f"{move.replacement} is not the card the joker stands for")
        if move.end not in self._swap_ends(meld, joker):
            raise self._illegal(move, "a joker at the end of a run is surrounded: extend on its side")
        longer = self._swap_result(swapped, joker, move.extension, move.end, move.meld)
        if longer is None:
            raise self._illegal(move, f"{move.extension} does not extend the meld, or the joker could not be laid off")
        for card in (move.replacement, move.extension):
            self._take_from_hand(seat, card)
            self.placed_by[card] = seat
        self.table[move.meld] = longer
        self._to_hand(seat, joker)
        self.must_lay_off.add(joker)
        self._emit(JokerSwapped(seat, move.meld, joker, (move.replacement, move.extension)))

    def _buy_joker(self, move: BuyJoker) -> None:
        self._need_phase(move, Phase.PLAY)
        seat = move.seat
        if not self.rules.joker_buy:
            raise self._illegal(move, "these rules have no joker buying")
        if self.down[seat]:
            raise self._illegal(move, "you cannot buy after you spread")
        meld, joker = self._table_joker(move)
        self._holds(seat, move.replacement, move)
        swapped = replace_wild(self.rules, meld, joker, move.replacement)
        if swapped is None:
            raise self._illegal(move, f"{move.replacement} is not the natural card the joker stands for")
        owner = self.placed_by.get(joker, self.meld_owner[move.meld])
        self._take_from_hand(seat, move.replacement)
        self.placed_by[move.replacement] = seat
        self.table[move.meld] = swapped
        self._to_hand(seat, joker)
        self._pay(seat, self.rules.joker_price, owner)
        self._emit(JokerBought(seat, move.meld, joker, move.replacement, owner, self.rules.joker_price))

    def _discard(self, move: Discard) -> None:
        self._need_phase(move, Phase.PLAY)
        seat = move.seat
        if self.must_lay_off:
            raise self._illegal(move, "lay off the joker you freed first")
        self._holds(seat, move.card, move)
        if not self.may_discard(seat, move.card):
            raise self._illegal(move, f"you took {move.card} from the pile this turn: discard another card")
        if move.shanghai and not (self.rules.shanghai and self.playable_on_table(move.card)):
            raise self._illegal(move, "SHANGHAI is only for a card that plays on the table")
        self._take_from_hand(seat, move.card)
        self.discard.append(move.card)
        if move.shanghai:
            self.shanghaied.add(move.card)
        self.discarder = seat
        self._emit(Discarded(seat, move.card, move.shanghai))
        if not self._maybe_out(seat):
            self.turns += 1
            if self.rules.max_turns is not None and self.turns >= self.rules.max_turns:
                self._end_round(None, "turn limit")  # the safeguard that keeps bot games finite
                return
            self.turn = (seat + 1) % self.players
            self.phase = Phase.DRAW
            self.open_claim_window()

    _HANDLERS = {
        DrawStock: _draw_stock,
        TakeDiscard: _take_discard,
        MayI: _may_i,
        PassClaim: _pass_claim,
        CallShanghai: _call_shanghai,
        GoDown: _go_down,
        LayOff: _lay_off,
        SwapJoker: _swap_joker,
        BuyJoker: _buy_joker,
        Discard: _discard,
    }

    def _game_over(self) -> bool:
        rules = self.rules
        if not rules.progression:
            return self.contract_no >= rules.rounds
        limit = (rules.rounds - 1) * self.players + 1
        return max(self.progress) >= rules.rounds or self.contract_no >= limit
