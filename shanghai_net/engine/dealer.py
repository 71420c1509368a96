"""The Dealer seam: how the engine gets shuffles, card faces and random picks.

The engine never shuffles or looks at a hidden card itself.  It names every card by a `Token`
(generation, position) and asks for what it needs with a `Request`; a dealer answers through
`Game.fulfil_shuffle`, `Game.learn` and `Game.fulfil_pick`.  `LocalDealer` answers at once from a
seeded shuffled list (simulation, bots, tests); the networked dealer answers when the mental-poker
keys arrive, which is why a request may stay open and the game wait for it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

from ..cards import Card

__all__ = ["Token", "Request", "Shuffle", "Reveal", "Pick", "Dealer", "Dealt", "LocalDealer", "PUBLIC"]

Token = tuple[int, int]
"""(generation, position) of a card in a shuffled deck; generation -1 names a card that entered
a hand face up (a taken discard, a freed joker): its position is the card's id."""

PUBLIC = None
"""A reveal to everyone."""


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Shuffle ``cards`` into generation ``generation``: position 0 is drawn first."""

    round_no: int
    generation: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Reveal:
    """Show the face of ``token`` to seat ``to`` (or to everyone when ``to`` is None)."""

    token: Token
    to: int | None


@dataclass(frozen=True, slots=True)
class Pick:
    """A random number in range(n) that none of ``parties`` can bias (commit-reveal over a net)."""

    n: int
    parties: tuple[int, ...]
    purpose: str


Request = Shuffle | Reveal | Pick


class Dealt(Protocol):
    """What a dealer sees of a game: whose knowledge it holds, and its three inputs."""

    viewer: int | None

    def learn(self, token: Token, card: Card) -> object: ...

    def fulfil_shuffle(self, generation: int) -> object: ...

    def fulfil_pick(self, value: int) -> object: ...


class Dealer(Protocol):
    """Answers a game's requests at once (a synchronous dealer); a networked one leaves them open."""

    def handle(self, request: Request, game: Dealt) -> None: ...


class LocalDealer:
    """A seeded shuffled list: same seed, same game.

    ``order``, if given, deals from given permutations instead: called with each `Shuffle`, it
    returns the request's cards in position order (position 0 is drawn first), e.g. the decks a
    mental-poker deal opened at its audit, to replay that deal.  Picks still come from the seed.
    """

    def __init__(self, seed: int | None = None, rng: random.Random | None = None,
                 order: Callable[[Shuffle], Sequence[Card]] | None = None):
        self.rng = rng or random.Random(seed)
        self.order = order
        self.decks: dict[int, list[Card]] = {}

    def handle(self, request: Request, game: Dealt) -> None:
        if isinstance(request, Shuffle):
            if self.order is None:
                cards = list(request.cards)
                self.rng.shuffle(cards)
            else:
                cards = list(self.order(request))
                if len(cards) != len(request.cards) or set(cards) != set(request.cards):
                    raise ValueError(f"deck order for generation {request.generation} is not a "
                                     "permutation of its cards")
            self.decks[request.generation] = cards
            if game.viewer is None:
                for pos, card in enumerate(cards):
                    game.learn((request.generation, pos), card)
            game.fulfil_shuffle(request.generation)
        elif isinstance(request, Reveal):
            generation, pos = request.token
            if generation >= 0 and (game.viewer is None or request.to in (None, game.viewer)):
                game.learn(request.token, self.decks[generation][pos])
        else:
            game.fulfil_pick(self.rng.randrange(request.n))
