"""Headless games between bots: the driver that `shanghai simulate`, `shanghai watch`, the
benchmark and the tests share."""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .bots import Bot, choose, make_bot
from .engine import Event, Game, LocalDealer, Phase, new_game, view_of
from .rules import RuleSet

__all__ = ["play_game", "simulate", "log_digest", "SimulationReport"]


def play_game(
    rules: RuleSet,
    bots: Sequence[Bot],
    seed: int,
    on_event: Callable[[Event], None] | None = None,
    max_moves: int = 200_000,
) -> Game:
    """One whole game between ``bots`` (one a seat), dealt from ``seed``."""
    game = new_game(rules, len(bots), LocalDealer(seed))
    if on_event:
        for event in game.log:
            on_event(event)
    for _ in range(max_moves):
        if game.phase is Phase.OVER:
            return game
        seat = game.to_move()[0]
        move = choose(bots[seat], view_of(game, seat), game.legal_moves(seat), game.log)
        for event in game.apply(move):
            if on_event:
                on_event(event)
    raise RuntimeError(f"game with seed {seed} did not end in {max_moves} moves")


@dataclass
class SimulationReport:
    preset: str
    players: int
    games: int
    bots: list[str]
    mean_score: list[float]
    wins: list[int]
    seconds: float
    rounds: int = 0
    nobody_out: int = 0
    """Rounds that ended with nobody out (nothing left to draw, or the turn limit)."""
    turn_limit: int = 0
    """Of those, the rounds the `max_turns` safeguard stopped."""

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    def as_dict(self) -> dict:
        return {
            "preset": self.preset, "players": self.players, "games": self.games, "bots": self.bots,
            "mean_score": self.mean_score, "wins": self.wins,
            "seconds": round(self.seconds, 3), "games_per_second": round(self.games_per_second, 2),
            "rounds": self.rounds, "nobody_out": self.nobody_out, "turn_limit": self.turn_limit,
        }


def simulate(rules: RuleSet, levels: Sequence[str], games: int, seed: int,
             on_game: Callable[[], None] | None = None) -> SimulationReport:
    """``games`` games; game ``i`` is dealt from a seed derived from ``seed`` and ``i``;
    ``on_game()`` after each (progress)."""
    players = len(levels)
    totals = [0] * players
    wins = [0] * players
    rounds: list = []
    start = time.perf_counter()
    for bots, game_seed in _tables(levels, games, seed):
        game = play_game(rules, bots, game_seed)
        assert game.result is not None
        for seat in range(players):
            totals[seat] += game.result.totals[seat]
        for seat in game.result.winners:
            wins[seat] += 1
        rounds += game.result.rounds
        if on_game is not None:
            on_game()
    seconds = time.perf_counter() - start
    return SimulationReport(
        rules.name, players, games, list(levels), [t / games for t in totals], wins, seconds, len(rounds),
        sum(r.winner is None for r in rounds), sum(r.ended == "turn limit" for r in rounds),
    )


def log_digest(rules: RuleSet, levels: Sequence[str], games: int, seed: int) -> str:
    """SHA-256 of the event logs (each event's repr, a line each) of the games `simulate` plays:
    what a change that only makes the engine or the bots faster keeps (same seed, same games)."""
    digest = hashlib.sha256()
    for bots, game_seed in _tables(levels, games, seed):
        play_game(rules, bots, game_seed, lambda event: digest.update(repr(event).encode() + b"\n"))
    return digest.hexdigest()


def _tables(levels: Sequence[str], games: int, seed: int) -> Iterator[tuple[list[Bot], int]]:
    """Each game's bots and deal seed: game ``i``'s from a seed derived from ``seed`` and ``i``."""
    for i in range(games):
        rng = random.Random(f"{seed}:{i}")
        bots = [make_bot(level, random.Random(rng.random())) for level in levels]
        yield bots, rng.randrange(2**63)
