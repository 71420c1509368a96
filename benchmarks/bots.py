"""How strong the bots are: the tables of issue 26, the measured seats rotating game by game.

    python benchmarks/bots.py [--games 1000] [--seed 1]
    python benchmarks/bots.py --presets davis,marcelle [--level expert] [--seats 1] [--against basic]

Each table prints the measured level's win rate with a 95% interval (Wilson; a shared first
place counts as a win; with two seats a game is won when either wins: parity is 25% for one
seat of four, 50% for two), its mean score (points: lower is better; marcelle counts money:
higher is better) beside the others' mean, its decision time p50/p99 in milliseconds of CPU time
(one process, one core), and the table's games a second of CPU time.
Aims (issue 26): one expert against three basic wins >= 60% in davis, >= 65% in good-miller,
>= 62% in marcelle, >= 35% in carousel; two experts against two basic win together >= 75%; basic
wins >= 60% against three easy; decisions p50 <= 10 ms, p99 <= 300 ms; >= 10 games a second at
the one-expert table.

The issue's tables at their full size, 2026-12-02 (evening): 1,000 games each, seed 1, CPU time,
two cores under a load of 2 to 3 (each line ends with its aim and whether it is met):
  davis        expert 53.7% [50.6%, 56.8%], mean 228 against 348, p99 62 ms, 0.89 g/s   (60%: no)
  good-miller  expert 62.3% [59.3%, 65.3%], mean 179 against 350, p99 77 ms, 0.89 g/s   (65%: no)
  marcelle     expert 54.1% [51.0%, 57.2%], money 72.6 against 15.8, p99 105 ms, 0.86 g/s (62%: no)
  carousel     expert 26.8% [24.1%, 29.6%], mean 20.1 against 20.0, p99 14 ms, 1.33 g/s (35%: no);
               a basic bot in its seat: 25.7% [23.1%, 28.5%], 1.91 g/s: the expert is at parity
  davis        two experts 77.9% [75.2%, 80.4%] together, p99 66 ms, 0.48 g/s         (75%: met)
  davis        basic against three easy 85.2% [82.9%, 87.3%], 4.34 g/s                (60%: met)
  decisions    p50 0.2 ms (carousel 1.5 ms), p99 14-105 ms                  (10 ms and 300 ms: met)
  speed        0.89 games a second at the one-expert davis table                     (10: no)
What limits the speed: the table without the expert is slower than the aim. Four basic bots play
davis at 5.7-6.5 games a second (200 games, the same load), the expert with no search at all
(every discard and take-or-draw by its weights) at 3.74 (47.5% [40.7%, 54.4%] of 200), and with
its search at 0.89. Ten games a second leave 0.1 s a game; of the 1.12 s a game takes now, the
engine and the three basic seats take about 0.12 s, the expert's weights 0.14 s and its search
0.86 s: every part must get cheaper, the search some forty times (67% of the table's time is its
play-outs: the finder 29%, the engine's apply 15%, sampling deals 10%, all in pure Python).
What limits the strength: the search decides only close discards and take-or-draws (40-48 a
game) in 1-8 sampled deals, played out by basic bots whose play in the expert's own seat is
weaker than the expert's; going down, claiming and laying off stay the weights'. The search
adds about 6 points in davis (47.5% without it). In carousel a seat must play what plays and draw
until it can: the one choice is how much goes down, and the expert already plays the most in 930
of 1,021 plays (15 games); a game is some 10 hands of about 2 points a seat, and the deals decide
most of it.
Carousel, tried and not committed (seed 1, 200 games each, 30.0% before): the most cards at once
only when a seat holds 1 card (24.5% [19.1%, 30.9%]) or 4 or 5 (30.0%, 29.0%) rather than 3;
besides the smallest plays, the largest play without each of its cards (29.5% [23.6%, 36.2%]); a
bonus of 0.6 or 1.6 cards for a hand left that plays whole next turn (30.0% each); and a round
played ahead (each play weighed by the cards held after the seat's next turn, or when another goes
out first, in 6 deals of the unseen cards, every seat playing as the basic bot): 24.5% of 400
against 26.0%, at 0.44 games/s and p99 139 ms.
Earlier figures (2026-12-01 and 02, 40-400 games a table, all within the intervals above): the
speed work took the davis table from 0.22-0.31 games/s to 0.52, then 0.91 (the play-outs build the
basic bot's move from the game's state, the same moves; a search settles after one sampled deal,
which kept 267 of 271 decisions); the go-down memo kept by the expert for its game rather than the
process or one search made no difference within the load's noise.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout this script is in

from shanghai_net.bots import make_bot  # noqa: E402
from shanghai_net.cli.progress import progress  # noqa: E402
from shanghai_net.engine import Move, PlayerView  # noqa: E402
from shanghai_net.rules import preset  # noqa: E402
from shanghai_net.simulate import play_game  # noqa: E402

PLAYERS = 4


@dataclass(frozen=True)
class Table:
    """One figure of issue 26: ``level`` in ``seats`` seats (opposite each other, rotating with
    the game) against ``against`` in the rest; a game is won when any of its seats wins."""

    preset: str
    level: str = "expert"
    seats: int = 1
    against: str = "basic"

    @property
    def name(self) -> str:
        mine = self.level if self.seats == 1 else f"{self.seats} {self.level}"
        return f"{self.preset}: {mine} against {PLAYERS - self.seats} {self.against}"

    def measured(self, game: int) -> tuple[int, ...]:
        return tuple((game + k * PLAYERS // self.seats) % PLAYERS for k in range(self.seats))


TABLES = (Table("davis"), Table("good-miller"), Table("marcelle"), Table("carousel"),
          Table("davis", seats=2), Table("davis", level="basic", against="easy"))
"""The figures the issue asks for, in order."""


class Timed:
    """A bot whose every decision is timed in CPU time (the log hand-over included): on a machine
    shared with other work, wall time would count the others' turns on the core too."""

    def __init__(self, bot, times: list[float]):
        self.bot, self.times = bot, times

    def follow(self, log) -> None:
        self._log = log

    def choose(self, view: PlayerView, moves: Iterable[Move]) -> Move:
        start = time.process_time()
        follow = getattr(self.bot, "follow", None)
        if follow is not None:
            follow(self._log)
        move = self.bot.choose(view, moves)
        self.times.append(time.process_time() - start)
        return move


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if not n:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def run(table: Table, games: int, seed: int) -> str:
    rules = preset(table.preset)
    times: list[float] = []
    wins, mine, theirs = 0, 0.0, 0.0
    start, cpu = time.perf_counter(), time.process_time()
    with progress(games, table.name) as done:  # on a terminal only
        for i in range(games):
            rng = random.Random(f"{seed}:{table.preset}:{i}")
            seats = table.measured(i)
            bots = [make_bot(table.against, random.Random(rng.random())) for _ in range(PLAYERS)]
            for seat in seats:
                bots[seat] = Timed(make_bot(table.level, random.Random(rng.random())), times)
            result = play_game(rules, bots, rng.randrange(2**63)).result
            wins += any(seat in result.winners for seat in seats)
            mine += sum(result.totals[s] for s in seats) / len(seats)
            theirs += sum(t for s, t in enumerate(result.totals) if s not in seats) / (PLAYERS - len(seats))
            done()
    cpu = time.process_time() - cpu
    low, high = wilson(wins, games)
    return (f"{table.name:<34} games={games} wins={wins / games:6.1%} [{low:.1%}, {high:.1%}] "
            f"mean_score={mine / games:.1f} ({table.against} {theirs / games:.1f}) "
            f"decision_ms p50={1000 * percentile(times, 0.5):.1f} p99={1000 * percentile(times, 0.99):.1f} "
            f"games_per_cpu_second={games / cpu:.2f} ({len(times)} decisions, {time.perf_counter() - start:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games a table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--presets", help="comma-separated: one table a preset of --level against "
                                          "--against instead of the issue's tables")
    parser.add_argument("--level", default="expert", help="the bot measured (with --presets)")
    parser.add_argument("--seats", type=int, default=1, help="seats it plays (with --presets)")
    parser.add_argument("--against", default="basic", help="the bot in the other seats (with --presets)")
    args = parser.parse_args()
    tables = TABLES if args.presets is None else [
        Table(name.strip(), args.level, args.seats, args.against) for name in args.presets.split(",")]
    for table in tables:
        print(run(table, args.games, args.seed), flush=True)


if __name__ == "__main__":
    main()
