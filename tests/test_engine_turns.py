"""A turn: draw, go down with exactly the contract, lay off, discard; round 7; the empty stock."""

from __future__ import annotations

import pytest

from shanghai_net.cards import parse_cards
from shanghai_net.engine import Discarded, Drew, GoDown, LaidOff, Phase, Reshuffled, TookDiscard, WentDown, WentOut
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules import meld_kind, penalty

from scenario import contract_rules, discard_turn, draw, hand_text, play, stacked_game, table

PRESETS = ["davis", "good-miller", "marcelle"]
BOOKS = "7H 7S 7D 8C 8D 8S"


def down_game(name: str, **kw):
    """Seat 0 holds two books (7s, 8s), a 9♥ and a joker; seat 1 two books (3s, 4s), a 7♣ and an 8♥."""
    return stacked_game(name, [BOOKS + " 9H 9S JK", "3H 3S 3D 4C 4D 4S 7C 8H", "", ""], up="KC", **kw)


@pytest.mark.parametrize("name", PRESETS)
def test_draw_from_stock_or_take_the_discard(name):
    """davis: 'When your turn comes, you draw from the top of the deck, or you may take the top card
    from the discard pile.'"""
    game = down_game(name, stock="5H")
    assert {m.text() for m in game.legal_moves(0)} >= {"draw", "take"}
    events = draw(game)
    assert [str(e.card) for e in events if isinstance(e, Drew)] == ["5H"] and game.phase is Phase.PLAY
    other = down_game(name)
    events = play(other, 0, "take")
    assert isinstance(events[0], TookDiscard) and "KC" in hand_text(other, 0) and other.discard == []
    with pytest.raises(IllegalMoveError, match="'draw' by seat 0"):
        play(other, 0, "draw")


@pytest.mark.parametrize("name", PRESETS)
def test_going_down_is_exactly_the_contract(name):
    """davis: 'In the first round you lay down only two books, and if you happen to have another in
    hand, too bad.' good-miller: 'you cannot lay down one set if you need two'."""
    game = stacked_game(name, [BOOKS + " 9H 9S 9D", "", "", ""], up="KC")
    draw(game)
    for text in ("down 7H 7S 7D", "down 7H 7S 7D / 8C 8D 8S / 9H 9S 9D"):
        with pytest.raises(IllegalMoveError) as err:
            play(game, 0, text)
        assert repr(text) in str(err.value) and "contract is two" in str(err.value)
    assert all(len(m.melds) == 2 for m in game.legal_moves(0) if isinstance(m, GoDown))
    events = play(game, 0, "down 7H 7S 7D / 8C 8D 8S")
    assert isinstance(events[0], WentDown) and table(game) == ["7D 7H 7S", "8C 8D 8S"]
    assert game.down[0] and "7H" not in hand_text(game, 0)


@pytest.mark.parametrize("name", PRESETS)
def test_once_down_no_new_melds(name):
    """davis: 'Once you are down you may not lay down other runs or books.' marcelle: 'No new matched
    sets are allowed.' good-miller: melding 'can only be done once by each player during each round'."""
    game = stacked_game(name, [BOOKS + " 9H 9S 9D 10H 10S", "", "", ""], up="KC", stock="QD 5C 5D 5S 10D")
    draw(game)
    play(game, 0, "down 7H 7S 7D / 8C 8D 8S", "discard QD")
    for seat in (1, 2, 3):
        discard_turn(game, seat, hand_text(game, seat)[0])
    draw(game)
    assert not any(isinstance(m, GoDown) for m in game.legal_moves(0))
    with pytest.raises(IllegalMoveError, match="already down"):
        play(game, 0, "down 9H 9S 9D / 10H 10S 10D")


@pytest.mark.parametrize("name", PRESETS)
def test_lay_off_only_once_down(name):
    """davis: 'Once you are "down" you may also play cards on any other books or runs others have laid
    down.' marcelle: 'After you spread, you can play on any player's sets.'"""
    game = down_game(name)
    draw(game)
    play(game, 0, "down 7H 7S 7D / 8C 8D 8S", "discard 9S")
    draw(game)
    with pytest.raises(IllegalMoveError, match="only once you are down"):
        play(game, 1, "lay 7C on 1")
    assert not any(m.text().startswith("lay") for m in game.legal_moves(1))


@pytest.mark.parametrize("name, same_turn", [("davis", True), ("good-miller", True), ("marcelle", False)],
                         ids=["davis: lay off once down", "good-miller: 'or on the same turn after your meld'",
                              "marcelle: 'they have to be played on next turn'"])
def test_lay_off_on_the_turn_of_going_down(name, same_turn):
    game = down_game(name)
    draw(game)
    play(game, 0, "down 7H 7S 7D / 8C 8D 8S")
    if same_turn:
        events = play(game, 0, "lay JK on 1")
        assert isinstance(events[0], LaidOff) and table(game)[0] == "7D 7H 7S JK"
        return
    with pytest.raises(IllegalMoveError, match="next turn"):
        play(game, 0, "lay JK on 1")
    assert not any(m.text().startswith("lay") for m in game.legal_moves(0))
    play(game, 0, "discard 9S")
    for seat in (1, 2, 3):
        discard_turn(game, seat, hand_text(game, seat)[0])
    draw(game)
    play(game, 0, "lay JK on 1")
    assert table(game)[0] == "7D 7H 7S JK"


@pytest.mark.parametrize("name", PRESETS)
def test_lay_off_on_another_players_meld(name):
    """davis: 'If the person across from you has laid down a book of 3's, and you have two threes in
    your hand, you may place your threes on their book.'"""
    game = stacked_game(name, [BOOKS + " 3C 3H 9S", "3S 3D 3H 4C 4D 4S 9H", "", ""], up="KC")
    draw(game)
    play(game, 0, "down 7H 7S 7D / 8C 8D 8S", "discard 9S")
    draw(game)
    play(game, 1, "down 3S 3D 3H / 4C 4D 4S", "discard 9H")
    for seat in (2, 3):
        discard_turn(game, seat, hand_text(game, seat)[0])
    draw(game)
    play(game, 0, "lay 3C on 3", "lay 3H on 3")
    assert sorted(table(game)[2].split()) == ["3C", "3D", "3H", "3H", "3S"]


def test_davis_joker_only_on_a_meld_without_one():
    """davis: 'Jokers may be played on any book or run which does not already have a joker in it,
    assuming you are already down.'"""
    game = stacked_game("davis", ["7H 7S JK 8C 8D 8S JK", "", "", ""], up="KC")
    draw(game)
    play(game, 0, "down 7H 7S JK / 8C 8D 8S")
    with pytest.raises(IllegalMoveError, match="does not go on"):
        play(game, 0, "lay JK on 1")
    assert {m.text() for m in game.legal_moves(0) if m.text().startswith("lay JK")} == {"lay JK on 2"}
    with pytest.raises(IllegalMoveError, match="no low end"):
        play(game, 0, "lay JK on 2 low")  # a book has no ends
    play(game, 0, "lay JK on 2")
    assert table(game) == ["7H 7S JK", "8C 8D 8S JK"]


def test_davis_runs_end_at_the_ace():
    """davis: 'A run extends from 2 through King to Ace; no car may be placed below a two or above an
    ace. A run of 2-3-4-5-6-7-8-9-10-Jack-Queen-King-Ace may no longer be played on.'"""
    rules = contract_rules("davis", "2r,2r")
    game = stacked_game(rules, ["2S 3S 4S 5S JH QH KH AH 9S 10S JK", "", "", ""], up="KC")
    draw(game)
    play(game, 0, "down 2S 3S 4S 5S / JH QH KH AH")
    legal = {m.text() for m in game.legal_moves(0)}
    assert "lay JK on 1 high" in legal and "lay JK on 1 low" not in legal  # nothing below a two
    assert not any(t.startswith("lay JK on 2") and t.endswith("high") for t in legal)  # nor above an ace
    for text in ("lay JK on 1 low", "lay JK on 2 high"):
        with pytest.raises(IllegalMoveError, match="does not go on"):
            play(game, 0, text)
    full = meld_kind(rules, parse_cards("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"))
    assert full == "run"


@pytest.mark.parametrize("name", PRESETS)
def test_going_out_by_discarding_the_last_card(name):
    """davis: 'Play continues until someone gets rid of all the cards in their hand.' marcelle: 'Each
    hand ends when a player has played all his cards.'"""
    rules = contract_rules(name, "2s,2s", hand_size=6, last_round_hand_size=6)
    game = stacked_game(rules, [BOOKS, "", "", ""], up="KC", stock="9S")
    draw(game)
    events = play(game, 0, "down 7H 7S 7D / 8C 8D 8S", "discard 9S")
    assert [type(e) for e in events[:3]] == [WentDown, Discarded, WentOut]
    assert game.results[0].winner == 0 and game.round_no == 2


RUNS = "2C 3C 4C 5C / 6D 7D 8D 9D / 10S JS QS KS"


@pytest.mark.parametrize("name", ["davis", "good-miller"])
def test_last_round_melds_every_card_at_once(name):
    """davis: 'The last hand is three runs, no discard. This means after drawing ... you must be able to
    lay all your cards down and have them form just three runs.' good-miller: 'In the final round, you
    must meld all your cards at once. ... there is no discard - play ends immediately after the meld.'"""
    game = stacked_game(contract_rules(name, "3r"), [RUNS.replace("/ ", "")[:-3], "", "", ""], up="9H", stock="KS")
    draw(game)
    events = play(game, 0, "down " + RUNS)
    assert [type(e) for e in events[:2]] == [WentDown, WentOut] and game.results[0].winner == 0
    assert not any(isinstance(e, Discarded) for e in events)
    longer = stacked_game(contract_rules(name, "3r", last_round_hand_size=12),
                          [RUNS.replace("/ ", ""), "", "", ""], up="9H", stock="AH")
    draw(longer)
    with pytest.raises(IllegalMoveError, match="every card is melded at once"):
        play(longer, 0, "down " + RUNS)  # three runs, but the ace would stay in hand


def test_last_round_needs_three_runs_before_anything_else():
    """davis round 7: a player who is not down can only draw and discard (no partial lay-down)."""
    rules = contract_rules("davis", "3r")
    game = stacked_game(rules, ["2C 3C 4C 5C 6D 7D 8D 9D 10S JS QS", "", "", ""], up="9H", stock="2H")
    draw(game)
    assert not any(isinstance(m, GoDown) for m in game.legal_moves(0))
    assert {m.text() for m in game.legal_moves(0)} == {f"discard {c}" for c in game.hand(0)}


def test_marcelle_last_round_deals_13_and_discards():
    """marcelle: 'SEVENTH HAND ------ 3 RUNS OF FOUR -- DEAL 13 CARDS FOR THIS HAND'; going out is by
    playing or discarding the last card (no meld-everything rule)."""
    rules = contract_rules("marcelle", "3r")
    game = stacked_game(rules, ["2C 3C 4C 5C 6D 7D 8D 9D 10S JS QS KS 5H", "", "", ""], up="9H", stock="AH")
    assert [len(h) for h in game.hands] == [13] * 4
    draw(game)
    play(game, 0, "down 2C 3C 4C 5C / 6D 7D 8D 9D / 10S JS QS KS", "discard AH")
    assert game.hand(0)[0].face == parse_cards("5H")[0].face and game.phase is Phase.DRAW


@pytest.mark.parametrize("name", ["good-miller", "marcelle"])
def test_empty_stock_keeps_the_top_discard_and_shuffles_the_rest(name):
    """good-miller: 'If the stock pile runs out of cards, remove the top card from the discard pile and
    shuffle the remaining cards to create a new stock pile. The top card of the old discard pile remains
    face up'; marcelle's seed is silent (decision: as good-miller).  davis turns the whole pile over:
    test_seed_sentences.py, test_the_discard_pile_is_turned_over_to_form_the_draw_from_pile."""
    game = stacked_game(name, ["", "", "", "", "", ""], up="KC")
    while True:
        before = list(game.discard)
        events = draw(game)
        if any(isinstance(e, Reshuffled) for e in events):
            break
        drawn = next(e.card for e in events if isinstance(e, Drew))
        play(game, game.turn, f"discard {drawn}")
    reshuffled = next(e for e in events if isinstance(e, Reshuffled))
    assert game.discard == [before[-1]]
    assert reshuffled.cards == len(before) - 1
    assert len(game.stock) == len(before) - 2  # the new stock, less the card just drawn
    assert {game.faces[t] for t in game.stock} < set(before[:-1])


@pytest.mark.parametrize("name", PRESETS)
def test_the_discard_taken_does_not_go_straight_back(name):
    """Decision (docs/rules.md): a card taken from the pile may not be discarded the same turn, or
    two players could pass one card back and forth for ever; a house rule allows it."""
    game = down_game(name)
    play(game, 0, "take")
    with pytest.raises(IllegalMoveError, match="you took KC from the pile this turn"):
        play(game, 0, "discard KC")
    assert "discard KC" not in {m.text() for m in game.legal_moves(0)}
    assert "discard 9H" in {m.text() for m in game.legal_moves(0)}
    lenient = down_game(contract_rules(name, "2s,1s1r,2r,3s,2s1r,1s2r,3r", discard_taken_card=True))
    play(lenient, 0, "take", "discard KC")
    assert lenient.turn == 1


def test_a_round_that_goes_on_too_long_is_dead():
    """Decision (docs/rules.md): after ``max_turns`` turns the round ends with no winner and every
    hand scores, so that every game ends whatever the players do."""
    game = down_game(contract_rules("davis", "2s,1s1r,2r,3s,2s1r,1s2r,3r", max_turns=3))
    for seat in range(3):
        events = draw(game, seat) + play(game, seat, f"discard {game.hand(seat)[0]}")
    ended = [e for e in events if type(e).__name__ == "RoundEnded"]
    assert ended and ended[0].result.winner is None and game.round_no == 2
    assert ended[0].result.points[0] == penalty(game.rules, ended[0].result.hands[0]) > 0
