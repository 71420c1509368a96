"""The game engine: a deterministic state machine over the rules, fed by moves and a dealer."""

from .dealer import PUBLIC, Dealer, LocalDealer, Pick, Request, Reveal, Shuffle, Token
from .events import *  # noqa: F403
from .events import __all__ as _events
from .game import ClaimWindow, Game, Phase
from .moves import (
    BuyJoker, CallShanghai, Discard, DrawStock, GoDown, LayOff, MayI, Move, PassClaim, SwapJoker,
    TakeDiscard, parse_move,
)
from .view import PlayerView, view_of


def new_game(rules, players: int, dealer: Dealer | None = None, viewer: int | None = None) -> Game:
    """The game engine for these rules (every preset so far is a contract game)."""
    return Game(rules, players, dealer, viewer)


__all__ = [
    "BuyJoker", "CallShanghai", "ClaimWindow", "Dealer", "Discard", "DrawStock", "Game", "GoDown",
    "LayOff", "LocalDealer", "MayI", "Move", "PUBLIC", "PassClaim", "Phase", "Pick", "PlayerView",
    "Request", "Reveal", "Shuffle", "SwapJoker", "TakeDiscard", "Token", "new_game", "parse_move", "view_of",
    *_events,
]
