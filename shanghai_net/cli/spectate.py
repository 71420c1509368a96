"""``shanghai watch HOST[:PORT]``: follow a table on the LAN as a spectator, a line per public
event (what every seat sees: draws from the stock without their card), then the result.  No key
of a seat, nothing sent but ``hello``: a player the game started without can still follow it,
and ``join`` refused so offers it (`offer_to_watch`)."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable

import trio

from ..engine import GameEnded, Words, round_numbers
from ..identity import Identity

__all__ = ["game_over", "may_watch_instead", "offer_to_watch", "run_spectator",
           "spectate", "watch_command"]


async def spectate(address: tuple[str, int], *, table: str = "", join_code: str = "",
                   ascii: bool = False, say: Callable[[str], None] = print,
                   timeout: float = 30.0) -> int:
    """Watch the table at ``address`` until its game is over: 0, or 1 if it could not be
    reached or the game stopped on a fault (said on stderr)."""
    from ..console.viewmodel import card_text
    from ..net.peer import Peer, PeerError
    from ..table.disputes import final_result

    shown = {"events": 0, "audited": 0, "status": ""}
    words: list[Words] = []

    def changed() -> None:
        if peer.status != shown["status"]:
            shown["status"] = peer.status
            if peer.status == "lobby":
                say(f"watching {address[0]}:{address[1]}: the game has not started yet; "
                    "waiting for it")
            elif peer.status == "reconnecting":
                say(peer.detail)
        public = peer.table
        if public is None:
            return
        if not words:
            names = tuple(seat.name for seat in peer.start.seats)
            words.append(Words(names, lambda card: card_text(card, ascii)))
            say(f"watching {public.rules.name} at {address[0]}:{address[1]}: "
                + ", ".join(f"{seat} {name}" for seat, name in enumerate(names)))
        log = public.public.log
        told = dataclasses.replace(words[0], rounds=round_numbers(log))  # as the table counts
        for event in log[shown["events"]:]:
            if not isinstance(event, GameEnded):  # the result is said last, as the table ends it
                say(event.describe(told))
        shown["events"] = len(log)
        while shown["audited"] < public.rounds_audited:
            shown["audited"] += 1
            say(f"round {shown['audited']} audited: every step of its deal matches its seeds")

    peer = Peer(address, Identity(os.urandom(32), os.urandom(32)), role="spectator",
                name="watcher", table=table, join_code=join_code, timeout=timeout,
                lobby_timeout=None, idle_timeout=max(600.0, timeout), on_change=changed)
    try:
        result = await peer.run()
    except (PeerError, OSError) as error:
        print(f"shanghai watch: {error}", file=sys.stderr)
        return 1
    public = result.table
    if public.fault is not None:
        print(f"shanghai watch: the game stopped: {public.fault}", file=sys.stderr)
        return 1
    if public.verdict is not None:
        say(f"the round's audit named {_culprit(public.verdict.culprit, words[0])}: "
            f"{public.verdict.reason}; the round is void and the game over")
    say(game_over(list(words[0].names), final_result(public, public.public)))
    return 0


def _culprit(culprit: int | None, words: Words) -> str:
    from ..wire.messages import HOST_AUTHOR

    return "no one" if culprit is None else "the host" if culprit == HOST_AUTHOR else \
        f"seat {culprit} ({words.seat(culprit)})"


def run_spectator(address: tuple[str, int], **options) -> int:
    return trio.run(lambda: spectate(address, **options))


def game_over(names: list[str], result) -> str:
    if not result.rounds:  # every round played was voided
        return "game over: no round was scored, so nobody won"
    return "game over: " + ", ".join(f"{names[s]} {result.totals[s]}" for s in result.ranking)


def offer_to_watch(address: tuple[str, int], table: str, join_code: str, ascii: bool) -> int:
    """A table whose game started without us: on a terminal, offer to watch it at once (y);
    else, or on no, the command that does (exit 1: the join failed)."""
    command = watch_command(*address, table, join_code)
    if sys.stdin.isatty():
        try:
            answer = input("shanghai join: watch its game instead? (y/n) ")
        except EOFError:
            answer = ""
        if answer.strip().lower().startswith("y"):
            return run_spectator(address, table=table, join_code=join_code, ascii=ascii)
    print(f"shanghai join: you can watch its game instead: {command}", file=sys.stderr)
    return 1


def may_watch_instead(status: str) -> bool:
    """Whether a join refused so (a table whose game started without us, or with every seat
    taken) leaves a game to watch: not a refusal of our key or of a spectator more."""
    return "the host refused: " in status and ("started without you" in status
                                               or "no free seat" in status)


def watch_command(host: str, port: int, table: str = "", join_code: str = "") -> str:
    """The command that watches the table at ``host:port`` (`shanghai_net.cli.spectate`)."""
    where = host if port == 7777 else f"{host}:{port}"
    return "shanghai watch " + where + (f" --table {table}" if table else "") + \
        (f" --join-code {join_code}" if join_code else "")
