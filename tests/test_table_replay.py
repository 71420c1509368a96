"""The round replayed with every card known (table/replay.py), at the edges the whole-game tests
rarely reach: a round voided by the table's vote is never replayed, and the random picks taken
in it (a SHANGHAI penalty's card) must not answer anything of the rounds after it."""

from __future__ import annotations

from shanghai_net.engine.dealer import Shuffle
from shanghai_net.rules.ruleset import preset
from shanghai_net.table.replay import FullReplay


def test_a_round_voided_after_a_shanghai_penalty_is_dealt_again_by_the_first_dealer():
    """Round 1: the first dealer is picked (seat 2), a SHANGHAI call's penalty card is picked,
    then seat 0 leaves and the table votes the round void.  The replay, a round behind, answers
    the first dealer's pick, drops the voided round's penalty pick, and waits to deal the
    contract again as round 2, by seat 2, with the leave penalty charged."""
    replay = FullReplay(preset("davis"), 3)
    replay.pick(2)  # the first dealer, as the public replica took it
    replay.pick(1)  # the penalty's pick in round 1
    replay.void(leaver=0)
    game = replay.game
    assert [(type(r), r.round_no) for r in game.awaiting] == [(Shuffle, 2)]
    assert game.dealer_seat == 2 and game.scores == [preset("davis").leave_penalty, 0, 0]
