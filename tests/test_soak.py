"""The chaos evening's harness (benchmarks/soak.py, `make soak`) kept from rotting: one short game
of real processes on 127.0.0.1 (a one-round game, three seats) with one seat SIGKILLed and
started again, judged as the evening judges each of its games."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from shanghai_net.table.verify import Report

SOAK = Path(__file__).resolve().parent.parent / "benchmarks" / "soak.py"


def soak_module():
    spec = importlib.util.spec_from_file_location("soak", SOAK)
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_game_is_drawn_from_its_seed_alone():
    soak = soak_module()
    first, again = soak.draw_game("5-3"), soak.draw_game("5-3")
    assert first == again
    assert first != soak.draw_game("5-4")
    assert any(s.person for s in first.seats) and len(first.seats) + first.host_bots \
        == first.players
    assert first.deal_bound == first.rounds + len(first.faults)


def test_one_short_game_with_a_seat_killed_and_back(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SOAK), "--games", "1", "--seed", "3", "--players", "3",
         "--rounds", "1", "--faults", "1", "--kinds", "sigkill-rejoin", "--jobs", "1",
         "--work", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    row = re.search(r"^sigkill-rejoin" + r" +(\d+)" * 9 + "$", done.stdout, re.MULTILINE)
    assert row is not None, done.stdout
    injected, games, finished, voided, charged, named, _, verified, failed = map(int, row.groups())
    assert (injected, games, finished, named, verified, failed) == (1, 1, 1, 0, 1, 0), done.stdout
    assert charged <= 1 and voided <= 1
    record = tmp_path / "3-0" / "record.bin"
    assert record.exists()
    assert (tmp_path / "3-0" / "logs" / "bot1.2.log").exists() or \
        any((tmp_path / "3-0" / "logs").glob("*.2.log")), "the killed seat was never started again"


def test_a_stand_in_voted_gone_is_no_charge_to_its_seat(tmp_path):
    """The soak's game 5-2: bot3 left (charged), its stand-in died with the host and was voted
    gone in the round dealt again, which costs the seat nothing (`Report.unpaid`): the seat
    paid once, though two of its rounds were voided (the evening had said "charged 2 times")."""
    soak = soak_module()
    out = soak.Outcome(soak.draw_game("5-2"), tmp_path)
    report = Report(game_id=bytes(16), names=("ann", "dee", "bot3", "carl"), preset="davis",
                    messages=1364, moves=604, rounds=3, faces=283, left=((3, 2), (4, 2)),
                    unpaid=frozenset({(4, 2)}))
    out.count_leaves(report)
    assert out.charges == {"bot3": 1} and out.voids == {"bot3": 2}
