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
from dataclasses import dataclass, field
from typing import Any, Callable

import msgpack
import trio

from ..bots import make_bot
from ..deal import seeded
from ..engine.moves import CallShanghai, MayI, PassClaim as PassClaimMove
from ..engine.view import view_of
from ..identity import Identity
from ..wire.framing import DEFAULT_MAX_FRAME, HEADER_SIZE, encode_frame
from ..wire.messages import DEAL_STEPS, Deal, MayI as MayIBody, PassClaim, Timeout
from ..net.host import Host, HostConfig
from ..net.peer import run_peer
from .options import seconds

__all__ = ["KIT_RULES", "Outcome", "Relay", "run_conformance", "add_conformance_command"]

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
            if kind == "error":
                self.answers.append(str(message.get("code")))
                self._answered.set()
                self._answered = trio.Event()
            if kind == "proof":
                pair.proved = True
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


async def _our_peer(port: int, rnd, i: int, step: float) -> None:
    await run_peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)), Pushy(random.Random(i)),
                   name=f"kit{i}", random=seeded(b"conformance kit peer %d" % i), timeout=step)


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


async def scripted_game(command: list[str], game_timeout: float, step: float) -> _Run:
    rnd = seeded(b"conformance kit")
    host = Host(HostConfig(players=PLAYERS, preset="davis", rules=dict(KIT_RULES), random=rnd))
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
            relay_port = relay_listeners[0].socket.getsockname()[1]
            async def client() -> None:
                await _client(_command(command, relay_port), run.done)
                run.client_ended.set()
                if not host.done.is_set():
                    stop(f"the client ended before the game did ({_tail(run.done)})")

            nursery.start_soon(client)
            for i in range(1, PLAYERS):
                nursery.start_soon(_our_peer, port, rnd, i, step)
            nursery.start_soon(_script, run, step, stop)
            await host.done.wait()
            with trio.move_on_after(step):  # the client's own end of the game
                await run.client_ended.wait()
            nursery.cancel_scope.cancel()
    if overall.cancelled_caught:
        run.stopped = f"the game did not end within {game_timeout:g} s"
    return run


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


async def run_conformance(command: list[str], *, game_timeout: float = 600.0,
                          step: float = 20.0) -> list[Outcome]:
    """Every situation against the client ``command`` starts; one Outcome each."""
    outcomes = [await refused(command, code, step) for code in ("join_code", "table_full")]
    outcomes += judged(await scripted_game(command, game_timeout, step))
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
                     help="seconds the whole game may take")
    kit.add_argument("--step", type=seconds(), default=20.0,
                     help="seconds the client has to answer each scripted situation")
    kit.add_argument("command", nargs=argparse.REMAINDER,
                     help="the client's command after --; {host} and {port} are filled in")
    kit.set_defaults(func=_cmd_conformance)
