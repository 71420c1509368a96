"""Issue 25, item 6: marcelle at a table of two (seed 003: "DEAL – 12 cards – 1 to 4 – 2 decks")."""

from __future__ import annotations

import pytest

from shanghai_net.engine import new_game
from shanghai_net.rules import preset
from shanghai_net.simulate import simulate

import trio

from test_net_game import assert_clean, play


def test_marcelle_deals_one_to_four_players_and_so_two():
    """Seed 003: "DEAL – 12 cards – 1 to 4 – 2 decks ---- 5,6, or 7 people – 3 decks".  Two players play
    (claims only on the upturned card: after a discard the only other seat is the one about to draw);
    one does not: a table of one has nobody to claim from, pay the pot or lose to (a judgment call)."""
    rules = preset("marcelle")
    assert rules.min_players == 2 and rules.deck_size(2) == (2, 4)
    report = simulate(rules, ["basic", "expert"], 2, 2026)
    assert report.rounds == 2 * rules.rounds and sum(report.wins) >= 2
    with pytest.raises(ValueError, match="2-8 players, not 1"):
        new_game(rules, 1)


async def test_a_table_of_two_plays_over_the_network_like_any_other():
    """Two peers shuffle, deal, play and audit a marcelle round over sockets as more seats do."""
    with trio.fail_after(150):
        host, tables, _ = await play(2, "marcelle", rounds=1)
    assert len(tables) == 2
    assert_clean(host, tables, 1)
    assert host.public.audited == 1
