"""The easy bot: the basic bot's play with a beginner's slips, always legal.

A slip is a move a new player makes: letting a useful discard go, never claiming out of turn,
forgetting to lay off, throwing a card it should keep, forgetting to declare SHANGHAI.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from ..engine.moves import Discard, GoDown, LayOff, MayI, Move, TakeDiscard
from ..engine.view import PlayerView
from .basic import BasicBot

__all__ = ["EasyBot"]


class EasyBot:
    SLIP = 0.5
    """The chance of each slip where one can happen: at 0.3 basic won only 61.8% [56.9%, 66.4%] of
    davis and 39.5% [34.8%, 44.4%] of marcelle against three easy bots (400 games each, seed 1),
    short of the 60% a level a child beats asks (issue 26)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.basic = BasicBot(rng)

    def choose(self, view: PlayerView, moves: Iterable[Move]) -> Move:
        if view.rules.game == "carousel":
            return self.basic.choose(view, moves)
        listed: list[Move] = []
        go_downs = 0
        for move in moves:
            listed.append(move)
            go_downs += isinstance(move, GoDown)
            if go_downs >= BasicBot.GO_DOWN_CHOICES:
                break
        slip = self.rng.random() < self.SLIP
        kinds = {type(m) for m in listed}
        if MayI in kinds:  # shy: never claims out of turn
            listed = [m for m in listed if not isinstance(m, MayI)]
        elif TakeDiscard in kinds and slip:  # does not see that the discard helps
            listed = [m for m in listed if not isinstance(m, TakeDiscard)]
        elif Discard in kinds and GoDown not in kinds:
            plain = [m for m in listed if isinstance(m, Discard) and not m.shanghai
                     and not view.rules.is_wild(m.card)]
            if slip and LayOff in kinds and not view.must_lay_off:
                listed = [m for m in listed if not isinstance(m, LayOff)]  # forgets to lay off
            elif slip and plain:
                return self.rng.choice(plain)  # throws a card it should keep
            if self.rng.random() < self.SLIP:  # forgets to declare SHANGHAI
                listed = [m for m in listed if not (isinstance(m, Discard) and m.shanghai)]
        return self.basic.choose(view, listed)
