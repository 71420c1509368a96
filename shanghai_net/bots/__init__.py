"""Bots: strategies that choose one of the legal moves from a seat's PlayerView."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol

from ..engine.moves import Move
from ..engine.view import PlayerView
from .basic import BasicBot

__all__ = ["Bot", "RandomBot", "BasicBot", "make_bot", "BOTS"]


class Bot(Protocol):
    """Chooses one of ``moves`` (the legal moves, possibly a lazy iterator: list it if needed)."""

    def choose(self, view: PlayerView, moves: Iterable[Move]) -> Move: ...


class RandomBot:
    """Uniform over the legal moves: the fuzzer of the rules."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def choose(self, view: PlayerView, moves: Iterable[Move]) -> Move:
        return self.rng.choice(list(moves))


BOTS = {"random": RandomBot, "basic": BasicBot}


def make_bot(level: str, rng: random.Random) -> Bot:
    try:
        return BOTS[level](rng)
    except KeyError:
        raise ValueError(f"no bot {level!r}; bots: {', '.join(BOTS)}") from None
