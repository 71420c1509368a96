"""Rules on the wire: each value in its own type, checked against protocol/schema/rules.json, and
protocol/presets.json as the RuleSet makes it (tests/test_wire_vectors.py checks both files are
what protocol/make_vectors.py writes now)."""

import json
from pathlib import Path

import pytest

from shanghai_net.rules import PRESETS
from shanghai_net.rules.ruleset import RuleSet, check_rules, parse_rules, preset
from shanghai_net.wire import RemoteProtocolError, decode_message
from shanghai_net.wire.examples import example_start

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"


def test_every_preset_is_rebuilt_from_its_presets_json_values():
    presets = json.loads((PROTOCOL / "presets.json").read_text())
    assert set(presets) == set(PRESETS)
    for name, values in presets.items():
        assert check_rules(values) == values
        rebuilt = RuleSet().override(**values)
        assert rebuilt == preset(name) and rebuilt.description == preset(name).description


def test_the_command_line_edge_parses_strings_to_the_fields_types():
    assert parse_rules(["shanghai=off", "contracts=2s,1s1r", "max_turns=none", "ace=either",
                      "claims_per_round=3"]) == {
        "shanghai": False, "contracts": [[2, 0], [1, 1]], "max_turns": None, "ace": "either",
        "claims_per_round": 3}
    with pytest.raises(ValueError, match="shanghai.*maybe"):
        parse_rules(["shanghai=maybe"])


@pytest.mark.parametrize("rules, words", [
    ({"final_round_meld_all": "false"}, ["start_game.rules.final_round_meld_all", "boolean"]),
    ({"max_turns": "24"}, ["start_game.rules.max_turns", "integer of at least 1 or nil"]),
    ({"contracts": "2s"}, ["start_game.rules.contracts", "[sets, runs] pairs"]),
    ({"contracts": [[2, 0, 1]]}, ["start_game.rules.contracts"]),
    ({"ace": "sideways"}, ["start_game.rules.ace", "'either'"]),
    ({"hand_size": True}, ["start_game.rules.hand_size", "integer"]),
    ({"may_i_limit": 3}, ["start_game.rules", "may_i_limit"]),
])
def test_a_v1_string_or_an_unknown_rule_is_refused_naming_the_field_and_type(rules, words):
    wire = {**example_start().to_wire(), "rules": rules}
    with pytest.raises(RemoteProtocolError) as info:
        decode_message(wire)
    assert info.value.code == "bad_message"
    for word in words:
        assert word in str(info.value)


def test_typed_rules_decode_unchanged():
    rules = {"final_round_meld_all": False, "max_turns": None, "contracts": [[2, 0]],
             "ace": "low", "set_word": "book"}
    assert decode_message({**example_start().to_wire(), "rules": rules}).rules == rules


def test_a_python_caller_gets_the_same_check():
    with pytest.raises(ValueError, match="shanghai: expected a boolean"):
        preset("davis").override(shanghai="off")
    assert preset("davis").override("shanghai=off", claims_per_round=1).shanghai is False


@pytest.mark.parametrize("rule,value,least", [
    ("hand_size", -3, 1), ("decks", 0, 1), ("claims_per_round", -1, 0), ("leave_penalty", -150, 0),
    ("min_set", 1, 2), ("points_joker", -50, 0), ("max_turns", 0, 1)])
def test_a_count_below_its_least_is_refused_naming_the_least(rule, value, least):
    """A hand of -3 cards, a negative penalty or a set of one: nonsense, refused at the edge and
    on the wire (it was played before, as a game of nonsense)."""
    with pytest.raises(ValueError, match=f"rules.{rule}: expected an integer of at least {least}"):
        preset("davis").override(**{rule: value})
    with pytest.raises(ValueError, match=f"at least {least}"):
        parse_rules([f"{rule}={value}"])


def test_only_the_winner_bonus_may_be_negative():
    assert preset("davis").override(winner_bonus=-10).winner_bonus == -10
    assert preset("good-miller").winner_bonus == -10
