"""A chaos evening (issue 42): whole games between real processes on 127.0.0.1 while seats are
killed, stopped, leave, rejoin, hand over and take back, and the host is killed and resumed.

    python benchmarks/soak.py --games 30 --seed 1     # `make soak`
    python benchmarks/soak.py --replay 10-17          # the 18th game of seed 10 again
    python benchmarks/soak.py --replay 8-11 --draw several  # a game of sessions 17 and 18 (seeds 7-9)
    python benchmarks/soak.py --replay 6-20 --draw single   # a game of sessions 15 and 16

Each game is drawn from its own seed (``SEED-INDEX``, benchmarks/chaos/draw.py): 3 or 4 seats,
or, at a third of the tables (``--draw mixed``, the default), 4 to 6 seats whose host shares seeds
(``shanghai host --sharing default``, docs/dealing.md: a seat lost mid-round is rebuilt from the
holders' shares, R1, and one silent at its seeds is rebuilt and audited, R2), each a ``shanghai bot`` process or a *person* (this script's ``person`` command,
benchmarks/chaos/person.py: a `NetSession`, the console's own session, played headless by a
basic bot's choices with a person's habits: it thinks a moment before each move, lets some
claim windows run out, votes `V` when a seat has been away a while, and takes commands on its
stdin: ``bye`` as ``q`` ``y`` does, ``handover bot`` as ``B``, ``handover person`` as ``H``),
sometimes a bot the host runs itself (``--bots 1``), and faults, each at a moment drawn from the
seed (the deal, and how many discards into it; or the deal's audit, once its first seeds are
in):

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

A game has one or two *episodes* (``--episodes``), each of a shape (``--shapes``): a fault at a
random moment (``scattered``); a seat that leaves and comes back three times over the game
(``again-and-again``); two seats lost at the same moment (``two-at-once``); a seat or the host
struck at a round's audit (``at-the-audit``).  A seat's faults strike one after the other, and
none after one whose player is not back (``--draw single``: sessions 15 and 16's games, one
fault a seat).

Games are short: the contracts ``2s,1s1r,2r`` (three rounds; the last not melded all at once;
at most 300 turns a round), claim windows of 1 s, votes after 10 s away.  Each game is
supervised (benchmarks/chaos/game.py): it must end (the host exits 0 with ``game over``) within
`time_bound` seconds and `deal_bound` deals (its rounds, plus one re-deal for each fault: a
leave voids at most its own round; never more than rounds + 3 x seats); its record must pass
``shanghai verify``; nobody may be named (every party is honest); a seat pays the leave penalty
exactly once for each time it quit or was gone for good, at most once more for each time it
was killed or stopped and back, and never for a hand-over or the host's crash; at a table
sharing seeds a seat lost mid-round pays once and voids nothing, one rebuilt at its seeds pays
nothing (benchmarks/chaos/judge.py).  The run prints a table of the faults injected and the outcomes,
and exits 1 if any invariant failed, naming the game's seed, its record, the directory of its
logs (kept) and the command that plays it again.

Two games at once (``--jobs``: a game mostly waits), 30 games took 18 and 20 minutes on a
2-core machine shared with other work (load 6 to 16), 20 s to 4 minutes a game; with several
faults a seat (seed 8), 29 minutes at load 12 to 14, 26 s to 4.5 minutes a game; with a third
of the tables sharing seeds at 4 to 6 seats (seed 10), 32 minutes at load 9 to 16, 42 s to 4.6
minutes a game.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout this script is in

from benchmarks.chaos.draw import (  # noqa: E402  (the checkout first)
    CLAIM_TIMEOUT, CONTRACTS, DRAWS, KINDS, SHAPES, VOTE_AFTER, draw_game)
from benchmarks.chaos.game import Game  # noqa: E402
from benchmarks.chaos.judge import Outcome  # noqa: E402


def table(outcomes: list[Outcome]) -> str:
    """Per fault kind: injected, games, finished, rounds voided, seats lost mid-round (their
    rounds going on: R1, at a table sharing seeds), leave charges, seats named,
    protests of the host's timeouts (the game goes on), records verify accepted (a game counts
    once in each kind it had; a seat's voided rounds and charges in each kind that struck it)."""
    header = f"{'fault':<17}{'injected':>9}{'games':>7}{'finished':>10}{'voided':>8}" \
             f"{'lost':>6}{'charged':>9}{'named':>7}{'protests':>10}{'verified':>10}" \
             f"{'failed':>8}"
    lines = [header, "-" * len(header)]

    def row(label: str, kinds) -> str:
        games = [o for o in outcomes if any(f.kind in kinds and f.injected for f in o.spec.faults)]
        injected = sum(f.kind in kinds and bool(f.injected) for o in outcomes
                       for f in o.spec.faults)
        voided = lost = charged = 0
        for o in outcomes:
            targets = {f.target for f in o.spec.faults if f.kind in kinds and f.injected}
            voided += sum(n for who, n in o.voids.items() if who in targets) + (
                o.voids.get("audit", 0) if targets else 0)
            lost += sum(n for who, n in o.lost.items() if who in targets)
            charged += sum(n for who, n in o.charges.items() if who in targets)
        return (f"{label:<17}{injected:>9}{len(games):>7}{sum(o.finished for o in games):>10}"
                f"{voided:>8}{lost:>6}{charged:>9}{sum(len(o.named) for o in games):>7}"
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
                 f"{sum(bool(o.failures) for o in outcomes)}; faults not struck (the game "
                 f"ended first, or the seat's player was gone) "
                 f"{sum(not f.injected for o in outcomes for f in o.spec.faults)}; "
                 f"charges to seats with no fault {unstruck}; seats taken back "
                 f"{sum(len(o.taken_back) for o in outcomes)}; programs still running 30 s "
                 f"after their game ended well {sum(len(o.lingered) for o in outcomes)}")
    lines.append(sharing(outcomes))
    lines.append(figures(outcomes))
    return "\n".join(lines)


def sharing(outcomes: list[Outcome]) -> str:
    """The games at tables sharing seeds: seats lost mid-round and rebuilt, their rounds going
    on (R1), against rounds voided there."""
    shared = [o for o in outcomes if o.spec.sharing]
    if not shared:
        return "no game shared seeds"
    lost = sum(n for o in shared for n in o.lost.values())
    causes = [c for o in shared for c in o.void_causes]
    return (f"sharing seeds (t {', '.join(str(o.sharing) for o in shared)}): {len(shared)} "
            f"games, {sum(o.finished for o in shared)} finished, "
            f"{sum(o.verified for o in shared)} verified, {sum(bool(o.failures) for o in shared)}"
            f" failed; seats lost mid-round, their rounds going on {lost}; rounds voided "
            f"{sum(n for o in shared for n in o.voids.values())}" + "".join(
                f", {causes.count(c)} by {c}" for c in sorted(set(causes))))


def figures(outcomes: list[Outcome]) -> str:
    """How long the games took, and the finished games' deals against the two bounds: the
    game's own (rounds + faults) and the protocol's (rounds + 3 x seats, section 11.6)."""
    seconds = sorted(o.seconds for o in outcomes)
    done = [o for o in outcomes if o.finished]
    if not done:
        return "no game finished"
    extra = [o.deals - o.spec.rounds for o in done]
    spare = [o.spec.rounds + 3 * o.spec.players - o.deals for o in done]
    return (f"seconds a game: {seconds[0]:.0f} to {seconds[-1]:.0f}, median "
            f"{statistics.median(seconds):.0f}; deals beyond the rounds (finished games): "
            + ", ".join(f"{n} in {extra.count(n)}" for n in sorted(set(extra)))
            + f"; at most {max(o.deals for o in done)} deals, over the game's bound "
            f"(rounds + faults) in {sum(o.deals > o.spec.deal_bound for o in done)}, closest "
            f"to rounds + 3 x seats: {min(spare)} deals short of it")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["person"]:
        from benchmarks.chaos.person import person

        return person(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--replay", metavar="SEED-INDEX", help="play that one game again")
    parser.add_argument("--draw", choices=DRAWS, default=DRAWS[0],
                        help="several faults a seat and a third of the tables sharing seeds "
                             "(the default); several faults a seat, no sharing (session 17's, "
                             "seeds 7 to 9); or sessions 15 and 16's draw of at most one")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="the fault kinds drawn from (comma-separated)")
    parser.add_argument("--shapes", default=",".join(SHAPES),
                        help="the episodes' shapes drawn from (comma-separated; not with "
                             "--draw single)")
    parser.add_argument("--episodes", type=int,
                        help="episodes a game (default: 1 or 2; --draw single: faults)")
    parser.add_argument("--players", type=int, choices=(3, 4, 5, 6),
                        help="seats (default: 3 or 4; 4 to 6 at a table sharing seeds)")
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
    shapes = tuple(s.strip() for s in args.shapes.split(",") if s.strip())
    for option, chosen, known in (("kinds", kinds, KINDS), ("shapes", shapes, SHAPES)):
        unknown = set(chosen) - set(known)
        if unknown or not chosen:
            parser.error(f"--{option}: no such {', '.join(sorted(unknown)) or 'choice'}: "
                         f"{', '.join(known)}")
    seeds = [args.replay] if args.replay else [f"{args.seed}-{i}" for i in range(args.games)]
    base = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="shanghai-soak-"))
    began, load = time.monotonic(), os.getloadavg()
    games = f"game {args.replay} again" if args.replay else \
        f"{len(seeds)} games from seed {args.seed!r}"
    print(f"soak: {games} ({args.draw} draw), contracts "
          f"{','.join(CONTRACTS[:args.rounds])}, claim "
          f"windows {CLAIM_TIMEOUT:g} s, votes after {VOTE_AFTER:g} s, {args.jobs} at once; "
          f"work in {base}; load "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}", flush=True)

    def play(seed: str) -> Outcome:
        spec = draw_game(seed, kinds, args.episodes, args.players, args.rounds, args.draw,
                         shapes)
        work = base / seed
        shutil.rmtree(work, ignore_errors=True)
        game = Game(spec, work, args.slow)
        try:
            out = game.run()
        except Exception as error:
            out = game.abandon(error)
        struck = "; ".join(f"{f.kind} {f.target} at {f.injected or f.missed or 'never (over first)'}"
                           for f in spec.faults)
        print(f"game {seed}: {'FAILED' if out.failures else 'ok'} in {out.seconds:.0f} s, "
              f"{out.deals} deals{', sharing seeds' if spec.sharing else ''}; {struck}; "
              f"charged {out.charges or 'nobody'}; "
              + (f"lost mid-round {out.lost}; " if out.lost else "")
              + (f"voided by {', '.join(out.void_causes)}; " if out.void_causes else "")
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
        ("draw", args.draw, DRAWS[0]), ("kinds", ",".join(kinds), ",".join(KINDS)),
        ("shapes", ",".join(shapes), ",".join(SHAPES)), ("episodes", args.episodes, None),
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
