"""Issue 15: where the presets departed from the seeds' own words, one test per seed sentence,
through the public API in stacked positions (carousel's is in test_carousel_rules.py:
``test_must_meld_if_able_at_least_more_than_one``)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_net.bots import make_bot
from shanghai_net.engine import (
    Claimed, DrawStock, Drew, GameEnded, MayI, PassClaim, Phase, PotReturned, Reshuffled, RoundEnded, TakeDiscard,
    WentOut, new_game, LocalDealer, LayOff, Discard,
)
from shanghai_net.errors import IllegalMoveError
from shanghai_net.cards import parse_cards
from shanghai_net.rules import PRESETS, meld_kind, preset
from shanghai_net.simulate import play_game

from scenario import contract_rules, discard_turn, draw, hand_text, play, run_bots, stacked_game
from test_engine_shanghai import spade_run_game


def quiet_turns(game, until) -> list:
    """Every seat draws from the stock and discards the card it drew, until ``until(events)``."""
    events: list = []
    while not until(events):
        seat = game.turn
        events += draw(game, seat)
        if game.phase is Phase.PLAY:  # not a round that ended in the draw
            events += play(game, seat, f"discard {game.hand(seat)[-1]}")
    return events


# -- 1. the stock ----------------------------------------------------------------------------------

def test_if_all_cards_are_drawn_the_discard_pile_is_turned_over():
    """Seed 000: "If all cards are drawn before the conclusion of a round, then the discard pile is turned
    over to form the 'draw from' pile"; seed 002: "... shuffle the remaining cards to create a new stock
    pile ... Play then continues as before."  No limit: the round goes on past any number of reshuffles."""
    for name in ("davis", "good-miller", "marcelle"):
        assert PRESETS[name].max_reshuffles is None
    game = stacked_game("davis", ["", "", "", ""])
    events = quiet_turns(game, lambda ev: sum(isinstance(e, Reshuffled) for e in ev) >= 5)
    assert game.round_no == 1 and game.phase is Phase.DRAW
    assert not any(isinstance(e, RoundEnded) for e in events)


def test_a_table_may_limit_reshuffles_and_the_round_says_it_was_stuck():
    """House rule ``max_reshuffles``: the round that cannot draw ends with nobody out, reported "stuck"."""
    game = stacked_game(contract_rules("davis", "2s,2s", max_reshuffles=1), ["", "", "", ""])
    events = quiet_turns(game, lambda ev: any(isinstance(e, RoundEnded) for e in ev))
    (ended,) = [e.result for e in events if isinstance(e, RoundEnded)]
    assert ended.winner is None and ended.ended == "stuck"
    assert sum(isinstance(e, Reshuffled) for e in events) == 1


def test_the_turn_limit_is_a_safeguard_far_past_a_human_round_and_says_so():
    """The bots' safeguard (`max_turns`): off with ``none``, 1000 in the presets; a round it ends is
    reported as "turn limit", not as a round nobody could win."""
    assert all(PRESETS[n].max_turns == 1000 for n in ("davis", "good-miller", "marcelle"))
    assert preset("davis").override("max_turns=none").max_turns is None
    game = stacked_game(contract_rules("davis", "2s,2s", max_turns=6), ["", "", "", ""])
    events = quiet_turns(game, lambda ev: any(isinstance(e, RoundEnded) for e in ev))
    (ended,) = [e.result for e in events if isinstance(e, RoundEnded)]
    assert ended.winner is None and ended.ended == "turn limit"
    assert "turn limit" in str([e for e in events if isinstance(e, RoundEnded)][0])


# -- 2. the marcelle pot ---------------------------------------------------------------------------

def test_the_winner_takes_the_pot_and_a_pot_nobody_won_goes_back():
    """Seed 003: "The winner takes the nickles, pennies, pot."  After the last round nobody can take a pot
    nobody won: each player gets back what they put in (money is never lost)."""
    rules = contract_rules("marcelle", "2s", max_turns=4)
    game = stacked_game(rules, ["", "", "", ""])
    events = quiet_turns(game, lambda ev: any(isinstance(e, GameEnded) for e in ev))
    (returned,) = [e for e in events if isinstance(e, PotReturned)]
    assert returned.shares == (5 + 13,) * 4  # the nickel ante and a penny for each of 13 cards
    assert game.result.totals == (rules.stake,) * 4 and game.pot == 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(3, 8), turns=st.sampled_from([8, 40, 2000]),
       rounds=st.sampled_from(["2s", "2s,1s1r", "2s,1s1r,2r"]))
def test_money_is_conserved_over_whole_games(seed, players, turns, rounds):
    """Every coin is somewhere: in a purse or in the pot, and at the game's end in a purse (a rebuy
    from the bank is counted against the purse, so totals add up to the stakes)."""
    rules = contract_rules("marcelle", rounds, max_turns=turns)
    rng = random.Random(seed)
    game = new_game(rules, players, LocalDealer(seed))
    bots = [make_bot("basic", random.Random(rng.random())) for _ in range(players)]

    def conserved(g) -> None:
        assert sum(g._standing()) + g.pot == players * rules.stake

    run_bots(game, bots, after=conserved)
    assert game.pot == 0 and sum(game.result.totals) == players * rules.stake


# -- 3. a SHANGHAI'd card uncovered by a MAY I -----------------------------------------------------

def test_a_shanghaid_card_uncovered_by_a_may_i_may_now_be_drawn():
    """Seed 000: "if another card is placed on top of it, then MAY I'd, (thus exposing the Shanghai'd card
    again), it may now be drawn or MAY I'd and put into play in normal fashion."  The player about to draw
    chose the stock before the MAY I: a new chance opens, and they may take the uncovered card instead."""
    game = spade_run_game()
    play(game, 1, "discard 4S shanghai")
    draw(game)
    play(game, 2, "discard JD")  # covers the 4♠
    game.apply(MayI(0))
    events = game.apply(DrawStock(3))  # seat 0 is first after the drawer: the J♦ is its
    assert any(isinstance(e, Claimed) and e.seat == 0 for e in events) and "JD" in hand_text(game, 0)
    assert game.phase is Phase.DRAW and game.turn == 3 and str(game.discard[-1]) == "4S"
    assert TakeDiscard(3) in list(game.legal_moves(3)) and MayI(1) in list(game.legal_moves(1))
    play(game, 3, "take")
    assert "4S" in hand_text(game, 3) and game.phase is Phase.PLAY


def test_a_shanghaid_card_uncovered_by_a_may_i_may_now_be_may_id():
    """Seed 000, the same sentence: "... or MAY I'd": another player claims the uncovered card."""
    game = spade_run_game()
    play(game, 1, "discard 4S shanghai")
    draw(game)
    play(game, 2, "discard JD")
    game.apply(MayI(0))
    game.apply(DrawStock(3))
    game.apply(MayI(1))
    game.apply(PassClaim(0))
    game.apply(DrawStock(3))
    assert "4S" in hand_text(game, 1)
    # the MAY I uncovered the Q♣ under it: the same chance again, in normal fashion
    assert str(game.discard[-1]) == "QC" and game.phase is Phase.DRAW and game.turn == 3


def test_good_miller_draws_from_the_stock_after_a_call():
    """Seed 002: "Only when the other players have had the opportunity to call the discard does the person
    who was about to play draw from the stock": no second chance there (`reopen_after_claim` off)."""
    game = stacked_game("good-miller", ["", "", "", ""])
    discard_turn(game, 0, str(game.hand(0)[0]))
    game.apply(MayI(2))
    game.apply(DrawStock(1))
    assert game.phase is Phase.PLAY and game.turn == 1 and len(game.hand(1)) == 12


# -- 4. good-miller's discard ----------------------------------------------------------------------

LAST_CARD_PLAYS = ["9H 9S 9D 5C 5S 5D 9C 5H 9S 5S 5D", "", "", ""]


def down_to_the_last_card(name: str):
    """Seat 0 goes down with two books, lays off five cards and holds only a 9♥ that plays on its book."""
    game = stacked_game(contract_rules(name, "2s,2s"), LAST_CARD_PLAYS, stock="9H")
    draw(game)
    play(game, 0, "down 9H 9S 9D / 5C 5S 5D", "lay 9C on 1", "lay 5H on 2", "lay 9S on 1",
         "lay 5S on 2", "lay 5D on 2")
    assert hand_text(game, 0) == ["9H"]
    return game


def test_at_the_end_of_your_turn_you_must_discard_one_card():
    """Seed 002: "At the end of your turn, you must discard one card from your hand ... (except at the end of
    round 7)": a player goes out by discarding the last card, never by laying it off (`out_by_discard`)."""
    game = down_to_the_last_card("good-miller")
    assert not [m for m in game.legal_moves(0) if isinstance(m, LayOff)]
    with pytest.raises(IllegalMoveError, match="every turn ends with a discard"):
        play(game, 0, "lay 9H on 1")
    assert [m for m in game.legal_moves(0) if isinstance(m, Discard)]
    events = play(game, 0, "discard 9H")
    assert WentOut(0) in events


def test_good_miller_may_not_go_down_with_every_card_before_the_last_round():
    """Seed 002, the same sentence: going down may not use the card the turn must end by discarding."""
    rules = contract_rules("good-miller", "2s,3r")
    game = stacked_game(rules, ["9H 9S 9D 9C 9H 9S 5C 5S 5D 5H 5C", "", "", ""], stock="5S")
    draw(game)
    with pytest.raises(IllegalMoveError, match="every turn ends with a discard"):
        play(game, 0, "down 9H 9S 9D 9C 9H 9S / 5C 5S 5D 5H 5C 5S")
    play(game, 0, "down 9H 9S 9D 9C 9H / 5C 5S 5D 5H 5C")


def test_davis_goes_out_by_playing_the_last_card():
    """Seed 000: "Play continues until someone gets rid of all the cards in their hand" (davis keeps it)."""
    game = down_to_the_last_card("davis")
    assert WentOut(0) in play(game, 0, "lay 9H on 1")


# -- the judgment calls: each a field a table can turn ---------------------------------------------

@pytest.mark.parametrize("after_stock", [True, False])
def test_shanghai_by_the_player_who_chose_the_stock(after_stock):
    """Seed 000: "any person may call out 'SHANGHAI'" (`shanghai_after_stock`: the drawer too, by default)."""
    rules = contract_rules("davis", "1s1r,1s1r", shanghai_after_stock=after_stock)
    game = stacked_game(rules, ["9H 9S 9D 5S 6S 7S 8S QC", "4S KD", "JD 9C", "2S 3S AD"], up="KC")
    draw(game)
    play(game, 0, "down 9H 9S 9D / 5S 6S 7S 8S", "discard QC")
    draw(game)
    play(game, 1, "discard 4S")  # plays on the run, not declared
    game.apply(DrawStock(2))  # seats 3 and 0 have not answered: the claims are pending
    if after_stock:
        play(game, 2, "shanghai 2 low")
        assert "4S 5S 6S 7S 8S" in [m.text() for m in game.table]
    else:
        with pytest.raises(IllegalMoveError, match="SHANGHAI now"):
            play(game, 2, "shanghai 2 low")


def test_a_table_may_score_a_round_nobody_went_out_of_as_nothing():
    """`dead_round_scores` off: a round nobody went out of charges nobody (default: every hand in full)."""
    for scores in (True, False):
        game = stacked_game(contract_rules("davis", "2s,2s", max_turns=4, dead_round_scores=scores), ["", "", "", ""])
        events = quiet_turns(game, lambda ev: any(isinstance(e, RoundEnded) for e in ev))
        (ended,) = [e.result for e in events if isinstance(e, RoundEnded)]
        assert all(p > 0 for p in ended.points) if scores else ended.points == (0, 0, 0, 0)


# -- issue 25 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["marcelle", "davis"])
def test_the_winner_is_the_first_to_complete_all_phases_whatever_the_scoring(name):
    """Seed 000: "The winner is the first to complete all 10 phases, with the score that's been kept only
    used to break possible ties."  In progression the contracts completed rank first, with money (most)
    as with points (fewest) only a tie-break; the richest seat of a game often completed fewer."""
    rules = preset(name).override(progression=True)
    richer_loser = False
    for seed in range(8):
        bots = [make_bot("basic", random.Random(seed * 10 + i)) for i in range(4)]
        game = play_game(rules, bots, seed)
        result, most = game.result, max(game.progress)
        assert {s for s in range(4) if game.progress[s] == most} >= set(result.winners)
        assert [game.progress[s] for s in result.ranking] == sorted(game.progress, reverse=True)
        tied = [s for s in range(4) if game.progress[s] == most]
        best = (max if rules.money else min)(result.totals[s] for s in tied)
        assert set(result.winners) == {s for s in tied if result.totals[s] == best}
        richer_loser |= rules.money and max(result.totals) not in [result.totals[s] for s in result.winners]
    assert richer_loser or not rules.money


def test_anyone_can_claim_the_top_of_the_discard_pile():
    """Seed 003: "Anyone can claim the top of the discard pile but must also draw an extra penalty card from
    the staock without discarding."  No limit is given, so marcelle sets none: a fifth claim in a round is
    taken like the first, one penalty card each.  A table may still set a limit (test_engine_claims.py), or
    none on any preset."""
    from test_engine_claims import four, until_claimable

    assert preset("marcelle").claims_per_round is None
    assert preset("davis").override("claims_per_round=none").claims_per_round is None
    assert preset("davis").override(claims_per_round=None).claims_per_round is None  # the wire's nil
    game = four("marcelle")
    dealt = len(game.hands[3])
    for k in range(1, 6):
        until_claimable(game, 3)
        card = game.discard[-1]
        game.apply(MayI(3))
        assert Claimed(3, card, 1) in draw(game)
        assert len(game.hands[3]) == dealt + 2 * k and game.claims_left[3] is None


@pytest.mark.parametrize(("name", "text", "seed"), [
    ("good-miller", "9C JK JK", "002: 'Jokers may be used in either sets or runs, to substitute for any missing card'"),
    ("good-miller", "JK 6S JK JK", "002: 'Jokers may be used in either sets or runs, to substitute for any missing card'"),
    ("marcelle", "7H 2C 2D", "003: 'JOKERS and TWO's are wild'"),
    ("marcelle", "JK 8D 2C 2S", "003: 'JOKERS and TWO's are wild'"),
    ("marcelle", "8D 2C JK 2S", "003: 'JOKERS and TWO's are wild'"),
])
def test_wild_cards_are_not_counted_against_the_naturals(name, text, seed):
    """Neither seed limits the wild cards of a meld, so neither preset does; one natural card is still
    needed (a meld of wild cards alone stands for nothing).  No more wilds than naturals is a house
    rule (`wilds_at_most_naturals`), and davis's one joker a meld its seed's own."""
    cards = parse_cards(text)
    assert meld_kind(preset(name), cards) is not None
    assert meld_kind(preset(name).override("wilds_at_most_naturals=true"), cards) is None
    assert meld_kind(preset(name), parse_cards("JK JK JK")) is None


def until_reshuffled(game) -> tuple[list, list]:
    """Quiet turns (draw, throw back the card drawn) until the stock is refilled: the pile as it was,
    and the events of the draw that refilled it."""
    while True:
        before = list(game.discard)
        events = draw(game)
        if any(isinstance(e, Reshuffled) for e in events):
            return before, events
        play(game, game.turn, f"discard {next(e.card for e in events if isinstance(e, Drew))}")


def test_the_discard_pile_is_turned_over_to_form_the_draw_from_pile():
    """Seed 000: "If all cards are drawn before the conclusion of a round, then the discard pile is turned
    over to form the 'draw from' pile."  The whole pile, its top card too (seed 002 keeps that one: "The top
    card of the old discard pile remains face up"); a new generation of the deal, which the dealer shuffles
    (the engine never orders hidden cards), so the pile left is empty and the drawer draws from the new
    stock."""
    assert preset("davis").turn_pile_over and not preset("good-miller").turn_pile_over
    game = stacked_game("davis", ["", "", "", ""], up="KC")
    before, events = until_reshuffled(game)
    (reshuffled,) = [e for e in events if isinstance(e, Reshuffled)]
    (drawn,) = [e.card for e in events if isinstance(e, Drew)]
    assert reshuffled.cards == len(before) and game.discard == []
    assert sorted({game.faces[t] for t in game.stock} | {drawn}) == sorted(set(before))
    assert [m.text() for m in game.legal_moves(game.turn)][-1].startswith("discard")
    play(game, game.turn, f"discard {game.hand(game.turn)[0]}")
    assert len(game.discard) == 1 and game.phase is Phase.DRAW


@pytest.mark.parametrize("turn_over", [True, False])
def test_a_pile_of_one_card_still_refills_the_stock_when_it_is_turned_over(turn_over):
    """Seed 000's pile "is turned over to form the 'draw from' pile" even when it is one card: a round
    never ends stuck with a card left to turn over.  Seed 002 keeps the top card as the new pile, so there
    one card cannot refill the stock, and the round ends stuck (nobody out).  Here the stock's last card
    is drawn, a claim leaves one card on the pile and the claim's penalty card is owed."""
    rules = contract_rules("davis", "2s,2s", jokers=2, hand_size=26, last_round_hand_size=26, claim_penalty=1,
                           reopen_after_claim=False, turn_pile_over=turn_over)
    game = stacked_game(rules, ["", "", "", ""], up="KC")
    assert len(game.stock) == 1
    play(game, 0, "draw")
    for seat in (1, 2, 3):
        play(game, seat, "pass")
    play(game, 0, f"discard {game.hand(0)[0]}")
    pile = list(game.discard)
    play(game, 1, "draw")
    events = play(game, 2, "mayi") + play(game, 3, "pass")
    ended = [e.result for e in events if isinstance(e, RoundEnded)]
    if turn_over:
        assert [e.cards for e in events if isinstance(e, Reshuffled)] == [1]
        assert pile[0] in ended[0].hands[2]  # the one card turned over was the claimer's penalty card
        assert ended[0].ended == "stuck"  # then the drawer is owed a card and nothing is left at all
    else:
        assert not any(isinstance(e, Reshuffled) for e in events)
        assert ended[0].ended == "stuck" and pile[0] not in ended[0].hands[2]
