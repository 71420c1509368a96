"""SHANGHAI (davis): declared with a discard that plays on the table, or called by another player."""

from __future__ import annotations

import pytest

from shanghai_net.cards import parse_cards
from shanghai_net.engine import CallShanghai, Discarded, MayI, ShanghaiCalled, ShanghaiPenalty, TakeDiscard, view_of
from shanghai_net.errors import IllegalMoveError

from scenario import contract_rules, draw, hand_text, play, stacked_game, table

RULES = contract_rules("davis", "1s1r,1s1r")  # a run on the table in the first round


def spade_run_game(picks=()):
    """Seat 0 lays down 9s and 5-6-7-8♠; seat 1 holds the 4♠; seat 2 a 9♣; seat 3 the 2♠ and 3♠."""
    game = stacked_game(RULES, ["9H 9S 9D 5S 6S 7S 8S QC", "4S KD", "JD 9C", "2S 3S AD"], up="KC", picks=picks)
    draw(game)
    play(game, 0, "down 9H 9S 9D / 5S 6S 7S 8S", "discard QC")
    draw(game)
    return game


def test_declared_shanghai_cannot_be_taken_nor_claimed():
    """davis: 'The person discards the card while saying "SHANGHAI". This card may NOT be picked up by
    the next player, so that person must draw.' rules-variants: nor may anyone MAY I it."""
    game = spade_run_game()
    events = play(game, 1, "discard 4S shanghai")
    assert Discarded(1, game.discard[-1], True) in events
    assert game.window is None
    assert {m.text() for m in game.legal_moves(2)} == {"draw"}
    with pytest.raises(IllegalMoveError, match="SHANGHAI: draw from the stock"):
        game.apply(TakeDiscard(2))
    for seat in (0, 3):
        assert not list(game.legal_moves(seat))
        with pytest.raises(IllegalMoveError):
            game.apply(MayI(seat))
        with pytest.raises(IllegalMoveError, match="SHANGHAI now"):
            game.apply(CallShanghai(seat, 1))
    assert view_of(game, 2).top_shanghaied


def test_shanghai_only_for_a_card_that_plays():
    """davis: 'The SHANGHAI is used if someone wishes to discard a card which may be played on one of the
    runs or books down on the table.'"""
    game = spade_run_game()
    assert "discard KD shanghai" not in {m.text() for m in game.legal_moves(1)}
    assert "discard 4S shanghai" in {m.text() for m in game.legal_moves(1)}
    with pytest.raises(IllegalMoveError, match="only for a card that plays"):
        play(game, 1, "discard KD shanghai")


@pytest.mark.parametrize("name", ["good-miller", "marcelle"])
def test_no_shanghai_in_other_presets(name):
    game = stacked_game(contract_rules(name, "1s1r,1s1r"), ["9H 9S 9D 5S 6S 7S 8S QC", "4S", "", ""], up="KC")
    draw(game)
    play(game, 0, "down 9H 9S 9D / 5S 6S 7S 8S", "discard QC")
    draw(game)
    with pytest.raises(IllegalMoveError, match="SHANGHAI"):
        play(game, 1, "discard 4S shanghai")
    play(game, 1, "discard 4S")
    assert not any(isinstance(m, CallShanghai) for s in range(4) for m in game.legal_moves(s))


def test_called_shanghai_places_the_card_and_the_discarder_draws_from_the_caller():
    """davis: 'if there's a 5-6-7-8 of spades down, for example, and you have a 2 and a 3 of spades ...
    if someone tosses a 4 of spades accidentally, you yell "Shanghai", then place the 4 of spades at the
    lower end of the run.' 'the person caught tossing the card must draw a card at random from the hand
    of the person who called "SHANGHAI"' - 'it's also possible that the 3 of spades may be drawn'."""
    probe = spade_run_game()
    three = next(i for i, t in enumerate(probe.hands[3]) if str(probe.faces[t]) == "3S")
    game = spade_run_game(picks=[three])
    play(game, 1, "discard 4S")
    assert "shanghai 2 low" in {m.text() for m in game.legal_moves(3)}
    sizes = [len(h) for h in game.hands]
    events = play(game, 3, "shanghai 2 low")  # seat 3 is not down: calling is still allowed
    four = parse_cards("4S")[0]
    assert isinstance(events[0], ShanghaiCalled) and events[0].victim == 1 and events[0].caller == 3
    assert table(game)[1] == "4S 5S 6S 7S 8S"
    penalty = next(e for e in events if isinstance(e, ShanghaiPenalty))
    assert str(penalty.card) == "3S" and "3S" in hand_text(game, 1) and "3S" not in hand_text(game, 3)
    assert [len(h) for h in game.hands] == [sizes[0], sizes[1] + 1, sizes[2], sizes[3] - 1]
    assert game.discard[-1].face != four.face and game.turn == 2


def test_shanghai_at_the_wrong_end_or_meld_is_refused():
    game = spade_run_game()
    play(game, 1, "discard 4S")
    for text, why in (("shanghai 2 high", "does not play"), ("shanghai 1", "does not play"), ("shanghai 3", "no meld 3")):
        with pytest.raises(IllegalMoveError, match=why):
            play(game, 3, text)
    with pytest.raises(IllegalMoveError, match="SHANGHAI now"):
        play(game, 1, "shanghai 2 low")  # not on one's own discard


def test_a_shanghaid_card_is_takeable_once_uncovered():
    """davis: 'although a "SHANGHAI'd" card may not be picked up or MAY I'd, if another card is placed on
    top of it, then MAY I'd, (thus exposing the Shanghai'd card again), it may now be drawn or MAY I'd'."""
    game = spade_run_game()
    play(game, 1, "discard 4S shanghai")
    draw(game)
    play(game, 2, "discard JD")  # covers the 4♠
    game.apply(MayI(0))
    draw(game)  # seat 3 draws from the stock, seat 1 lets it go: seat 0 gets the J♦
    assert "JD" in hand_text(game, 0)
    assert str(game.discard[-1]) == "4S" and not view_of(game, 3).top_shanghaied
    uncovered = spade_run_game()
    play(uncovered, 1, "discard 4S shanghai")
    draw(uncovered)
    play(uncovered, 2, "discard 9C")  # covers the 4♠ with a card that plays on the 9s
    play(uncovered, 0, "shanghai 1")  # the 9♣ goes on the book, uncovering the 4♠
    assert "take" in {m.text() for m in uncovered.legal_moves(3)}
    play(uncovered, 3, "take")
    assert "4S" in hand_text(uncovered, 3)
