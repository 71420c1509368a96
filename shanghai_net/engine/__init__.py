"""The game engine: a deterministic state machine over the rules, fed by moves and a dealer."""

from .dealer import PUBLIC, Dealer, Dealt, LocalDealer, Pick, Request, Reveal, Shuffle, Token
from .dealt import DealtGame
from .events import *  # noqa: F403
from .events import __all__ as _events
from .carousel import Blocked, CarouselGame, Passed, Rearranged
from .game import ClaimWindow, Game, Phase
from .moves import (
    BuyJoker, CallShanghai, Discard, DrawStock, GoDown, LayOff, MayI, Move, PassClaim, Rearrange,
    SwapJoker, TakeDiscard, parse_move,
)
from .view import PlayerView, go_downs, view_of


def new_game(rules, players: int, dealer: Dealer | None = None, viewer: int | None = None) -> DealtGame:
    """The game engine for these rules: a `CarouselGame` for carousel, else a contract `Game`."""
    if rules.game == "carousel":
        return CarouselGame(rules, players, dealer, viewer)
    return Game(rules, players, dealer, viewer)


__all__ = [
    "Blocked", "BuyJoker", "CallShanghai", "CarouselGame", "ClaimWindow", "Dealer", "Dealt", "DealtGame", "Discard",
    "DrawStock", "Game", "GoDown", "LayOff", "LocalDealer", "MayI", "Move", "PUBLIC", "PassClaim",
    "Passed", "Phase", "Pick", "PlayerView", "Rearrange", "Rearranged", "Request", "Reveal",
    "Shuffle", "SwapJoker", "TakeDiscard", "Token", "go_downs", "new_game", "parse_move", "view_of",
    *_events,
]
