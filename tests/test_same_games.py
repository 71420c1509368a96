"""The engine and the basic bot play the very games they played before they were made faster.

Each digest is `log_digest` of a few seeded games between four basic bots (every event of every
game, in order), recorded from the engine before the speed work of issue 13, and again when issue
22 gave `RoundStarted` its ``again`` field (the same games: with ``again=False`` taken out of
each repr they hash to the old digests).  A change meant only to be faster leaves them all; a
change meant to alter play (a rule, the basic bot's choices) changes them, and says so by
updating them here.  `benchmarks/simulate.py --digest` prints them
for more games."""

from __future__ import annotations

import pytest

from shanghai_net.rules import preset
from shanghai_net.simulate import log_digest

RECORDED = {
    ("davis", 5): "4323ff777a409bbc24f01eb6e168cfcbe09cd2690354d4ee773bef8c18d4790f",
    ("good-miller", 5): "59482801ab0b61fa3c8756b589dd7d7de364f2f9b63cc13a95a8cd0eff573314",
    ("marcelle", 5): "35482f342f317fd8403a4c58a85d506e92c0c264548ad7da19285691f6d728a8",
    ("carousel", 2): "435c4a27ba98641a70f530758a282a71604c96405b85c641299c7459693beb54",
}


@pytest.mark.parametrize(("name", "games"), RECORDED)
def test_basic_bots_play_the_recorded_games(name, games):
    assert log_digest(preset(name), ["basic"] * 4, games, 2026) == RECORDED[name, games]


def test_the_digest_tells_games_apart():
    rules = preset("davis")
    assert log_digest(rules, ["basic"] * 4, 1, 2026) != log_digest(rules, ["basic"] * 4, 1, 2027)
