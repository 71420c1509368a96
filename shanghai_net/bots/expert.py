"""The expert bot: plays like a strong family player, from what its seat may know.

It remembers the round from the public log (`history`), counts the cards that are gone, reads
what the other seats collect from what they take and let go (`reading`), keeps its discards away
from the next seat and from anyone close to going out, claims out of turn only when the card is
worth its penalty cards, dumps its points when someone is about to go out, and never leaves a
card on the pile that someone could call SHANGHAI on.  Where its weights leave two discards close,
it plays both out in sampled deals of the hands it cannot see (`search`) and keeps the better.
Every decision comes with a short reason (the console's hint key shows it).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from ..cards import Card
from ..engine.events import PLAIN, Event, Words
from ..engine.moves import (
    BuyJoker, CallShanghai, Discard, DrawStock, GoDown, LayOff, MayI, Move, PassClaim, SwapJoker,
    TakeDiscard,
)
from ..engine.view import PlayerView
from ..rules.contracts import kind_counts, least_size
from ..rules.melds import plays_on, run_bounds
from ..rules.ruleset import MeldKind
from ..rules.scoring import card_points
from .carousel_play import choose_play
from .history import Memory
from .need import contract_need
from .reading import Reading
from .playout import GoDowns
from .search import Outcome, affordable, search

__all__ = ["ExpertBot", "Decision", "keep_value"]


@dataclass(frozen=True, slots=True)
class Decision:
    move: Move
    reason: str


def _gap(a: int, b: int) -> int:
    """How far apart two ranks sit in a run, the ace at either end."""
    return min(abs(x - y) for x in ((1, 14) if a == 1 else (a,)) for y in ((1, 14) if b == 1 else (b,)))


def keep_value(reading: Reading, card: Card, hand: Sequence[Card]) -> float:
    """How much ``card`` helps this hand toward its contract, counting the copies still live."""
    rules = reading.view.rules
    if rules.is_wild(card):
        return 100.0
    naturals = [c for c in hand if c is not card and not rules.is_wild(c)]
    contract = reading.view.contract
    sets, runs, suits = kind_counts(contract)
    value = (_set_value(reading, card, naturals) if sets else 0.0) + (
        0.0 if not runs else _any_run_value(run_bounds(rules), least_size(rules, contract, MeldKind.RUN), card,
                                            naturals, not sets)
        if rules.runs_any_suit else _run_value(rules.min_run, card, naturals))
    if suits:
        value += _suit_value(card, naturals)
    return value


def _set_value(reading: Reading, card: Card, naturals: list[Card]) -> float:
    mates = sum(1 for c in naturals if c.rank == card.rank)
    if mates >= least_size(reading.view.rules, reading.view.contract, MeldKind.SET) - 1:
        return 12.0 + mates
    live = reading.live_rank(card.rank)
    if mates:
        return 4.0 * mates * (0.3 + 0.7 * min(1.0, (live + reading.live_wilds()) / 2))
    return 0.5 * min(1.0, live / 3)


def _run_value(min_run: int, card: Card, naturals: list[Card]) -> float:
    suited = {c.rank for c in naturals if c.suit is card.suit and c.rank != card.rank}
    near = sum(1 for r in suited if _gap(card.rank, r) <= 2)
    far = sum(1 for r in suited if _gap(card.rank, r) == 3)
    return 2.5 * near + 0.8 * far + (3.0 if near >= min_run - 2 else 0.0)


def _any_run_value(bounds: tuple[int, int], size: int, card: Card, naturals: list[Card], spare_counts: bool) -> float:
    """A run of any suits (Phase 10): the most other ranks held in a window of ``size`` places
    through the card; a second card of a rank is worth little to it (``spare_counts``: nothing
    else in the contract uses it)."""
    lo, hi = bounds
    ranks = {c.rank for c in naturals}
    if spare_counts and card.rank in ranks:
        return -2.0

    def places(rank: int) -> list[int]:
        return [p for p in ((1, 14) if rank == 1 else (rank,)) if lo <= p <= hi]

    held = {p for r in ranks for p in places(r)}
    best = 0
    for p in places(card.rank):
        for low in range(max(lo, p - size + 1), min(p, hi - size + 1) + 1):
            best = max(best, sum(1 for q in range(low, low + size) if q in held))
    return 1.5 * best + (3.0 if best >= size - 2 else 0.0)


def _suit_value(card: Card, naturals: list[Card]) -> float:
    """Cards of one suit (Phase 10's colour): the others of its suit, the longest suit's most."""
    by_suit: dict = {}
    for c in naturals:
        by_suit[c.suit] = by_suit.get(c.suit, 0) + 1
    mates = by_suit.get(card.suit, 0)
    longest = max(by_suit.values(), default=0)
    return (3.0 if mates >= longest else 0.7) * mates


class ExpertBot:
    GO_DOWN_CHOICES = 60
    """Go-downs weighed (the finder lists the longest melds first; a hand with jokers has
    thousands)."""
    TAKE_AT = 5.0
    """A discard worth this much to the hand (`keep_value`) is taken rather than a stock card."""
    TAKE_CLOSE = 2.0
    """A discard worth this close to TAKE_AT, that brings the contract no closer, is taken or left
    as the two play out in sampled deals (`search`)."""
    CLAIM_COST = 7.0
    """A claim is made while its cost stays below this: each penalty card costs 1, up to 6 when
    someone may go out next turn and catch it in hand (and more for a hand already long)."""
    NEED = 20.0
    """What each card the hand lacks for its contract weighs in a discard (`contract_need`)."""
    DUMP = (0.3, 0.5)
    """A card's points weigh this much in the discard, far from and close to someone's going out."""
    CLOSE = 2.0
    """Discards whose weighed costs lie this close to the cheapest one's are played out in sampled
    deals (`search`) rather than chosen by the weights alone."""
    CANDIDATES = 2
    """Discards played out at most (the cheapest ones of different faces)."""
    SURE = 1.0
    """The search overrules the weights only where its choice gained more by this many standard
    errors of the deal-by-deal differences (a few deals leave much to luck)."""
    SAMPLES = 8
    """Sampled deals each candidate is played out in at most (`affordable`: fewer where the
    play-outs cost more)."""
    SETTLED = 1
    """Sampled deals after which a search stops once the weights' choice is not behind
    (`search`'s ``settle_after``): most close decisions are settled after one.  1 rather than 2
    (issue 26, davis, seed 1, 6 games): 267 of 271 searches decided as with 2, at 46% of the
    cost (the weights were overruled 26 times, against 30)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.memory = Memory()
        self.go_downs = GoDowns()
        self._log: Sequence[Event] = ()

    def follow(self, log: Sequence[Event]) -> None:
        """The game's log as this seat may know it (the same list as it grows)."""
        self._log = log

    def choose(self, view: PlayerView, moves: Iterable[Move]) -> Move:
        return self.decide(view, moves).move

    def decide(self, view: PlayerView, moves: Iterable[Move], words: Words = PLAIN) -> Decision:
        """The move and why, in ``words`` (names and card symbols)."""
        if view.rules.game == "carousel":
            return Decision(*choose_play(view, list(moves), words))
        reading = Reading(view, self.memory.follow(self._log, view.players))
        by_kind: dict[type, list[Move]] = {}
        for move in moves:
            by_kind.setdefault(type(move), []).append(move)
            if len(by_kind.get(GoDown, ())) >= self.GO_DOWN_CHOICES:
                break
        hand = list(view.hand)
        if {DrawStock, TakeDiscard, MayI, PassClaim} & by_kind.keys():
            return self._draw(reading, by_kind, hand, words)
        if GoDown in by_kind:
            return self._go_down(reading, by_kind[GoDown], hand, words)
        for kind in (BuyJoker, SwapJoker):
            if kind in by_kind:
                return Decision(by_kind[kind][0], "a joker is worth more than any natural card")
        if LayOff in by_kind:
            return self._lay_off(view, by_kind[LayOff], words)
        if Discard in by_kind:
            return self._discard(reading, by_kind[Discard], hand, words)
        move = next(iter(by_kind.values()))[0]
        return Decision(move, "the only move")

    # -- drawing and claiming ------------------------------------------------------------------

    def _draw(self, reading: Reading, by_kind, hand: list[Card], words: Words) -> Decision:
        view = reading.view
        top = view.discard_top
        down = view.down[view.seat]
        c = words.card
        if CallShanghai in by_kind and (down or not any(view.rules.is_wild(x) for x in hand)):
            call = by_kind[CallShanghai][0]
            return Decision(call, f"SHANGHAI: {c(top)} plays on {_meld_words(view, call.meld, words)}, "
                                  "and its discarder draws from your hand")
        if TakeDiscard in by_kind and top is not None:
            if down and plays_on(view.rules, view.table, top):
                return Decision(by_kind[TakeDiscard][0], f"take {c(top)}: it lays off at once")
            if not down:
                value = keep_value(reading, top, hand + [top])
                lowers = self._lowers_need(view, top, hand)
                take = lowers or value >= self.TAKE_AT
                if not lowers and DrawStock in by_kind and abs(value - self.TAKE_AT) <= self.TAKE_CLOSE \
                        and not view.meld_all:
                    pair = [by_kind[TakeDiscard][0], by_kind[DrawStock][0]]
                    searched = self._search(reading, pair if take else pair[::-1], words)
                    if searched is not None:
                        return searched
                if take:
                    return Decision(by_kind[TakeDiscard][0], f"take {c(top)}: " + self._helps(view, top, hand, words))
        if DrawStock in by_kind:
            why = "nothing on the pile" if top is None else self._not_worth(view, top, hand, words) \
                if TakeDiscard in by_kind else f"{c(top)} may not be taken now"
            return Decision(by_kind[DrawStock][0], "draw: " + why)
        if MayI in by_kind and top is not None:
            claim = self._claim(reading, top, hand, words)
            if claim:
                return Decision(by_kind[MayI][0], claim)
        if PassClaim in by_kind:
            return Decision(by_kind[PassClaim][0], self._pass_why(reading, top, hand, words))
        move = next(iter(by_kind.values()))[0]
        return Decision(move, "the only move")

    def _lowers_need(self, view: PlayerView, card: Card, hand: list[Card]) -> bool:
        """Whether ``card`` brings the hand a card closer to its contract."""
        need = contract_need(view.rules, view.contract, hand)
        return contract_need(view.rules, view.contract, hand + [card]) < need

    def _not_worth(self, view: PlayerView, card: Card, hand: list[Card], words: Words) -> str:
        """Why the top discard is left: it helps nothing held, or what it would go with and that
        it brings the contract no closer (a card that pairs one held is no help "to nothing")."""
        rules = view.rules
        naturals = [x for x in hand if not rules.is_wild(x)]
        sets, runs, _ = kind_counts(view.contract)
        mates = [x for x in naturals if x.rank == card.rank] if sets and not view.down[view.seat] \
            else []
        near = sorted((x for x in naturals if x.suit is card.suit and x.rank != card.rank
                       and _gap(card.rank, x.rank) <= 2), key=lambda x: x.rank) \
            if runs and not view.down[view.seat] and not rules.is_wild(card) else []
        if not (mates or near):
            return f"{words.card(card)} helps nothing you hold"
        goes = f"pairs {words.cards(mates)}" if mates else f"goes with {words.cards(near)}"
        return f"{words.card(card)} {goes}, but is not worth taking: it brings your contract no closer"

    def _helps(self, view: PlayerView, card: Card, hand: list[Card], words: Words) -> str:
        if view.rules.is_wild(card):
            return "a wild card fits any meld"
        mates = [x for x in hand if x.rank == card.rank and not view.rules.is_wild(x)]
        sets, runs, suits = kind_counts(view.contract)
        if sets and mates:
            least = least_size(view.rules, view.contract, MeldKind.SET)
            return f"with {words.cards(mates)} it makes a {view.rules.set_word}" if len(mates) >= least - 1 \
                else f"it pairs {words.cards(mates)}"
        if suits and not runs:
            return "it adds to the suit you are collecting"
        return "it fits a run you are building"

    def _claim(self, reading: Reading, top: Card, hand: list[Card], words: Words) -> str:
        """Why to claim ``top`` out of turn, or "" not to: a card that completes a meld is worth
        its penalty cards unless someone is about to go out and catch them in hand."""
        view = reading.view
        rules = view.rules
        if view.down[view.seat] or view.meld_all or not self._lowers_need(view, top, hand):
            return ""
        cost = rules.claim_penalty * (1.0 + 5.0 * reading.urgency) + max(0, len(hand) - 12) * 0.5
        if cost >= self.CLAIM_COST:
            return ""
        return (f"{rules.claim_word}: {words.card(top)} " + self._helps(view, top, hand, words)
                + f", worth {rules.claim_penalty} penalty card(s)")

    def _pass_why(self, reading: Reading, top: Card | None, hand: list[Card], words: Words) -> str:
        view = reading.view
        if top is None or view.down[view.seat] or not self._lowers_need(view, top, hand):
            return "pass: it brings your contract no closer"
        return f"pass: someone is close to going out, {view.rules.claim_penalty} penalty card(s) could be caught"

    def _search(self, reading: Reading, candidates: list[Move], words: Words) -> Decision | None:
        """The candidate that plays out best in sampled deals, with the search's reason, where it is
        not the first (the weights' choice): None where the weights stand."""
        view = reading.view
        samples = affordable(view, len(candidates), self.SAMPLES)
        outcomes = search(view, reading.memory, candidates, samples, random.Random(self.rng.getrandbits(64)),
                          self.go_downs, self.SETTLED)
        found = max(outcomes, key=lambda o: o.gain)
        if found.move is candidates[0] or not found.beats(outcomes[0], self.SURE):
            return None
        return Decision(found.move, _searched(found, outcomes[0], view, words))

    # -- the play ------------------------------------------------------------------------------

    def _go_down(self, reading: Reading, options: list[Move], hand: list[Card], words: Words) -> Decision:
        view = reading.view
        rules = view.rules

        def worth(move: GoDown) -> tuple:
            used = {c for meld in move.melds for c in meld}
            left = [c for c in hand if c not in used]
            return (len(used), -sum(card_points(rules, c) for c in left),
                    -sum(rules.is_wild(c) for c in used))

        best = max(options, key=worth)
        left = len(hand) - sum(len(m) for m in best.melds)
        melds = " / ".join(words.cards(m) for m in best.melds)
        return Decision(best, f"go down with {melds}: {left} card(s) left to lay off or discard")

    def _lay_off(self, view: PlayerView, options: list[Move], words: Words) -> Decision:
        freed = [m for m in options if m.card in view.must_lay_off]
        if freed:
            return Decision(freed[0], f"lay off {words.card(freed[0].card)} on "
                                      f"{_meld_words(view, freed[0].meld, words)}: the freed joker must go")
        best = max(options, key=lambda m: card_points(view.rules, m.card))
        return Decision(best, f"lay off {words.card(best.card)} on {_meld_words(view, best.meld, words)}: "
                              f"{card_points(view.rules, best.card)} points out of your hand")

    def _discard(self, reading: Reading, options: list[Move], hand: list[Card], words: Words) -> Decision:
        view = reading.view
        rules = view.rules
        down = view.down[view.seat]
        declared = {m.card: m for m in options if m.shanghai}
        plain = [m for m in options if not m.shanghai]
        dump = self.DUMP[0] + self.DUMP[1] * reading.urgency

        @cache  # each card is weighed for the choice and again for the reason
        def own(card: Card) -> float:
            if down:
                return -dump * card_points(rules, card)
            rest = [c for c in hand if c is not card]
            need = contract_need(rules, view.contract, rest)
            return self.NEED * need + keep_value(reading, card, hand) - dump * card_points(rules, card)

        @cache
        def feed(card: Card):
            return reading.feed(card, card in declared, words)

        def cost(move: Discard) -> tuple:
            return (rules.is_wild(move.card), own(move.card) + feed(move.card).danger, self.rng.random())

        costs = sorted(((cost(m), m) for m in plain), key=lambda weighed: weighed[0])
        chosen = costs[0][1]
        close = _close(costs, self.CLOSE, self.CANDIDATES)
        if len(close) > 1 and not view.meld_all:
            searched = self._search(reading, close, words)
            if searched is not None:
                return Decision(declared.get(searched.move.card, searched.move), searched.reason)
        best = chosen.card
        move = declared.get(best, chosen)
        # a card as easy to spare that was kept because it would feed someone (not a copy of it)
        spared = [m.card for m in plain if m.card.face != best.face and not rules.is_wild(m.card)
                  and own(m.card) <= own(best) + 1.0 and feed(m.card).danger > 0]
        which = _which_copy(best, hand, {m.card for m in options}, words)

        def c(card: Card) -> str:
            return words.card(card) + (which if card is best else "")
        if spared:
            kept = min(spared, key=own)
            return Decision(move, f"discard {c(best)}, not {c(kept)}: {feed(kept).why}")
        if best in declared:
            return Decision(move, f"discard {c(best)} declaring SHANGHAI: it plays on the table, so nobody may take it")
        if reading.urgency >= 0.6 and card_points(rules, best) >= 10:
            return Decision(move, f"discard {c(best)}: someone is close to going out, "
                                  f"shed its {card_points(rules, best)} points")
        if down:
            return Decision(move, f"discard {c(best)}: the most points you could be caught with "
                                  f"({card_points(rules, best)})")
        if not reading.live_rank(best.rank) and kind_counts(view.contract)[0]:
            return Decision(move, f"discard {c(best)}: no card of its rank is left to pair it")
        return Decision(move, f"discard {c(best)}: it helps your hand least")


def _say(move: Move, view: PlayerView, words: Words) -> str:
    if isinstance(move, Discard):
        return f"discard {words.card(move.card)}"
    return f"take {words.card(view.discard_top)}" if isinstance(move, TakeDiscard) else "draw"


def _close(costs: list[tuple], margin: float, most: int) -> list[Discard]:
    """The cheapest discards, of different faces, whose cost lies within ``margin`` of the
    cheapest (a wild card only where nothing else may go)."""
    (wild, least, _), _ = costs[0]
    close: dict = {}
    for (w, value, _), move in costs:
        if w == wild and value - least <= margin and len(close) < most:
            close.setdefault(move.card.face, move)
    return list(close.values())


def _searched(found: Outcome, weighed: Outcome, view: PlayerView, words: Words) -> str:
    """The search's reason for overruling the weights, one line: what the play-outs gained, and
    the seat that went out most less often."""
    gain = found.gain - weighed.gain
    better = f"{gain:.0f}¢ more" if view.rules.money else f"{gain:.1f} points better"
    why = (f"{_say(found.move, view, words)}, not {_say(weighed.move, view, words)}: in {len(found.gains)} sampled "
           f"deals it ended the round {better}")
    fewer = max((s for s in range(len(found.out)) if s != view.seat),
                key=lambda s: weighed.out[s] - found.out[s])
    if weighed.out[fewer] > found.out[fewer]:
        why += f", {words.seat(fewer)} going out in {found.out[fewer]} of them, not {weighed.out[fewer]}"
    return why


def _meld_words(view: PlayerView, index: int, words: Words) -> str:
    """A meld on the table as a hint names it: whose, what, and its number (which ``l``, ``!``
    and the others take): "bea's run 4♠-7♠ (meld 3)", "your book of kings (meld 1)"."""
    meld = view.table[index]
    owner = view.meld_owners[index]
    name = words.seat(owner)
    whose = "your" if owner == view.seat or name == "you" else f"{name}'s"
    if meld.kind is MeldKind.RUN:
        suit = next((words.card(c)[-1] for c in meld.cards if c.suit is meld.suit
                     and not c.is_joker), "")
        what = f"run {_RANK_NAME.get(meld.rank, meld.rank)}{suit}-" \
               f"{_RANK_NAME.get(meld.high, meld.high)}{suit}"
    else:
        what = f"{view.rules.set_word} of {_RANKS_NAME.get(meld.rank, f'{meld.rank}s')}"
    return f"{whose} {what} (meld {index + 1})"


_RANK_NAME = {1: "A", 11: "J", 12: "Q", 13: "K", 14: "A"}
_RANKS_NAME = {1: "aces", 11: "jacks", 12: "queens", 13: "kings", 14: "aces"}


def _which_copy(card: Card, hand: Sequence[Card], may: set[Card], words: Words) -> str:
    """Which of two (or more) like cards in hand a hint means: not the one just taken from the
    pile (it may not go back this turn; the hand marks it "new"); else either."""
    twins = [x for x in hand if x is not card and x.face == card.face]
    if not twins:
        return ""
    if any(x not in may for x in twins):
        return " (not the one just taken)"
    return " (either one)" if len(twins) == 1 else " (any of them)"
