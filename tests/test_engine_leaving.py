"""Issue 22, the engine's half: the round a lost seat spoils is void for everyone, the seat that
left pays `leave_penalty`, and with ``go_on`` the same contract is dealt again as the next deal
(`DealtGame.void_round`; docs/rules.md, "When a player leaves")."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shanghai_net.bots import make_bot
from shanghai_net.cards import deck
from shanghai_net.engine import (GameEnded, LocalDealer, Phase, PotReturned, RoundStarted, RoundVoided, Words,
                                 new_game, round_numbers)
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules import preset
from shanghai_net.rules.contracts import describe_contract

from scenario import run_bots
from test_properties import where_cards_are


def game_in(rules, contract_no: int, players: int = 3, seed: int = 5, moves: int = 6):
    """A game between basic bots ``moves`` moves into its round ``contract_no``, and its bots."""
    rules = preset(rules) if isinstance(rules, str) else rules
    game = new_game(rules, players, LocalDealer(seed))
    bots = [make_bot("basic", random.Random(seed * 10 + s)) for s in range(players)]
    run_bots(game, bots, until=lambda g: g.contract_no == contract_no)
    made: list[int] = []
    run_bots(game, bots, after=lambda g: made.append(1), until=lambda g: len(made) >= moves)
    assert game.contract_no == contract_no and game.phase is not Phase.OVER
    return game, bots


def standing(game) -> list[int]:
    """Each seat's total now: points, or money held less the stakes bought."""
    rules = game.rules
    if rules.money:
        return [m - rules.stake * r for m, r in zip(game.money, game.rebuys)]
    return list(game.scores)


def started(game) -> dict[int, RoundStarted]:
    return {e.round_no: e for e in game.log if isinstance(e, RoundStarted)}


@pytest.mark.parametrize("name", ["davis", "good-miller", "marcelle"])
def test_a_void_that_goes_on_deals_the_same_contract_again_as_the_next_deal(name):
    game, _ = game_in(name, 2)
    dealer = game.dealer_seat
    events = game.void_round(leaver=1, go_on=True)
    voided = events[0]
    again = next(e for e in events if isinstance(e, RoundStarted))
    assert (type(voided), voided.round_no, voided.leaver, voided.goes_on) == (RoundVoided, 2, 1, True)
    assert (again.round_no, again.dealer, again.again) == (3, dealer, True)
    assert (game.round_no, game.contract_no, game.dealer_seat) == (3, 2, dealer)
    assert game.contract(0) == game.rules.contract(2) and game.phase is Phase.DRAW
    assert not started(game)[2].again


def test_carousel_deals_its_next_hand_by_the_same_dealer():
    game, _ = game_in("carousel", 2)
    dealer = game.dealer_seat
    again = next(e for e in game.void_round(leaver=0, go_on=True) if isinstance(e, RoundStarted))
    assert (again.round_no, again.dealer, again.again) == (3, dealer, True)
    assert game.phase is Phase.PLAY and [len(h) for h in game.hands] == [game.rules.hand_size] * 3


@pytest.mark.parametrize("name", ["davis", "marcelle"])
def test_the_last_contract_dealt_again_is_still_the_last(name):
    """Its deal size and meld-all follow the contract, not the deal's number: marcelle deals 13
    cards, davis melds every card at once; the game ends after it."""
    game, bots = game_in(name, 7)
    rules = game.rules
    game.void_round(leaver=0, go_on=True)
    assert game.round_no == 8 and [len(h) for h in game.hands] == [rules.last_round_hand_size] * 3
    assert game.final_contract(0) == rules.final_round_meld_all
    run_bots(game, bots)
    assert [r.round_no for r in game.result.rounds] == [1, 2, 3, 4, 5, 6, 8]


def test_a_game_with_a_void_still_plays_every_contract_once():
    game, bots = game_in("davis", 3)
    game.void_round(leaver=2, go_on=True)
    run_bots(game, bots)
    rules, deals = game.rules, started(game)
    assert [deals[r.round_no].contract for r in game.result.rounds] == [
        describe_contract(rules, c) for c in rules.contracts]
    assert [r.round_no for r in game.result.rounds] == [1, 2, 4, 5, 6, 7, 8]
    assert [deals[r].again for r in (3, 4, 5)] == [False, True, False]


def test_a_void_is_not_one_of_the_progression_games_rounds():
    """Progression ends after ``(contracts - 1) × players + 1`` rounds when nobody completes every
    contract first (here three runs, in rounds cut short): a round voided and dealt again is not
    one of them."""
    rules = preset("davis").override("contracts=3r,3r", progression=True, max_turns=12)
    game, bots = game_in(rules, 2)
    game.void_round(leaver=0, go_on=True)
    run_bots(game, bots)
    limit = (rules.rounds - 1) * 3 + 1
    assert max(game.progress) < rules.rounds
    assert len(game.result.rounds) == game.contract_no == limit and game.round_no == limit + 1


@pytest.mark.parametrize("name", ["davis", "good-miller", "carousel"])
def test_the_leaver_pays_the_penalty_in_points_and_every_other_seat_is_as_the_round_began(name):
    """The fewest points win every points game (carousel: the target loses), so the penalty is
    added to the leaver's score."""
    game, _ = game_in(name, 2)
    before = game.results[-1].totals
    game.void_round(leaver=1, go_on=True)
    penalty = game.rules.leave_penalty
    assert penalty > 0 and game.scores == [t + penalty * (s == 1) for s, t in enumerate(before)]


def test_in_marcelle_the_leaver_pays_into_the_pot_and_no_money_is_made_or_lost():
    """The round's antes go back and are paid again for the new deal; the penalty is the only
    money that moves, from the leaver into the pot."""
    game, _ = game_in("marcelle", 2, players=4, moves=20)
    rules = game.rules
    before, pot = game.results[-1].totals, game.pot  # the standing before round 2's ante; its pot
    assert sum(standing(game)) + game.pot == 4 * rules.stake
    events = game.void_round(leaver=1, go_on=True)
    assert str(events[0]) == ("round 2 void, it scores nothing: seat 1 left and pays 20 into the pot; "
                              "the round is dealt again")
    assert standing(game) == [t - rules.ante - rules.leave_penalty * (s == 1) for s, t in enumerate(before)]
    assert game.pot == pot + rules.leave_penalty
    assert sum(standing(game)) + game.pot == 4 * rules.stake


def test_a_penalty_in_a_pot_nobody_wins_goes_to_the_seats_that_stayed():
    """The game ends with the pot on the table: the antes go back to who paid them, the penalty
    in equal shares to the others, what does not divide to the seats after the leaver."""
    game, _ = game_in("marcelle", 2, players=4)
    assert game.results[-1].winner is not None  # round 1's pot was won: round 2's is the antes
    before = game.results[-1].totals
    events = game.void_round(leaver=1)
    assert any(isinstance(e, PotReturned) for e in events)
    assert game.result.totals == (before[0] + 6, before[1] - 20, before[2] + 7, before[3] + 7)


def test_the_log_says_who_left_what_they_pay_and_that_the_contract_is_dealt_again():
    game, _ = game_in("davis", 2)
    voided, again = [e for e in game.void_round(leaver=1, go_on=True) if isinstance(e, (RoundVoided, RoundStarted))]
    words = Words(names=("Ann", "Bob", "Cy"), rounds=round_numbers(game.log))
    assert voided.describe(words) == ("round 2 void, it scores nothing: Bob left and pays 150 points; "
                                      "the round is dealt again")
    # issue 42: the deal that plays round 2 again (the game's third deal) is round 2 again
    assert (again.round_no, game.contract_no) == (3, 2)
    assert again.describe(words) == (f"round 2 again, re-dealt: the first deal was void; "
                                     f"{words.seat(again.dealer)} deals; contract: one book and one run")


@pytest.mark.parametrize("name", ["davis", "good-miller", "marcelle", "carousel"])
def test_without_go_on_a_void_still_ends_the_game_with_the_rounds_before(name):
    game, _ = game_in(name, 2)
    played = tuple(game.results)
    events = game.void_round()
    assert type(events[0]) is RoundVoided and type(events[-1]) is GameEnded
    assert not any(isinstance(e, RoundStarted) for e in events)
    assert str(events[0]) == "round 2 void, it scores nothing; the game ends"
    assert game.phase is Phase.OVER and game.result.rounds == played and game.round_no == 2
    assert game.result.totals == played[-1].totals


@pytest.mark.parametrize("name", ["davis", "marcelle"])
def test_voiding_the_round_just_scored_and_going_on_deals_that_contract_again(name):
    """The vote came while round 2's audit waited (round 3 dealt, no move): round 2's score and
    round 3's ante go back, and round 2's contract is dealt again, by round 2's dealer."""
    game, bots = game_in(name, 3, moves=0)
    first, _ = game.results
    dealer = started(game)[2].dealer
    game.void_round(scored=True, leaver=2, go_on=True)
    penalty = game.rules.leave_penalty
    assert game.results == [first] and (game.round_no, game.contract_no, game.dealer_seat) == (4, 2, dealer)
    if name == "davis":
        assert game.scores == [t + penalty * (s == 2) for s, t in enumerate(first.totals)]
    else:
        ante = game.rules.ante
        assert standing(game) == [t - ante - penalty * (s == 2) for s, t in enumerate(first.totals)]
    run_bots(game, bots)
    assert [r.round_no for r in game.result.rounds] == [1, 4, 5, 6, 7, 8, 9]


def test_voiding_the_last_round_after_the_game_ended_can_go_on():
    game = new_game(preset("davis"), 3, LocalDealer(7))
    bots = [make_bot("basic", random.Random(s)) for s in range(3)]
    run_bots(game, bots)
    *kept, _ = game.results
    game.void_round(scored=True, leaver=0, go_on=True)
    assert game.phase is not Phase.OVER and game.result is None
    assert (game.round_no, game.contract_no) == (8, 7)
    run_bots(game, bots)
    last = game.result.rounds[-1]
    assert game.result.rounds == (*kept, last) and last.round_no == 8
    assert game.result.totals == tuple(t + p + game.rules.leave_penalty * (s == 0)
                                       for s, (t, p) in enumerate(zip(kept[-1].totals, last.points)))


def test_a_void_before_the_first_deal_picks_the_first_dealer_again():
    game = new_game(preset("davis"), 3)  # no dealer: the first-dealer pick waits
    (pick,) = game.requests
    game.void_round(leaver=2, go_on=True)
    assert game.requests == [pick] and game.phase is Phase.STARTING
    game.dealer = LocalDealer(3)
    game.fulfil_pick(1)
    assert (game.round_no, game.contract_no, game.dealer_seat) == (1, 1, 1)
    assert game.scores == [0, 0, game.rules.leave_penalty] and game.phase is Phase.DRAW


@pytest.mark.parametrize("name", ["davis", "marcelle"])
def test_two_voids_before_the_first_deal_charge_both_leavers(name):
    """The pick started again after a void is still round 0: a second void of it takes the
    ledgers back to after the first leaver paid, not to the game's start (soak 10-7: two seats
    lost in the pick, the first one's penalty was taken back by the second void)."""
    game = new_game(preset(name), 4)
    start = (list(game.scores), list(game.money), game.pot)
    game.void_round(leaver=1, go_on=True)
    game.void_round(leaver=2, go_on=True)
    penalty, paid = game.rules.leave_penalty, (0, 1, 1, 0)
    if game.rules.money:  # into the pot
        assert game.money == [m - penalty * p for m, p in zip(start[1], paid)]
        assert game.pot == start[2] + 2 * penalty
    else:
        assert game.scores == [t + penalty * p for t, p in zip(start[0], paid)]


def test_no_void_names_a_seat_the_table_does_not_have():
    game, _ = game_in("davis", 2)
    with pytest.raises(IllegalMoveError, match="no seat 3"):
        game.void_round(leaver=3, go_on=True)
    assert game.round_no == 2 and not any(isinstance(e, RoundVoided) for e in game.log)


SHORT = {
    "davis": preset("davis").override(contracts=preset("davis").contracts[:3]),
    "good-miller": preset("good-miller").override(contracts=preset("good-miller").contracts[:3]),
    "marcelle": preset("marcelle").override(contracts=preset("marcelle").contracts[:3]),
    "progression": preset("davis").override(contracts=preset("davis").contracts[:3], progression=True),
    "carousel": preset("carousel").override(target_score=10),
}
"""Short games of every kind (three contracts; carousel to 10 points), so that many are played."""


@pytest.mark.parametrize("name", SHORT)
@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_any_void_keeps_every_card_and_the_game_plays_every_contract(name, seed, data):
    rules = SHORT[name]
    players = data.draw(st.integers(rules.min_players, min(rules.max_players, 5)), label="players")
    at = set(data.draw(st.lists(st.integers(1, 120), min_size=1, max_size=3), label="void after move"))
    leavers = iter(data.draw(st.lists(st.integers(0, players - 1), min_size=3, max_size=3), label="leavers"))
    game = new_game(rules, players, LocalDealer(seed))
    bots = [make_bot("basic", random.Random(seed + s)) for s in range(players)]
    everything = where_cards_are(game)
    assert sum(everything.values()) == len(deck(*rules.deck_size(players)))
    made, voids = [0], [0]

    def after(game) -> None:
        made[0] += 1
        if made[0] in at and game.phase is not Phase.OVER:
            game.void_round(leaver=next(leavers), go_on=True)
            voids[0] += 1
        assert where_cards_are(game) == everything
        if rules.money:
            assert sum(standing(game)) + game.pot == players * rules.stake

    run_bots(game, bots, after=after)
    assert game.phase is Phase.OVER and game.round_no == game.contract_no + voids[0]
    assert len(game.result.rounds) == game.contract_no
    if rules.game == "carousel":
        assert max(game.scores) >= rules.target_score
    elif rules.progression:
        assert max(game.progress) >= rules.rounds or game.contract_no == (rules.rounds - 1) * players + 1
    else:
        deals = started(game)
        assert [deals[r.round_no].contract for r in game.result.rounds] == [
            describe_contract(rules, c) for c in rules.contracts]
