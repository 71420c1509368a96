"""`shanghai conformance`: a test host that drives a client through scripted situations.

The client under test is started as a command (``{host}`` and ``{port}`` in it are filled in). It
joins a table that our own `Host` runs on 127.0.0.1, beside three of our peers (`Peer` with a bot
that claims with MAY I and calls SHANGHAI whenever the rules let it), so the kit follows every
change of the protocol that the reference implementation makes. The client reaches the host
through a `Relay`, which forwards whole frames both ways and can also put frames of its own
before the client or cut its connection: that is how bad input, a fatal frame and a dropped
connection are scripted. Nothing is rigged that a real table could not do: the kit chooses the
rules (`KIT_RULES`), its own peers' moves and the moments of its own frames; the deal is the
real one, with the client's seeds in it.

Two more games make seats change hands (protocol.md 11.8, `SEAT_SITUATIONS`): in one a kit peer
beside the client leaves for good, the others vote it gone and the host's stand-in bot takes the
seat (the client approves it and uses its keys from the next deal); in the other the client is
handed a seat voted gone (the relay holds its ``hello`` back until the host has proposed its
keys), follows the game and plays the seat from the next deal.

Each situation prints one line with the protocol.md section it covers and PASS or FAIL; the
exit status is 0 only if all pass (docs/protocol.md, "Testing a client: the conformance kit").
"""

from __future__ import annotations

import argparse
import random
import shlex
import shutil
import struct
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import msgpack
import trio

from ..bots import make_bot
from ..deal import seeded
from ..engine.moves import CallShanghai, MayI, PassClaim as PassClaimMove
from ..engine.view import view_of
from ..identity import Identity
from ..wire.framing import DEFAULT_MAX_FRAME, HEADER_SIZE, encode_frame
from ..wire.messages import (DEAL_STEPS, Approve, Complaint, Deal, GameMessage, MayI as MayIBody,
                             HandOver, PassClaim, Replace, Timeout, VoidRound)
from ..net.host import Host, HostConfig
from ..net.peer import Peer, play_on
from ..net.tables import TableServer
from ..net.resume import GameSecrets
from .options import seconds

__all__ = ["KIT_RULES", "SEAT_RULES", "SEAT_SITUATIONS", "Outcome", "Relay", "moves_into",
           "leave_in_round", "vote_gone", "run_conformance", "add_conformance_command"]

KIT_RULES: dict[str, Any] = {
    "contracts": [[1, 0]] * 5,
    "final_round_meld_all": False,
    "last_round_hand_size": 25,
    "max_turns": 30,
}
"""Davis with five one-book rounds: our peers go down at once, so SHANGHAI calls on the
client's discards come early; the last round deals 25 cards to each of four seats, leaving 7 in
the stock, and (our peers claiming nothing then) the pile grows until the stock is reshuffled.
``max_turns`` keeps every round short."""

PLAYERS = 4
BAD_FRAMES: tuple[tuple[str, bytes], ...] = (
    ("malformed_frame", encode_frame([1, 2, 3])),
    ("unknown_message", encode_frame({"type": "teleport"})),
    ("bad_message", encode_frame({"type": "ping", "nonce": "twelve"})),
)
"""Frames the relay puts before the client in round 1, and the error code it must answer each
with (protocol.md 9: not fatal, the client answers and reads on)."""
TOO_LARGE = struct.pack(">I", DEFAULT_MAX_FRAME + 1)
"""A length prefix over the 1 MiB cap: fatal, the client closes (protocol.md 2)."""


SEAT_RULES: dict[str, Any] = {
    "contracts": [[1, 0]] * 2,
    "final_round_meld_all": False,
    "max_turns": 16,
}
"""The games in which a seat changes hands (protocol.md 11.8): two one-book rounds, the second
voided when a kit peer leaves in it (`LEAVE_IN`) and dealt again, with the new holder in the
seat."""
LEAVE_IN = 2
"""The round in which a kit peer leaves for good, in the games where a seat changes hands."""
REPLACED_PLAYERS = 5
"""The client and four kit peers: when one leaves, the other three are a majority without the
client (a vote is the client's right, not its duty)."""

SEAT_SITUATIONS = (
    ("11.5", "a neighbour voted gone: the round is void and the client plays on"),
    ("11.8", "approve: the client approves the host's replace of the vacant seat"),
    ("11.8", "the replacement's keys from the next deal: its messages checked, the client's key "
             "shares sealed to its box key"),
    ("11.8", "handed a seat: hello, proof, then it follows the game and signs nothing"),
    ("11.8", "plays the seat it was handed from the deal its keys take it (its commit) to the "
             "game's end"),
    ("11.9", "a kit seat handed over mid-round: the successor's key checked from the next "
             "message, its box key sealed to from the next deal"),
)
"""The situations of the two games where a seat changes hands: (protocol.md section, what the
client must do)."""

REMATCH_PLAYERS = 3
"""The client, a kit bot (it asks for a rematch at once) and a kit person (it asks once the
client has: the rematch is the client's own choice, not the kit's)."""
REMATCH_SITUATIONS = (
    ("6.6", "rematch: asks for one once the game is over at a table that stays"),
    ("6.6", "the next game: joins the table `next_game` names with the same key (a fresh "
            "nonce), sits at its seat again and plays it to its end"),
)
"""The situations of the game at a table that stays (protocol.md 6.6)."""

SCRIPTED = tuple(("9", f"{code}: answered with error {code}") for code, _ in BAD_FRAMES) + (
    ("2", "frame_too_large: the client closes the connection"),
    ("11.5", "rejoin after it closed on a fatal frame: hello, proof, play on"),
    ("11.5", "rejoin after the host cut it: hello, proof, play on"))
"""The situations the relay scripts, in order: (protocol.md section, what the client must do)."""


@dataclass
class Outcome:
    section: str
    situation: str
    passed: bool
    detail: str = ""

    def line(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        return f"{verdict}  {self.section:<7} {self.situation}" + (f": {self.detail}" if self.detail else "")


# -- the relay -----------------------------------------------------------------------------------

@dataclass
class _Pair:
    """One connection of the client, and ours to the host for it."""

    number: int
    client: trio.SocketStream
    host: trio.SocketStream | None = None
    sending: trio.Lock = field(default_factory=trio.Lock)
    closed_by_client: trio.Event = field(default_factory=trio.Event)
    proved: bool = False
    """The client sent a ``proof`` on this connection: it is rejoining its seat."""


class Relay:
    """Between the client and the host: forwards whole frames both ways and records what the
    client answers; `inject` puts a frame of its own before the client, `cut` drops the link."""

    def __init__(self, host_port: int) -> None:
        self.host_port = host_port
        self.pairs: list[_Pair] = []
        self.hello: dict | None = None
        self.answers: list[str] = []
        """Codes of the ``error`` messages the client sent (answers to our frames among them)."""
        self._answered = trio.Event()
        self.errors_to_client: list[dict] = []
        self.refusals: list[str] = []
        """Codes of the ``refused`` messages the host sent the client."""
        self.placed: list[int] = []
        """The seqs of the client's own messages, as the host's ``placed`` told it them."""
        self.round = 0
        """The deal round of the last ``deal`` body sent to the client."""
        self._moves: list[tuple[int, trio.Event]] = []
        self._rejoin_after = sys.maxsize
        self.rejoined = trio.Event()
        self.on_hello: Callable[[dict], Awaitable[None]] | None = None
        """Awaited with each ``hello`` of the client before it goes on to the host."""
        self.sent: dict[int, tuple[str, int]] = {}
        """Each game message the client sent, by its counter: its body kind, and the seq of the
        last game message the client had been sent then."""
        self.forwarded = -1
        """The seq of the last game message sent to the client."""
        self.rematches = 0
        """The ``rematch`` messages the client sent."""

    @property
    def current(self) -> _Pair:
        return self.pairs[-1]

    async def serve(self, listeners, task_status=trio.TASK_STATUS_IGNORED) -> None:
        await trio.serve_listeners(self._pair, listeners, task_status=task_status)

    async def _pair(self, client: trio.SocketStream) -> None:
        pair = _Pair(len(self.pairs), client)
        self.pairs.append(pair)
        try:
            pair.host = await trio.open_tcp_stream("127.0.0.1", self.host_port)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._up, pair, nursery.cancel_scope)
                nursery.start_soon(self._down, pair, nursery.cancel_scope)
        except* (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # either end went away: so does the other
        finally:
            for stream in (client, pair.host):
                if stream is not None:
                    await trio.aclose_forcefully(stream)

    async def _up(self, pair: _Pair, scope: trio.CancelScope) -> None:
        """Client -> host, frame by frame as it came; what the client says is noted on the way."""
        async for frame, message in _frames(pair.client):
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "hello" and self.hello is None:
                self.hello = message
            if kind == "hello" and self.on_hello is not None:
                await self.on_hello(message)
            if kind == "error":
                self.answers.append(str(message.get("code")))
                self._answered.set()
                self._answered = trio.Event()
            if kind == "proof":
                pair.proved = True
            if kind == "rematch":
                self.rematches += 1
            if kind == "game" and isinstance(message.get("counter"), int) \
                    and isinstance(message.get("body"), dict):
                self.sent[message["counter"]] = (str(message["body"].get("kind")), self.forwarded)
            if kind == "game" and pair.proved and pair.number > self._rejoin_after:
                self.rejoined.set()
            await pair.host.send_all(frame)
        pair.closed_by_client.set()
        scope.cancel()

    async def _down(self, pair: _Pair, scope: trio.CancelScope) -> None:
        async for frame, message in _frames(pair.host):
            async with pair.sending:
                await pair.client.send_all(frame)
            if isinstance(message, dict):
                self._seen(message)
        scope.cancel()

    def _seen(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "error":
            self.errors_to_client.append(message)
        if kind == "refused":
            self.refusals.append(str(message.get("code")))
        if kind in ("placed", "game") and isinstance(message.get("seq"), int):
            self.forwarded = max(self.forwarded, message["seq"])
        if kind == "placed" and isinstance(message.get("seq"), int):
            self.placed.append(message["seq"])
        body = message.get("body") if kind == "game" else None
        if not isinstance(body, dict):
            return
        if body.get("kind") == "deal":
            data = body.get("data")
            if isinstance(data, dict) and isinstance(data.get("round"), int):
                self.round = max(self.round, data["round"])
        elif body.get("kind") != "timeout":
            for round_no, event in self._moves:
                if self.round >= round_no:
                    event.set()

    async def first_move(self, round_no: int) -> None:
        """Until a move of round ``round_no`` (or later) has gone to the client."""
        event = trio.Event()
        self._moves.append((round_no, event))
        await event.wait()

    async def inject(self, frame: bytes) -> None:
        """Put ``frame`` before the client, between two whole frames of the host's."""
        pair = self.current
        try:
            async with pair.sending:
                await pair.client.send_all(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the client is gone: it will not answer, and the situation fails

    async def answer(self, code: str) -> None:
        """Until the client has answered an ``error`` with ``code``."""
        while code not in self.answers:
            await self._answered.wait()

    async def cut(self) -> None:
        pair = self.current
        await trio.aclose_forcefully(pair.client)
        if pair.host is not None:
            await trio.aclose_forcefully(pair.host)

    def expect_rejoin(self) -> trio.Event:
        """An event set once the client, on a connection after the current one, has proved its
        seat and sent a game message again."""
        self._rejoin_after, self.rejoined = self.current.number, trio.Event()
        return self.rejoined


async def _frames(stream: trio.SocketStream):
    """Whole frames as they arrive, each with its decoded value (None if it does not decode)."""
    buffer = bytearray()
    while True:
        while len(buffer) >= HEADER_SIZE:
            length = int.from_bytes(buffer[:HEADER_SIZE], "big")
            if length > DEFAULT_MAX_FRAME or len(buffer) < HEADER_SIZE + length:
                break
            frame = bytes(buffer[:HEADER_SIZE + length])
            del buffer[:HEADER_SIZE + length]
            try:
                value = msgpack.unpackb(frame[HEADER_SIZE:], raw=False, strict_map_key=False)
            except Exception:  # the host judges the client's bytes; we only forward them
                value = None
            yield frame, value
        if len(buffer) >= HEADER_SIZE and int.from_bytes(buffer[:HEADER_SIZE], "big") > DEFAULT_MAX_FRAME:
            return  # a fatal frame: the stream cannot be read further
        try:
            data = await stream.receive_some()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return
        if not data:
            return
        buffer += data


# -- our peers -----------------------------------------------------------------------------------

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

def _command(template: list[str], port: int) -> list[str]:
    return [part.replace("{host}", "127.0.0.1").replace("{port}", str(port)) for part in template]


async def _client(command: list[str], done: dict) -> None:
    """Run the client to its end; ``done["process"]`` is then the finished process."""
    done["process"] = await trio.run_process(command, capture_stdout=True, capture_stderr=True,
                                             check=False)


def _tail(done: dict) -> str:
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
                nursery.start_soon(_our_peer, port, rnd, i, timeout)
            await host.started.wait()
        with trio.move_on_after(timeout):
            await _client(_command(command, relay_listeners[0].socket.getsockname()[1]), done)
        nursery.cancel_scope.cancel()
    told = code in relay.refusals
    stopped = told and "process" in done
    detail = _tail(done) if told else f"the host's refused never reached it ({_tail(done)})"
    return Outcome("5", f"refused ({code}): the client stops", stopped, detail)


def _kit_peer(port: int, rnd, i: int, step: float, **options) -> Peer:
    return Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)), Pushy(random.Random(i)),
                name=f"kit{i}", random=seeded(b"conformance kit peer %d" % i), timeout=step,
                **options)


async def _our_peer(port: int, rnd, i: int, step: float) -> None:
    await _kit_peer(port, rnd, i, step).run()


async def _cancellable(run: Callable[[], Awaitable[Any]],
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
class _Run:
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


async def _script(run: _Run, step: float, stop: Callable[[str], None]) -> None:
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


@dataclass
class _Game:
    """What a scripted game's ``setup`` is given: the nursery it starts its tasks in, the
    host's port (our peers') and the relay's (the client's), and ``stop(why)``."""

    run: _Run
    nursery: trio.Nursery
    port: int
    relay_port: int
    stop: Callable[[str], None]

    def start_client(self, command: list[str]) -> None:
        """Start the client, through the relay; its end before the game's stops the game."""
        run = self.run

        async def client() -> None:
            await _client(_command(command, self.relay_port), run.done)
            run.client_ended.set()
            if not run.host.done.is_set():
                self.stop(f"the client ended before the game did ({_tail(run.done)})")

        self.nursery.start_soon(client)

    async def kit_peers(self, rnd, numbers: range, step: float, stores: Path | None = None,
                        **options) -> list[tuple[Peer, trio.CancelScope]]:
        """Our peers ``numbers``, each in a cancel scope of its own (one may leave), each
        keeping its secrets under ``stores`` if given (one may hand its seat over)."""
        kit = []
        for i in numbers:
            if stores is not None:
                options["store"] = GameSecrets(stores / f"kit{i}")
            peer = _kit_peer(self.port, rnd, i, step, **options)
            kit.append((peer, await self.nursery.start(_cancellable, peer.run)))
        return kit


async def _kit_game(host: Host, game_timeout: float, step: float,
                    setup: Callable[[_Game], Awaitable[None]]) -> _Run:
    """Run ``host``'s table with the relay before it until the game is over (or
    ``game_timeout``); ``setup`` starts the client and our peers and scripts the situations."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    relay_listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    run = _Run(host, None)  # type: ignore[arg-type]
    with trio.move_on_after(game_timeout) as overall:
        async with trio.open_nursery() as nursery:
            def stop(why: str) -> None:
                run.stopped = why
                nursery.cancel_scope.cancel()

            port = await nursery.start(host.run, listeners)
            run.relay = Relay(port)
            await nursery.start(run.relay.serve, relay_listeners)
            await setup(_Game(run, nursery, port, relay_listeners[0].socket.getsockname()[1],
                              stop))
            await host.done.wait()
            with trio.move_on_after(step):  # the client's own end of the game
                await run.client_ended.wait()
            nursery.cancel_scope.cancel()
    if overall.cancelled_caught:
        run.stopped = f"the game did not end within {game_timeout:g} s"
    return run


async def scripted_game(command: list[str], game_timeout: float, step: float) -> _Run:
    rnd = seeded(b"conformance kit")
    host = Host(HostConfig(players=PLAYERS, preset="davis", rules=dict(KIT_RULES), random=rnd))

    async def setup(game: _Game) -> None:
        game.start_client(command)
        for i in range(1, PLAYERS):
            game.nursery.start_soon(_our_peer, game.port, rnd, i, step)
        game.nursery.start_soon(_script, game.run, step, game.stop)

    return await _kit_game(host, game_timeout, step, setup)


async def neighbour_replaced(command: list[str], game_timeout: float, step: float) -> _Run:
    """The client and four kit peers; the kit peer after the client leaves for good in round 2
    (it says ``bye``); the three others vote it gone at once (a majority of five without the
    client), and the host seats its stand-in bot, which the client must approve and whose keys
    it must use from the next deal."""
    rnd = seeded(b"conformance kit replaced")
    host = Host(HostConfig(players=REPLACED_PLAYERS, preset="davis", rules=dict(SEAT_RULES),
                           random=rnd))
    with tempfile.TemporaryDirectory(prefix="shanghai-conformance-") as stores:
        async def setup(game: _Game) -> None:
            game.start_client(command)
            kit = await game.kit_peers(rnd, range(1, REPLACED_PLAYERS), step, Path(stores))
            game.nursery.start_soon(_neighbour_leaves, game, kit, step)
            game.nursery.start_soon(_hand_over_in_round_one, game, kit, step, Path(stores))

        return await _kit_game(host, game_timeout, step, setup)


async def _hand_over_in_round_one(game: _Game, kit: list[tuple[Peer, trio.CancelScope]],
                                  step: float, stores: Path) -> None:
    """The kit peer two seats after the client hands its seat, three moves into round 1, to a
    kit successor that watched the game from its start."""
    run, host = game.run, game.run.host
    await host.started.wait()
    seat = _client_seat(run)
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


async def _neighbour_leaves(game: _Game, kit: list[tuple[Peer, trio.CancelScope]],
                            step: float) -> None:
    run, host = game.run, game.run.host
    await host.started.wait()
    seat = _client_seat(run)
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


async def handed_a_seat(command: list[str], game_timeout: float, step: float) -> _Run:
    """Four kit peers; one leaves for good in round 2 and the others vote it gone.  This host
    seats no bot of its own: the client is started then, and when its ``hello`` comes the host
    proposes its keys for the vacant seat (``replace``), so that the host lets it in as the
    seat's newcomer (a rejoin challenge); our peers approve, and the client must follow the game
    and play the seat from the next deal."""
    rnd = seeded(b"conformance kit handed")
    host = Host(HostConfig(players=PLAYERS, preset="davis", rules=dict(SEAT_RULES), random=rnd,
                           stand_in=None))

    async def setup(game: _Game) -> None:
        kit = await game.kit_peers(rnd, range(1, PLAYERS + 1), step)
        game.nursery.start_soon(_hand_the_seat_over, game, kit, command, step)

    return await _kit_game(host, game_timeout, step, setup)


async def _hand_the_seat_over(game: _Game, kit: list[tuple[Peer, trio.CancelScope]],
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


# -- what the transcript shows -------------------------------------------------------------------

def _client_seat(run: _Run) -> int | None:
    start, hello = run.host.start, run.relay.hello if run.relay else None
    if start is None or hello is None:
        return None
    return next((s.seat for s in start.seats if s.sign_key == hello.get("sign_key")), None)


def _steps(history, seat: int) -> list[Deal]:
    return [m.body for m in history if m.author == seat and isinstance(m.body, Deal)]


def judged(run: _Run) -> list[Outcome]:
    """Every situation's outcome: the scripted ones, then what the game's transcript shows."""
    seat = _client_seat(run)
    seated = seat is not None
    out = [Outcome("5", "handshake, lobby and start_game: seated and ready", seated,
                   "" if seated else "the game did not start with the client seated")]
    out += run.scripted
    seen = {o.situation for o in run.scripted}
    out += [Outcome(section, situation, False, f"not reached: {run.stopped or 'the game ended'}")
            for section, situation in SCRIPTED if situation not in seen]
    seat = seat if seated else -1  # no message has that author: every check below fails
    history = run.host.history.messages
    steps = _steps(history, seat)
    missing = [name for name in DEAL_STEPS if not any(s.step == name for s in steps)]
    out.append(Outcome("11.2", "deal steps: " + ", ".join(DEAL_STEPS), not missing,
                       f"never sent {', '.join(missing)}" if missing else f"{len(steps)} steps"))
    answers = sum(m.author == seat and isinstance(m.body, (PassClaim, MayIBody)) for m in history)
    timed_out = sum(isinstance(m.body, Timeout) and m.body.seat == seat for m in history)
    out.append(Outcome("11.4", "claim windows (MAY I): answered in time", answers > 0 and not timed_out,
                       f"{answers} answers, {timed_out} timeouts of the client's seat"))
    placed = run.relay.placed if run.relay else []
    chained = [m.seq for m in history if m.author == seat and m.basis_seq is not None
               and placed and m.basis_seq >= placed[0]]
    broken = sum(e.get("code") == "broken_chain" for e in run.relay.errors_to_client)
    out.append(Outcome("6.3", "its own messages placed (`placed`): chained as if relayed",
                       bool(chained) and not broken,
                       f"{len(placed)} placed, {len(chained)} moves on a basis past the first, "
                       f"{broken} broken_chain answers"))
    calls = sum(m.body.KIND == "call_shanghai" for m in history)
    picks = [s for s in steps if s.step == "pick_reveal" and s.data.get("round", 0) > 0]
    out.append(Outcome("11.3", "SHANGHAI pick on the client's discard", bool(picks),
                       f"{calls} calls, {len(picks)} picks the client took part in"))
    later = {s.data.get("generation") for s in steps if s.step == "pass" and s.data.get("generation", 0) > 0}
    out.append(Outcome("11.1", "reshuffle: commit and both passes of a new generation", bool(later),
                       f"generations {sorted(later)}" if later else "the client shuffled no reshuffle"))
    public = run.host.public
    over = public is not None and public.finished and public.fault is None
    process = run.done.get("process")
    errors = sorted({e.get("code") for e in run.relay.errors_to_client} - {"stale"})
    clean = over and process is not None and process.returncode == 0 and not errors
    detail = run.stopped or (f"errors answered to the client: {', '.join(map(str, errors))}; " if errors
                             else "") + _tail(run.done)
    out.append(Outcome("11.3", "the game's end: every round audited, the client exits 0", clean, detail))
    return out


def unoffered(run: _Run) -> list[str]:
    """What a scripted game that ended cleanly with the client seated never gave the client the
    chance to do, by the luck of the deal (the client draws its own seeds): a SHANGHAI call on
    its discard (no discard of its extended a meld on the table while our peers could call), a
    reshuffle (a round ended before the stock ran out).  Such a game proves nothing either way:
    the kit plays the scripted game again."""
    seat = _client_seat(run)
    public = run.host.public
    if seat is None or public is None or not public.finished or public.fault is not None \
            or run.stopped:
        return []
    steps = [m.body for m in run.host.history.messages if isinstance(m.body, Deal)]
    missing = []
    if not any(s.step == "pick_commit" and s.data.get("round", 0) > 0
               and seat in s.data.get("parties", ()) for s in steps):
        missing.append("SHANGHAI call on the client's discard")
    if not any(s.step == "commit" and s.data.get("generation", 0) > 0 for s in steps):
        missing.append("reshuffle")
    return missing


def _clean_end(run: _Run, void_seq: int | None = None) -> tuple[bool, str]:
    """Whether the game ended with every round audited and no complaint, the host answered the
    client nothing but ``stale`` (or a refusal the vote at ``void_seq`` overtook) and the
    client exited 0; what was seen."""
    public = run.host.public
    over = public is not None and public.finished and public.fault is None
    complaints = sum(isinstance(m.body, Complaint) for m in run.host.history.messages)
    errors = sorted({str(e.get("code")) for e in run.relay.errors_to_client
                     if e.get("code") != "stale" and not _overtaken(run.relay, e, void_seq)})
    process = run.done.get("process")
    clean = over and not complaints and not errors and process is not None \
        and process.returncode == 0
    detail = run.stopped or "; ".join(
        ([f"the game stopped: {public.fault}"] if public is not None and public.fault else [])
        + ([f"{complaints} complaints"] if complaints else [])
        + ([f"errors answered to the client: {', '.join(errors)}"] if errors else [])
        + [_tail(run.done)])
    return clean, detail


def _overtaken(relay: Relay, error: dict, void_seq: int | None) -> bool:
    """An ``out_of_turn`` refusal that the table's moving on overtook, no fault of the
    client's: of its vote or approval (the others' votes void the round first), or of a
    message it sent before it had been sent the vote that voided the round (at ``void_seq``),
    a step the voided round no longer owes."""
    kind, seen = relay.sent.get(error.get("ref_counter"), ("", -1))
    return error.get("code") == "out_of_turn" and (
        kind in ("void_round", "approve") or (void_seq is not None and seen < void_seq))


def _replace_of(history, seat: int | None) -> GameMessage | None:
    return next((m for m in history if isinstance(m.body, Replace) and m.body.seat == seat), None)


def judged_replaced(run: _Run) -> list[Outcome]:
    """The game where the client's neighbour is voted gone and the host's bot replaces it."""
    seat, leaver = _client_seat(run), run.leaver
    history = run.host.history.messages
    votes: set[int] = set()
    void = None
    for m in history:
        if isinstance(m.body, VoidRound) and m.body.seat == leaver and leaver is not None:
            votes.add(m.author)
            if void is None and 2 * len(votes) > run.host.players:
                void = m
    voted = seat in votes
    on = void is not None and any(m.author == seat and m.seq > void.seq for m in history)
    out = [Outcome(*SEAT_SITUATIONS[0], on,
                   f"seat {leaver} voted gone at seq {void.seq}; the client "
                   f"{'voted' if voted else 'did not vote'}" if void is not None else
                   f"no majority voted seat {leaver} gone: {run.stopped or 'the game ended'}")]
    replace = _replace_of(history, leaver)
    approved = replace is not None and any(m.author == seat and isinstance(m.body, Approve)
                                           and m.body.seq == replace.seq for m in history)
    out.append(Outcome(*SEAT_SITUATIONS[1], approved,
                       f"replace at seq {replace.seq}" + ("" if approved else ": not approved")
                       if replace is not None else "the host proposed no replacement"))
    again = void.body.round + 1 if void is not None else None
    sealed = [m.seq for m in history if m.author == seat and isinstance(m.body, Deal)
              and m.body.step == "shares" and again is not None
              and m.body.data.get("round", 0) >= again
              and any(box.get("to") == leaver for box in m.body.data.get("boxes", ()))]
    clean, detail = _clean_end(run, void.seq if void is not None else None)
    out.append(Outcome(*SEAT_SITUATIONS[2], bool(sealed) and clean,
                       f"{len(sealed)} shares sealed to the new holder of seat {leaver}; {detail}"))
    out.append(_judged_hand_over(run, seat, clean, detail))
    return out


def _judged_hand_over(run: _Run, seat: int | None, clean: bool, detail: str) -> Outcome:
    """A kit seat handed over in round 1: its successor played on, the client sealed its
    shares of a later round to the successor, and the game ended clean."""
    history, handed = run.host.history.messages, run.handed
    over = next((m for m in history if isinstance(m.body, HandOver) and m.author == handed), None)
    if over is None:
        return Outcome(*SEAT_SITUATIONS[5], False, f"no kit seat was handed over "
                                                     f"({run.stopped or 'the game ended'})")
    played = sum(m.author == handed and m.seq > over.seq for m in history)
    later = [m.seq for m in history if m.author == seat and isinstance(m.body, Deal)
             and m.body.step == "shares" and m.body.data.get("round", 0) > 1
             and any(box.get("to") == handed for box in m.body.data.get("boxes", ()))]
    return Outcome(*SEAT_SITUATIONS[5], bool(played) and bool(later) and clean,
                   f"seat {handed} handed over at seq {over.seq}; {played} messages of its "
                   f"successor; {len(later)} shares of the client's sealed to it in later "
                   f"rounds; {detail}")


def judged_handed(run: _Run) -> list[Outcome]:
    """The game where the client is handed a seat voted gone.  Until its first message in the
    seat is sequenced it may sign nothing; after that the host may answer it ``stale`` (a
    move that raced the game's moving on), as any seat, and nothing else (`_clean_end`)."""
    history = run.host.history.messages
    hello, seat = run.relay.hello if run.relay else None, run.leaver
    replace = _replace_of(history, seat)
    ours = replace is not None and hello is not None and replace.body.sign_key == hello.get("sign_key")
    proved = bool(run.relay and run.relay.pairs and run.relay.pairs[0].proved)
    first = next((m for m in history if replace is not None and m.seq > replace.seq
                  and m.author == seat), None)
    sent = run.relay.sent if run.relay else {}
    early = {counter: kind for counter, (kind, _) in sent.items()
             if first is None or counter < first.counter}
    refused = sorted({f"{e.get('code')} ({early[e['ref_counter']]})"
                      for e in run.relay.errors_to_client if e.get("ref_counter") in early}) \
        if run.relay else []
    if hello is None or not ours:
        seen = "the client never said hello" if hello is None else "its keys were never proposed"
        seen += f" ({run.stopped or _tail(run.done)})"
    else:
        seen = ("proof sent" if proved else "no proof") + (
            f"; it signed {', '.join(sorted(set(early.values())))} before it played the seat"
            if early else "") + (f"; the host refused: {', '.join(refused)}" if refused else "")
    out = [Outcome(*SEAT_SITUATIONS[3], ours and proved and not early, seen)]
    committed = first is not None and isinstance(first.body, Deal) and first.body.step == "commit"
    clean, detail = _clean_end(run)
    out.append(Outcome(*SEAT_SITUATIONS[4], ours and committed and clean,
                       (f"its first message, at seq {first.seq}: {first.body.KIND} "
                        f"{getattr(first.body, 'step', '')}; " if first is not None
                        else "it never played the seat; ") + detail))
    return out


@dataclass
class _Rematch:
    """What the game at a table that stays saw: its server (each game's `Host` in ``opened``)."""

    server: TableServer
    relay: Relay | None = None
    done: dict = field(default_factory=dict)
    stopped: str = ""


async def rematch_game(command: list[str], game_timeout: float, step: float) -> _Rematch:
    """The client, a kit bot and a kit person at a table that stays (protocol.md 6.6): one
    short game; the kit bot asks for a rematch at once, the kit person once the client has (or
    it leaves ``step`` seconds after the game's end); the next game is played to its end, and
    then the kit person leaves, so that the table closes."""
    rnd = seeded(b"conformance kit rematch")
    server = TableServer(HostConfig(players=REMATCH_PLAYERS, preset="davis",
                                    rules=dict(SEAT_RULES), random=rnd), ["kit"])
    run = _Rematch(server)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    relay_listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.move_on_after(game_timeout) as overall:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            run.relay = relay = Relay(port)
            await nursery.start(relay.serve, relay_listeners)
            ended = trio.Event()

            async def client() -> None:
                await _client(_command(command, relay_listeners[0].socket.getsockname()[1]),
                              run.done)
                ended.set()

            first = server.first_host
            nursery.start_soon(client)
            for i in (1, 2):  # one at a time, so that the client sits first
                while sum(c is not None for c in first.seats) < i and not ended.is_set():
                    await trio.sleep(0.05)
                if i == 1:
                    nursery.start_soon(play_on, _kit_peer(port, rnd, i, step, rematch=True))
            person = _kit_peer(port, rnd, 2, step, role="player", rematch=None)
            nursery.start_soon(person.run)
            while first.start is None and not ended.is_set():
                await trio.sleep(0.05)
            if first.start is None:
                run.stopped = f"the client ended before the game started ({_tail(run.done)})"
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


def judged_rematch(run: _Rematch) -> list[Outcome]:
    """The client asked for the rematch, and played the next game at its seat, with its key
    and a fresh nonce, to its end (every round audited, nothing but ``stale`` answered to it,
    exit 0)."""
    relay, opened = run.relay, run.server.opened
    asked = relay is not None and relay.rematches > 0
    out = [Outcome(*REMATCH_SITUATIONS[0], asked,
                   "" if asked else run.stopped or "the client sent no rematch")]
    key = relay.hello.get("sign_key") if relay is not None and relay.hello else None
    starts = [t.host.start for t in opened if t.host.start is not None]
    seats = [next((s.seat for s in start.seats if s.sign_key == key), None) for start in starts]
    second = opened[1].host if len(opened) > 1 else None
    over = second is not None and second.public is not None and second.public.finished \
        and second.public.fault is None
    again = len(seats) == 2 and seats[0] is not None and seats[0] == seats[1] and \
        starts[0].nonces[seats[0]] != starts[1].nonces[seats[1]]
    errors = sorted({str(e.get("code")) for e in relay.errors_to_client} - {"stale"}) \
        if relay is not None else []
    process = run.done.get("process")
    clean = over and again and not errors and process is not None and process.returncode == 0
    detail = run.stopped or "; ".join(
        ([] if again else [f"its seat in each game: {seats}"])
        + ([] if over else ["the next game did not end"])
        + ([f"errors answered to the client: {', '.join(errors)}"] if errors else [])
        + [_tail(run.done)])
    out.append(Outcome(*REMATCH_SITUATIONS[1], clean, detail))
    return out


async def run_conformance(command: list[str], *, game_timeout: float = 600.0,
                          step: float = 20.0) -> list[Outcome]:
    """Every situation against the client ``command`` starts; one Outcome each."""
    outcomes = [await refused(command, code, step) for code in ("join_code", "table_full")]
    outcomes += await scripted_games(command, game_timeout, step)
    outcomes += judged_replaced(await neighbour_replaced(command, game_timeout, step))
    outcomes += judged_handed(await handed_a_seat(command, game_timeout, step))
    outcomes += judged_rematch(await rematch_game(command, game_timeout, step))
    return outcomes


SCRIPTED_GAMES = 3
"""How many scripted games the kit plays at most while the deal brings about no chance for some
situation (`unoffered`)."""


async def scripted_games(command: list[str], game_timeout: float, step: float,
                         play: Callable[..., Awaitable[_Run]] = scripted_game) -> list[Outcome]:
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


def _cmd_conformance(args) -> int:
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
