"""The basic bot's carousel play: put down as many cards as the solver finds, else draw or pass.

Every card left in the hand costs a point and the first empty hand ends the deal, so the greedy
play (the most cards now) is the basic strategy; "must play if able" leaves only draw or pass
when the solver finds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..engine.moves import Move
from ..engine.view import PlayerView

__all__ = ["choose_carousel"]


def choose_carousel(view: PlayerView, moves: Iterable[Move]) -> Move:
    """The solver's play with the most cards; without one, the only legal move (draw or pass).

    `CarouselGame.legal_moves` lists exactly that first (the solver's `best_play` for a hand it
    knows), so the bot takes it rather than run the solver a second time."""
    return next(iter(moves))
