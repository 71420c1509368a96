"""R1's engine half (docs/dealing.md, "R1, lost mid-round"): with sharing on a seat lost
mid-round and rebuildable does not void the round; the engine applies `SeatLost` instead of
`RoundVoided`: the seat pays ``leave_penalty`` at once, claim windows leave it out while it
is vacant, and its hand waits, unchanged, for its replacement, which plays on."""

from __future__ import annotations

import pytest

from shanghai_net.engine import ClaimPassed, Phase, RoundVoided, SeatLost
from shanghai_net.engine.moves import Discard
from shanghai_net.errors import IllegalMoveError

from test_engine_leaving import game_in, standing


def to_a_discard(game, bots, seat):
    """Play until ``seat`` is to discard, its claim window about to open."""
    from scenario import run_bots
    run_bots(game, bots, until=lambda g: g.phase is Phase.PLAY and g.turn == seat)


@pytest.mark.parametrize("name", ["davis", "good-miller"])
def test_a_lost_seat_pays_at_once_and_the_round_goes_on_with_its_hand(name):
    game, _ = game_in(name, 2, players=4)
    before, hand, round_no = standing(game), list(game.hands[2]), game.round_no
    events = game.lose_seat(2)
    lost = events[0]
    assert (type(lost), lost.round_no, lost.seat) == (SeatLost, round_no, 2)
    assert lost.penalty == game.rules.leave_penalty and lost.money == game.rules.money
    assert not any(isinstance(e, RoundVoided) for e in game.log)
    assert game.round_no == round_no and game.hands[2] == hand
    paid = standing(game)[2] - before[2]
    assert paid == (-1 if game.rules.money else 1) * game.rules.leave_penalty
    with pytest.raises(IllegalMoveError, match="lose seat 2"):
        game.lose_seat(2)


def test_claim_windows_leave_a_lost_seat_out_until_it_is_back():
    game, bots = game_in("davis", 2, players=4)
    to_a_discard(game, bots, 1)
    game.lose_seat(3)
    game.apply([m for m in game.legal_moves(1) if isinstance(m, Discard)][0])
    assert game.window is not None and game.window.order == (0,)  # 2 draws next, 3 is lost
    game.seat_back(3)
    to_a_discard(game, bots, 1)
    game.apply([m for m in game.legal_moves(1) if isinstance(m, Discard)][0])
    assert game.window is not None and 3 in game.window.order


def test_a_seat_lost_while_its_claim_is_undecided_passes():
    game, bots = game_in("davis", 2, players=4)
    to_a_discard(game, bots, 1)
    game.apply([m for m in game.legal_moves(1) if isinstance(m, Discard)][0])
    assert game.window is not None and 3 in game.window.undecided()  # 2 draws next
    events = game.lose_seat(3)
    assert ClaimPassed(3) in events and 3 not in game.window.undecided()


def test_a_void_after_a_loss_charges_the_leaver_once():
    game, _ = game_in("davis", 2, players=4)
    before = standing(game)
    game.lose_seat(2)
    game.void_round(leaver=2, go_on=True)
    assert standing(game)[2] - before[2] == game.rules.leave_penalty
    assert game.absent == set()
