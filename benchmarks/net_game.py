"""A whole 7-round game between four `basic` bots over loopback TCP, with trustless dealing.

    python benchmarks/net_game.py [--seed 1] [--players 4] [--preset davis] [--sharing off]
                                  [--profile]

The host and the four peers run in one process, on one core (trio), so the figure is the sum of
every party's work: each peer's shuffle passes, seals, opens and round-end audit, every
signature made and checked by every party, and the bots.  On separate machines the parties'
work overlaps.  A draw is timed at its peer from the moment the deal asked for its card to the
moment the card is in the peer's hand.  The figures' line is::

    game_seconds=<s> draw_p50_ms=<ms> draw_p99_ms=<ms> bytes=<total on the wire> stale=<fraction>
    messages=<sequenced> ms_per_message=<game_seconds per sequenced message>
    cpu_ms_per_message=<the process's CPU time per sequenced message> bytes_per_message=<bytes
    on the wire per sequenced message>

then issue 40's aims beside them.  On a shared machine the CPU time is the figure to
compare: the wall clock counts the other processes' turns on the core too (the load average,
printed first, says how busy the machine was).

The deal's randomness is bound to the chain (a seat's draws depend on the order the host chose),
so two runs with the same seed play different games of different lengths: compare runs by
``ms_per_message`` and the draw latencies, not by ``game_seconds`` alone.

``--sharing`` is the table's setting, as ``shanghai host --sharing`` takes it (``off`` here by
default, ``default`` or a threshold T): the same game with every seat's seeds shared (docs/dealing.md),
to compare the per-message figures with it and without it.

``stale``: the fraction of the game messages the seats sent that the host answered ``stale``
(a move that raced the game's moving on, protocol.md 8.2).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import time

import trio

from shanghai_net.cli import options
from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import run_peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.wire.messages import HOST_AUTHOR

AIM_CPU_MS, AIM_DRAW_P50_MS, AIM_DRAW_P99_MS, AIM_BYTES = 2.0, 3.0, 12.0, 1200


async def game(players: int, preset: str, seed: int, sharing: str | int
               ) -> tuple[Host, list, float]:
    rnd = seeded(b"net benchmark %d" % seed)
    host = Host(HostConfig(players=players, preset=preset, random=rnd, claim_timeout=5.0,
                           sharing=sharing))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    results = []
    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)

        async def peer(i: int) -> None:
            results.append(await run_peer(
                ("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                BotPlayer("basic", random.Random(seed * 100 + i)), name=f"bot{i}",
                random=seeded(b"benchmark peer %d %d" % (seed, i))))

        for i in range(players):
            nursery.start_soon(peer, i)
    return host, results, time.perf_counter() - start


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="davis")
    parser.add_argument("--sharing", type=options.sharing, default="off",
                        help="the table's sharing setting: off, default or a threshold T")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    cpu = time.process_time()
    host, results, seconds = trio.run(game, args.players, args.preset, args.seed,
                                      args.sharing)
    cpu = time.process_time() - cpu
    if profiler:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    public = host.public
    assert public is not None and public.finished and public.fault is None, public and public.fault
    draws = [ms for r in results for ms in r.draw_ms]
    wire = host.connections.bytes_in + host.connections.bytes_out
    stale = sum(1 for r in results for e in r.errors if e.code == "stale")
    sends = sum(1 for m in host.history.messages if m.author != HOST_AUTHOR) + \
        sum(len(r.errors) for r in results)
    print(f"{args.players} players, {args.preset}, sharing {public.share_threshold or 'off'}, "
          f"{public.public.round_no} rounds, "
          f"{host.sequenced} sequenced messages ({stale} signed again after a stale answer), "
          f"{len(draws)} draws (mean {statistics.mean(draws):.1f} ms)")
    print(f"game_seconds={seconds:.2f} draw_p50_ms={percentile(draws, 0.5):.1f} "
          f"draw_p99_ms={percentile(draws, 0.99):.1f} bytes={wire} "
          f"stale={stale / sends:.3f} messages={host.sequenced} "
          f"ms_per_message={1000 * seconds / host.sequenced:.2f} "
          f"cpu_ms_per_message={1000 * cpu / host.sequenced:.2f} "
          f"bytes_per_message={wire / host.sequenced:.0f}")
    print(f"aims (issue 40, 4-player davis): cpu_ms_per_message < {AIM_CPU_MS}, draw_p50_ms < "
          f"{AIM_DRAW_P50_MS}, draw_p99_ms < {AIM_DRAW_P99_MS}, bytes_per_message < "
          f"{AIM_BYTES}")


if __name__ == "__main__":
    main()
