"""Jokers on the table: good-miller's swap, marcelle's buy; and the progression mode."""

from __future__ import annotations

import pytest

from shanghai_net.engine import JokerBought, JokerSwapped, Phase, SwapJoker, view_of
from shanghai_net.errors import IllegalMoveError

from scenario import contract_rules, discard_turn, draw, hand_text, play, stacked_game, table

SWAPS = [
    ("9C 9H JK / 5S 6S 7S 8S", "9S 9D", "swap JK on 1 with 9S 9D", "9C 9H 9S 9D", ["swap JK on 1 with 9S 5D"],
     "good-miller: 'Player has two nines ... The first 9 (any suit) replaces the Joker and the second 9 extends'"),
    ("5C 5H 5S / 8D 9D JK JD", "10D QD", "swap JK on 2 with 10D QD high", "8D 9D 10D JD QD", ["swap JK on 2 with 9D QD high"],
     "good-miller: 'The 10♢ replaces the Joker and the Queen♢ extends the meld.'"),
    ("5C 5H 5S / 8D 9D JK JD", "10D 7D", "swap JK on 2 with 10D 7D low", "7D 8D 9D 10D JD", [],
     "good-miller: 'Note that a 7♢ could also be used instead of the Queen to extend the meld.'"),
    ("5C 5H 5S / JK 9D 10D JD", "8D 7D QD", "swap JK on 2 with 8D 7D low", "7D 8D 9D 10D JD",
     ["swap JK on 2 with 8D QD high"],
     "good-miller: 'If a run starts or ends with a joker, the second card extending the meld must surround "
     "the joker being replaced.' (third example: the joker stands for 8♢)"),
    ("5C 5H 5S / 9D 10D JD JK", "QD KD 8D", "swap JK on 2 with QD KD high", "9D 10D JD QD KD",
     ["swap JK on 2 with QD 8D low"],
     "good-miller: 'The Queen♢ replaces the Joker, and the King♢ extends the meld by surrounding where the "
     "Joker was originally.'"),
]


@pytest.mark.parametrize("down, holds, swap, result, refused, seed", SWAPS, ids=[s[-1] for s in SWAPS])
def test_good_miller_joker_swap(down, holds, swap, result, refused, seed):
    """good-miller: 'The joker must be replaced with the card it represents and a second card must be
    added that extends the meld. Any joker gained in this manner must be laid off in the current turn'."""
    rules = contract_rules("good-miller", "1s1r,1s1r")
    own = down.replace(" /", "")
    game = stacked_game(rules, [own + " QC", "KC KH KS 2S 3S 4S 5S " + holds + " 5D", "", ""], up="AC")
    draw(game)
    play(game, 0, f"down {down}", "discard QC")
    draw(game)
    with pytest.raises(IllegalMoveError, match="only once you are down"):
        play(game, 1, swap)
    play(game, 1, "down KC KH KS / 2S 3S 4S 5S")
    for text in refused:
        with pytest.raises(IllegalMoveError):
            play(game, 1, text)
    legal = {m.text() for m in game.legal_moves(1) if isinstance(m, SwapJoker)}
    assert swap in legal and not legal & set(refused)
    events = play(game, 1, swap)
    meld = int(swap.split()[3]) - 1
    assert isinstance(events[0], JokerSwapped) and sorted(table(game)[meld].split()) == sorted(result.split())
    assert "JK" in hand_text(game, 1)
    with pytest.raises(IllegalMoveError, match="freed first"):
        play(game, 1, "discard 5D")
    assert not any(m.text().startswith("discard") for m in game.legal_moves(1))
    lay = next(m for m in game.legal_moves(1) if m.text().startswith("lay JK"))
    game.apply(lay)
    play(game, 1, "discard 5D")
    assert game.turn == 2


def test_marcelle_joker_buy():
    """marcelle: 'You may buy a JOKER by paying $.05 to the owner when it is laid down and by trading it
    with the card it represents.' 'You cannot trade with other wild card.' 'You cannot buy after you
    spread.'"""
    game = stacked_game("marcelle", ["9C 9H JK 5C 5H 5S QC", "9S 2S 8S KC KH KS 4C 4D 4S", "", ""], up="AC")
    draw(game)
    play(game, 0, "down 9C 9H JK / 5C 5H 5S", "discard QC")
    draw(game)
    money = list(game.money)
    for text, why in (("buy JK on 1 with 2S", "not the natural card"), ("buy JK on 1 with 8S", "not the natural card"),
                      ("buy JK on 2 with 9S", "no joker on meld 2")):
        with pytest.raises(IllegalMoveError, match=why):
            play(game, 1, text)
    assert {m.text() for m in game.legal_moves(1) if m.text().startswith("buy")} == {"buy JK on 1 with 9S"}
    events = play(game, 1, "buy JK on 1 with 9S")
    assert JokerBought(1, 0, events[0].joker, events[0].card, 0, 5) == events[0]
    assert game.money == [money[0] + 5, money[1] - 5, money[2], money[3]]
    assert sorted(table(game)[0].split()) == ["9C", "9H", "9S"] and "JK" in hand_text(game, 1)
    play(game, 1, "down KC KH KS / 4C 4D 4S")
    with pytest.raises(IllegalMoveError, match="after you spread"):
        play(game, 1, "buy JK on 1 with 9S")


@pytest.mark.parametrize("name, move", [("davis", "swap JK on 1 with 9S 9D"), ("davis", "buy JK on 1 with 9S"),
                                        ("good-miller", "buy JK on 1 with 9S"), ("marcelle", "swap JK on 1 with 9S 9D")])
def test_joker_moves_belong_to_their_preset(name, move):
    game = stacked_game(contract_rules(name, "2s,2s"), ["9C 9H JK 5C 5H 5S QC", "9S 9D KC KH KS 4C 4D 4S", "", ""], up="AC")
    draw(game)
    play(game, 0, "down 9C 9H JK / 5C 5H 5S", "discard QC")
    draw(game)
    play(game, 1, "down KC KH KS / 4C 4D 4S")
    with pytest.raises(IllegalMoveError, match="no joker"):
        play(game, 1, move)


def test_progression_each_player_advances_alone():
    """davis (Phase 10): 'the winner is the first person to complete *all* phases or rounds ... anyone who
    did not lay down two books or sets in the first round, has to try that for the second.'"""
    rules = contract_rules("davis", "2s,1s1r", progression=True, hand_size=6, last_round_hand_size=6)
    books = "7H 7S 7D 8C 8D 8S"
    game = stacked_game(rules, [books, "", "", ""], up="KC", stock="9S", later={
        2: {"hands": ["", "3H 3S 3D 4C 4D 4S", "", ""], "stock": "9S"},
        3: {"hands": ["9H 9S 9D 5C 6C 7C", "", "", ""], "stock": "QH QD 8C"},
    })
    draw(game)
    play(game, 0, "down 7H 7S 7D / 8C 8D 8S", "discard 9S")
    assert game.round_no == 2 and game.progress == [1, 0, 0, 0]
    assert view_of(game, 0).contract == (1, 1) and view_of(game, 1).contract == (2, 0)
    draw(game)
    play(game, 1, "down 3H 3S 3D / 4C 4D 4S", "discard 9S")
    assert game.progress == [1, 1, 0, 0] and game.round_no == 3 and game.phase is not Phase.OVER
    discard_turn(game, 2, hand_text(game, 2)[0])
    discard_turn(game, 3, hand_text(game, 3)[0])
    draw(game)
    assert view_of(game, 0).meld_all  # the last contract is melded whole, as davis round 7
    play(game, 0, "down 9H 9S 9D / 5C 6C 7C 8C")
    assert game.phase is Phase.OVER and game.progress == [2, 1, 0, 0]
    assert game.result.winners == (0,) and game.result.ranking[0] == 0


def test_freed_joker_keeps_its_place():
    """good-miller: 'Any joker gained in this manner must be laid off in the current turn': so no
    other lay-off may take the last place it could go, or the turn could not end."""
    rules = contract_rules("good-miller", "1s1r,1s1r", max_set=4, max_run=5, hand_size=12, last_round_hand_size=12)
    game = stacked_game(rules, ["9C 9H JK 5S 6S 7S 8S QC", "KC KH KS KD 2H 3H 4H 5H 6H 9S 9D 4S", "", ""], up="AC")
    draw(game)
    play(game, 0, "down 9C 9H JK / 5S 6S 7S 8S", "discard QC")
    draw(game)
    play(game, 1, "down KC KH KS KD / 2H 3H 4H 5H 6H", "swap JK on 1 with 9S 9D")
    with pytest.raises(IllegalMoveError, match="nowhere to lay off the joker"):
        play(game, 1, "lay 4S on 2 low")
    assert "lay 4S on 2 low" not in {m.text() for m in game.legal_moves(1)}
    play(game, 1, "lay JK on 2 low")
    assert table(game)[1].split() == ["JK", "5S", "6S", "7S", "8S"]
