"""docs/checks.md, the inventory of defensive checks (issue 27), names for each check the test
that fails without it: every test it names must exist, or the inventory promises a test that a
rename or a deletion took away."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMED = re.compile(r"(test_[a-z0-9_]+\.py)?::(test_[A-Za-z0-9_]+)")


def rows(text: str) -> list[str]:
    """The inventory's table rows, their heads included."""
    return [line for line in text.splitlines() if line.startswith("| ")]


def named_tests(text: str) -> list[tuple[str, str]]:
    """(file, test) for each test a row names; ``::name`` alone is in the file named before it
    on that row."""
    named = []
    for row in rows(text):
        file = None
        for match in NAMED.finditer(row):
            file = match.group(1) or file
            assert file is not None, f"{match.group(0)} names no file: {row[:80]}"
            named.append((file, match.group(2)))
    return named


def test_every_test_the_inventory_names_exists():
    named = named_tests((ROOT / "docs" / "checks.md").read_text())
    assert len(named) > 150
    missing = [f"{file}::{test}" for file, test in named
               if not (ROOT / "tests" / file).exists()
               or not re.search(rf"^(async )?def {test}\(", (ROOT / "tests" / file).read_text(),
                                re.MULTILINE)]
    assert not missing, missing


def test_a_row_naming_a_test_that_is_gone_is_found():
    row = "| x.py `f` | a check | `test_verify.py::test_no_such_test`, `::test_other` | new |"
    assert named_tests(row) == [("test_verify.py", "test_no_such_test"),
                                ("test_verify.py", "test_other")]


def rows_left_open(text: str) -> list[str]:
    """Rows whose check has no test that fails without it and no reason why none can: found
    neither *new*, *removed* nor *equivalent*, or not equivalent and naming no test."""
    left = []
    for row in rows(text):
        found = row.rstrip().rstrip("|").rsplit("|", 1)[-1].strip()
        if found in ("found", "---"):
            continue  # a table's head
        if found not in ("new", "removed", "equivalent") or \
                (found != "equivalent" and not NAMED.search(row)):
            left.append(row[:80])
    return left


def test_every_check_the_inventory_lists_names_a_test_or_why_none_can_fail():
    assert rows_left_open((ROOT / "docs" / "checks.md").read_text()) == []


def test_a_survivor_or_a_row_naming_no_test_is_found():
    survivor = "| x.py `f` | a check | `test_verify.py::test_x` | survivor |"
    untested = "| x.py `g` | a check | a test is still to write | new |"
    equivalent = "| x.py `h` | a check | equivalent: nothing reaches it | equivalent |"
    assert rows_left_open("\n".join([survivor, untested, equivalent])) == [survivor, untested]
