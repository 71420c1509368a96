"""Games in a chosen position, for tests only: a dealer that deals a stacked deck.

``stacked_game("davis", ["7H 7S 7D 8C 8D 8S", "..."], up="9C", stock="KH QS")`` deals seat 0 the
cards named first (the rest of each hand is filler), turns up ``up``, and has the stock give
``stock`` first, in that order.  Faces named twice are two physical cards (deck copies 0, 1, ...),
counted across everything named.  Filler comes from the rest of the deck with the wild cards kept
at the bottom of the stock, so a test's position is not disturbed by a stray joker.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence

from shanghai_net.cards import Card, deck, parse_melds
from shanghai_net.engine import DrawStock, Game, LocalDealer, PassClaim, Pick, Shuffle, parse_move
from shanghai_net.engine.moves import Move
from shanghai_net.rules import RuleSet, preset


class StackedDealer(LocalDealer):
    """LocalDealer, but round ``r``'s first shuffle comes from ``layouts[r]`` and picks are chosen."""

    def __init__(self, layouts: dict[int, list[Card]], first_dealer: int, picks: Sequence[int] = (), seed: int = 0):
        super().__init__(seed)
        self.layouts = layouts
        self.first_dealer = first_dealer
        self.picks = list(picks)

    def handle(self, request, game: Game) -> None:
        if isinstance(request, Shuffle) and request.generation == 0 and request.round_no in self.layouts:
            cards = self.layouts[request.round_no]
            assert Counter(cards) == Counter(request.cards), "a stacked deck must be the round's deck"
            self.decks[0] = list(cards)
            if game.viewer is None:
                for pos, card in enumerate(cards):
                    game.learn((0, pos), card)
            game.fulfil_shuffle(0)
        elif isinstance(request, Pick) and request.purpose == "first dealer":
            game.fulfil_pick(self.first_dealer)
        elif isinstance(request, Pick) and self.picks:
            game.fulfil_pick(self.picks.pop(0))
        else:
            super().handle(request, game)


def rules_of(rules: RuleSet | str) -> RuleSet:
    return preset(rules) if isinstance(rules, str) else rules


def layout(rules: RuleSet, hands: Sequence[str], up: str = "", stock: str = "", dealer: int | None = None,
           round_no: int = 1, seed: int = 0) -> list[Card]:
    """A deck order that deals ``hands`` (seat by seat), turns up ``up`` and then draws ``stock``."""
    players = len(hands)
    dealer = players - 1 if dealer is None else dealer
    groups = parse_melds(" / ".join([*hands, up, stock]))
    named = [c for g in groups for c in g]
    cards = deck(*rules.deck_size(players))
    missing = set(named) - set(cards)
    assert not missing, f"not in this deck: {sorted(missing)}"
    rest = [c for c in cards if c not in set(named)]
    random.Random(seed).shuffle(rest)
    rest.sort(key=rules.is_wild)  # wild cards last: at the bottom of the stock
    size = rules.deal_size(round_no)
    full = []
    for seat in range(players):
        hand = list(groups[seat])
        assert len(hand) <= size, f"seat {seat} is dealt {size} cards, not {len(hand)}"
        while len(hand) < size:
            hand.append(rest.pop(_filler(rules, hand, rest)))
        full.append(hand)
    up_cards = groups[players] or [rest.pop(0)]
    order = [full[(dealer + 1 + i) % players][i // players] for i in range(size * players)]
    return order + up_cards + groups[players + 1] + rest


def _filler(rules: RuleSet, hand: list[Card], rest: list[Card]) -> int:
    """The index in ``rest`` of a card that makes no meld with ``hand``: a new rank, far in its suit."""
    def quiet(card: Card, gap: int) -> bool:
        return not rules.is_wild(card) and all(
            c.rank != card.rank and (c.suit is not card.suit or abs(c.rank - card.rank) >= gap)
            for c in hand if not rules.is_wild(c))

    for gap in (4, 3, 2, 1):
        for i, card in enumerate(rest):
            if quiet(card, gap):
                return i
    return 0


def stacked_game(rules: RuleSet | str, hands: Sequence[str], up: str = "", stock: str = "",
                 dealer: int | None = None, viewer: int | None = None, picks: Sequence[int] = (),
                 later: dict[int, dict] | None = None, seed: int = 0) -> Game:
    """A game whose first round is dealt as ``layout`` says; ``later[r]`` stacks round ``r`` alike."""
    rules = rules_of(rules)
    players = len(hands)
    dealer = players - 1 if dealer is None else dealer
    layouts = {1: layout(rules, hands, up, stock, dealer, 1, seed)}
    for r, spec in (later or {}).items():
        layouts[r] = layout(rules, spec["hands"], spec.get("up", ""), spec.get("stock", ""),
                            (dealer + r - 1) % players, r, seed)
    return Game(rules, players, StackedDealer(layouts, dealer, picks, seed), viewer)


def move(game: Game, seat: int, text: str) -> Move:
    """Parse a move for ``seat``, naming the physical cards of its hand (each copy at most once)."""
    hand = game.hand(seat)
    used: set[Card] = set()

    def pick(card: Card) -> Card:
        same = [c for c in hand if c.face == card.face and c not in used]
        chosen = card if card in same else (same[0] if same else card)
        used.add(chosen)
        return chosen

    return parse_move(text, seat, pick)


def play(game: Game, seat: int, *texts: str) -> list:
    """Apply moves given as text, in order; the events of all of them."""
    events = []
    for text in texts:
        events += game.apply(move(game, seat, text))
    return events


def draw(game: Game, seat: int | None = None) -> list:
    """The seat to play draws from the stock; every seat that could claim the discard lets it go."""
    seat = game.turn if seat is None else seat
    events = game.apply(DrawStock(seat))
    while game.window is not None and game.window.undecided():
        events += game.apply(PassClaim(game.window.undecided()[0]))
    return events


def faces(cards) -> list[str]:
    return [str(c) for c in cards]


def table(game: Game) -> list[str]:
    """The melds on the table as text, in the order they were laid down."""
    return [m.text() for m in game.table]


def hand_text(game: Game, seat: int) -> list[str]:
    return sorted(faces(game.hand(seat)))


def discard_turn(game: Game, seat: int, card: str) -> list:
    """Draw from the stock (others passing) and discard ``card``: a quiet turn."""
    return draw(game, seat) + play(game, seat, f"discard {card}")


def contract_rules(name: str, contracts: str, **more) -> RuleSet:
    """A preset whose rounds are ``contracts`` ("1s1r,2r"): a run on the table in round 1, or the
    last round (``"3r"``) as the first one.  Every other rule stays the preset's."""
    return preset(name).override(f"contracts={contracts}", **more)


def run_bots(game: Game, bots, max_moves: int = 100_000, after=None, until=None) -> Game:
    """Let ``bots`` (one a seat) play until the game is over, or until ``until(game)``;
    ``after(game)`` runs after each move."""
    from shanghai_net.engine import Phase, view_of

    for _ in range(max_moves):
        if game.phase is Phase.OVER or until is not None and until(game):
            return game
        seat = game.to_move()[0]
        game.apply(bots[seat].choose(view_of(game, seat), list(game.legal_moves(seat))))
        if after:
            after(game)
    raise AssertionError(f"no end in {max_moves} moves")


def faces_only(value):
    """A move or view with every physical card replaced by its face (copies are interchangeable)."""
    if isinstance(value, Card):
        return value.face
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,) + tuple(faces_only(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, (tuple, list)):
        return tuple(faces_only(v) for v in value)
    return value
