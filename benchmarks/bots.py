"""How strong the expert bot is: one expert against three basic bots, the expert's seat rotating.

    python benchmarks/bots.py [--games 1000] [--seed 1] [--presets davis,carousel] [--level expert]

For each preset: the expert's win rate with a 95% interval (Wilson; 25% is parity at four
seats; a shared first place counts as a win), its mean score (points: lower is better; marcelle
counts money: higher is better) beside the basic bots' mean, its decision time p50/p99 in
milliseconds of CPU time (one process, one core), and the table's games a second of CPU time.
Aims (issue 26): >= 10 games a second at this table (the basic bots' own table: 19), decision
p50 <= 10 ms, p99 <= 300 ms; wins >= 60% in davis, >= 65% in good-miller, >= 62% in marcelle,
>= 35% in carousel.

Measured 2026-11-30 (400 games a preset, carousel 100; two cores shared by many processes):
davis 47.0% [42.2%, 51.9%], good-miller 60.0% [55.1%, 64.7%], marcelle 55.0% [50.1%, 59.8%],
carousel 30.0% [21.9%, 39.6%] (the expert plays carousel as the basic bot does); decision
p50 0.2-0.8 ms, p99 33-107 ms.
Carousel with the expert's own play (it holds back cards that still play next turn), 800 games
(seeds 1 and 2): 28.1% [25.1%, 31.3%], mean score 19.9-20.0 against 20.1, p50 0.8-0.9 ms, p99
7-14 ms; seed 1's 400 games with the most cards always (the basic play): 25.5% [21.5%, 30.0%].
Carousel leaves one choice a turn (which playable cards go down; drawing is forced), so the bots
differ little there.
Measured 2026-12-01, after the speed work of issue 26 (the same decisions: the digests of
tests/test_expert_same.py), two cores under a load of 5 to 12: davis 3.2 games/s, good-miller
3.7, marcelle 4.7, carousel 1.4 (CPU time; the expert before it, the same hour: davis and
good-miller 0.7; four basic bots, the same hour: 6.7-7.1, carousel 3.1), so this table runs at
half the basic table's speed, as 10 against 19 asks.  Decisions p50 0.2 ms, p99 3.3-4.3 ms
(before: p50 1.1-1.3 ms, p99 38-42 ms); carousel p50 1.5 ms, p99 15 ms.  Wins (100 games, carousel
40): davis 46.0% [36.6%, 55.7%], good-miller 62.0% [52.2%, 70.9%], marcelle 47.0% [37.5%, 56.7%],
carousel 45.0% [30.7%, 60.2%].
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout this script is in

from shanghai_net.bots import make_bot  # noqa: E402
from shanghai_net.cli.progress import progress  # noqa: E402
from shanghai_net.engine import Move, PlayerView  # noqa: E402
from shanghai_net.rules import PRESETS, preset  # noqa: E402
from shanghai_net.simulate import play_game  # noqa: E402

PLAYERS = 4


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


def run(name: str, games: int, seed: int, level: str) -> str:
    rules = preset(name)
    times: list[float] = []
    wins, mine, theirs = 0, 0.0, 0.0
    start, cpu = time.perf_counter(), time.process_time()
    with progress(games, f"{name}: {level} against basic") as done:  # on a terminal only
        for i in range(games):
            rng = random.Random(f"{seed}:{name}:{i}")
            seat = i % PLAYERS
            bots = [make_bot("basic", random.Random(rng.random())) for _ in range(PLAYERS)]
            bots[seat] = Timed(make_bot(level, random.Random(rng.random())), times)
            result = play_game(rules, bots, rng.randrange(2**63)).result
            wins += seat in result.winners
            mine += result.totals[seat]
            theirs += sum(t for s, t in enumerate(result.totals) if s != seat) / (PLAYERS - 1)
            done()
    cpu = time.process_time() - cpu
    low, high = wilson(wins, games)
    return (f"{name:<12} games={games} wins={wins / games:6.1%} [{low:.1%}, {high:.1%}] "
            f"mean_score={mine / games:.1f} (basic {theirs / games:.1f}) "
            f"decision_ms p50={1000 * percentile(times, 0.5):.1f} p99={1000 * percentile(times, 0.99):.1f} "
            f"games_per_cpu_second={games / cpu:.1f} ({len(times)} decisions, {time.perf_counter() - start:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games a preset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--presets", default=",".join(PRESETS), help="comma-separated")
    parser.add_argument("--level", default="expert", help="the bot measured against three basic bots")
    args = parser.parse_args()
    for name in args.presets.split(","):
        print(run(name.strip(), args.games, args.seed, args.level), flush=True)


if __name__ == "__main__":
    main()
