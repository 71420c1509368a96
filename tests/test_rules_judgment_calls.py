"""docs/rules.md's judgment calls, row by row, against the engine (issue 39).

Every row of "Where we chose" that carries an id (`` `gm-contracts` ``) has a check here of that
id: a small game in the position the row speaks of, asserting the choice the row states.  A row
without a check, or a check without a row, fails `test_every_row_with_an_id_has_a_check`.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from shanghai_net.bots import make_bot
from shanghai_net.cards import parse_cards
from shanghai_net.engine import (Blocked, CallShanghai, DrawStock, Discard, LocalDealer, MayI,
                                 PassClaim, Phase, RoundEnded, SwapJoker, TakeDiscard, new_game)
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules import MeldKind, meld_kind, penalty, preset
from shanghai_net.simulate import play_game

from scenario import contract_rules, draw, hand_text, play, stacked_game, table
from test_carousel_rules import DEAD
from test_carousel_scenario import carousel_game

RULES_MD = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
CHECKS = {}


def check(row_id):
    """Register the check of the rules.md row ``row_id``."""
    def register(fn):
        assert row_id not in CHECKS, row_id
        CHECKS[row_id] = fn
        return fn
    return register


def documented_ids() -> list[str]:
    """The ids of the rows of rules.md's "Where we chose" table."""
    text = RULES_MD.read_text()
    section = text[text.index("## Where we chose"):text.index("## Decisions where the seeds are silent")]
    return re.findall(r"^\| `([a-z0-9-]+)` ", section, re.MULTILINE)


def refused(game, seat, text, why=""):
    with pytest.raises(IllegalMoveError, match=why or None):
        play(game, seat, text)


def quiet_round(game):
    """Play the round out with nobody going down: the seat to draw draws from the stock and
    discards its first card, every claim is let go (with ``max_turns=1`` the round then ends)."""
    round_no = game.round_no
    while game.round_no == round_no and game.phase is not Phase.OVER:
        seat = game.to_move()[0]
        if game.window is not None and seat in game.window.undecided() and seat != game.turn:
            game.apply(PassClaim(seat))
        elif game.phase is Phase.DRAW:
            game.apply(DrawStock(seat))
        else:
            game.apply(Discard(seat, game.hand(seat)[0]))


# -- good-miller ---------------------------------------------------------------------------------

@check("gm-contracts")
def _():
    ladder = ((2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3))
    assert preset("good-miller").contracts == preset("davis").contracts == ladder
    game = stacked_game("good-miller", ["7H 7S 7D 9C 9H 9S QC", "", "", ""], up="AC")
    draw(game)
    play(game, 0, "down 7H 7S 7D / 9C 9H 9S")  # round 1: two sets
    assert table(game) == ["7D 7H 7S", "9C 9H 9S"]


@check("gm-points")
def _():
    rules = preset("good-miller")
    assert penalty(rules, parse_cards("2C 7D 8H KS AS JK")) == 5 + 5 + 10 + 10 + 20 + 50
    assert rules.winner_bonus == -10


SWAP_RUN = "5C 5H 5S / JK 9D 10D JD"  # the third example's run: the joker stands for 8♦


def swap_game(holds):
    rules = contract_rules("good-miller", "1s1r,1s1r")
    game = stacked_game(rules, [SWAP_RUN.replace(" /", "") + " QC", "KC KH KS 2S 3S 4S 5S " + holds + " 5D",
                                "", ""], up="AC")
    draw(game)
    play(game, 0, f"down {SWAP_RUN}", "discard QC")
    draw(game)
    return game


@check("gm-swap-example")
def _():
    game = swap_game("9D 8D 7D")
    play(game, 1, "down KC KH KS / 2S 3S 4S 5S")
    refused(game, 1, "swap JK on 2 with 9D 8D low", "not the card the joker stands for")
    refused(game, 1, "swap JK on 2 with 8D 9D high")
    play(game, 1, "swap JK on 2 with 8D 7D low")
    assert table(game)[1] == "7D 8D 9D 10D JD" and "JK" in hand_text(game, 1)


@check("gm-swap-who")
def _():
    game = swap_game("8D 7D")
    refused(game, 1, "swap JK on 2 with 8D 7D low", "only once you are down")
    assert not any(isinstance(m, SwapJoker) for m in game.legal_moves(1))
    play(game, 1, "down KC KH KS / 2S 3S 4S 5S", "swap JK on 2 with 8D 7D low")


@check("gm-aces")
def _():
    gm, marcelle = preset("good-miller"), preset("marcelle")
    whole = parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH")
    assert meld_kind(gm, whole) is MeldKind.RUN  # an ace at each end: the 14-card run
    assert meld_kind(marcelle, whole) is None  # marcelle: low or high, never both
    assert meld_kind(gm, parse_cards("QH KH AH 2H")) is None  # no run turns the corner
    for rules in (gm, marcelle):
        assert meld_kind(rules, parse_cards("AD 2D 3D 4D")) is MeldKind.RUN
        assert meld_kind(rules, parse_cards("JH QH KH AH")) is MeldKind.RUN
    game = stacked_game(contract_rules("good-miller", "1r,1r"), ["JH QH KH AH 10H 2H QC", "", "", ""], up="AC")
    draw(game)
    play(game, 0, "down JH QH KH AH", "lay 10H on 1 low")
    refused(game, 0, "lay 2H on 1 high")  # the ace high is not low too


@check("same-rank-sets")
def _():
    for name in ("good-miller", "marcelle"):
        game = stacked_game(name, ["7H 7S 7D 7C 7H 7S QC", "", "", ""], up="AC")
        draw(game)
        play(game, 0, "down 7H 7S 7D / 7C 7H 7S")
        runs = stacked_game(contract_rules(name, "2r,2r"), ["2S 3S 4S 5S 6S 7S 8S 9S QC", "", "", ""], up="AC")
        draw(runs)
        play(runs, 0, "down 2S 3S 4S 5S / 6S 7S 8S 9S")
    davis = stacked_game("davis", ["7H 7S 7D 7C 7H 7S QC", "", "", ""], up="AC")
    draw(davis)
    refused(davis, 0, "down 7H 7S 7D / 7C 7H 7S")
    davis_runs = stacked_game(contract_rules("davis", "2r,2r"), ["2S 3S 4S 5S 6S 7S 8S 9S QC", "", "", ""], up="AC")
    draw(davis_runs)
    refused(davis_runs, 0, "down 2S 3S 4S 5S / 6S 7S 8S 9S")


# -- marcelle's money ----------------------------------------------------------------------------

@check("marcelle-ante")
def _():
    rules = preset("marcelle").override(max_turns=1)
    game = new_game(rules, 3, LocalDealer(1))
    assert game.pot == 15 and game.money == [25, 25, 25]  # one nickel each as round 1 is dealt
    quiet_round(game)
    assert game.round_no == 2
    assert all(m == 30 - 5 - 12 - 5 for m in game.money)  # round 2 antes again
    pot = game.pot - 15
    game.void_round(leaver=1, go_on=True)  # round 2's antes go back; the leaver pays 20 in
    assert game.round_no == 3 and game.pot == pot + 20 + 15  # and the round dealt again antes


@check("dead-pot")
def _():
    rules = preset("marcelle").override(max_turns=1)
    game = new_game(rules, 3, LocalDealer(1))
    quiet_round(game)
    assert game.results[-1].winner is None and game.results[-1].ended == "turn limit"
    assert game.pot == 15 + 3 * 12 + 15  # round 1's antes and pennies carry over, round 2 antes
    no_pennies = new_game(rules.override(dead_round_scores=False), 3, LocalDealer(1))
    quiet_round(no_pennies)
    assert no_pennies.pot == 15 + 15


@check("joker-buy-when")
def _():
    game = stacked_game("marcelle", ["9C 9H JK 5C 5H 5S QC", "9S 2S 8S KC KH KS 4C 4D 4S", "", ""], up="AC")
    draw(game)
    play(game, 0, "down 9C 9H JK / 5C 5H 5S", "discard QC")
    refused(game, 1, "buy JK on 1 with 9S", "not now")  # before drawing
    draw(game)
    refused(game, 1, "buy JK on 1 with 2S", "not the natural card")  # not with a wild two
    refused(game, 2, "buy JK on 1 with 9S")  # not on another's turn
    play(game, 1, "buy JK on 1 with 9S", "down KC KH KS / 4C 4D 4S")
    after = stacked_game("marcelle", ["9C 9H JK 5C 5H 5S QC", "9S KC KH KS 4C 4D 4S", "", ""], up="AC")
    draw(after)
    play(after, 0, "down 9C 9H JK / 5C 5H 5S", "discard QC")
    draw(after)
    play(after, 1, "down KC KH KS / 4C 4D 4S")
    refused(after, 1, "buy JK on 1 with 9S", "after you spread")


# -- going down and laying off -------------------------------------------------------------------

@check("davis-lay-off-down-turn")
def _():
    hand = ["9H 9S 9D 5S 6S 7S 8S 4S QC", "", "", ""]
    davis = stacked_game(contract_rules("davis", "1s1r,1s1r"), hand, up="AC")
    draw(davis)
    play(davis, 0, "down 9H 9S 9D / 5S 6S 7S 8S", "lay 4S on 2 low")
    assert table(davis)[1] == "4S 5S 6S 7S 8S"
    marcelle = stacked_game(contract_rules("marcelle", "1s1r,1s1r"), hand, up="AC")
    draw(marcelle)
    play(marcelle, 0, "down 9H 9S 9D / 5S 6S 7S 8S")
    refused(marcelle, 0, "lay 4S on 2 low")


@check("four-aces")
def _():
    game = stacked_game("davis", ["AH AS AD AC 8H 8S 8D QC", "", "", ""], up="KC")
    draw(game)
    play(game, 0, "down AH AS AD / 8H 8S 8D")
    assert "AC" in hand_text(game, 0)  # the fourth ace may stay in hand
    play(game, 0, "lay AC on 1")  # and go on the book later (here: at once)
    assert table(game)[0].split().count("AC") == 1


# -- the card turned up at the deal, and SHANGHAI ------------------------------------------------

@check("upcard-claims")
def _():
    game = stacked_game("davis", ["", "", "", ""], up="KC", dealer=3)
    assert game.turn == 0 and game.window is not None and str(game.window.card) == "KC"
    assert set(game.window.undecided()) == {1, 2, 3}  # the dealer too: nobody discarded it
    assert game.is_legal(TakeDiscard(0))  # the first player may take it
    game.apply(MayI(3))
    draw(game)
    assert "KC" in hand_text(game, 3)


@check("upcard-shanghai")
def _():
    game = stacked_game("davis", ["", "", "", ""], up="KC")
    assert not any(game.may_call_shanghai(s) for s in range(4))
    assert not any(isinstance(m, CallShanghai) for s in range(4) for m in game.legal_moves(s))


@check("shanghai-cancels-claims")
def _():
    rules = contract_rules("davis", "1s1r,1s1r")
    game = stacked_game(rules, ["9H 9S 9D 5S 6S 7S 8S QC", "4S KD", "JD 9C", "2S 3S AD"], up="KC")
    draw(game)
    play(game, 0, "down 9H 9S 9D / 5S 6S 7S 8S", "discard QC")
    draw(game)
    play(game, 1, "discard 4S")
    sizes, claims = [len(h) for h in game.hands], list(game.claims_left)
    game.apply(MayI(0))  # a claim on the 4♠, pending: seat 2 (to draw) has not chosen
    play(game, 3, "shanghai 2 low")
    assert table(game)[1] == "4S 5S 6S 7S 8S"
    assert len(game.hands[0]) == sizes[0] and game.claims_left == claims  # the claim is gone, free
    assert game.window is not None and game.window.card == game.discard[-1]  # a fresh window
    assert 0 in game.window.undecided()


# -- dealing, turns and the end ------------------------------------------------------------------

@check("first-dealer")
def _():
    game = stacked_game(contract_rules("davis", "2s,2s").override(max_turns=1), ["", "", "", ""], dealer=2)
    assert game.dealer_seat == 2 and game.turn == 3  # the pick's seat deals, the next plays first
    quiet_round(game)
    assert game.round_no == 2 and game.dealer_seat == 3 and game.turn == 0
    game.void_round(leaver=1, go_on=True)  # a round dealt again keeps its dealer
    assert game.round_no == 3 and game.dealer_seat == 3


@check("ties")
def _():
    game = new_game(preset("davis"), 4, LocalDealer(5))
    game.void_round()  # the game ends with every total 0
    assert game.result.winners == (0, 1, 2, 3)
    tied = new_game(preset("davis").override("contracts=2s", max_turns=1, dead_round_scores=False),
                    3, LocalDealer(2))
    quiet_round(tied)
    assert tied.phase is Phase.OVER and tied.result.totals == (0, 0, 0)
    assert tied.result.winners == (0, 1, 2)


@check("p10-bound")
def _():
    rules = preset("davis").override("contracts=2s,2s", progression=True, max_turns=1)
    game = new_game(rules, 3, LocalDealer(3))
    rounds = 0
    while game.phase is not Phase.OVER:
        quiet_round(game)
        rounds += 1
    assert rounds == (2 - 1) * 3 + 1 and max(game.progress) == 0  # nobody finished: a stop


@check("carousel-target")
def _():
    rules = preset("carousel")
    assert rules.target_score == 25
    game = play_game(rules, [make_bot("basic", random.Random(s)) for s in range(3)], seed=4)
    rounds = game.result.rounds
    assert all(max(r.totals) < 25 for r in rounds[:-1]) and max(rounds[-1].totals) >= 25


@check("carousel-blocked")
def _():
    game = carousel_game(DEAD, only_stock=True)
    for seat in (0, 1):
        game.apply(PassClaim(seat))
    events = game.apply(PassClaim(2))
    assert any(isinstance(e, Blocked) for e in events)
    (ended,) = [e for e in events if isinstance(e, RoundEnded)]
    assert ended.result.winner is None and ended.result.points == (10, 10, 10)


@check("carousel-after-draw")
def _():
    before = carousel_game(["7H 8H 9H KD", "", ""], stock="2S", table=["9S 9D 9C"])
    with pytest.raises(IllegalMoveError, match="at least 2"):
        before.apply(before.parse("play 9S 9D 9C +9H", 0))  # before drawing: two or more
    game = carousel_game(["7H 8H KD", "", ""], stock="9H", table=["9S 9D 9C"])
    game.apply(DrawStock(0))  # 7H 8H 9H could now go down: three cards
    game.apply(game.parse("play 9S 9D 9C +9H", 0))  # after drawing, one card is enough
    assert game.turn == 1


# -- the table of rows and checks ----------------------------------------------------------------

def test_every_row_with_an_id_has_a_check():
    ids = documented_ids()
    assert len(ids) == len(set(ids)), "a row id twice"
    assert sorted(ids) == sorted(CHECKS), (f"rows without a check: {sorted(set(ids) - set(CHECKS))}; "
                                           f"checks without a row: {sorted(set(CHECKS) - set(ids))}")


@pytest.mark.parametrize("row_id", sorted(CHECKS))
def test_the_engine_makes_the_rows_choice(row_id):
    CHECKS[row_id]()
