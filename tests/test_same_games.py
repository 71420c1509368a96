"""The engine and the basic bot play the very games they played before they were made faster.

Each digest is `log_digest` of a few seeded games between four basic bots (every event of every
game, in order), recorded from the engine before the speed work of issue 13.  A change meant only
to be faster leaves them all; a change meant to alter play (a rule, the basic bot's choices)
changes them, and says so by updating them here.  `benchmarks/simulate.py --digest` prints them
for more games."""

from __future__ import annotations

import pytest

from shanghai_net.rules import preset
from shanghai_net.simulate import log_digest

RECORDED = {
    ("davis", 5): "d46410a91d87172ae6d5c34a62f82749748c0fa1f08d9b60c8e36d9110a3a460",
    ("good-miller", 5): "71013f5c217082417337a02c3dad4272969e618f7ed54d329b0479fe1c5eeca9",
    ("marcelle", 5): "559fa5f4491c8951efaef92620f0072a7c6cd2e35ec5e6dadd9b738512f16c3d",
    ("carousel", 2): "4f848ff4d9314422688471746d7586260404aac9fde019a074634a522745f193",
}


@pytest.mark.parametrize(("name", "games"), RECORDED)
def test_basic_bots_play_the_recorded_games(name, games):
    assert log_digest(preset(name), ["basic"] * 4, games, 2026) == RECORDED[name, games]


def test_the_digest_tells_games_apart():
    rules = preset("davis")
    assert log_digest(rules, ["basic"] * 4, 1, 2026) != log_digest(rules, ["basic"] * 4, 1, 2027)
