"""`--rule field=value` (rules.ruleset.parse_rules, what every command's --rule reads): a list
value in its wire form, as JSON, beside the short forms; every example README gives is read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shanghai_net.rules import preset
from shanghai_net.rules.ruleset import parse_rules

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_rules() -> list[str]:
    """Every `--rule X` or `--rule 'X'` README shows (not its `--rule field=value` pattern)."""
    found = [m.group(1) or m.group(2) for m in
             re.finditer(r"`--rule (?:'([^']+)'|([^`' ]+))`", README.read_text())]
    return [r for r in found if r != "field=value"]


def test_readme_shows_list_values():
    assert any(r.startswith("contracts=[") for r in readme_rules())
    assert any(r.startswith("phases=[") for r in readme_rules())


@pytest.mark.parametrize("assignment", readme_rules())
def test_every_readme_example_is_read(assignment):
    field = assignment.partition("=")[0]
    assert field in parse_rules([assignment])
    preset("davis").override(assignment)


@pytest.mark.parametrize(("json", "short"), [
    ("contracts=[[2,0],[1,1],[0,2]]", "contracts=2s,1s1r,2r"),
    ("contracts=[[2, 0], [1, 1]]", "contracts=2s,1s1r"),
    ('phases=[[["set",3],["run",4]],[["suit",7]]]', "phases=set3+run4,suit7"),
])
def test_a_json_list_is_the_short_form(json, short):
    assert parse_rules([json]) == parse_rules([short])
    assert preset("davis").override(json) == preset("davis").override(short)


@pytest.mark.parametrize(("assignment", "words"), [
    ("contracts=[[2,0],[1,1]", r"rule contracts: cannot read .* as a JSON list"),
    ("contracts=[[2,0,1]]", r"rules\.contracts: expected an array of \[sets, runs\] pairs"),
    ('contracts=[["2","0"]]', r"rules\.contracts: expected"),
    ("hand_size=[11]", r"rules\.hand_size: expected an integer"),
    ("phases=[[[\"pair\",2]]]", r"rules\.phases: expected"),
])
def test_a_list_that_does_not_fit_is_refused_naming_the_field(assignment, words):
    with pytest.raises(ValueError, match=words):
        parse_rules([assignment])
