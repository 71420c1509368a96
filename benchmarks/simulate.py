"""Games per second of whole headless games between four `basic` bots, for each preset.

    python benchmarks/simulate.py [--games 20] [--seed 1] [--profile] [--digest]

One process, one core.  Besides games a second of wall time it prints them a second of the
process's CPU time, the steadier figure on a machine shared with other work.  With --profile it
also prints where the time goes (cProfile, top 15 by own time and by time with callees).  With
--digest it prints each preset's `log_digest` of the same games instead of timing them: a change
meant only to be faster must leave every digest as it was.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from shanghai_net.rules import PRESETS, preset
from shanghai_net.simulate import log_digest, simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--digest", action="store_true")
    args = parser.parse_args()
    profiler = cProfile.Profile() if args.profile else None
    for name in PRESETS:
        rules = preset(name)
        if not rules.min_players <= args.players <= rules.max_players:
            continue
        if args.digest:
            print(f"{name}: log_digest={log_digest(rules, ['basic'] * args.players, args.games, args.seed)}")
            continue
        if profiler:
            profiler.enable()
        cpu = time.process_time()
        report = simulate(rules, ["basic"] * args.players, args.games, args.seed)
        cpu = time.process_time() - cpu
        if profiler:
            profiler.disable()
        print(f"{name}: games_per_second={report.games_per_second:.2f} cpu_games_per_second={report.games / cpu:.2f} "
              f"games={report.games} seconds={report.seconds:.2f}")
    if profiler:
        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(15)
        stats.sort_stats("cumulative").print_stats(15)


if __name__ == "__main__":
    main()
