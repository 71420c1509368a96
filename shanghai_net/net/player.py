"""Who decides for a networked seat: the `Player` protocol a `Peer` asks, and `BotPlayer`."""

from __future__ import annotations

import random as random_module
from typing import Protocol

from ..bots import choose, make_bot
from ..engine.moves import MayI, Move, PassClaim
from ..engine.view import view_of
from ..table.seat import PeerTable

__all__ = ["Player", "BotPlayer"]


class Player(Protocol):
    """Who decides for the seat.  It may also define ``outcome(move, refused)``: called when a
    move it chose was sequenced (``refused`` None) or refused by the host or dropped as no longer
    legal (the reason)."""

    def choose(self, table: PeerTable) -> Move | None:
        """A move for ``table.seat`` now (``table.can_move()`` is true), or None to stay silent."""


class BotPlayer:
    """A bot from `shanghai_net.bots` choosing from the seat's replica; ``claims=False`` makes
    it stay silent in claim windows (the host's timeout then passes for it); ``think``: seconds
    it waits before each decision, so that people at the table can follow the play."""

    def __init__(self, level: str = "basic", rng: random_module.Random | None = None,
                 claims: bool = True, think: float = 0.0) -> None:
        self.level = level
        self.bot = make_bot(level, rng or random_module.Random())
        self.claims = claims
        self.think = think

    def choose(self, table: PeerTable) -> Move | None:
        moves = table.legal_moves()
        if not moves:
            return None
        if not self.claims and all(isinstance(m, (MayI, PassClaim)) for m in moves):
            return None
        return choose(self.bot, view_of(table.game, table.seat), moves, table.game.log)
