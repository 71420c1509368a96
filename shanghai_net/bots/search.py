"""Look-ahead over the hands a seat cannot see: the expert's search where a decision is close.

The cards this seat has not seen are dealt at random into the other hands, the pile's unseen
bottom and the stock (a "sampled deal"), keeping every card the public log places: what each
seat took from the pile and has not melded or discarded stays in its hand, and a hand is drawn
again until it agrees with what its seat took and let go (`agrees`).  Each candidate move
is then played out to the round's end in every sampled deal by basic bots in every seat, the
candidates meeting the same deals and the same draws (so the difference between them is the
move, not the luck), and the move with the best mean outcome is chosen: the determinized Monte
Carlo search of the gin-rummy and Hearts agents.

It reads only the seat's `PlayerView` and the public log's `RoundMemory`; its randomness comes
from the generator it is handed (the bot's own), so a seat plays the same moves from a
simulation's full log as from its networked replica's.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import Card, deck
from ..engine.dealer import LocalDealer, Shuffle
from ..engine.game import Game, Phase
from ..engine.moves import Move
from ..engine.view import PlayerView
from ..rules.contracts import kind_counts
from ..rules.scoring import penalty
from .basic import completes_meld, worth_taking
from .history import RoundMemory
from .playout import BasicPolicy, GoDowns

__all__ = ["Outcome", "agrees", "sample_deal", "deal_game", "search", "affordable"]

MOVES = 40
"""Moves a play-out runs before the round is judged from the hands as they stand (a round where
nobody goes down can run for hundreds).  40 rather than 60 (issue 26, davis, seed 1): 145 of 159
searches decided as with 60, at 71% of the cost (30: 136 at 56%, 20: 134 at 44%; only 40 was
measured for strength)."""
TRIES = 8
"""Hands drawn for a seat until one agrees with what it took and let go (else the last is kept)."""
LET_GO = 3
"""The discards a seat let go last that its hand is judged against (earlier ones, many draws ago,
say little of the hand now)."""
WORK = 200
"""What one search may cost: its play-outs times the contract melds still sought.  The finder
looks for a go-down at every turn of a seat not yet down, which dominates a play-out: 16 of them
took 158 ms in davis's fifth round with nobody down (12 melds sought), and 672 ms in marcelle's
seventh, where wild twos make the finder's search wider (hence `WILD_COST`)."""
WILD_COST = 3
"""How much dearer a play-out is where twos are wild, in `WORK`'s units."""
PROGRESS = 100.0
"""What a contract made is worth against points, where contracts rank first (Phase 10)."""


@dataclass(frozen=True, slots=True)
class Deal:
    """One sampled deal of the cards the seat cannot see."""

    hands: tuple[tuple[Card, ...], ...]
    pile: tuple[Card, ...]  # bottom first
    stock: tuple[Card, ...]  # the top card last
    seed: int  # the play-out's own draws (reshuffles, picks, the bots' ties)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A candidate's play-outs: its gain in each sampled deal (points better than the other seats'
    mean, money won, contracts made) and how often each seat went out first."""

    move: Move
    gains: tuple[float, ...]
    out: tuple[int, ...]

    @property
    def gain(self) -> float:
        return sum(self.gains) / len(self.gains)

    def beats(self, other: Outcome, z: float) -> bool:
        """Whether it gained more than ``other`` by ``z`` standard errors of their differences,
        deal by deal (the two met the same deals, so most of the luck cancels)."""
        diffs = [a - b for a, b in zip(self.gains, other.gains)]
        mean = sum(diffs) / len(diffs)
        spread = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
        return mean > z * (spread / len(diffs)) ** 0.5


def agrees(view: PlayerView, hand: Sequence[Card], took: Sequence[Card], refused: Sequence[Card]) -> bool:
    """Whether a seat not yet down could have taken and let go what it did, holding ``hand``, for
    the reasons a player has: a card taken goes with the hand, a card let go completes no meld in
    it (judged on the hand it holds now, a few draws after)."""
    for card in took:
        if not worth_taking(view, card, [c for c in hand if c is not card]):
            return False
    return not any(completes_meld(view, card, hand) for card in refused)


def sample_deal(view: PlayerView, memory: RoundMemory, rng: random.Random) -> Deal:
    """The unseen cards dealt at random around what the seat knows: each other hand drawn again
    (up to `TRIES` times) until it `agrees` with what its seat took and let go."""
    rules = view.rules
    on_table = {c for meld in view.table for c in meld.cards}
    pile = list(memory.pile)
    top = view.discard_top
    if top is not None and (not pile or pile[-1] is not top):
        pile.append(top)  # the upturned card, which no event names
    pile = pile[len(pile) - view.discard_size:] if view.discard_size else []
    known: list[list[Card]] = [[] for _ in range(view.players)]
    placed = on_table | set(pile) | set(view.hand)
    for card, seat in memory.held.items():
        if seat != view.seat and card not in placed and len(known[seat]) < view.hand_sizes[seat]:
            known[seat].append(card)
            placed.add(card)
    unseen = [c for c in deck(*rules.deck_size(view.players)) if c not in placed]
    rng.shuffle(unseen)
    hands = []
    for seat in range(view.players):
        if seat == view.seat:
            hands.append(tuple(view.hand))
            continue
        # as many as are left: a memory that missed part of the round (a rejoined replica's) may
        # place a card that has moved on, leaving fewer unseen cards than the hands hold
        n = min(len(unseen), view.hand_sizes[seat] - len(known[seat]))
        refused = [c for c in memory.refused[seat][-LET_GO:] if not rules.is_wild(c)]
        inferred = not (view.down[seat] or rules.progression)  # one contract for all, still sought
        for attempt in range(TRIES if inferred else 1):
            if attempt:
                rng.shuffle(unseen)
            hand = known[seat] + unseen[len(unseen) - n:]
            if not inferred or agrees(view, hand, known[seat], refused):
                break
        del unseen[len(unseen) - n:]
        hands.append(tuple(hand))
    bottom = [unseen.pop() for _ in range(min(len(unseen), view.discard_size - len(pile)))]
    return Deal(tuple(hands), tuple(bottom + pile), tuple(unseen), rng.getrandbits(64))


class _RoundDealer(LocalDealer):
    """Shuffles the pile into the stock within the round played out; the next round's deal it
    leaves waiting, which ends the play-out."""

    def __init__(self, seed: int, round_no: int):
        super().__init__(seed)
        self.round_no = round_no

    def handle(self, request, game) -> None:
        if not (isinstance(request, Shuffle) and request.round_no != self.round_no):
            super().handle(request, game)


def deal_game(view: PlayerView, memory: RoundMemory, deal: Deal) -> Game:
    """A game that sees every card, laid out as the view shows the table and ``deal`` the rest, at
    the seat's own turn (a claim window open on the top discard: the drawer has not chosen yet)."""
    game = Game(view.rules, view.players, _RoundDealer(deal.seed, view.round_no), start=False)
    game.round_no, game.contract_no, game.dealer_seat = view.round_no, view.contract_no, view.dealer
    game.turn, game.phase = view.turn, view.phase
    game.scores, game.money, game.pot = list(view.scores), list(view.money), view.pot
    game.progress = list(view.progress)
    faces, token_of = game.faces, game.token_of

    def tokens(cards: Sequence[Card]) -> list:
        out = []
        for card in cards:
            token = (-1, card.id)  # a card whose face is known, as the engine names a taken discard
            faces[token] = card
            token_of[card] = token
            out.append(token)
        return out

    game.hands = [tokens(hand) for hand in deal.hands]
    game.stock = tokens(deal.stock)
    game.generation = memory.reshuffles
    game.table, game.meld_owner = list(view.table), list(view.meld_owners)
    game.placed_by = {c: owner for meld, owner in zip(view.table, view.meld_owners) for c in meld.cards}
    game.discard = list(deal.pile)
    game.shanghaied = {deal.pile[-1]} if view.top_shanghaied else set()
    game.down, game.claims_left = list(view.down), list(view.claims_left)
    game.must_lay_off, game.went_down_now = set(view.must_lay_off), view.went_down_now
    game.turns, game.reshuffles, game.taken = memory.turns, memory.reshuffles, memory.taken
    game.discarder = memory.discarder
    if view.claim_open:
        game.open_claim_window()
    if game.window is not None:
        game.window.passed = memory.passed & set(game.window.order)
        game.window.claimed = set(view.claimants)
    return game


def _play_out(game: Game, seat: int, rng: random.Random, go_downs: GoDowns) -> tuple[float, int | None]:
    """The round played to its end by basic bots in every seat, drawing from ``rng`` (the moves
    `BasicBot(rng)` makes, built by `BasicPolicy`, each applied by the engine, which refuses an
    illegal one): ``seat``'s gain and who went out."""
    rules = game.rules
    policy = BasicPolicy(rules, rng, go_downs)
    progress = list(game.progress)
    for _ in range(MOVES):
        if game.phase is not Phase.DRAW and game.phase is not Phase.PLAY:
            break
        mover = game.to_move()[0]
        game.apply(policy.move(game, mover))
    if game.results:
        result = game.results[-1]
        points, winner = list(result.points), result.winner
    else:  # judged as the hands stand
        hands = [game.hand(s) for s in range(game.players)]
        points = [-rules.penny_per_card * len(h) if rules.money else penalty(rules, h) for h in hands]
        winner = None
    others = [s for s in range(game.players) if s != seat]
    gain = points[seat] - sum(points[s] for s in others) / len(others)
    if not rules.money:
        gain = -gain
    if rules.progression:
        made = [game.progress[s] - progress[s] for s in range(game.players)]
        gain += PROGRESS * (made[seat] - sum(made[s] for s in others) / len(others))
    return gain, winner


def affordable(view: PlayerView, candidates: int, most: int) -> int:
    """The sampled deals a search of ``candidates`` moves may play out within `WORK` (at least 2,
    at most ``most``), so that a decision stays within 300 ms on one core."""
    sought = sum(kind_counts(view.contract)) * view.down.count(False)
    units = max(1, sought * (WILD_COST if view.rules.wild_twos else 1))
    return max(2, min(most, WORK // (candidates * units)))


def search(view: PlayerView, memory: RoundMemory, candidates: Sequence[Move], samples: int,
           rng: random.Random, go_downs: GoDowns, settle_after: int | None = None) -> list[Outcome]:
    """Each candidate (a move of the seat now) played out in ``samples`` sampled deals, or fewer:
    from ``settle_after`` deals on, the search stops once no candidate has gained more than the
    first (the weights' choice).  One behind after a few deals seldom overtakes it by the margin
    that overrules the weights (`Outcome.beats`), and most close decisions end so: in davis 2
    deals settle two thirds of them, the play-outs fall from 8 a candidate to 3.4, and 286 of
    299 decisions stay as with all 8 (issue 26: 8 games, seed 1); the expert settles after one
    (`ExpertBot.SETTLED`).  The play-outs' go-downs are kept in ``go_downs`` (the expert's, for
    its next searches)."""
    gains: list[list[float]] = [[] for _ in candidates]
    outs = [[0] * view.players for _ in candidates]
    for done in range(samples):
        if settle_after is not None and done >= settle_after and \
                all(sum(g) <= sum(gains[0]) for g in gains[1:]):
            break
        deal = sample_deal(view, memory, rng)
        for i, move in enumerate(candidates):
            game = deal_game(view, memory, deal)
            game.apply(move)
            gain, winner = _play_out(game, view.seat, random.Random(deal.seed), go_downs)
            gains[i].append(gain)
            if winner is not None:
                outs[i][winner] += 1
    return [Outcome(move, tuple(gain), tuple(out)) for move, gain, out in zip(candidates, gains, outs)]
