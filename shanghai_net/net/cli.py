"""``shanghai host``, ``shanghai bot`` and ``shanghai verify``: the networked table from the
command line."""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
from pathlib import Path

import trio

from ..identity import Identity, config_dir, load_or_create
from ..rules import PRESETS

__all__ = ["add_net_commands"]


def _overrides(rules: list[str]) -> dict[str, str]:
    out = {}
    for assignment in rules:
        key, sep, value = assignment.partition("=")
        if not sep:
            raise ValueError(f"house rule {assignment!r} is not field=value")
        out[key.strip()] = value.strip()
    return out


def _fresh_identity() -> Identity:
    return Identity(os.urandom(32), os.urandom(32))


def _cmd_host(args: argparse.Namespace) -> int:
    from .host import Host, HostConfig
    from .peer import BotPlayer, run_peer

    if args.bots > args.players:
        raise ValueError(f"--bots {args.bots} is more than --players {args.players}")
    identity = _fresh_identity() if args.fresh_identity else load_or_create()
    resume = Path(args.resume) if args.resume else None
    record = Path(args.record) if args.record else resume
    config = HostConfig(players=args.players, preset=args.preset, rules=_overrides(args.rule),
                        join_code=args.join_code, claim_timeout=args.claim_timeout,
                        record=record, resume=resume, identity=identity)
    host = Host(config)  # checks the preset, the rules and the player count
    if not args.no_console:
        print("shanghai host: the console seat is not part of this version; hosting only "
              "(as with --no-console)", file=sys.stderr)

    async def main() -> int:
        listeners = await trio.open_tcp_listeners(args.port, host=args.bind)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            if resume is not None:
                print(f"resuming {resume} at message {host.sequenced}: waiting for the seats to "
                      "rejoin", flush=True)
            print(f"hosting {host.rules.name} for {host.players} on port {port}; join code "
                  f"{args.join_code or '(none)'}; host key {identity.fingerprint}", flush=True)
            for i in range(args.bots):
                bot = BotPlayer(args.level, random.Random())
                home = None if args.fresh_identity else config_dir() / "host-bots" / f"bot{i + 1}"
                nursery.start_soon(_quiet_bot, run_peer, ("127.0.0.1", port), bot, i,
                                   args.join_code, home)
        public = host.public
        if public is None or public.fault is not None or not public.finished:
            print(f"game stopped: {public.fault if public else 'never started'}", file=sys.stderr)
            return 1
        result = public.public.result
        names = [s.name for s in host.start.seats]
        print("game over: " + ", ".join(f"{names[s]} {result.totals[s]}"
                                        for s in result.ranking), flush=True)
        return 0

    return trio.run(main)


async def _quiet_bot(run_peer, address, bot, index, join_code, home: Path | None) -> None:
    """A bot the host starts; with a ``home`` it keeps its keys and game secrets there, so the
    host resumed from its transcript starts it again in the same seat."""
    from .resume import GameSecrets

    identity = load_or_create(home) if home is not None else _fresh_identity()
    store = GameSecrets(home / "games") if home is not None else None
    try:
        await run_peer(address, identity, bot, name=f"bot{index + 1}", join_code=join_code,
                       store=store)
    except Exception as error:  # a bot's failure is reported, the host goes on
        print(f"bot{index + 1}: {error}", file=sys.stderr)


def _cmd_bot(args: argparse.Namespace) -> int:
    from .peer import BotPlayer, parse_address, run_peer
    from .resume import GameSecrets

    address = parse_address(args.address)
    if args.identity:  # a bot with a home: it can rejoin after a crash, like a person
        identity = load_or_create(Path(args.identity))
        store = GameSecrets(Path(args.identity) / "games")
    else:
        identity, store = _fresh_identity(), None
    result = trio.run(lambda: run_peer(address, identity, BotPlayer(args.level, random.Random()),
                                       name=args.name, join_code=args.join_code, store=store))
    table = result.table
    game = table.game
    print(f"seat {result.seat}: game over, totals {list(game.result.totals)}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from ..wire import ProtocolError
    from .host import read_transcript
    from .verify import verify

    try:
        messages = read_transcript(Path(args.file))
    except (OSError, ProtocolError) as error:
        raise ValueError(f"{args.file}: not a readable record: {error}") from None
    report = verify(messages)
    print(report.summary())
    return 0 if report.ok else 1


def add_net_commands(sub: argparse._SubParsersAction) -> None:
    host = sub.add_parser("host", help="host a table on the LAN (lobby, relay and sequencer)")
    host.add_argument("--port", type=int, default=7777)
    host.add_argument("--bind", default="0.0.0.0", help="address to listen on")
    host.add_argument("--preset", default="davis", choices=sorted(PRESETS))
    host.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                      help="house rule overriding one RuleSet field (repeatable)")
    host.add_argument("--players", type=int, default=4, help="seats at the table")
    host.add_argument("--bots", type=int, default=0, help="bot peers started here, over loopback")
    host.add_argument("--level", default="basic", help="the bots' level: basic or random")
    host.add_argument("--no-console", action="store_true",
                      help="only host: start when every seat is filled and ready, exit 0 when "
                           "the game is over")
    host.add_argument("--record", metavar="FILE", help="append the transcript to FILE")
    host.add_argument("--resume", metavar="FILE",
                      help="take up the game of a transcript where it stopped (the host crashed);"
                           " the seats rejoin with their keys; the transcript goes on in FILE")
    host.add_argument("--join-code", default="", help="the code players must give to join")
    host.add_argument("--claim-timeout", type=float, default=10.0,
                      help="seconds a claim window waits for silent seats")
    host.add_argument("--fresh-identity", action="store_true",
                      help="a throwaway host key instead of the user's identity")
    host.set_defaults(func=_cmd_host)

    bot = sub.add_parser("bot", help="a bot peer joining a table over the network")
    bot.add_argument("address", metavar="HOST[:PORT]")
    bot.add_argument("--level", default="basic", help="basic or random")
    bot.add_argument("--name", default="bot")
    bot.add_argument("--join-code", default="")
    bot.add_argument("--identity", metavar="DIR",
                     help="keep the bot's keys in DIR (default: a throwaway identity)")
    bot.set_defaults(func=_cmd_bot)

    verify = sub.add_parser("verify", help="replay and audit a recorded game (shanghai host "
                                           "--record): exit 0 if every move and deal checks out")
    verify.add_argument("file", metavar="FILE")
    verify.set_defaults(func=_cmd_verify)
    logging.getLogger("shanghai_net").addHandler(logging.NullHandler())
