"""A chaos evening (issue 42): whole games between real processes on 127.0.0.1 while seats are
killed, stopped, leave, rejoin, hand over and take back, and the host is killed and resumed.

    python benchmarks/soak.py --games 30 --seed 1     # `make soak`
    python benchmarks/soak.py --replay 1-17           # the 18th game of seed 1 again

Each game is drawn from its own seed (``SEED-INDEX``): 3 or 4 seats, each a ``shanghai bot``
process or a *person* (this script's ``person`` command: a `NetSession`, the console's own
session, played headless by a basic bot's choices with a person's habits: it thinks a moment
before each move, lets some claim windows run out, votes `V` when a seat has been away a while,
and takes commands on its stdin: ``bye`` as ``q`` ``y`` does, ``handover bot`` as ``B``,
``handover person`` as ``H``), sometimes a bot the host runs itself (``--bots 1``), and one or two
faults, each at a moment drawn from the seed (the deal, and how many discards into it):

- ``sigkill-rejoin``, ``sigterm-rejoin``: the seat's process is killed so and started again with
  the same identity 0.5 to 4 s later (it rejoins its seat);
- ``sigkill-gone``: killed, and never back (the table votes it gone; a stand-in plays on);
- ``sigstop``: stopped for 1 to 4 s (less than half the vote's wait), then continued;
- ``bye``: a person quits (`bye`) and does not come back;
- ``hand-over-bot``, ``hand-over-person``: a person hands the seat to a bot it starts, or to a
  person who joined with ``--take-over`` and offers;
- ``take-back``: the seat leaves (`bye`, or SIGKILL), is voted gone, the stand-in plays, and the
  seat's player starts again with the same identity and takes the seat back at a deal;
- ``host-resume``: the host is SIGKILLed and ``shanghai host --resume RECORD`` started 0.5 to 3 s
  later on the same port; every seat reconnects.

Games are short: the contracts ``2s,1s1r,2r`` (three rounds; the last not melded all at once;
at most 300 turns a round), claim windows of 1 s, votes after 10 s away.  Each game is supervised: it must end (the host exits 0 with ``game over``) within
`time_bound` seconds and `deal_bound` deals (its rounds, plus one re-deal for each fault: a
leave voids at most its own round); its record must pass ``shanghai verify``; nobody may be
named (every party is honest); a seat that quit or was gone for good is charged the leave
penalty exactly once, a seat killed or stopped and back at most once, and a seat whose only
trouble was a hand-over or the host's crash never.  The run prints a table of the faults
injected and the outcomes, and exits 1 if any invariant failed, naming the game's seed, its
record and the directory of its logs (kept).

Two games at once (``--jobs``: a game mostly waits), 30 games took 18 and 20 minutes on a
2-core machine shared with other work (load 6 to 16), 20 s to 4 minutes a game.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout this script is in

SHANGHAI = [sys.executable, "-m", "shanghai_net.cli"]
CONTRACTS = ("2s", "1s1r", "2r")
HOUSE_RULES = ("final_round_meld_all=false", "max_turns=300")
"""Davis melds its last round all at once, which bots seldom manage with two runs: a round of
minutes; and no round goes past 300 turns (it is scored as it stands)."""
CLAIM_TIMEOUT = 1.0
VOTE_AFTER = 10.0
"""Seconds a seat is away before the bots (``--void-after``) and the persons vote."""

KINDS = ("sigkill-rejoin", "sigterm-rejoin", "sigkill-gone", "sigstop", "bye", "hand-over-bot",
         "hand-over-person", "take-back", "host-resume")
PERSON_ONLY = {"bye", "hand-over-bot", "hand-over-person"}
ABSENT_ONCE = {"sigkill-gone", "bye", "take-back"}
"""Faults after which the seat must pay the leave penalty exactly once."""
ABSENT_MAYBE = {"sigkill-rejoin", "sigterm-rejoin", "sigstop"}
"""Faults after which the seat may pay it once (the vote may come before it is back)."""
NAMES = ("ann", "bob", "carl", "dee")


# -- what a game is ----------------------------------------------------------------------------

@dataclass
class Seat:
    name: str
    person: bool


@dataclass
class Fault:
    kind: str
    target: str  # a seat's name, or "host"
    deal: int
    discards: int
    pause: float
    injected: str = ""
    """Where it struck ("deal 2, discard 7"); empty: the game ended first."""


@dataclass
class GameSpec:
    seed: str
    players: int
    host_bots: int
    seats: list[Seat]
    faults: list[Fault]
    rounds: int = len(CONTRACTS)

    @property
    def time_bound(self) -> float:
        """Seconds the game may take: a quiet game takes 20 to 60 s on a busy 2-core machine,
        a vote 10 s, a rejoin after a host's crash up to 15 s."""
        return 150.0 + 90.0 * len(self.faults)

    @property
    def deal_bound(self) -> int:
        return self.rounds + len(self.faults)

    def describe(self) -> str:
        seats = ", ".join(f"{s.name} ({'person' if s.person else 'bot'})" for s in self.seats)
        if self.host_bots:
            seats += ", the host's bot1"
        faults = "; ".join(f"{f.kind} of {f.target} at deal {f.deal} + {f.discards} discards"
                           for f in self.faults)
        return f"{self.players} seats: {seats}; {faults}"


def draw_game(seed: str, kinds: tuple[str, ...] = KINDS, faults: int | None = None,
              players: int | None = None, rounds: int = len(CONTRACTS)) -> GameSpec:
    """The game of ``seed``: its seats and its faults, each at a moment drawn from it."""
    rng = random.Random(seed)
    players = players or rng.choice((3, 4))
    host_bots = 1 if rng.random() < 0.25 else 0
    count = players - host_bots
    people = [rng.random() < 0.5 for _ in range(count)]
    people[rng.randrange(count)] = True  # a person at every table, and a bot process too
    if count > 1 and all(people):
        people[rng.choice([i for i in range(count) if i != people.index(True)])] = False
    seats = [Seat(NAMES[i] if person else f"bot{i + 2}", person)  # the host's own is bot1
             for i, person in enumerate(people)]
    chosen: list[Fault] = []
    for _ in range(faults or rng.choice((1, 1, 2))):
        taken = {f.target for f in chosen}
        options = [k for k in kinds if (k != "host-resume" or "host" not in taken) and any(
            s.name not in taken and (s.person or k not in PERSON_ONLY) for s in seats)]
        if not options:
            break
        kind = rng.choice(options)
        target = "host" if kind == "host-resume" else rng.choice(
            [s.name for s in seats if s.name not in taken and (s.person or kind not in PERSON_ONLY)])
        pause = {"sigstop": rng.uniform(1, VOTE_AFTER * 0.4),
                 "host-resume": rng.uniform(0.5, 3)}.get(kind, rng.uniform(0.5, 4))
        chosen.append(Fault(kind, target, rng.randint(1, rounds), rng.randint(0, 30), pause))
    chosen.sort(key=lambda f: (f.deal, f.discards))
    return GameSpec(seed, players, host_bots, seats, chosen, rounds)


# -- the game's progress, read from the host's record as it grows -------------------------------

class RecordWatch:
    """How far the game has come, from the record's frames (decoded, not verified: cheap): the
    deal (1 + rounds whose seeds every seat showed + rounds voided by a vote) and the discards
    in it.  A resumed host may cut a torn frame: the record is then read again from its start."""

    def __init__(self, path: Path, players: int) -> None:
        self.path, self.players = path, players
        self._reset()

    def _reset(self) -> None:
        from shanghai_net.wire import FrameDecoder

        self._decoder, self._offset = FrameDecoder(), 0
        self.seeds, self.discards, self.in_deal = 0, 0, 0
        self.votes: dict[tuple[int, int], set[int]] = {}
        self.voided: set[tuple[int, int]] = set()
        self.deal = 1
        self.started = False

    def poll(self) -> None:
        from shanghai_net.wire import decode_message
        from shanghai_net.wire.messages import GameMessage

        try:
            size = self.path.stat().st_size
        except OSError:
            return
        if size < self._offset:
            self._reset()
        with open(self.path, "rb") as stream:
            stream.seek(self._offset)
            data = stream.read(size - self._offset)
        if not data:  # no news (empty data would tell the decoder the stream ended)
            return
        self._offset += len(data)
        self._decoder.receive_data(data)
        while (frame := self._decoder.next_frame()) is not None:
            msg = decode_message(frame)
            self.started = True
            if not isinstance(msg, GameMessage):
                continue
            kind = type(msg.body).__name__
            if kind == "Discard":
                self.discards += 1
                self.in_deal += 1
            elif kind == "Deal" and msg.body.step == "seeds":
                self.seeds += 1
            elif kind == "VoidRound":
                key = (msg.body.round, msg.body.seat)
                self.votes.setdefault(key, set()).add(msg.author)
                if len(self.votes[key]) * 2 > self.players:
                    self.voided.add(key)
            deal = 1 + self.seeds // self.players + len(self.voided)
            if deal != self.deal:
                self.deal, self.in_deal = deal, 0

    def reached(self, deal: int, discards: int) -> bool:
        return self.started and (self.deal > deal or (self.deal == deal and
                                                       self.in_deal >= discards))


# -- one game's processes ---------------------------------------------------------------------

@dataclass
class Outcome:
    spec: GameSpec
    work: Path
    seconds: float = 0.0
    finished: bool = False
    verified: bool = False
    deals: int = 0
    charges: dict[str, int] = field(default_factory=dict)
    """Seat name (as it started) -> leave penalties charged to the seat."""
    voids: dict[str, int] = field(default_factory=dict)
    """Seat name, or "audit" -> rounds voided for it."""
    named: list[str] = field(default_factory=list)
    taken_back: list[str] = field(default_factory=list)
    """The seats whose player took them back from a stand-in."""
    protests: int = 0
    failures: list[str] = field(default_factory=list)
    verdict: str = ""

    @property
    def record(self) -> Path:
        return self.work / "record.bin"

    def count_leaves(self, report) -> None:
        """Each leave in the verified record (`Report.left`) voids a round of its seat, and
        charges the seat unless it cost the seat nothing (`Report.unpaid`: the host's stand-in
        voted gone, say one that died with the host, or a seat charged for its silence voted
        gone before it signed again)."""
        for leave in report.left:
            name = report.names[leave[1]]
            self.voids[name] = self.voids.get(name, 0) + 1
            if leave not in report.unpaid:
                self.charges[name] = self.charges.get(name, 0) + 1


class Game:
    """One game of a `GameSpec`: the host, the seats' processes, the faults (a thread each),
    and the supervision: the time bound, then verify and the invariants."""

    def __init__(self, spec: GameSpec, work: Path, slow: float = 1.0) -> None:
        self.spec, self.work, self.slow = spec, work, slow
        self.logs = work / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, "XDG_CONFIG_HOME": str(work / "config"),
                    "XDG_DATA_HOME": str(work / "data"), "PYTHONUNBUFFERED": "1"}
        self.lock = threading.RLock()
        self.procs: dict[str, subprocess.Popen] = {}
        self.started: dict[str, int] = {}
        self.host: subprocess.Popen | None = None
        self.port = 0
        self.restarting = False
        self.over = threading.Event()
        self.outcome = Outcome(spec, work)
        self.watch = RecordWatch(self.outcome.record, spec.players)
        self.notes: list[str] = []

    # -- processes --

    def _spawn(self, name: str, argv: list[str], stdin: bool = False) -> subprocess.Popen:
        with self.lock:
            number = self.started[name] = self.started.get(name, 0) + 1
            log = open(self.logs / f"{name}.{number}.log", "w")
            proc = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=log,
                                    stderr=subprocess.STDOUT, text=True,
                                    stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
            log.close()
            return proc

    def start_host(self, resume: bool) -> None:
        argv = SHANGHAI + ["host", "--bind", "127.0.0.1", "--port", str(self.port),
                           "--no-console", "--no-announce", "--claim-timeout", str(CLAIM_TIMEOUT)]
        if resume:
            argv += ["--resume", str(self.outcome.record)]
        else:
            argv += ["--players", str(self.spec.players), "--bots", str(self.spec.host_bots),
                     "--rule", f"contracts={','.join(CONTRACTS[:self.spec.rounds])}",
                     "--record", str(self.outcome.record)]
            for rule in HOUSE_RULES:
                argv += ["--rule", rule]
        self.host = self._spawn("host", argv)
        log = self.logs / f"host.{self.started['host']}.log"
        deadline = time.monotonic() + 30 * self.slow
        while not self.port:
            found = re.search(r"on port (\d+)", log.read_text())
            if found:
                self.port = int(found.group(1))
            elif self.host.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the host did not say its port: {log.read_text()[-2000:]}")
            else:
                time.sleep(0.1)

    def start_seat(self, seat: Seat, take_over: bool = False) -> None:
        home = self.work / "homes" / seat.name
        address = f"127.0.0.1:{self.port}"
        if seat.person:
            argv = [sys.executable, str(Path(__file__).resolve()), "person", address,
                    "--home", str(home), "--name", seat.name,
                    "--seed", f"{self.spec.seed} {seat.name} {self.started.get(seat.name, 0)}"]
            argv += ["--take-over"] if take_over else []
        else:
            argv = SHANGHAI + ["bot", address, "--name", seat.name, "--identity", str(home),
                               "--think", "0", "--void-after", str(VOTE_AFTER)]
        proc = self._spawn(seat.name, argv, stdin=seat.person)
        with self.lock:
            self.procs[seat.name] = proc

    def tell(self, name: str, command: str) -> None:
        proc = self.procs[name]
        try:
            proc.stdin.write(command + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.notes.append(f"{name} was gone before {command!r}")

    # -- faults --

    def _wait(self, condition) -> bool:
        """Wait until ``condition()`` (True) or the game is over (False)."""
        while not self.over.is_set():
            if condition():
                return True
            time.sleep(0.1)
        return False

    def _fault(self, fault: Fault) -> None:
        watch = self.watch
        if not self._wait(lambda: watch.reached(fault.deal, fault.discards)):
            return
        fault.injected = f"deal {watch.deal}, discard {watch.in_deal}"
        seat = next((s for s in self.spec.seats if s.name == fault.target), None)
        kind = fault.kind
        if kind == "host-resume":
            with self.lock:
                self.restarting = True
                self.host.kill()
                self.host.wait()
            time.sleep(fault.pause)
            try:
                self.start_host(resume=True)
            finally:
                self.restarting = False
        elif kind in ("sigkill-rejoin", "sigterm-rejoin", "sigkill-gone"):
            proc = self.procs[seat.name]
            proc.send_signal(signal.SIGTERM if kind == "sigterm-rejoin" else signal.SIGKILL)
            proc.wait()
            if kind != "sigkill-gone":
                time.sleep(fault.pause)
                self.start_seat(seat)
        elif kind == "sigstop":
            proc = self.procs[seat.name]
            proc.send_signal(signal.SIGSTOP)
            time.sleep(fault.pause)
            proc.send_signal(signal.SIGCONT)
        elif kind == "bye":
            self.tell(seat.name, "bye")
        elif kind == "hand-over-bot":
            self.tell(seat.name, "handover bot")
        elif kind == "hand-over-person":
            self.start_seat(Seat("eve", True), take_over=True)
            self.tell(seat.name, "handover person")
        elif kind == "take-back":
            self._take_back(seat, fault)

    def _take_back(self, seat: Seat, fault: Fault) -> None:
        """Leave (a person says bye; a bot is killed), wait until the table voted the seat gone
        and a deal after it has begun, then come back with the same identity."""
        proc = self.procs[seat.name]
        if seat.person:
            self.tell(seat.name, "bye")
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        else:
            proc.kill()
        proc.wait()
        watch = self.watch
        voided = lambda: any(key[1] in self._seats_of(seat.name) for key in watch.voided)
        if not self._wait(voided):
            return
        later = watch.discards + 2 + int(fault.pause)
        if self._wait(lambda: watch.discards >= later):
            self.start_seat(seat)

    def _seats_of(self, name: str) -> set[int]:
        """The seat numbers the game's start gave ``name`` (read from the record)."""
        from shanghai_net.net.transcript import read_record

        try:
            start = read_record(self.outcome.record)[0][0]
        except Exception:
            return set()
        return {s.seat for s in start.seats if s.name == name}

    # -- the game --

    def run(self) -> Outcome:
        out, spec = self.outcome, self.spec
        began = time.monotonic()
        self.start_host(resume=False)
        for seat in spec.seats:
            self.start_seat(seat)
        threads = [threading.Thread(target=self._guard, args=(f,), daemon=True)
                   for f in spec.faults]
        for thread in threads:
            thread.start()
        bound = spec.time_bound * self.slow
        while True:
            self.watch.poll()
            with self.lock:
                ended = self.host.poll() is not None and not self.restarting
            if ended:
                break
            if time.monotonic() - began > bound:
                out.failures.append(f"not over within {bound:.0f} s (deal {self.watch.deal})")
                with self.lock:
                    self.host.kill()  # the seats then end as they do when a host is gone
                break
            time.sleep(0.3)
        self.over.set()
        for thread in threads:
            thread.join(timeout=30)
        out.seconds = time.monotonic() - began
        self._stop_all(note=self.host.poll() == 0)
        host_log = self.logs / f"host.{self.started['host']}.log"
        said = host_log.read_text()
        out.finished = self.host.returncode == 0 and "game over" in said
        if not out.finished and not out.failures:
            out.failures.append(f"the host exited {self.host.returncode}: "
                                f"{said.strip().splitlines()[-1] if said.strip() else ''}")
        self._judge()
        return out

    def _guard(self, fault: Fault) -> None:
        try:
            self._fault(fault)
        except Exception as error:  # the harness's own trouble: reported, not hidden
            self.outcome.failures.append(f"the harness failed injecting {fault.kind}: {error!r}")

    def _stop_all(self, note: bool) -> None:
        """The seats get 30 s to end after the host did; what is left is stopped (and, after
        a game that ended well, ``note``, said)."""
        deadline = time.monotonic() + (30 * self.slow if note else 0)
        with self.lock:
            procs = dict(self.procs)
        for name, proc in procs.items():
            proc.send_signal(signal.SIGCONT) if proc.poll() is None else None
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                if note:
                    self.notes.append(f"{name} still ran 30 s after the host ended")
        if self.host.poll() is None:
            self.host.kill()
            self.host.wait()

    def _judge(self) -> None:
        """Verify the record, and hold the game to the invariants."""
        from shanghai_net.net.transcript import read_record
        from shanghai_net.table.verify import verify

        out, spec = self.outcome, self.spec
        if not out.record.exists():
            out.failures.append("no record: the game never started")
            return
        cli = subprocess.run(SHANGHAI + ["verify", str(out.record)], cwd=ROOT, env=self.env,
                             capture_output=True, text=True)
        out.verdict = cli.stdout.strip().splitlines()[-1] if cli.stdout.strip() else cli.stderr
        out.verified = cli.returncode == 0
        (self.logs / "verify.txt").write_text(cli.stdout + cli.stderr)
        if not out.verified:
            out.failures.append(f"shanghai verify refused the record: {out.verdict}")
        messages, torn = read_record(out.record)
        report = verify(messages, torn)
        names = report.names
        for seat, holder in enumerate(report.holders):
            if holder.before is not None and holder.sign_key == messages[0].seats[seat].sign_key:
                out.taken_back.append(names[seat])
        out.count_leaves(report)
        if report.voided is not None:
            out.voids["audit"] = 1
        out.deals = report.scored + len(report.left) + (report.voided is not None)
        if report.fault is not None and not report.fault.ending and report.fault.culprit is not None:
            who = "the host" if report.fault.culprit >= len(names) else names[report.fault.culprit]
            out.named.append(who)
            out.failures.append(f"{who} named: {report.fault}")
        out.protests = len(report.protests)
        if out.deals > spec.deal_bound:
            out.failures.append(f"{out.deals} deals, over the bound of {spec.deal_bound}")
        for seat in spec.seats + ([Seat("bot1", False)] if spec.host_bots else []):
            struck = [f for f in spec.faults if f.target == seat.name and f.injected]
            paid = out.charges.get(seat.name, 0)
            must = sum(f.kind in ABSENT_ONCE for f in struck)
            may = must + sum(f.kind in ABSENT_MAYBE for f in struck)
            if paid > may:
                why = ", ".join(f.kind for f in struck) or "no fault of its own"
                out.failures.append(f"{seat.name} charged {paid} times ({why})")
            elif paid < must and out.finished:
                out.failures.append(f"{seat.name} left ({', '.join(f.kind for f in struck)}) "
                                    f"and was charged {paid} times")


# -- the person: the console's session, played headless ----------------------------------------

def person(argv: list[str]) -> int:
    """A person's seat: `NetSession` (what the console drives), a basic bot's choices with a
    person's habits; commands on stdin (``bye``, ``handover bot``, ``handover person``)."""
    import trio

    from shanghai_net.cli.net import address
    from shanghai_net.engine.moves import MayI, PassClaim
    from shanghai_net.identity import load_or_create
    from shanghai_net.net.player import BotPlayer
    from shanghai_net.net.resume import GameSecrets
    from shanghai_net.net.session import NetSession

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
        nonlocal shown
        for entry in session.log[shown:]:
            print(f"{time.strftime('%H:%M:%S')} {entry.text}", flush=True)
        shown = len(session.log)

    session.subscribe(show)

    async def play() -> None:
        """Moves, one at a time (a move waits until the host sequenced it)."""
        chooser = BotPlayer("basic", rng)
        silent_on = None
        while not session.over:
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
        await trio.sleep(rng.uniform(0.2, 1.5))  # reads the final table a moment, then quits
        await session.leave()

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


# -- the evening ------------------------------------------------------------------------------

def table(outcomes: list[Outcome]) -> str:
    """Per fault kind: injected, games, finished, rounds voided, leave charges, seats named,
    protests of the host's timeouts (the game goes on), records verify accepted (a game counts
    once in each kind it had)."""
    header = f"{'fault':<17}{'injected':>9}{'games':>7}{'finished':>10}{'voided':>8}" \
             f"{'charged':>9}{'named':>7}{'protests':>10}{'verified':>10}{'failed':>8}"
    lines = [header, "-" * len(header)]

    def row(label: str, kinds) -> str:
        games = [o for o in outcomes if any(f.kind in kinds and f.injected for f in o.spec.faults)]
        injected = sum(f.kind in kinds and bool(f.injected) for o in outcomes
                       for f in o.spec.faults)
        voided = charged = 0
        for o in outcomes:
            targets = {f.target for f in o.spec.faults if f.kind in kinds and f.injected}
            voided += sum(n for who, n in o.voids.items() if who in targets) + (
                o.voids.get("audit", 0) if targets else 0)
            charged += sum(n for who, n in o.charges.items() if who in targets)
        return (f"{label:<17}{injected:>9}{len(games):>7}{sum(o.finished for o in games):>10}"
                f"{voided:>8}{charged:>9}{sum(len(o.named) for o in games):>7}"
                f"{sum(o.protests for o in games):>10}"
                f"{sum(o.verified for o in games):>10}{sum(bool(o.failures) for o in games):>8}")

    lines += [row(kind, {kind}) for kind in KINDS]
    lines.append("-" * len(header))
    total = row("all", set(KINDS))
    unstruck = sum(n for o in outcomes for who, n in o.charges.items()
                   if who not in {f.target for f in o.spec.faults if f.injected})
    lines.append(total)
    lines.append(f"games {len(outcomes)}, finished {sum(o.finished for o in outcomes)}, "
                 f"verified {sum(o.verified for o in outcomes)}, failed "
                 f"{sum(bool(o.failures) for o in outcomes)}; faults not reached (the game "
                 f"ended first) {sum(not f.injected for o in outcomes for f in o.spec.faults)}; "
                 f"charges to seats with no fault {unstruck}; seats taken back "
                 f"{sum(len(o.taken_back) for o in outcomes)}; deals per game at most "
                 f"{max((o.deals for o in outcomes), default=0)} (bound: rounds + faults)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["person"]:
        return person(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--replay", metavar="SEED-INDEX", help="play that one game again")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="the fault kinds drawn from (comma-separated)")
    parser.add_argument("--faults", type=int, help="faults per game (default: 1 or 2)")
    parser.add_argument("--players", type=int, choices=(3, 4), help="seats (default: 3 or 4)")
    parser.add_argument("--rounds", type=int, choices=range(1, len(CONTRACTS) + 1),
                        default=len(CONTRACTS), help="rounds a game (the first contracts of "
                                                     f"{','.join(CONTRACTS)})")
    parser.add_argument("--jobs", type=int, default=2,
                        help="games at once (a game mostly waits: for claim windows, votes, "
                             "reconnections)")
    parser.add_argument("--slow", type=float, default=1.0,
                        help="multiply the time bounds (a loaded machine)")
    parser.add_argument("--work", help="keep every game's record and logs here (default: a "
                                       "temporary directory, kept only for failed games)")
    args = parser.parse_args(argv)
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"--kinds: no such fault {', '.join(sorted(unknown))}: {', '.join(KINDS)}")
    seeds = [args.replay] if args.replay else [f"{args.seed}-{i}" for i in range(args.games)]
    base = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="shanghai-soak-"))
    began, load = time.monotonic(), os.getloadavg()
    print(f"soak: {len(seeds)} games from seed {args.seed!r}, contracts "
          f"{','.join(CONTRACTS[:args.rounds])}, claim "
          f"windows {CLAIM_TIMEOUT:g} s, votes after {VOTE_AFTER:g} s, {args.jobs} at once; "
          f"work in {base}; load "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}", flush=True)

    def play(seed: str) -> Outcome:
        spec = draw_game(seed, kinds, args.faults, args.players, args.rounds)
        work = base / seed
        shutil.rmtree(work, ignore_errors=True)
        game = Game(spec, work, args.slow)
        try:
            out = game.run()
        except Exception as error:
            out = game.outcome
            out.failures.append(f"the harness failed: {error!r}")
            game.over.set()
            with game.lock:
                for proc in list(game.procs.values()) + [game.host]:
                    if proc is not None and proc.poll() is None:
                        proc.kill()
        struck = "; ".join(f"{f.kind} {f.target} at {f.injected or 'never (over first)'}"
                           for f in spec.faults)
        print(f"game {seed}: {'FAILED' if out.failures else 'ok'} in {out.seconds:.0f} s, "
              f"{out.deals} deals; {struck}; charged {out.charges or 'nobody'}; "
              + (f"taken back by {', '.join(out.taken_back)}; " if out.taken_back else "") +
              f"verify: {out.verdict}" + "".join(f"\n    {x}" for x in out.failures + game.notes),
              flush=True)
        if not out.failures and not args.work:
            shutil.rmtree(work, ignore_errors=True)
        return out

    with ThreadPoolExecutor(args.jobs) as pool:
        outcomes = list(pool.map(play, seeds))
    elapsed = time.monotonic() - began
    load = os.getloadavg()
    print()
    print(table(outcomes))
    print(f"run: {elapsed / 60:.1f} min for {len(outcomes)} games "
          f"({elapsed / max(1, len(outcomes)):.0f} s a game); load at the end "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; {os.cpu_count()} cores")
    failed = [o for o in outcomes if o.failures]
    shaping = "".join(f" --{name} {value}" for name, value, default in (
        ("kinds", ",".join(kinds), ",".join(KINDS)), ("faults", args.faults, None),
        ("players", args.players, None), ("rounds", args.rounds, len(CONTRACTS)))
        if value != default)
    for o in failed:
        print(f"FAILED game {o.spec.seed} ({o.spec.describe()}): {'; '.join(o.failures)}\n"
              f"    record {o.record}, logs {o.work / 'logs'}\n"
              f"    replay: python benchmarks/soak.py --replay {o.spec.seed}{shaping}")
    if not args.work and not any(base.iterdir()):
        base.rmdir()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
