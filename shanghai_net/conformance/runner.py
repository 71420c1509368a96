"""The games the kit plays against a client, and what each scripts: the scripted game (bad
frames, a fatal frame, a cut link), a neighbour replaced, a seat handed to the client, and a
rematch at a table that stays; `run_conformance` plays them all."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Awaitable, Callable

import trio

from ..deal import seeded
from ..identity import Identity
from ..net.host import Host, HostConfig
from ..net.peer import Peer, play_on
from ..net.resume import GameSecrets
from ..net.tables import TableServer
from ..wire.messages import Approve, GameMessage, Replace
from .box_keys import box_key_tables
from .lost import lost_tables
from .sharing import sharing_tables
from .kit import (KitGame, Pushy, RematchRun, Run, client_command, client_tail, kit_game,
                  kit_peer, leave_in_round, moves_into, our_peer, refused, run_client, vote_gone)
from .relay import Relay
from .report import (client_seat, judged, judged_handed, judged_rematch, judged_replaced,
                     unoffered)
from .situations import (BAD_FRAMES, KIT_RULES, LEAVE_IN, PLAYERS, REMATCH_PLAYERS,
                         REPLACED_PLAYERS, SCRIPTED, SEAT_RULES, TOO_LARGE, Outcome)

__all__ = ["run_conformance", "scripted_games"]


async def _script(run: Run, step: float, stop: Callable[[str], None]) -> None:
    """Bad frames in round 1, a fatal frame in round 2 (the client closes and rejoins), a cut
    link in round 3 (it rejoins again)."""
    relay, out = run.relay, run.scripted
    await relay.first_move(1)
    for code, frame in BAD_FRAMES:
        await relay.inject(frame)
        with trio.move_on_after(step):
            await relay.answer(code)
        out.append(Outcome(*SCRIPTED[len(out)], code in relay.answers,
                           "" if code in relay.answers else f"no answer in {step:g} s"))
    await relay.first_move(2)
    pair, rejoined = relay.current, relay.expect_rejoin()
    await relay.inject(TOO_LARGE)
    with trio.move_on_after(step):
        await pair.closed_by_client.wait()
    closed = pair.closed_by_client.is_set()
    out.append(Outcome(*SCRIPTED[len(out)], closed, "" if closed else f"still open {step:g} s later"))
    if not closed:
        await relay.cut()
    for attempt in range(2):
        with trio.move_on_after(3 * step):
            await rejoined.wait()
        back = rejoined.is_set()
        out.append(Outcome(*SCRIPTED[len(out)], back, "" if back else f"not back within {3 * step:g} s"))
        if not back:
            return stop("the client did not rejoin")
        if attempt == 0:
            await relay.first_move(3)
            rejoined = relay.expect_rejoin()
            await relay.cut()


async def scripted_game(command: list[str], game_timeout: float, step: float) -> Run:
    rnd = seeded(b"conformance kit")
    host = Host(HostConfig(players=PLAYERS, preset="davis", rules=dict(KIT_RULES), random=rnd))

    async def setup(game: KitGame) -> None:
        game.start_client(command)
        for i in range(1, PLAYERS):
            game.nursery.start_soon(our_peer, game.port, rnd, i, step)
        game.nursery.start_soon(_script, game.run, step, game.stop)

    return await kit_game(host, game_timeout, step, setup)


async def neighbour_replaced(command: list[str], game_timeout: float, step: float) -> Run:
    """The client and four kit peers; the kit peer after the client leaves for good in round 2
    (it says ``bye``); the three others vote it gone at once (a majority of five without the
    client), and the host seats its stand-in bot, which the client must approve and whose keys
    it must use from the next deal."""
    rnd = seeded(b"conformance kit replaced")
    host = Host(HostConfig(players=REPLACED_PLAYERS, preset="davis", rules=dict(SEAT_RULES),
                           random=rnd))
    with tempfile.TemporaryDirectory(prefix="shanghai-conformance-") as stores:
        async def setup(game: KitGame) -> None:
            game.start_client(command)
            kit = await game.kit_peers(rnd, range(1, REPLACED_PLAYERS), step, Path(stores))
            game.nursery.start_soon(_neighbour_leaves, game, kit, step)
            game.nursery.start_soon(_hand_over_in_round_one, game, kit, step, Path(stores))

        return await kit_game(host, game_timeout, step, setup)


async def _hand_over_in_round_one(game: KitGame, kit: list[tuple[Peer, trio.CancelScope]],
                                  step: float, stores: Path) -> None:
    """The kit peer two seats after the client hands its seat, three moves into round 1, to a
    kit successor that watched the game from its start."""
    run, host = game.run, game.run.host
    await host.started.wait()
    seat = client_seat(run)
    handing = (seat + 2) % host.players if seat is not None else None
    peer = next((p for p, _ in kit if p.seat == handing), None)
    if peer is None:
        return
    rnd = seeded(b"conformance kit successor")
    successor = Peer(("127.0.0.1", game.port), Identity(rnd(32), rnd(32)), Pushy(random.Random(9)),
                     name="kit heir", random=rnd, timeout=step, successor=True,
                     store=GameSecrets(stores / "heir"))
    game.nursery.start_soon(successor.run)
    await moves_into(host, 1)
    while successor.table is None:
        await trio.sleep(0.05)
    run.handed = handing
    peer.hand_over(successor.name, "bot", successor.identity.sign_public, successor.box_public)


async def _until_sequenced(host: Host, wanted: Callable[[GameMessage], bool]) -> GameMessage:
    """The first game message the host sequenced (or sequences) that is ``wanted``."""
    seen = 0
    while True:
        messages = host.history.messages
        found = next((m for m in messages[seen:] if wanted(m)), None)
        if found is not None:
            return found
        seen = len(messages)
        await trio.sleep(0.05)


async def _neighbour_leaves(game: KitGame, kit: list[tuple[Peer, trio.CancelScope]],
                            step: float) -> None:
    run, host = game.run, game.run.host
    await host.started.wait()
    seat = client_seat(run)
    neighbour = None if seat is None else (seat + 1) % host.players
    peer, scope = next(((p, s) for p, s in kit if p.seat == neighbour), kit[0])
    run.leaver = peer.seat
    await leave_in_round(host, peer, scope, LEAVE_IN)
    await vote_gone(host, [p for p, _ in kit], run.leaver)
    replace = await _until_sequenced(host, lambda m: isinstance(m.body, Replace)
                                     and m.body.seat == run.leaver)
    with trio.move_on_after(3 * step):  # without it the table waits for good
        await _until_sequenced(host, lambda m: m.author == seat and isinstance(m.body, Approve)
                               and m.body.seq == replace.seq)
        return
    game.stop(f"the client did not approve the replace at seq {replace.seq} within "
              f"{3 * step:g} s")


async def handed_a_seat(command: list[str], game_timeout: float, step: float) -> Run:
    """Four kit peers; one leaves for good in round 2 and the others vote it gone.  This host
    seats no bot of its own: the client is started then, and when its ``hello`` comes the host
    proposes its keys for the vacant seat (``replace``), so that the host lets it in as the
    seat's newcomer (a rejoin challenge); our peers approve, and the client must follow the game
    and play the seat from the next deal."""
    rnd = seeded(b"conformance kit handed")
    host = Host(HostConfig(players=PLAYERS, preset="davis", rules=dict(SEAT_RULES), random=rnd,
                           stand_in=None))

    async def setup(game: KitGame) -> None:
        kit = await game.kit_peers(rnd, range(1, PLAYERS + 1), step)
        game.nursery.start_soon(_hand_the_seat_over, game, kit, command, step)

    return await kit_game(host, game_timeout, step, setup)


async def _hand_the_seat_over(game: KitGame, kit: list[tuple[Peer, trio.CancelScope]],
                              command: list[str], step: float) -> None:
    run, host = game.run, game.run.host
    await host.started.wait()
    peer, scope = kit[0]
    run.leaver = peer.seat
    await leave_in_round(host, peer, scope, LEAVE_IN)
    await vote_gone(host, [p for p, _ in kit], run.leaver)
    run.relay.on_hello = _propose_on_hello(host, run.leaver)
    game.start_client(command)
    replace = await _until_sequenced(host, lambda m: isinstance(m.body, Replace))
    while host.public.holders[run.leaver].sign_key != replace.body.sign_key:
        await trio.sleep(0.05)  # until our peers approved it and the next deal began
    with trio.move_on_after(3 * step):
        await _until_sequenced(host, lambda m: m.author == run.leaver and m.seq > replace.seq)
        return
    game.stop(f"the client did not play the seat it was handed within {3 * step:g} s")


def _propose_on_hello(host: Host, seat: int) -> Callable[[dict], Awaitable[None]]:
    """A hook for the relay: the host proposes the keys of the client's first hello for
    ``seat``, and the hello goes on once that ``replace`` is sequenced."""

    async def propose(hello: dict) -> None:
        key, box = hello.get("sign_key"), hello.get("box_key")
        public = host.public
        if not (isinstance(key, bytes) and isinstance(box, bytes) and len(key) == len(box) == 32) \
                or public.seat_of_key(key) is not None:
            return  # nothing the host could seat, or proposed already (the client rejoins)
        name = hello.get("name") if isinstance(hello.get("name"), str) else ""
        host.propose(seat, name[:32] or "client", "bot" if hello.get("role") == "bot" else "player",
                     key, box)
        with trio.move_on_after(10):
            while public.seat_of_key(key) is None:
                await trio.sleep(0.02)

    return propose


async def rematch_game(command: list[str], game_timeout: float, step: float) -> RematchRun:
    """The client, a kit bot and a kit person at a table that stays (protocol.md 6.6): one
    short game; the kit bot asks for a rematch at once, the kit person once the client has (or
    it leaves ``step`` seconds after the game's end); the next game is played to its end, and
    then the kit person leaves, so that the table closes."""
    rnd = seeded(b"conformance kit rematch")
    server = TableServer(HostConfig(players=REMATCH_PLAYERS, preset="davis",
                                    rules=dict(SEAT_RULES), random=rnd), ["kit"])
    run = RematchRun(server)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    relay_listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.move_on_after(game_timeout) as overall:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            run.relay = relay = Relay(port)
            await nursery.start(relay.serve, relay_listeners)
            ended = trio.Event()

            async def client() -> None:
                await run_client(client_command(command, relay_listeners[0].socket.getsockname()[1]),
                              run.done)
                ended.set()

            first = server.first_host
            nursery.start_soon(client)
            for i in (1, 2):  # one at a time, so that the client sits first
                while sum(c is not None for c in first.seats) < i and not ended.is_set():
                    await trio.sleep(0.05)
                if i == 1:
                    nursery.start_soon(play_on, kit_peer(port, rnd, i, step, rematch=True))
            person = kit_peer(port, rnd, 2, step, role="player", rematch=None)
            nursery.start_soon(person.run)
            while first.start is None and not ended.is_set():
                await trio.sleep(0.05)
            if first.start is None:
                run.stopped = f"the client ended before the game started ({client_tail(run.done)})"
            else:
                await _person_asks_after_the_client(person, relay, step)
                await _kit_person_plays_on(person, nursery)
                with trio.move_on_after(step):  # the client's own end, once the table closes
                    await ended.wait()
            nursery.cancel_scope.cancel()
    if overall.cancelled_caught:
        run.stopped = f"the games did not end within {game_timeout:g} s"
    return run


async def _person_asks_after_the_client(person: Peer, relay: Relay, step: float) -> None:
    """Once the game is over, the kit person asks for a rematch after the client has, or says
    ``bye`` if the client has not within ``step`` seconds."""
    while not person.may_rematch and person.status not in ("over", "failed"):
        await trio.sleep(0.05)
    with trio.move_on_after(step):
        while not relay.rematches:
            await trio.sleep(0.05)
    if relay.rematches:
        await person.ask_rematch()
    else:
        await person.leave()


async def _kit_person_plays_on(person: Peer, nursery: trio.Nursery) -> None:
    """Once the host named the next game: the kit person plays it, then leaves."""
    while person.status not in ("over", "failed"):
        await trio.sleep(0.05)
    if person.next_game is None:
        return
    again = person.next_peer()
    nursery.start_soon(again.run)
    while not again.may_rematch and again.status not in ("over", "failed"):
        await trio.sleep(0.05)
    await again.leave()


async def run_conformance(command: list[str], *, game_timeout: float = 600.0,
                          step: float = 20.0) -> list[Outcome]:
    """Every situation against the client ``command`` starts; one Outcome each."""
    outcomes = [await refused(command, code, step) for code in ("join_code", "table_full")]
    outcomes += await box_key_tables(command, game_timeout, step)
    outcomes += await sharing_tables(command, game_timeout, step)
    outcomes += await lost_tables(command, game_timeout, step)
    outcomes += await scripted_games(command, game_timeout, step)
    outcomes += judged_replaced(await neighbour_replaced(command, game_timeout, step))
    outcomes += judged_handed(await handed_a_seat(command, game_timeout, step))
    outcomes += judged_rematch(await rematch_game(command, game_timeout, step))
    return outcomes


SCRIPTED_GAMES = 3
"""How many scripted games the kit plays at most while the deal brings about no chance for some
situation (`unoffered`)."""


async def scripted_games(command: list[str], game_timeout: float, step: float,
                         play: Callable[..., Awaitable[Run]] = scripted_game) -> list[Outcome]:
    """The scripted game's outcomes, from the first game that gave the client every chance (or
    the last of `SCRIPTED_GAMES`); the handshake's line says which game that was, and why."""
    passed_over: list[str] = []
    for game in range(1, SCRIPTED_GAMES + 1):
        run = await play(command, game_timeout, step)
        missing = unoffered(run)
        if not missing or game == SCRIPTED_GAMES:
            break
        passed_over.append(f"game {game} brought about no {' and no '.join(missing)}")
    outcomes = judged(run)
    if passed_over:
        first = outcomes[0]
        outcomes[0] = Outcome(first.section, first.situation, first.passed,
                              f"scripted game {game}: " + "; ".join(passed_over))
    return outcomes

