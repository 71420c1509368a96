"""PlayerView: exactly what one seat may know, and nothing it may not.

Bots and the console see the game only through this; building it from a game that knows every
face is the check that no hidden card leaks: other seats appear as hand sizes only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..cards import Card
from ..rules.finder import contract_options
from ..rules.melds import Meld
from ..rules.ruleset import Contract, RuleSet
from .events import RoundResult
from .moves import GoDown
from .dealt import DealtGame, Phase

__all__ = ["PlayerView", "view_of", "go_downs"]


@dataclass(slots=True)
class PlayerView:
    """One seat's knowledge at one moment, built afresh for each decision (so a bot that writes
    on it changes nothing else).  Not frozen: a frozen dataclass sets each of its 30 fields through
    ``object.__setattr__``, ten times the cost of this one's, and a view is built for every
    decision of every seat."""

    seat: int
    players: int
    rules: RuleSet
    round_no: int  # the deal (a voided round's deal again has its own)
    contract_no: int  # the round as the rules count it (`DealtGame.contract_no`)
    dealer: int | None
    turn: int
    phase: Phase
    contract: Contract  # this seat's (sets, runs), or its phase's melds
    meld_all: bool  # this contract is melded all at once, no discard
    hand: tuple[Card, ...]
    table: tuple[Meld, ...]
    meld_owners: tuple[int, ...]
    discard_top: Card | None
    discard_size: int
    top_shanghaied: bool
    may_call_shanghai: bool  # this seat may call SHANGHAI on the top discard, where it plays
    stock_size: int
    hand_sizes: tuple[int, ...]
    down: tuple[bool, ...]
    claims_left: tuple[int | None, ...]  # None: no limit
    scores: tuple[int, ...]
    money: tuple[int, ...]
    pot: int
    progress: tuple[int, ...]
    claim_open: bool  # a claim window on the top discard is open
    may_claim: bool  # this seat may still claim it
    claimants: tuple[int, ...]
    went_down_now: bool
    must_lay_off: tuple[Card, ...]
    last_round: RoundResult | None

    @property
    def my_turn(self) -> bool:
        return self.turn == self.seat and self.phase in (Phase.DRAW, Phase.PLAY)


def view_of(game: DealtGame, seat: int) -> PlayerView:
    """What ``seat`` may know of ``game`` now.  Built for every decision of every seat, so each
    field is read straight from the game (lists, not generators, into the tuples)."""
    w = game.window
    discard = game.discard
    top = discard[-1] if discard else None
    turn = game.turn
    mine = seat == turn
    return PlayerView(
        seat=seat,
        players=game.players,
        rules=game.rules,
        round_no=game.round_no,
        contract_no=game.contract_no,
        dealer=game.dealer_seat,
        turn=turn,
        phase=game.phase,
        contract=game.contract(seat),
        meld_all=game.final_contract(seat),
        hand=tuple(game.hand(seat)),
        table=tuple(game.table),
        meld_owners=tuple(game.meld_owner),
        discard_top=top,
        discard_size=len(discard),
        top_shanghaied=top is not None and top in game.shanghaied,
        may_call_shanghai=game.may_call_shanghai(seat),
        stock_size=len(game.stock),
        hand_sizes=tuple([len(h) for h in game.hands]),
        down=tuple(game.down),
        claims_left=tuple(game.claims_left),
        scores=tuple(game.scores),
        money=tuple(game.money),
        pot=game.pot,
        progress=tuple(game.progress),
        claim_open=w is not None,
        may_claim=w is not None and seat in w.undecided(),
        claimants=tuple(sorted(w.claimed)) if w else (),
        went_down_now=game.went_down_now and mine,
        must_lay_off=tuple(game.must_lay_off) if mine else (),
        last_round=game.results[-1] if game.results else None,
    )


def go_downs(view: PlayerView) -> Iterator[GoDown]:
    """The go-downs this seat may make now, in the order `legal_moves` lists them, without listing
    its other moves: what a bot asks first on its turn (lazy: take as many as you need).  Where
    every turn ends with a discard, a go-down keeps a card to discard (not the meld-all round)."""
    seat = view.seat
    if view.phase is not Phase.PLAY or view.turn != seat or view.down[seat] or view.rules.game != "contract":
        return
    keep = view.rules.out_by_discard and not view.meld_all
    for melds in contract_options(view.rules, view.hand, view.contract, view.meld_all):
        if not keep or len(view.hand) - sum(len(m) for m in melds) >= 1:
            yield GoDown(seat, melds)
