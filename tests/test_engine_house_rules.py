"""House rules the presets leave at one value, and limits only whole games reached before
(issue 16): the SHANGHAI caller's last card, claims by a seat that is down, the reshuffle cap."""

from __future__ import annotations

import pytest

from shanghai_net.engine import CallShanghai, Drew, Phase, Reshuffled, RoundEnded
from shanghai_net.errors import IllegalMoveError

from scenario import contract_rules, discard_turn, draw, play, stacked_game

RULES = contract_rules("davis", "1s1r,1s1r")


def one_card_left(rules=RULES):
    """Seat 0 goes down, lays off all but the K♦ and discards; seat 1 then discards the 10♠,
    which plays on seat 0's run: seat 2 is to draw and seat 0 holds one card."""
    game = stacked_game(rules, ["9H 9D 9C 9C 4S 5S 6S 7S 8S 9S KD", "10S", "", ""], stock="QC")
    draw(game)
    play(game, 0, "down 9H 9D 9C / 4S 5S 6S 7S 8S", "lay 9C on 1", "lay 9S on 2 high",
         "discard QC")
    assert len(game.hands[0]) == 1
    discard_turn(game, 1, "10S")
    assert game.turn == 2 and game.phase is Phase.DRAW
    return game


def test_shanghai_cannot_be_called_with_ones_last_card():
    """davis: the caller hands the discarder a card at random from its hand; with one card left
    there would be none to give after playing it, so only a seat with two or more may call."""
    game = one_card_left()
    assert game.may_call_shanghai(3)  # the 10♠ plays: a seat with cards may call it
    assert not game.may_call_shanghai(0)
    assert not any(isinstance(m, CallShanghai) for m in game.legal_moves(0))
    with pytest.raises(IllegalMoveError, match="no discard that may be called SHANGHAI now"):
        play(game, 0, "shanghai 2 high")


@pytest.mark.parametrize("when_down", [True, False])
def test_a_seat_that_is_down_claims_only_if_the_house_allows(when_down):
    """``claim_when_down=False``: a seat that has gone down has no claim on a discard; every
    preset allows it, so only this house rule shows the window without it."""
    game = one_card_left(contract_rules("davis", "1s1r,1s1r", claim_when_down=when_down))
    assert game.down[0] and not game.down[3]
    assert game.window.order == ((3, 0) if when_down else (3,))
    assert (0 in game.to_move()) == when_down


@pytest.mark.parametrize("cap", [0, 1, 2])
def test_the_pile_is_turned_over_at_most_max_reshuffles_times_then_the_round_is_dead(cap):
    """Every seat draws and throws back what it drew: the stock runs out again and again, is made
    from the pile ``cap`` times, and the next time it runs out the round ends with no winner."""
    game = stacked_game(contract_rules("davis", "1s1r,1s1r", max_reshuffles=cap),
                        ["", "", "", ""], up="KC")
    reshuffles = 0
    for _ in range(game.rules.max_turns):
        events = draw(game)
        reshuffles += sum(isinstance(e, Reshuffled) for e in events)
        ended = [e.result for e in events if isinstance(e, RoundEnded)]
        if ended:
            break
        drawn = next(e.card for e in events if isinstance(e, Drew))
        play(game, game.turn, f"discard {drawn}")
    assert ended and ended[0].round_no == 1 and ended[0].winner is None
    assert reshuffles == cap
