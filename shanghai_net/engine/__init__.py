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

__all__ = [
    "BuyJoker", "CallShanghai", "ClaimWindow", "Dealer", "Discard", "DrawStock", "Game", "GoDown",
    "LayOff", "LocalDealer", "MayI", "Move", "PUBLIC", "PassClaim", "Phase", "Pick", "PlayerView",
    "Request", "Reveal", "Shuffle", "SwapJoker", "TakeDiscard", "Token", "parse_move", "view_of",
    *_events,
]
