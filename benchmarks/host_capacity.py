"""How many 4-player tables one host process carries: N tables at one `TableServer`, driven by
a load generator in another process, so the figures are the host's own cost.

    python benchmarks/host_capacity.py [--tables 1,10,25,50,75,100] [--seconds 20] [--gap 0.05]

One game between four `basic` bots is recorded first (its transcript, with fixed keys, nonces
and host randomness).  For each N a fresh host process opens N tables whose randomness is the
recording's, so each table deals the recorded game again: the generator seats the recorded
keys at every table (same hello nonces, so the same game id) and sends each recorded game
message once the one before it has reached its author, ``--gap`` seconds later (5 messages a
second per table at the default: a busy table; people's moves come slower, their deal steps
faster).  The host checks
every message as in a real game (signature, chain, the public replica's rules and deal checks)
and relays it to the three other seats (its author is sent ``placed``).  A relay is timed at the
generator from the send of a message to its arrival at the last of the four seats (both sides of
the loopback, one machine's clock).
Tables start one after another over ``--stagger`` seconds, then ``--seconds`` are measured:
with the game's first messages being the deal's (about 170 a round, the heaviest to check),
a short window measures mostly dealing, the host's worst case.  Each line::

    tables=<N> msgs_per_s=<game messages relayed per second> relay_p99_ms=<ms> relay_p50_ms=<ms>
    host_cpu=<% of one core> generator_cpu=<%> host_cpu_ms_per_msg=<ms>

and last ``largest_tables_under_50ms=<N>`` beside issue 40's aim.  ``host_cpu_ms_per_msg``: the
host's CPU time over the whole run per game message relayed to its four seats, the figure to
compare on a shared machine (the latencies count other processes' turns on the two cores too:
the load average is printed first).  ``--profile FILE``: the host process runs under cProfile,
its statistics written to FILE and their top printed.  Everything binds 127.0.0.1.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import math
import os
import pstats
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack
import trio

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.transcript import read_transcript
from shanghai_net.net.peer import run_peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.tables import TableServer
from shanghai_net.wire import encode_frame
from shanghai_net.wire.messages import (HOST_AUTHOR, PROTOCOL_NAME, PROTOCOL_VERSION, Hello, Pong,
                                        Ready)

SEED = b"host capacity"
LIMIT_MS = 50.0


def host_config(record: Path | None = None) -> HostConfig:
    """Every table's: the recording's randomness and key, and claim windows that never time
    out (the generator's pace, not the host's timer, decides when each message comes)."""
    rnd = seeded(SEED + b" host")
    return HostConfig(players=4, preset="davis", claim_timeout=3600.0, random=seeded(SEED),
                      identity=Identity(rnd(32), rnd(32)), record=record)


class ReplayServer(TableServer):
    """Tables that each draw the recording's host randomness, so each deals its game again."""

    def _host(self, name: str, first: bool = False) -> Host:
        return Host(dataclasses.replace(self.config, random=seeded(SEED), record=None))


async def record_game(path: Path) -> None:
    """One whole game between four basic bots, its transcript written to ``path``."""
    host = Host(host_config(path))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)
        for seat in range(4):
            rnd = seeded(SEED + b" seat %d" % seat)
            nursery.start_soon(lambda s=seat, r=rnd: run_peer(
                ("127.0.0.1", port), Identity(r(32), r(32)), BotPlayer("basic", random.Random(s)),
                name=f"bot{s}", random=r))
            while sum(c is not None for c in host.seats) <= seat:  # seats in order
                await trio.sleep(0.005)


def serve(tables: int, profile: str | None = None) -> None:
    """The host process: N tables on 127.0.0.1, its port on stdout; runs until killed (with
    ``profile``, until terminated, its statistics then written there)."""
    if profile is not None:
        profiler = cProfile.Profile(time.process_time)  # CPU, not the turns of others

        def stop(*_) -> None:
            profiler.disable()
            profiler.dump_stats(profile)
            os._exit(0)

        signal.signal(signal.SIGTERM, stop)
        profiler.enable()

    async def main() -> None:
        server = ReplayServer(host_config(), [f"t{i}" for i in range(tables)],
                              max_tables=tables)
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            print(port, flush=True)

    trio.run(main)


class Script:
    """The recorded game: the start, and every game message's frame and author."""

    def __init__(self, path: Path) -> None:
        messages = read_transcript(path)
        self.start, moves = messages[0], messages[1:]
        if any(m.author == HOST_AUTHOR for m in moves):
            raise SystemExit("the recording holds a host timeout; record again")
        self.frames = [encode_frame(m.to_wire()) for m in moves]
        self.authors = [m.author for m in moves]

    def hello(self, seat: int, table: str) -> bytes:
        player = self.start.seats[seat]
        return encode_frame(Hello(protocol=PROTOCOL_NAME, version=PROTOCOL_VERSION,
                                  name=player.name, sign_key=player.sign_key,
                                  box_key=player.box_key, join_code="", role="bot",
                                  nonce=self.start.nonces[seat], table=table).to_wire())


class Seat:
    """One recorded seat's connection at one table.  Frames are split and unpacked without the
    protocol's checks (the host's frames are trusted here), so the generator stays light."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = bytearray()
        self.lock = trio.Lock()

    async def send(self, frame: bytes) -> None:
        async with self.lock:
            await self.stream.send_all(frame)

    async def frames(self):
        while True:
            data = await self.stream.receive_some(65536)
            if not data:
                return
            self.buffer += data
            while len(self.buffer) >= 4:
                end = 4 + int.from_bytes(self.buffer[:4], "big")
                if len(self.buffer) < end:
                    break
                frame = msgpack.unpackb(self.buffer[4:end], raw=False)
                del self.buffer[:end]
                yield frame


async def drive_table(port: int, name: str, script: Script, gap: float, delay: float,
                      relays: list[float], window: list[float], relayed: list[int]) -> None:
    """Seat the recorded keys at table ``name`` and play the recorded game at ``gap``."""
    await trio.sleep(delay)
    seats = []
    for seat in range(4):
        s = Seat(await trio.open_tcp_stream("127.0.0.1", port))
        await s.send(script.hello(seat, name))
        async for frame in s.frames():
            if frame["type"] == "welcome":
                break
            if frame["type"] == "refused":
                raise SystemExit(f"{name}: refused: {frame['reason']}")
        seats.append(s)
    sent_at: dict[int, float] = {}
    arrived: dict[int, int] = {}
    last = len(script.frames) - 1

    async def send_later(seq: int) -> None:
        await trio.sleep(gap)
        sent_at[seq] = time.perf_counter()
        await seats[script.authors[seq]].send(script.frames[seq])

    async def read(seat: int, nursery: trio.Nursery) -> None:
        async for frame in seats[seat].frames():
            kind = frame["type"]
            if kind == "start_game":
                if frame["game_id"] != script.start.game_id:
                    raise SystemExit(f"{name}: not the recorded game (its id differs)")
                if script.authors[0] == seat:
                    nursery.start_soon(send_later, 0)
            elif kind in ("game", "placed"):  # the author is told its message's seq
                seq = frame["seq"]
                arrived[seq] = arrived.get(seq, 0) + 1
                if arrived[seq] == 4:
                    relayed[0] += 1
                    now = time.perf_counter()
                    if window[0] <= sent_at[seq] and now <= window[1]:
                        relays.append(now - sent_at[seq])
                if seq < last and script.authors[seq + 1] == seat:
                    nursery.start_soon(send_later, seq + 1)
            elif kind == "ping":
                nursery.start_soon(seats[seat].send,
                                   encode_frame(Pong(nonce=frame["nonce"]).to_wire()))
            elif kind in ("refused", "error") and frame.get("code") != "stale":
                raise SystemExit(f"{name}: seat {seat}: {kind} {frame}")

    async with trio.open_nursery() as nursery:
        for seat in range(4):
            nursery.start_soon(read, seat, nursery)
        for s in seats:
            await s.send(encode_frame(Ready(ready=True).to_wire()))


def host_cpu(pid: int) -> float:
    """CPU seconds the host process has used (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(tables: int, script: Script, seconds: float, gap: float,
            stagger: float, profile: str | None = None) -> tuple[float, ...]:
    """(messages relayed per second, relay p50 and p99 in ms, host and generator CPU %, host
    CPU ms per message relayed) at ``tables`` tables."""
    host = subprocess.Popen([sys.executable, __file__, "--serve", str(tables)] +
                            (["--profile", profile] if profile else []),
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(host.stdout.readline())
        relays: list[float] = []
        relayed = [0]  # every message that reached its four seats, in the window or not
        warmup = stagger  # every table has started
        now = time.perf_counter()
        window = [now + warmup, now + warmup + seconds]
        cpu0, mine0 = host_cpu(host.pid), time.process_time()

        async def main() -> None:
            with trio.move_on_at(trio.current_time() + warmup + seconds):
                async with trio.open_nursery() as nursery:
                    for i in range(tables):
                        nursery.start_soon(drive_table, port, f"t{i}", script, gap,
                                           warmup * i / tables, relays, window, relayed)

        trio.run(main)
        host_seconds = host_cpu(host.pid) - cpu0
        cpu = host_seconds / (warmup + seconds)
        generator = (time.process_time() - mine0) / (warmup + seconds)
    finally:
        if profile:
            host.terminate()
        else:
            host.kill()
        host.wait()
    relays.sort()

    def percentile(q: float) -> float:
        return relays[min(len(relays) - 1, int(q * len(relays)))] * 1000 if relays else math.inf

    return (len(relays) / seconds, percentile(0.5), percentile(0.99), cpu * 100,
            generator * 100, 1000 * host_seconds / max(1, relayed[0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default="1,10,25,50,75,100",
                        help="table counts to measure, growing")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per count")
    parser.add_argument("--gap", type=float, default=0.2,
                        help="seconds between a message reaching its author and the next")
    parser.add_argument("--stagger", type=float, default=5.0,
                        help="tables start one after another over this many seconds, not "
                             "measured")
    parser.add_argument("--transcript", help="the recording to replay, made by this script "
                                             "(written first if the file does not exist; "
                                             "default: one recorded now, not kept)")
    parser.add_argument("--profile", help="profile the host process (the last count "
                                          "measured) into this file, and print its top")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve, args.profile)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as work:
        path = Path(args.transcript or Path(work) / "game.bin")
        if not path.exists():
            trio.run(record_game, path)
        script = Script(path)
        print(f"recorded game: {len(script.frames)} game messages", flush=True)
        best = 0
        for tables in (int(n) for n in args.tables.split(",")):
            rate, p50, p99, cpu, generator, per_message = measure(
                tables, script, args.seconds, args.gap, args.stagger, args.profile)
            print(f"tables={tables} msgs_per_s={rate:.0f} relay_p99_ms={p99:.1f} "
                  f"relay_p50_ms={p50:.1f} host_cpu={cpu:.0f}% generator_cpu={generator:.0f}% "
                  f"host_cpu_ms_per_msg={per_message:.2f}", flush=True)
            if p99 < LIMIT_MS:
                best = tables
        print(f"largest_tables_under_50ms={best} (issue 40's aim: 50 tables' relay p99 under "
              f"{LIMIT_MS:.0f} ms)")
        if args.profile:
            pstats.Stats(args.profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
