"""Who decides for a networked seat: the `Player` protocol a `Peer` asks, `BotPlayer`, and
`PersonPlayer`, which holds the one move a person submitted until the host has sequenced or
refused it."""

from __future__ import annotations

import random as random_module
from dataclasses import dataclass
from typing import Protocol

import trio

from ..bots import choose, make_bot
from ..engine.moves import MayI, Move, PassClaim
from ..engine.view import view_of
from ..table.seat import PeerTable
from ..table.outbox import passed_since

__all__ = ["Player", "BotPlayer", "PersonPlayer", "HeldMove"]


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


@dataclass
class HeldMove:
    """The move the console submitted, until the host has sequenced or refused it."""

    move: Move
    done: trio.Event
    decided: tuple[int, int]  # where the replica stood when the person chose it (`decided_at`)
    window: object  # the claim window open then
    offered: bool = False
    since: int = 0  # the replica's events before it was sent
    refused: str | None = None


class PersonPlayer:
    """The peer's `Player` for a person (the console's `NetSession`): offers the move the
    person chose when the peer asks for one."""

    def __init__(self) -> None:
        self.held: HeldMove | None = None

    def choose(self, table: PeerTable) -> Move | None:
        """The held move, once (the peer checks it again and reports it no longer legal)."""
        held = self.held
        if held is None or held.offered:
            return None
        why = passed_since(table, held.decided, held.move, held.window)
        if why is not None:
            self.outcome(held.move, why)
            return None
        held.offered, held.since = True, len(table.events)
        return held.move

    def outcome(self, move: Move, refused: str | None) -> None:
        held = self.held
        if held is None or held.move != move:
            return
        self.held = None
        held.refused = refused
        held.done.set()

    def give_up(self, reason: str) -> None:
        """The held move will never be sequenced: the connection is gone for good, or the game
        is over (a claim decision on its way when the last move came: the seat is never asked
        for a move again, soak 12-26)."""
        if self.held is not None:
            self.outcome(self.held.move, reason)
