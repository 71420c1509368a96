"""Bots: strategies that choose one of the legal moves from a seat's PlayerView."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Protocol

from ..engine.events import Event
from ..engine.moves import Move
from ..engine.view import PlayerView
from .basic import BasicBot
from .easy import EasyBot
from .expert import Decision, ExpertBot

__all__ = ["Bot", "RandomBot", "EasyBot", "BasicBot", "ExpertBot", "Decision", "make_bot", "choose",
           "BOTS", "LEVELS"]


class Bot(Protocol):
    """Chooses one of ``moves`` (the legal moves, possibly a lazy iterator: list it if needed).

    A bot that remembers the round also has ``follow(log)``: the game's log as its seat may
    know it (`choose` below hands it over)."""

    def choose(self, view: PlayerView, moves: Iterable[Move]) -> Move: ...


class RandomBot:
    """Uniform over the legal moves: the fuzzer of the rules."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def choose(self, view: PlayerView, moves: Iterable[Move]) -> Move:
        return self.rng.choice(list(moves))


BOTS = {"random": RandomBot, "easy": EasyBot, "basic": BasicBot, "expert": ExpertBot}
LEVELS = ("easy", "basic", "expert")
"""The levels a family picks from (``random`` is the rules' fuzzer)."""


def choose(bot: Bot, view: PlayerView, moves: Iterable[Move], log: Sequence[Event]) -> Move:
    """``bot``'s move, after showing a bot that remembers the round the public ``log`` (a
    simulation's log holds other seats' draws: the bot reads no face it may not see, see
    `history`)."""
    follow = getattr(bot, "follow", None)
    if follow is not None:
        follow(log)
    return bot.choose(view, moves)


def make_bot(level: str, rng: random.Random) -> Bot:
    try:
        return BOTS[level](rng)
    except KeyError:
        raise ValueError(f"no bot {level!r}; bots: {', '.join(BOTS)}") from None
