"""The basic bot's carousel play: put down as many cards as the solver finds, else draw or pass.

Every card left in the hand costs a point and the first empty hand ends the deal, so the greedy
play (the most cards now) is the basic strategy; "must play if able" leaves only draw or pass
when the solver finds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..engine.moves import DrawStock, Move, PassClaim, Rearrange
from ..engine.view import PlayerView
from ..rules.carousel_solver import best_play

__all__ = ["choose_carousel"]


def choose_carousel(view: PlayerView, moves: Iterable[Move]) -> Move:
    """The solver's play with the most cards; without one, the only legal move (draw or pass)."""
    play = best_play(view.rules, view.table, view.hand)
    if play is not None:
        return Rearrange(view.seat, play.table, play.played)
    return next(m for m in moves if isinstance(m, (DrawStock, PassClaim)))
