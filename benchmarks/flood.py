"""The honest seats' draw latency without an attack and under each flood of issue 10.

    python benchmarks/flood.py [--players 4] [--preset davis] [--contracts 2s,2s] [--seed 1]
                               [--only chat,stale,...]

A host and its bot seats run in this process (as in benchmarks/net_game.py); the last seat and
the attacker are another process, which floods with its own connections or as that seat (the
stale and padded floods: only a seated player can send game messages).  Floods:

- ``chat``: a spectator sends 1,500 chats at once, and again each time it is closed;
- ``stale``: the last seat sends 90 stale game messages a second (under the host's stale
  budget, so the flood goes on all game);
- ``stale-burst``: the last seat follows each message it receives with 50 stale ones: the host
  closes it (``abuse``); a seat closed for abuse has left the game (it may not come back), so
  the others vote its round void at once and the game ends there (every draw needs its keys);
- ``frames``: a spectator sends 60 KiB frames of integers and 1 MiB ones, again and again;
- ``spectators``: 150 spectators connect and read the game; those refused come back;
- ``padded``: the last seat sends, at each of its decisions, a vote padded with 60 KB: each is
  refused as a bad message, and past the host's limit the seat is closed as in ``stale-burst``.

Draws are timed at every seat but the last (the attacker in two floods).  Per flood a line::

    <flood> game_seconds=<s> draws=<n> draw_p50_ms=<ms> draw_p99_ms=<ms> x_quiet=<p99 ratio>
    voided=<the round the table voided, or ->
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time

import trio

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.config import BOT_VOID_AFTER
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.rules.ruleset import typed_rules
from shanghai_net.wire import encode_frame
from shanghai_net.wire.messages import GameMessage, PassClaim, VoidRound
from shanghai_net.wire.signing import sign_wire

FLOODS = ("quiet", "chat", "stale", "stale-burst", "frames", "spectators", "padded")


HELLO = encode_frame({"type": "hello", "protocol": "shanghai-net", "version": 3, "name": "flood",
               "sign_key": bytes(32), "box_key": bytes(32), "join_code": "",
               "role": "spectator"})


# -- the attacker's process ----------------------------------------------------------------------

async def spectator(port: int, then: bytes, read: bool = True) -> None:
    """Connect as a spectator, send ``then`` after the hello, and read until the host closes."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        try:
            await stream.send_all(HELLO + then)
            while read and await stream.receive_some(65536):
                pass
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass


async def attacker(kind: str, port: int, seed: int) -> None:
    """Play the last seat at ``port`` (a flooding one for a seated flood) and flood the host
    until the game is over."""
    chats = b"".join(encode_frame({"type": "chat", "text": f"spam {i}"}) for i in range(1500))
    numbers = encode_frame({"type": "numbers", "n": list(range(100)) * 600})
    huge = encode_frame({"type": "numbers", "n": list(range(100)) * 10500}, 2 << 20)

    async def again(payload: bytes, pause: float = 0.0) -> None:
        while True:
            try:
                await spectator(port, payload)
            except OSError:
                return  # the host has gone: the game is over
            await trio.sleep(pause)

    rng = random.Random(seed)
    player = (PadFlood(rng) if kind == "padded" else
              StaleFlood(rng, 90.0) if kind == "stale" else
              StaleFlood(rng, None) if kind == "stale-burst" else BotPlayer("basic", rng))
    keys = seeded(b"flood benchmark last seat %d" % seed)
    seat = Peer(("127.0.0.1", port), Identity(keys(32), keys(32)), player, name="last",
                random=seeded(b"flood benchmark last seat's deal %d" % seed))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(seat.run)
        if kind == "chat":
            nursery.start_soon(again, chats)
        elif kind == "frames":
            nursery.start_soon(again, numbers * 40)
            nursery.start_soon(again, huge)
        elif kind == "spectators":
            for _ in range(150):
                nursery.start_soon(again, b"", 1.0)


# -- seat 0 as the attacker ----------------------------------------------------------------------

class StaleFlood(BotPlayer):
    """Plays, and follows each message it receives with up to 50 stale game messages: at most
    ``rate`` a second on average (None: no limit, so that the host closes it again and again)."""

    def __init__(self, rng: random.Random, rate: float | None) -> None:
        super().__init__("basic", rng)
        self.rate = rate
        self.sent = 0
        self.since = time.monotonic()

    def extra(self, table, outbox):
        if table.chain.next_seq < 2:
            return []
        count = 50
        if self.rate is not None:
            count = min(count, int(self.rate * (time.monotonic() - self.since)) - self.sent)
        self.sent += max(count, 0)
        stale = GameMessage(author=table.seat, counter=0, body=PassClaim(), sig=bytes(64))
        return [stale] * count


class PadFlood(BotPlayer):
    """Plays, and at each decision first sends a vote padded with a 60 KB unknown field."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__("basic", rng)
        self.decision = None

    def extra(self, table, outbox):
        decision = (table.round, table.version)
        if not table.can_move() or decision == self.decision:
            return []
        self.decision = decision
        wire = {**VoidRound(round=table.round).to_wire(), "pad": b"p" * 60_000}
        return [GameMessage.from_wire(sign_wire(outbox.sign_key, table.chain.start, table.seat,
                                                outbox.reserve(), wire))]


# -- the table -----------------------------------------------------------------------------------

async def game(flood: str, players: int, preset: str, rules: dict, seed: int):
    rnd = seeded(b"flood benchmark %d" % seed)
    host = Host(HostConfig(players=players, preset=preset, rules=rules, random=rnd,
                           claim_timeout=5.0))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    peers: list[Peer] = []
    process = None
    start = time.perf_counter()
    try:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            for i in range(players - 1):
                peers.append(Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                                  BotPlayer("basic", random.Random(seed * 100 + i)),
                                  name=f"bot{i}", random=seeded(b"flood peer %d %d" % (seed, i)),
                                  void_after=BOT_VOID_AFTER))
                nursery.start_soon(peers[i].run)
                while sum(c is not None for c in host.seats) <= i:  # seats in order
                    await trio.sleep(0.005)
            process = subprocess.Popen([sys.executable, __file__, "--attack", flood,
                                        "--port", str(port), "--seed", str(seed)])
    finally:
        if process is not None:
            process.kill()
            process.wait()
    return host, peers, time.perf_counter() - start


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="davis")
    parser.add_argument("--contracts", default="", help="shorter games, e.g. 2s,2s")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default=",".join(FLOODS[1:]),
                        help="floods to run after the quiet game (comma-separated)")
    parser.add_argument("--attack", choices=FLOODS,
                        help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attack:
        trio.run(attacker, args.attack, args.port, args.seed)
        return
    rules = typed_rules({"contracts": args.contracts}) if args.contracts else {}
    quiet = None
    for flood in ["quiet", *(f for f in args.only.split(",") if f)]:
        if flood not in FLOODS:
            raise SystemExit(f"unknown flood {flood!r}; one of {', '.join(FLOODS)}")
        host, peers, seconds = trio.run(game, flood, args.players, args.preset, rules,
                                        args.seed)
        public = host.public
        assert public.finished and public.fault is None, public.fault
        draws = [ms for peer in peers[:args.players - 1] for ms in peer.result.draw_ms]
        ended = f"voided={public.voided}" if public.voided is not None else "voided=-"
        if not draws:  # the flooder was closed, and its round voided, before any draw
            print(f"{flood} game_seconds={seconds:.1f} draws=0 {ended}", flush=True)
            continue
        p99 = percentile(draws, 0.99)
        quiet = quiet or p99
        print(f"{flood} game_seconds={seconds:.1f} draws={len(draws)} "
              f"draw_p50_ms={percentile(draws, 0.5):.1f} draw_p99_ms={p99:.1f} "
              f"x_quiet={p99 / quiet:.2f} {ended}", flush=True)


if __name__ == "__main__":
    main()
