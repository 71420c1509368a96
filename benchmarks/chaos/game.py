"""One game of the chaos evening on real processes: the host, the seats, the faults (a thread for
each target, striking its faults in their order), and the supervision: the time bound, then
``shanghai verify`` and the judge."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from .draw import CLAIM_TIMEOUT, CONTRACTS, HOUSE_RULES, VOTE_AFTER, Fault, GameSpec, Seat
from .judge import Outcome
from .watch import RecordWatch

ROOT = Path(__file__).resolve().parent.parent.parent
SOAK = ROOT / "benchmarks" / "soak.py"
SHANGHAI = [sys.executable, "-m", "shanghai_net.cli"]
POLL = 0.05
"""Seconds between reads of the record: a fault at a round's audit has a moment to strike in."""


class Game:
    """One game of a `GameSpec`, played in ``work`` (the record, the seats' homes, the logs)."""

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
        self.watch = RecordWatch(self.outcome.record, spec.players, spec.rounds)
        self.restarted: dict[str, int] = {}
        """Seat name -> the record's last seq when the harness last started its program again."""
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
            # said either way: the host's own default may change (docs/dealing.md)
            argv += ["--sharing", "default" if self.spec.sharing else "off"]
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
            argv = [sys.executable, str(SOAK), "person", address,
                    "--home", str(home), "--name", seat.name,
                    "--seed", f"{self.spec.seed} {seat.name} {self.started.get(seat.name, 0)}"]
            argv += ["--take-over"] if take_over else []
        else:
            argv = SHANGHAI + ["bot", address, "--name", seat.name, "--identity", str(home),
                               "--think", "0", "--void-after", str(VOTE_AFTER)]
        proc = self._spawn(seat.name, argv, stdin=seat.person)
        with self.lock:
            if seat.name in self.procs:
                self.restarted[seat.name] = self.watch.last_seq
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
            time.sleep(POLL)
        return False

    def _strike_all(self, faults: list[Fault]) -> None:
        """One target's faults, each once the one before it is done (a harness's trouble is
        reported, not hidden)."""
        for fault in faults:
            try:
                self._fault(fault)
            except Exception as error:
                self.outcome.failures.append(
                    f"the harness failed injecting {fault.kind} of {fault.target}: {error!r}")

    def _fault(self, fault: Fault) -> None:
        watch = self.watch
        if not self._wait(lambda: watch.reached(fault) and self._back(fault.target)):
            return
        seat = next((s for s in self.spec.seats if s.name == fault.target), None)
        with self.lock:
            proc = self.procs.get(fault.target) if seat else self.host
        if proc.poll() is not None:  # a seat's return refused, say, or the game just over
            fault.missed = f"{fault.target}'s process had ended (exit {proc.returncode})"
            self.notes.append(f"{fault.kind} of {fault.target} at {watch.where()}: "
                              f"{fault.missed}")
            return
        fault.injected = watch.where()
        if watch.at_last_audit():
            fault.over = True
            fault.injected += ", the last round's"
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
            proc.send_signal(signal.SIGTERM if kind == "sigterm-rejoin" else signal.SIGKILL)
            proc.wait()
            if kind != "sigkill-gone":
                time.sleep(fault.pause)
                self.start_seat(seat)
        elif kind == "sigstop":
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
            self._take_back(seat, proc, fault)

    def _back(self, name: str) -> bool:
        """Whether a seat's program the harness started again is back in the game (it signed
        since), or ended: its next fault strikes a player at the table, not a program still
        starting (soak 12-11: a game of bots ran on, and two faults struck two programs of
        bob's before either had said a word)."""
        with self.lock:
            since, proc = self.restarted.get(name), self.procs.get(name)
        return since is None or proc is None or proc.poll() is not None or \
            self.watch.signed_since(self._seats_of(name), since)

    def _take_back(self, seat: Seat, proc: subprocess.Popen, fault: Fault) -> None:
        """Leave (a person says bye; a bot is killed), wait until the table voted the seat gone
        (a vote after this leave: the seat may have been voted gone before) and a couple of
        discards more, then come back with the same identity."""
        voided = self.watch.voids_of(self._seats_of(seat.name))
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
        if not self._wait(lambda: watch.voids_of(self._seats_of(seat.name)) > voided):
            return
        later = watch.discards + 2 + int(fault.pause)
        if self._wait(lambda: watch.discards >= later):
            self.start_seat(seat)

    def _seats_of(self, name: str) -> set[int]:
        """The seat numbers the game's start gave ``name`` (as the watch read it)."""
        table = self.watch.table
        return set() if table is None else \
            {s.seat for s in table.start_game.seats if s.name == name}

    # -- the game --

    def run(self) -> Outcome:
        out, spec = self.outcome, self.spec
        began = time.monotonic()
        self.start_host(resume=False)
        for seat in spec.seats:
            self.start_seat(seat)
        targets: dict[str, list[Fault]] = {}
        for fault in spec.faults:
            targets.setdefault(fault.target, []).append(fault)
        threads = [threading.Thread(target=self._strike_all, args=(faults,), daemon=True)
                   for faults in targets.values()]
        for thread in threads:
            thread.start()
        seen, moved = self.watch.last_seq, began
        while True:
            self.watch.poll()
            bound = spec.time_bound_at(self.watch.discards) * self.slow
            if self.watch.last_seq != seen:
                seen, moved = self.watch.last_seq, time.monotonic()
            with self.lock:
                ended = self.host.poll() is not None and not self.restarting
            if ended:
                break
            if time.monotonic() - began > bound:
                out.failures.append(
                    f"not over within {bound:.0f} s (deal {self.watch.deal}; nothing new for "
                    f"{time.monotonic() - moved:.0f} s: {self.watch.waiting()})")
                with self.lock:
                    self.host.kill()  # the seats then end as they do when a host is gone
                break
            time.sleep(POLL)
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
        self._verify()
        return out

    def abandon(self, error: Exception) -> Outcome:
        """The harness failed: said, and every process of the game stopped."""
        self.outcome.failures.append(f"the harness failed: {error!r}")
        self.over.set()
        with self.lock:
            for proc in list(self.procs.values()) + [self.host]:
                if proc is not None and proc.poll() is None:
                    proc.kill()
        return self.outcome

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
                    self.outcome.lingered.append(name)
        if self.host.poll() is None:
            self.host.kill()
            self.host.wait()

    def _verify(self) -> None:
        """``shanghai verify`` on the record, then the judge on what it reports."""
        from shanghai_net.net.transcript import read_record
        from shanghai_net.table.verify import verify

        out = self.outcome
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
        self.watch.poll()  # the whole record: the seats the table lost mid-round (R1)
        if self.watch.broken:
            self.notes.append(f"the watch stopped following the record at {self.watch.broken}")
        out.judge(messages[0], verify(messages, torn), self.watch.losses())
        out.void_causes = list(self.watch.void_causes)
