"""Solve times of the carousel solver over positions taken from simulated games.

    python benchmarks/carousel_solver.py [--games 10] [--players 4] [--seed 1] [--repeats 3]

Plays ``--games`` carousel games between `basic` bots and records every position a bot was asked
to move in (the table's melds and the hand).  Each distinct position is then solved afresh (the
caches cleared) ``--repeats`` times with `best_play`, the question the engine and the bots ask
(the whole search, and the second one without far melds when the first breaks them up);
a position's time is its fastest run, which keeps other processes' noise out.  Prints p50, p90,
p99 and the maximum in milliseconds, and the table sizes the games reached.  The budget is 50 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from shanghai_net.bots import make_bot
from shanghai_net.rules import preset
from shanghai_net.rules import carousel_solver
from shanghai_net.simulate import play_game


class Recorder:
    """A basic bot that writes down every position it is asked about."""

    def __init__(self, rng: random.Random, positions: set):
        self.bot = make_bot("basic", rng)
        self.positions = positions

    def choose(self, view, moves):
        self.positions.add((tuple(meld.cards for meld in view.table), tuple(view.hand)))
        return self.bot.choose(view, moves)


def clear_caches() -> None:
    carousel_solver._cached_play.cache_clear()
    carousel_solver._solve.cache_clear()


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rules = preset("carousel")
    positions: set = set()
    for game in range(args.games):
        rng = random.Random(f"{args.seed}:{game}")
        bots = [Recorder(random.Random(rng.random()), positions) for _ in range(args.players)]
        play_game(rules, bots, rng.randrange(2**63))
    times = []
    for table, hand in sorted(positions, key=lambda p: [c.id for c in (*sum(p[0], ()), *p[1])]):
        best = float("inf")
        for _ in range(args.repeats):
            clear_caches()
            start = time.perf_counter()
            carousel_solver.best_play(rules, table, hand)
            best = min(best, time.perf_counter() - start)
        times.append(best * 1000)
    times.sort()
    sizes = [sum(map(len, t)) for t, _ in positions]
    print(f"positions={len(times)} from {args.games} games of {args.players} players; "
          f"table cards mean={statistics.mean(sizes):.1f} max={max(sizes)}")
    print(f"solve ms: p50={percentile(times, 0.5):.2f} p90={percentile(times, 0.9):.2f} "
          f"p99={percentile(times, 0.99):.2f} max={times[-1]:.2f} (budget 50)")


if __name__ == "__main__":
    main()
