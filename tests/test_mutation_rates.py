"""`make mutate`'s helper (tests/mutation_rates.py): a sample goes on where it stopped, and the
rates count a timeout as a kill and an untested mutant as a survivor."""

from __future__ import annotations

import json
import random
import re
import tomllib
from pathlib import Path

import pytest

import mutation_rates


def write_meta(root, package, codes):
    (root / package).mkdir(parents=True)
    (root / package / "a.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))


def test_a_sample_names_only_the_mutants_it_has_not_judged(tmp_path, monkeypatch):
    monkeypatch.setattr(mutation_rates, "MUTANTS", tmp_path)
    codes = {f"shanghai_net.deal.a.x_f__mutmut_{i}": None for i in range(10)}
    sample = random.Random(16).sample(sorted(codes), 4)
    codes[sample[0]], codes[sample[1]] = 1, 0  # killed, survived
    write_meta(tmp_path, "deal", codes)
    assert mutation_rates.names("deal", 4) == sample[2:]
    assert mutation_rates.names("deal") == ["shanghai_net.deal.*"]


def test_rates_count_timeouts_as_kills_and_untested_mutants_as_survivors(tmp_path, monkeypatch,
                                                                          capsys):
    monkeypatch.setattr(mutation_rates, "MUTANTS", tmp_path)
    write_meta(tmp_path, "wire", {"m1": 1, "m2": -24, "m3": 33, "m4": 0, "m5": None})
    mutation_rates.rates(["wire"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["wire", "50.0%", "killed:", "2", "of", "4", "checked", "(5",
                              "mutants)"]
    assert sorted(line.split()[-1] for line in out if "survived" in line) == ["m3", "m4"]


ROOT = Path(__file__).resolve().parent.parent


def test_make_mutate_samples_every_package_mutmut_mutates_the_engine_rules_and_bots_among_them():
    """The Makefile's default packages are exactly those [tool.mutmut] mutates (issue 40: the
    bots were mutated by no one), and a package it does not mutate is refused up front."""
    default = re.search(r"^MUTATE_PACKAGES \?= (.*)$", (ROOT / "Makefile").read_text(),
                        re.MULTILINE).group(1).split()
    assert sorted(default) == sorted(mutation_rates.mutated_packages())
    assert {"rules", "engine", "bots"} <= set(default)
    mutation_rates.check(["bots", "engine"])
    with pytest.raises(SystemExit, match="names console, which"):
        mutation_rates.check(["bots", "console"])


def test_every_check_s_test_runs_against_the_mutants_and_every_test_selected_exists():
    """Each tests/test_checks_*.py plays a check docs/checks.md lists: mutmut runs them all
    (save the inventory's own), and every file or test it is given exists."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    selected = config["pytest_add_cli_args_test_selection"]
    files = {entry.split("::")[0] for entry in selected}
    checks = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_checks_*.py")}
    assert checks - {"tests/test_checks_inventory.py"} <= files, sorted(checks - files)
    for entry in selected:
        file, _, test = entry.partition("::")
        assert (ROOT / file).exists(), entry
        assert not test or re.search(rf"^(async )?def {test}\(", (ROOT / file).read_text(),
                                     re.MULTILINE), entry
