"""The `shanghai` command: simulate, watch, play."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence

from ..rules import PRESETS, RuleSet, preset

__all__ = ["main"]


def _rules(args: argparse.Namespace) -> RuleSet:
    rules = preset(args.preset)
    return rules.override(*args.rule) if args.rule else rules


def _bots(args: argparse.Namespace) -> list[str]:
    levels = [b.strip() for b in args.bots.split(",") if b.strip()]
    players = args.players or len(levels)
    if not levels:
        raise ValueError("--bots names at least one bot")
    return (levels * players)[:players] if len(levels) < players else levels[:players]


def _cmd_simulate(args: argparse.Namespace) -> int:
    from ..simulate import simulate
    from .progress import progress

    levels = _bots(args)
    with progress(args.games, f"{args.games} games of {args.preset}, {', '.join(levels)}",
                  shown=False if args.json else None) as done:
        report = simulate(_rules(args), levels, args.games, args.seed, on_game=done)
    if args.json:
        print(json.dumps(report.as_dict()))
        return 0
    money = _rules(args).money
    print(f"{report.games} games of {report.preset}, {report.players} players, seed {args.seed}")
    print(f"{'seat':>4}  {'bot':<8} {'mean ' + ('money' if money else 'score'):>11} {'wins':>5}")
    for seat, level in enumerate(report.bots):
        print(f"{seat:>4}  {level:<8} {report.mean_score[seat]:>11.1f} {report.wins[seat]:>5}")
    print(f"{report.games_per_second:.2f} games per second ({report.seconds:.2f} s)")
    return 0


def _cmd_watch(args: argparse.Namespace) -> int:
    """A game between bots, move by move: what `make play` shows until you sit down yourself;
    with an address, the game of a table on the LAN, as a spectator."""
    if args.address is not None:
        from .net import address
        from .spectate import run_spectator

        return run_spectator(address(args.address), table=args.table, join_code=args.join_code,
                             ascii=args.ascii)
    from ..simulate import play_game
    from ..bots import make_bot
    import random

    rules = _rules(args)
    levels = _bots(args)
    rng = random.Random(args.seed)
    bots = [make_bot(level, random.Random(rng.random())) for level in levels]
    rounds_seen = 0

    from ..console.viewmodel import card_text
    from ..engine import Words

    # the cards as the console writes them (a joker is JK, not 🃏)
    words = Words(tuple(f"{level}{seat}" for seat, level in enumerate(levels)),
                  lambda card: card_text(card, args.ascii))

    def show(event) -> None:
        nonlocal rounds_seen
        print(event.describe(words), flush=True)
        if type(event).__name__ == "RoundEnded":
            rounds_seen += 1
            if args.rounds and rounds_seen >= args.rounds:
                raise _Enough
        if args.delay:
            time.sleep(args.delay)

    try:
        play_game(rules, bots, args.seed, on_event=show)
    except _Enough:
        print(f"(stopped after {rounds_seen} round(s); --rounds 0 watches the whole game)")
    return 0


class _Enough(Exception):
    pass


def _cmd_play(args: argparse.Namespace) -> int:
    """A game in one command: host on 127.0.0.1, the bots join as network peers, and the console
    sits you in seat 0, all in one process over the real protocol."""
    from .net import person
    from ..rules.ruleset import parse_rules
    from ..net.host import HostConfig

    config = HostConfig(players=args.bots + 1, preset=args.preset, rules=parse_rules(args.rule),
                        claim_timeout=args.claim_timeout)
    return hosted_console(config, bots=args.bots, level=args.level, auto_ready=True, seed=args.seed, ascii=args.ascii,
                          name=args.name or person(), auto_pass=not args.no_auto_pass)


def hosted_console(config, *, ascii: bool = False, auto_pass: bool = True, **table) -> int:
    """Host the table ``config`` describes and sit at it in the console (`HostedTable`'s
    options); the console's exit code, and the final totals printed if the game ended."""
    from .net import BOT_THINK, HostedTable
    from .spectate import game_over

    hosted = HostedTable(config, think=BOT_THINK, **table)
    session = hosted.session
    try:
        code = run_console(session, ascii, services=[hosted.serve], auto_pass=auto_pass,
                           hosting=hosted)
    except* ValueError as failed:  # the table could not be hosted (its port is taken)
        raise _first(failed) from None
    if session.result is not None:
        print(game_over([s.name for s in session.seats], session.result))
    elif session.view is None and session.status:  # it never sat at the game: say why
        print(f"shanghai host: {session.status}", file=sys.stderr)
    return code


def _interrupted(error: BaseException) -> bool:
    """Ctrl-C ended the command: a KeyboardInterrupt, alone or inside the exception groups of
    the trio nurseries it went through."""
    if isinstance(error, BaseExceptionGroup):
        return any(_interrupted(inner) for inner in error.exceptions)
    return isinstance(error, KeyboardInterrupt)


def _first(group: BaseException) -> BaseException:
    """The first exception a (nested) exception group holds."""
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group


def run_console(session, ascii: bool = False, **options) -> int:
    from ..console import run_console

    try:
        return run_console(session, ascii, **options)
    except EOFError:  # prompt_toolkit found no terminal to read keys from
        raise ValueError("the console needs a terminal to read your keys from (stdin is not "
                         "one); host --no-console, bot and tables need none") from None


def pick_table(listings):
    from ..console.picker import pick_table

    return pick_table(listings)


def _parser() -> argparse.ArgumentParser:
    from .net import HelpWithDefaults, add_net_commands, level_option, seat_options
    from .conformance import add_conformance_command
    from ..net.config import HostConfig
    from .options import Parser, count, seconds, text

    parser = Parser(prog="shanghai", description="Shanghai contract rummy over a LAN")
    sub = parser.add_subparsers(dest="command", required=True)
    options = dict(formatter_class=HelpWithDefaults)

    def table_options(p: argparse.ArgumentParser, bots: str) -> None:
        p.add_argument("--preset", default="davis", choices=sorted(PRESETS), help="rule system")
        p.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                       help="house rule overriding one RuleSet field (repeatable; default: none)")
        p.add_argument("--seed", type=int, default=1, help="the deal's seed (same seed, same games)")
        p.add_argument("--bots", default=bots, help="bot levels by seat, comma-separated: easy, "
                       "basic, expert (or random)")
        p.add_argument("--players", type=count(0), default=0,
                       help="seats (default: one per --bots entry)")

    sim = sub.add_parser("simulate", help="play whole games between bots, headless", **options)
    table_options(sim, "basic,basic,basic,basic")
    sim.add_argument("--games", type=count(1), default=100, help="how many games")
    sim.add_argument("--json", action="store_true", help="print the report as one JSON object")
    sim.set_defaults(func=_cmd_simulate)

    watch = sub.add_parser("watch", help="watch bots play, move by move; or, given a host's "
                           "address, follow the game of a table on the LAN", **options)
    watch.add_argument("address", metavar="HOST[:PORT]", nargs="?",
                       help="follow the game at this host as a spectator, a line per move "
                            "anyone may see, to its end (port 7777 unless given); none: bots "
                            "play here, as the options below say")
    watch.add_argument("--table", default="", metavar="NAME",
                       help="with HOST: the table there to watch (default: its first)")
    watch.add_argument("--join-code", type=text(16, "a join code"), default="",
                       help="with HOST: the code its host gave (default: none)")
    table_options(watch, "basic,basic,basic,basic")
    watch.add_argument("--rounds", type=count(0), default=1,
                       help="rounds to show (0: the whole game; with HOST, the whole game)")
    watch.add_argument("--delay", type=seconds(zero=True), default=0.3,
                       help="seconds between moves")
    watch.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    watch.set_defaults(func=_cmd_watch)

    play = sub.add_parser("play", help="host a table on this machine and play bots in the console",
                          **options)
    play.add_argument("--preset", default="davis", choices=sorted(PRESETS), help="rule system")
    play.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                      help="house rule overriding one RuleSet field (repeatable; default: none)")
    play.add_argument("--bots", type=count(0), default=3, help="how many bots sit with you")
    level_option(play, "how well the bots play")
    play.add_argument("--seed", type=int, default=None,
                      help="the table's seed: the same seed deals the same game (default: random)")
    play.add_argument("--claim-timeout", type=seconds(), default=HostConfig.claim_timeout,
                      help="seconds a claim window waits for silent seats")
    seat_options(play)
    play.set_defaults(func=_cmd_play)

    add_net_commands(sub, hosted_console=hosted_console, run_console=run_console,
                     pick_table=pick_table)
    add_conformance_command(sub, **options)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:
        parser.exit(2, f"shanghai: {exc}\n")
    except BrokenPipeError:  # what reads our output stopped (| head): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor at exit's flush
        return 141
    except BaseException as exc:
        if not _interrupted(exc):
            raise
        print(f"shanghai {args.command}: stopped (Ctrl-C)", file=sys.stderr)
        return 130

