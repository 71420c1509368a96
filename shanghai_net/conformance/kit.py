"""The kit's side of a table: our peers (`Pushy`), the client run as a process, the helpers
that wait for a round's moves and make a kit peer leave or the others vote it gone, and
`kit_game`, one table with the relay before it (its `Run`)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import trio

from ..bots import make_bot
from ..deal import seeded
from ..engine.moves import CallShanghai, MayI, PassClaim as PassClaimMove
from ..engine.view import view_of
from ..identity import Identity
from ..net.host import Host, HostConfig
from ..net.peer import Peer
from ..net.resume import GameSecrets
from ..net.tables import TableServer
from .relay import Relay
from .situations import KIT_RULES, PLAYERS, Outcome

__all__ = ["moves_into", "leave_in_round", "vote_gone"]


class Pushy:
    """Our peers' choices (a test host may make them): SHANGHAI and MAY I whenever the rules
    allow, else the basic bot's move, so claim windows and picks come early and often; in the
    last round never a claim or a call (they take cards off the pile), so that the pile grows
    until the stock is reshuffled."""

    def __init__(self, rng: random.Random) -> None:
        self.bot = make_bot("basic", rng)

    def choose(self, table):
        moves = table.legal_moves()
        last = table.game.contract_no >= len(KIT_RULES["contracts"])
        for kind in ((PassClaimMove,) if last else (CallShanghai, MayI)):
            for move in moves:
                if isinstance(move, kind):
                    return move
        moves = [m for m in moves if not isinstance(m, (CallShanghai, MayI))] if last else moves
        return self.bot.choose(view_of(table.game, table.seat), moves) if moves else None


# -- the run -------------------------------------------------------------------------------------

def client_command(template: list[str], port: int) -> list[str]:
    return [part.replace("{host}", "127.0.0.1").replace("{port}", str(port)) for part in template]


async def run_client(command: list[str], done: dict) -> None:
    """Run the client to its end; ``done["process"]`` is then the finished process."""
    done["process"] = await trio.run_process(command, capture_stdout=True, capture_stderr=True,
                                             check=False)


def client_tail(done: dict) -> str:
    process = done.get("process")
    if process is None:
        return "the client was still running"
    lines = (process.stderr or b"").decode(errors="replace").strip().splitlines()
    return f"exit status {process.returncode}" + (f"; its last words: {lines[-1]}" if lines else "")


async def refused(command: list[str], code: str, timeout: float) -> Outcome:
    """A table that refuses the client (protocol.md 5): ``join_code``, one with a join code the
    client was not given; ``table_full``, one whose three seats our peers took and whose game
    has started.  The client must take the `refused` as final and stop."""
    rnd = seeded(b"conformance kit refused " + code.encode())
    full = code == "table_full"
    host = Host(HostConfig(players=3 if full else PLAYERS, random=rnd,
                           join_code="" if full else "conformance kit"))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    relay_listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    done: dict = {}
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)
        relay = Relay(port)
        await nursery.start(relay.serve, relay_listeners)
        if full:
            for i in range(3):
                nursery.start_soon(our_peer, port, rnd, i, timeout)
            await host.started.wait()
        with trio.move_on_after(timeout):
            await run_client(client_command(command, relay_listeners[0].socket.getsockname()[1]), done)
        nursery.cancel_scope.cancel()
    told = code in relay.refusals
    stopped = told and "process" in done
    detail = client_tail(done) if told else f"the host's refused never reached it ({client_tail(done)})"
    return Outcome("5", f"refused ({code}): the client stops", stopped, detail)


def kit_peer(port: int, rnd, i: int, step: float, **options) -> Peer:
    return Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)), Pushy(random.Random(i)),
                name=f"kit{i}", random=seeded(b"conformance kit peer %d" % i), timeout=step,
                **options)


async def our_peer(port: int, rnd, i: int, step: float) -> None:
    await kit_peer(port, rnd, i, step).run()


async def cancellable(run: Callable[[], Awaitable[Any]],
                       task_status=trio.TASK_STATUS_IGNORED) -> None:
    """``run()`` in a cancel scope of its own, handed to the caller as the task starts."""
    with trio.CancelScope() as scope:
        task_status.started(scope)
        await run()


async def moves_into(host: Host, round_no: int, moves: int = 3) -> None:
    """Until ``moves`` moves of round ``round_no`` (or a later one) are sequenced."""
    while host.public is None or host.public.public.round_no < round_no:
        await trio.sleep(0.05)
    public = host.public
    begun = public.version
    while public.version < begun + moves:
        await trio.sleep(0.02)


async def leave_in_round(host: Host, peer: Peer, scope: trio.CancelScope, round_no: int,
                         moves: int = 3) -> None:
    """Once ``moves`` moves of round ``round_no`` are sequenced, ``peer``'s player quits for
    good: its peer says ``bye`` (the table sees the seat as left) and stops."""
    await moves_into(host, round_no, moves)
    await peer.leave()
    scope.cancel()


async def vote_gone(host: Host, peers: list[Peer], seat: int) -> None:
    """Each of ``peers`` votes that ``seat`` left (as a person at a console does), until the
    table has voted it gone (once: not its replacement too, once that takes the seat).  Bots that vote by themselves (``void_after``) may vote against a
    seat's new holder before the lobby shows it connected, since the seat's player said bye:
    ours vote only here."""
    while host.public is None:
        await trio.sleep(0.05)
    before = len(host.public.left)
    while seat not in [s for _, s in host.public.left[before:]]:  # (round, seat) voided
        for peer in peers:
            if peer.seat != seat:
                peer.vote_void(seat)  # False once it voted (or may not vote yet)
        await trio.sleep(0.1)


@dataclass
class Run:
    """What one scripted game saw."""

    host: Host
    relay: Relay
    done: dict = field(default_factory=dict)
    client_ended: trio.Event = field(default_factory=trio.Event)
    scripted: list[Outcome] = field(default_factory=list)
    stopped: str = ""
    """Why the kit stopped the game early (a scripted situation failed so it could not go on)."""
    leaver: int | None = None
    """The seat whose kit peer left for good (the games where a seat changes hands)."""
    handed: int | None = None
    """The seat a kit peer handed over mid-round (the game where the client's neighbour is
    replaced)."""


@dataclass
class KitGame:
    """What a scripted game's ``setup`` is given: the nursery it starts its tasks in, the
    host's port (our peers') and the relay's (the client's), and ``stop(why)``."""

    run: Run
    nursery: trio.Nursery
    port: int
    relay_port: int
    stop: Callable[[str], None]

    def start_client(self, command: list[str], ends_the_game: bool = True) -> None:
        """Start the client, through the relay; its end before the game's stops the game
        (unless not ``ends_the_game``: the kit judges how it ended)."""
        run = self.run

        async def client() -> None:
            await run_client(client_command(command, self.relay_port), run.done)
            run.client_ended.set()
            if ends_the_game and not run.host.done.is_set():
                self.stop(f"the client ended before the game did ({client_tail(run.done)})")

        self.nursery.start_soon(client)

    async def kit_peers(self, rnd, numbers: range, step: float, stores: Path | None = None,
                        **options) -> list[tuple[Peer, trio.CancelScope]]:
        """Our peers ``numbers``, each in a cancel scope of its own (one may leave), each
        keeping its secrets under ``stores`` if given (one may hand its seat over)."""
        kit = []
        for i in numbers:
            if stores is not None:
                options["store"] = GameSecrets(stores / f"kit{i}")
            peer = kit_peer(self.port, rnd, i, step, **options)
            kit.append((peer, await self.nursery.start(cancellable, peer.run)))
        return kit


async def kit_game(host: Host, game_timeout: float, step: float,
                    setup: Callable[[KitGame], Awaitable[None]]) -> Run:
    """Run ``host``'s table with the relay before it until the game is over (or
    ``game_timeout``); ``setup`` starts the client and our peers and scripts the situations."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    relay_listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    run = Run(host, None)  # type: ignore[arg-type]
    with trio.move_on_after(game_timeout) as overall:
        async with trio.open_nursery() as nursery:
            def stop(why: str) -> None:
                run.stopped = why
                nursery.cancel_scope.cancel()

            port = await nursery.start(host.run, listeners)
            run.relay = Relay(port)
            await nursery.start(run.relay.serve, relay_listeners)
            await setup(KitGame(run, nursery, port, relay_listeners[0].socket.getsockname()[1],
                              stop))
            await host.done.wait()
            with trio.move_on_after(step):  # the client's own end of the game
                await run.client_ended.wait()
            nursery.cancel_scope.cancel()
    if overall.cancelled_caught:
        run.stopped = f"the game did not end within {game_timeout:g} s"
    return run


@dataclass
class RematchRun:
    """What the game at a table that stays saw: its server (each game's `Host` in ``opened``)."""

    server: TableServer
    relay: Relay | None = None
    done: dict = field(default_factory=dict)
    stopped: str = ""


@dataclass
class Told:
    """The bad word the client was sent (a table of `box_keys` or `sharing`): on which
    connection, naming which seats."""

    left: trio.Event | None = None
    """Set once the client leaves the connection it was told on (`_Pair.left`)."""
    seats: tuple[int, int] = (-1, -1)
    """Twin start: the seat whose box key the other was given.  Replace: the seat proposed,
    the seat whose box key it names."""
    seq: int = -1
    """The replace's seq; at a table of `sharing`, the seq of the message that completed the
    round's audit."""


async def told_then_answered(game: KitGame, told: Told,
                             script: Callable[[KitGame, Told], Awaitable[None]],
                             step: float) -> None:
    """Until ``script`` has told the client, then until it leaves or ``step`` seconds."""
    run = game.run
    async with trio.open_nursery() as nursery:
        nursery.start_soon(script, game, told)
        while told.left is None and not run.client_ended.is_set():
            await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    if told.left is None:
        return game.stop(f"the client ended before it was told ({client_tail(run.done)})")
    with trio.move_on_after(step):
        await told.left.wait()
        await run.client_ended.wait()  # its last words, if it stops as it leaves
    game.stop("the client answered" if told.left.is_set() else "the client stayed")
