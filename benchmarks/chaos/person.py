"""A person's seat in the chaos evening (``soak.py person``): `NetSession`, the console's own
session, played headless by a basic bot's choices with a person's habits (a moment of thought
before each move, some claim windows let run out, a vote when a seat has been away a while),
taking commands on its stdin as the console takes keys."""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import trio

from shanghai_net.cli.net import address
from shanghai_net.console.viewmodel import entry_lines
from shanghai_net.engine.moves import MayI, PassClaim
from shanghai_net.identity import load_or_create
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.resume import GameSecrets
from shanghai_net.net.session import NetSession

from .draw import VOTE_AFTER


def person(argv: list[str]) -> int:
    """A person's seat: `NetSession` (what the console drives), a basic bot's choices with a
    person's habits; commands on stdin (``bye``, ``handover bot``, ``handover person``)."""
    parser = argparse.ArgumentParser(prog="soak.py person")
    parser.add_argument("address")
    parser.add_argument("--home", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--seed", default="")
    parser.add_argument("--take-over", action="store_true")
    args = parser.parse_args(argv)
    home = Path(args.home)
    rng = random.Random(args.seed)
    session = NetSession(address(args.address), load_or_create(home), name=args.name,
                         auto_ready=True, store=GameSecrets(home / "games"),
                         take_over=args.take_over, think=0.0)
    shown = 0

    def show() -> None:
        """The log's new lines as the console words them (who played each seat then, the
        rounds as the table counts them)."""
        nonlocal shown
        entries, shown = session.log[shown:], len(session.log)
        for line in entry_lines(entries, session.seats, session.seat, ascii=True,
                                rounds=session.round_numbers):
            print(f"{time.strftime('%H:%M:%S')} {line}", flush=True)

    session.subscribe(show)

    async def play() -> None:
        """Moves, one at a time (a move waits until the host sequenced it), then the quit."""
        async with trio.open_nursery() as moving:
            moving.start_soon(make_moves)
            while not session.over:
                await trio.sleep(0.25)
            moving.cancel_scope.cancel()  # a move held past the game's end is never answered
        await trio.sleep(rng.uniform(0.2, 1.5))  # reads the final table a moment, then quits
        await session.leave()

    async def make_moves() -> None:
        """The person's moves, as long as the game goes on (soak 12-26: `NetSession.submit` of
        a claim decision on a discard the next seat took at once, and went out with, waited
        for good, and the person never quit: the host waited `rematch_wait` for it)."""
        chooser = BotPlayer("basic", rng)
        silent_on = None
        while True:
            await trio.sleep(rng.uniform(0.02, 0.15))  # a person's moment of thought
            moves = session.legal_moves()
            table = session.table
            if moves and table is not None:
                window = table.game.window
                if all(isinstance(m, (MayI, PassClaim)) for m in moves) and window is not None:
                    if window is silent_on:
                        continue
                    if rng.random() < 0.1:  # lets this window's time run out
                        silent_on = window
                        continue
                move = chooser.choose(table)
                if move is not None:
                    await session.submit(move)

    async def vote() -> None:
        """V y once a seat has been away a while (while a move of ours may wait on that seat)."""
        away_since = None
        while True:
            await trio.sleep(0.5)
            now = trio.current_time()
            if session.away:
                away_since = now if away_since is None else away_since
                if now - away_since >= VOTE_AFTER:
                    await session.vote_void()
            else:
                away_since = None

    async def commands(cancel: trio.CancelScope) -> None:
        stream = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
        buffer = b""
        while True:
            data = await stream.receive_some()
            if not data:
                return
            buffer += data
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                command = line.decode().strip()
                print(f"{time.strftime('%H:%M:%S')} command: {command}", flush=True)
                if command == "bye":
                    await session.leave()
                    print("left the table (bye)", flush=True)
                    cancel.cancel()
                    return
                if command == "handover bot":
                    print(await session.let_bot_finish(), flush=True)
                elif command == "handover person":
                    with trio.move_on_after(60):
                        while not session.offers:
                            await trio.sleep(0.1)
                    said = await session.hand_over(session.offers[0]) if session.offers else \
                        "nobody offered to take the seat within 60 s"
                    print(said, flush=True)

    async def quit_after_play(cancel: trio.CancelScope) -> None:
        await play()
        cancel.cancel()

    async def main() -> int:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(commands, nursery.cancel_scope)
            nursery.start_soon(quit_after_play, nursery.cancel_scope)
            nursery.start_soon(vote)
            await session.run()
            nursery.cancel_scope.cancel()
        show()
        print(f"session over: {session.status or 'game over'}", flush=True)
        return 0

    return trio.run(main)
