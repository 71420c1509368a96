"""`make mutate`'s helper (issue 16): which mutants to run, and the kill rate per package.

    python tests/mutation_rates.py names deal [200]  # mutmut names: all of deal/, or 200 drawn
    python tests/mutation_rates.py rates deal wire   # killed / checked, per package; survivors
    python tests/mutation_rates.py check deal bots   # each is a package pyproject.toml mutates

It reads what `mutmut run` leaves in mutants/ (one .meta file per source file: mutant name ->
exit code).  A sample is drawn with a fixed seed, so two runs of the same code check the same
mutants; `names` gives only those of the sample not judged yet (mutmut runs again every name it
is given), so a sample stopped part way goes on where it stopped.  A timeout counts as a kill (the mutant broke something); a mutant no test covers counts
as a survivor.
"""

from __future__ import annotations

import json
import random
import sys
import tomllib
from pathlib import Path

MUTANTS = Path("mutants/shanghai_net")
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
KILLED = {1, 3, 24, -24, 36, 37, 152, 255}  # tests failed, pytest error, timeouts, type check
UNCHECKED = {None, 2, 34}  # not run yet, interrupted, skipped


def exit_codes(package: str) -> dict[str, int | None]:
    codes: dict[str, int | None] = {}
    for meta in sorted((MUTANTS / package).glob("*.meta")):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def mutated_packages(pyproject: Path = PYPROJECT) -> set[str]:
    """The packages of shanghai_net/ whose files [tool.mutmut] mutates (net: its budgets)."""
    config = tomllib.loads(pyproject.read_text())["tool"]["mutmut"]
    return {path.split("/")[1] for path in config["only_mutate"]}


def check(packages: list[str]) -> None:
    """Stop `make mutate` before hours of work on a package that mutmut makes no mutant of."""
    unknown = sorted(set(packages) - mutated_packages())
    if unknown:
        raise SystemExit(f"MUTATE_PACKAGES names {', '.join(unknown)}, which pyproject.toml's "
                         f"[tool.mutmut] only_mutate does not mutate")


def names(package: str, sample: int | None = None) -> list[str]:
    codes = exit_codes(package)
    every = sorted(codes)
    if sample is None or sample >= len(every):
        return [f"shanghai_net.{package}.*"]
    return [name for name in random.Random(16).sample(every, sample)
            if codes[name] in UNCHECKED]


def rates(packages: list[str]) -> None:
    total_killed = total_checked = 0
    for package in packages:
        codes = exit_codes(package)
        checked = {name: code for name, code in codes.items() if code not in UNCHECKED}
        killed = sum(code in KILLED for code in checked.values())
        survivors = sorted(name for name, code in checked.items() if code not in KILLED)
        total_killed, total_checked = total_killed + killed, total_checked + len(checked)
        rate = f"{100 * killed / len(checked):.1f}%" if checked else "-"
        print(f"{package:7} {rate:>6} killed: {killed} of {len(checked)} checked "
              f"({len(codes)} mutants)")
        for name in survivors:
            print(f"        survived: {name}")
    if total_checked:
        print(f"{'all':7} {100 * total_killed / total_checked:5.1f}% killed: {total_killed} of "
              f"{total_checked} checked")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "names":
        print(" ".join(names(args[0], int(args[1]) if len(args) > 1 and args[1] else None)))
    elif command == "check":
        check(args)
    else:
        rates(args)
