"""The chaos evening's harness (benchmarks/soak.py and benchmarks/chaos/, `make soak`) kept from
rotting: its draw (a game from its seed alone; a seat's faults playable in their order), its
watch on the record, its judge (who must pay, who may), and one short game of real processes on
127.0.0.1 (a one-round game, three seats) with one seat SIGKILLed and started again, judged as
the evening judges each of its games."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from benchmarks.chaos.draw import FINAL, KINDS, PERSON_ONLY, Fault, GameSpec, Seat, draw_game
from benchmarks.chaos.judge import Outcome
from benchmarks.chaos.watch import RecordWatch
from shanghai_net.table.verify import Report

SOAK = Path(__file__).resolve().parent.parent / "benchmarks" / "soak.py"
SEEDS = [f"{run}-{game}" for run in range(1, 9) for game in range(40)]


def test_a_game_is_drawn_from_its_seed_alone():
    first, again = draw_game("5-3"), draw_game("5-3")
    assert first == again
    assert first != draw_game("5-4")
    assert any(s.person for s in first.seats) and len(first.seats) + first.host_bots \
        == first.players
    assert first.deal_bound == first.rounds + len(first.faults)


def test_sessions_15_and_16s_seeds_play_their_games_again():
    """soak6.log's failed game 6-20: carl's bye and bot2's SIGTERM at deal 3 + 6 discards."""
    game = draw_game("6-20", draw="single")
    assert [(s.name, s.person) for s in game.seats] == [("bot2", False), ("bob", True),
                                                       ("carl", True)]
    assert [(f.kind, f.target, f.deal, f.discards) for f in game.faults] == [
        ("bye", "carl", 3, 6), ("sigterm-rejoin", "bot2", 3, 6)]


def test_a_seats_faults_are_playable_in_their_order():
    """Nothing strikes a seat after a fault whose player is not back, a seat is taken back once
    (protocol.md 11.8), a person's faults strike persons, eve takes one seat, the host dies at
    most twice (five episodes a game too, some of the few kinds that are limited)."""
    games = [draw_game(seed) for seed in SEEDS] + [
        draw_game(seed, kinds, episodes=5) for seed in SEEDS[:40]
        for kinds in (KINDS, ("host-resume",), ("hand-over-person", "take-back"))]
    for game in games:
        seed = game.seed
        people = {s.name for s in game.seats if s.person}
        for target in {f.target for f in game.faults} - {"host"}:
            kinds = [f.kind for f in game.faults if f.target == target]
            assert not FINAL.intersection(kinds[:-1]), (seed, kinds)
            assert kinds.count("take-back") <= 1, (seed, kinds)
            assert target in people or not PERSON_ONLY.intersection(kinds), (seed, kinds)
            assert "host-resume" not in kinds, seed
        assert sum(f.kind == "hand-over-person" for f in game.faults) <= 1, seed
        assert all(f.kind == "host-resume" for f in game.faults if f.target == "host"), seed
        assert sum(f.target == "host" for f in game.faults) <= 2, seed
        assert [f.order() for f in game.faults] == sorted(f.order() for f in game.faults), seed


def test_the_several_draw_has_each_shape():
    """A seat struck three times, two seats struck at one moment, a fault at a round's audit."""
    def drawn(shape):
        return [draw_game(seed, shapes=(shape,), episodes=1) for seed in SEEDS[:40]]

    assert max(max(sum(f.target == t.target for f in g.faults) for t in g.faults)
               for g in drawn("again-and-again")) == 3
    for game in drawn("two-at-once"):
        first, second = game.faults
        assert first.target != second.target and first.order() == second.order(), game
    assert all(len(g.faults) == 1 and g.faults[0].audit for g in drawn("at-the-audit"))
    assert all(len(g.faults) == 1 and not g.faults[0].audit for g in drawn("scattered"))


def test_a_fault_at_the_audit_waits_for_its_deals_first_seeds(tmp_path):
    watch = RecordWatch(tmp_path / "record.bin", 3, 3)
    at_audit = Fault("sigkill-rejoin", "ann", 2, 0, 1.0, audit=True)
    in_play = Fault("sigkill-rejoin", "ann", 2, 5, 1.0)
    watch.started, watch.deal, watch.in_deal = True, 2, 30
    assert watch.reached(in_play) and not watch.reached(at_audit)
    watch.seeds_from = {1}
    assert watch.reached(at_audit)
    watch.deal, watch.in_deal, watch.seeds_from = 1, 40, {0, 2}
    assert not watch.reached(at_audit) and not watch.reached(in_play)


def test_the_game_is_over_for_a_seat_that_showed_its_last_seeds(tmp_path):
    """Soak 8-2: ann (seat 0) said bye at the last round's audit, her seeds in (the game over
    for her): no round was left to void, and no charge was due."""
    watch = RecordWatch(tmp_path / "record.bin", 3, 3)
    watch.seeds, watch.seeds_from = 6, {2, 0}
    assert watch.over_for({0}) and watch.over_for({2}) and not watch.over_for({1})
    watch.seeds, watch.seeds_from = 4, {2, 0}  # round 2's audit: round 3 still to play
    assert not watch.over_for({0})
    watch.seeds, watch.seeds_from = 9, set()
    assert watch.over_for({1})


def judged(tmp_path, faults, charges) -> Outcome:
    spec = GameSpec("0-0", 3, 0, [Seat("ann", True), Seat("bot3", False), Seat("carl", True)],
                    faults)
    out = Outcome(spec, tmp_path, finished=True, charges=charges)
    for seat in spec.seats:
        out._charged(seat.name)
    return out


def struck(kind, target, where="deal 1, discard 3") -> Fault:
    return Fault(kind, target, 1, 3, 1.0, injected=where)


def test_a_seat_pays_once_for_each_time_it_left_for_good(tmp_path):
    """ann was taken back, then quit: two leaves, two charges; one is an undercharge."""
    faults = [struck("take-back", "ann"), struck("bye", "ann", "deal 2, discard 1")]
    assert judged(tmp_path, faults, {"ann": 2}).failures == []
    assert judged(tmp_path, faults, {"ann": 1}).failures == [
        "ann left (take-back, bye) and was charged 1 times"]


def test_a_seat_that_left_a_game_over_for_it_may_pay_nothing(tmp_path):
    bye = struck("bye", "ann", "deal 3, audit (2 seeds in), its last seeds in")
    bye.over = True
    assert judged(tmp_path, [bye], {}).failures == []
    assert judged(tmp_path, [bye], {"ann": 1}).failures == []
    assert judged(tmp_path, [bye], {"ann": 2}).failures == ["ann charged 2 times (bye)"]


def test_a_seat_back_again_and_again_pays_at_most_once_each_time(tmp_path):
    faults = [struck("sigkill-rejoin", "bot3"), struck("sigterm-rejoin", "bot3"),
              struck("sigstop", "bot3")]
    for paid in (0, 1, 2, 3):
        assert judged(tmp_path, faults, {"bot3": paid}).failures == []
    assert judged(tmp_path, faults, {"bot3": 4}).failures == [
        "bot3 charged 4 times (sigkill-rejoin, sigterm-rejoin, sigstop)"]


def test_a_fault_that_never_struck_allows_no_charge(tmp_path):
    """carl's player had gone when his second fault's moment came: it allows no charge."""
    faults = [struck("sigkill-rejoin", "carl"),
              Fault("sigkill-gone", "carl", 3, 0, 1.0, missed="carl's process had ended")]
    assert judged(tmp_path, faults, {"carl": 1}).failures == []
    assert judged(tmp_path, faults, {"carl": 2}).failures == [
        "carl charged 2 times (sigkill-rejoin)"]
    assert judged(tmp_path, faults, {"ann": 1}).failures == [
        "ann charged 1 times (no fault of its own)"]


def test_a_stand_in_voted_gone_is_no_charge_to_its_seat(tmp_path):
    """The soak's game 5-2: bot3 left (charged), its stand-in died with the host and was voted
    gone in the round dealt again, which costs the seat nothing (`Report.unpaid`): the seat
    paid once, though two of its rounds were voided (the evening had said "charged 2 times")."""
    out = Outcome(draw_game("5-2", draw="single"), tmp_path)
    report = Report(game_id=bytes(16), names=("ann", "dee", "bot3", "carl"), preset="davis",
                    messages=1364, moves=604, rounds=3, faces=283, left=((3, 2), (4, 2)),
                    unpaid=frozenset({(4, 2)}))
    out.count_leaves(report)
    assert out.charges == {"bot3": 1} and out.voids == {"bot3": 2}


def test_one_short_game_with_a_seat_killed_and_back(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SOAK), "--games", "1", "--seed", "3", "--players", "3",
         "--rounds", "1", "--episodes", "1", "--shapes", "scattered",
         "--kinds", "sigkill-rejoin", "--jobs", "1", "--work", str(tmp_path)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    row = re.search(r"^sigkill-rejoin" + r" +(\d+)" * 9 + "$", done.stdout, re.MULTILINE)
    assert row is not None, done.stdout
    injected, games, finished, voided, charged, named, _, verified, failed = map(int, row.groups())
    assert (injected, games, finished, named, verified, failed) == (1, 1, 1, 0, 1, 0), done.stdout
    assert charged <= 1 and voided <= 1
    record = tmp_path / "3-0" / "record.bin"
    assert record.exists()
    assert any((tmp_path / "3-0" / "logs").glob("*.2.log")), \
        "the killed seat was never started again"
