"""`shanghai conformance -- CMD {host} {port}`: the conformance kit (`shanghai_net.conformance`)
tried on a client's command, one line per situation; exit status 1 if any fails."""

from __future__ import annotations

import argparse
import shlex
import shutil

from .options import seconds

__all__ = ["add_conformance_command"]


def _cmd_conformance(args) -> int:
    import trio

    from ..conformance import run_conformance

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise ValueError("give the client's command after --, with {host} and {port} in it")
    if shutil.which(command[0]) is None:
        raise ValueError(f"cannot run the client: no program {command[0]!r}")
    print(f"conformance kit: {shlex.join(command)}", flush=True)
    outcomes = trio.run(lambda: run_conformance(command, game_timeout=args.timeout, step=args.step))
    for outcome in outcomes:
        print(outcome.line(), flush=True)
    failed = sum(not o.passed for o in outcomes)
    print(f"{len(outcomes) - failed} of {len(outcomes)} situations pass")
    return 1 if failed else 0


def add_conformance_command(sub, **options) -> None:
    """``shanghai conformance -- CMD {host} {port}``."""
    kit = sub.add_parser("conformance", help="drive a client through scripted situations and "
                                              "print which sections of docs/protocol.md it passes",
                         **options)
    kit.add_argument("--timeout", type=seconds(), default=600.0,
                     help="seconds each of the kit's games may take")
    kit.add_argument("--step", type=seconds(), default=20.0,
                     help="seconds the client has to answer each scripted situation")
    kit.add_argument("command", nargs=argparse.REMAINDER,
                     help="the client's command after --; {host} and {port} are filled in")
    kit.set_defaults(func=_cmd_conformance)
