"""Seed 001 (Shanghai as manipulation rummy), sentence by sentence, on the carousel engine.

Each test names the sentence of ``shared/seeds/001_*.txt`` (or of the carousel section of
rules-variants.md, or our own decision) that it checks.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from shanghai_net.cards import parse_cards
from shanghai_net.engine import (
    Blocked, CarouselGame, DrawStock, LocalDealer, PassClaim, Phase, Pick, Rearrange, Rearranged,
    RoundEnded, RoundStarted, Shuffle, WentOut, new_game, view_of,
)
from shanghai_net.errors import IllegalMoveError
from shanghai_net.rules import MeldKind, meld_kind, penalty, preset
from shanghai_net.simulate import play_game
from shanghai_net.bots import make_bot

from test_carousel_scenario import RULES, carousel_game, everything

# hands that play nothing on an empty table (and nothing together: every seat holds its own)
DEAD = ["AC 4C 7C 10C KC 2D 5D 8D 10D 3H", "AH 4H 7H 10H KH 2S 5S 8S JS 3C", "AS 4S 7S 10S KS 2H 5H 8H JH 3D"]


def snapshot(game: CarouselGame):
    return (
        [list(h) for h in game.hands], [m.cards for m in game.table], list(game.stock), game.turn, game.phase,
        list(game.scores), len(game.log), game.passes, game.round_no,
    )


def refused(game: CarouselGame, move, why: str = "") -> str:
    before = snapshot(game)
    with pytest.raises(IllegalMoveError) as err:
        game.apply(move)
    assert snapshot(game) == before
    assert move.text() in str(err.value) and why in str(err.value)
    return str(err.value)


def play(game: CarouselGame, text: str, seat: int | None = None):
    seat = game.turn if seat is None else seat
    return game.apply(game.parse(text, seat))


def texts(cards) -> list[str]:
    return sorted(str(c) for c in cards)


# -- the preset -------------------------------------------------------------------------------------

def test_preset_matches_the_rules_variants_carousel_section():
    """rules-variants.md: "2 x 52 cards, no jokers, 3-5 players, 10 cards dealt (3, 3, 3, 1). Ace low only"."""
    r = preset("carousel")
    assert (r.game, r.decks, r.jokers, r.min_players, r.max_players, r.hand_size) == ("carousel", 2, 0, 3, 5, 10)
    assert (r.min_set, r.max_set, r.set_distinct_suits, r.min_run, r.max_run, r.ace.value) == (3, 4, True, 3, None, "low")
    assert r.target_score == 25 and not r.wild_twos and not r.shanghai


# -- the cards and the players ------------------------------------------------------------------------

def test_number_of_players_3_to_5():
    """NUMBER OF PLAYERS: 3-5 players"""
    for players in (3, 4, 5):
        assert new_game(RULES, players, LocalDealer(players)).phase is Phase.PLAY
    for players in (2, 6):
        with pytest.raises(ValueError, match="3-5 players"):
            new_game(RULES, players, LocalDealer(1))


def test_two_52_card_decks():
    """NUMBER OF CARDS: Two 52 card decks"""
    cards = everything(new_game(RULES, 5, LocalDealer(3)))
    assert len(cards) == len(set(cards)) == 104
    faces = Counter(c.face for c in cards)
    assert len(faces) == 52 and set(faces.values()) == {2}
    assert not any(c.is_joker for c in cards)


def test_rank_of_cards_king_high_ace_low():
    """RANK OF CARDS: K (high), Q, J, 10, 9, 8, 7, 6, 5, 4, 3, 2, A"""
    assert meld_kind(RULES, parse_cards("AC 2C 3C")) is MeldKind.RUN
    assert meld_kind(RULES, parse_cards("JC QC KC")) is MeldKind.RUN
    assert meld_kind(RULES, parse_cards("QC KC AC")) is None  # the ace is low only
    assert meld_kind(RULES, parse_cards("KC AC 2C")) is None  # no wrapping


# -- the deal ----------------------------------------------------------------------------------------

def test_first_dealer_chosen_at_random():
    """The first dealer is chosen at random by which ever mechanism players prefer."""
    game = CarouselGame(RULES, 4)
    (pick,) = game.requests
    assert isinstance(pick, Pick) and pick.n == 4 and pick.parties == (0, 1, 2, 3)
    game.fulfil_pick(2)
    assert game.dealer_seat == 2
    (shuffle,) = game.requests
    assert isinstance(shuffle, Shuffle) and len(shuffle.cards) == 104


def test_ten_cards_each_dealt_in_batches_of_3_3_3_1():
    """After, the dealer deals each player a total of 10 cards, dealt in batches or 3, 3, 3, and then 1 card."""
    dealer = LocalDealer(7)
    game = new_game(RULES, 4, dealer)
    order = dealer.decks[0]
    first = (game.dealer_seat + 1) % 4
    for k in range(4):
        seat = (first + k) % 4
        positions = [3 * k, 3 * k + 1, 3 * k + 2, 12 + 3 * k, 13 + 3 * k, 14 + 3 * k,
                     24 + 3 * k, 25 + 3 * k, 26 + 3 * k, 36 + k]
        assert game.hand(seat) == [order[p] for p in positions]


def test_the_rest_is_the_face_down_stock():
    """The cards that remain are placed face-down in the center of the table, these cards will form the stockpile."""
    game = new_game(RULES, 4, LocalDealer(2), viewer=1)
    assert len(game.stock) == 104 - 40 and not game.table and not game.discard
    assert not any(t in game.faces for t in game.stock)  # face down: seat 1 knows none of them
    assert len(game.hand(1)) == 10 and game.hand(0) == []
    view = view_of(game, 1)
    assert view.stock_size == 64 and view.hand_sizes == (10, 10, 10, 10) and view.discard_top is None


def test_the_deal_passes_to_the_left():
    """In hands that follow, the deal passes to the left."""
    game = new_game(RULES, 4, LocalDealer(4))
    bots = [make_bot("basic", random.Random(s)) for s in range(4)]
    while game.round_no < 3:
        seat = game.to_move()[0]
        game.apply(bots[seat].choose(view_of(game, seat), list(game.legal_moves(seat))))
    dealers = [e.dealer for e in game.log if isinstance(e, RoundStarted)]
    assert len(dealers) == 3 and dealers[1:] == [(dealers[0] + 1) % 4, (dealers[0] + 2) % 4]
    assert game.turn == (dealers[2] + 1) % 4


# -- the play ----------------------------------------------------------------------------------------

def test_the_player_left_of_the_dealer_begins_and_play_goes_clockwise():
    """Shanghai begins with the player to the left of the dealer and passes clockwise."""
    game = carousel_game(["", "", "7C 8C 9C", "", ""], dealer=1)
    assert game.turn == 2 and game.to_move() == [2]
    play(game, "play +7C +8C +9C")
    assert game.turn == 3


def test_players_play_cards_from_hand_to_table():
    """On each turn, players play cards from their hand to the table."""
    game = carousel_game(["7C 8C 9C", "", ""])
    events = play(game, "play +7C +8C +9C")
    assert [m.text() for m in game.table] == ["7C 8C 9C"]
    assert len(game.hand(0)) == 7 and not {"7C", "8C", "9C"} & set(texts(game.hand(0)))
    (played,) = [e for e in events if isinstance(e, Rearranged)]
    assert texts(played.played) == ["7C", "8C", "9C"] and "seat 0 plays" in str(played)


def meld_from_hand(cards: str, kind: MeldKind, ok: bool) -> None:
    """``cards`` are a meld of ``kind`` exactly when ``ok``, and the engine agrees when they are played."""
    assert (meld_kind(RULES, parse_cards(cards)) is kind) is ok
    game = carousel_game([cards, "", ""])
    move = game.parse("play " + " ".join("+" + c for c in cards.split()), 0)
    if not ok:
        refused(game, move, "is no meld")
        return
    game.apply(move)
    assert [m.kind for m in game.table] == [kind]


@pytest.mark.parametrize("cards, ok", [
    ("7H 7S 7D", True), ("7H 7S 7D 7C", True), ("7H 7S", False), ("7H 7H 7S", False),
    ("7H 7S 7D 7C 7C", False), ("7H 7S 8D", False),
])
def test_set_meld(cards, ok):
    """Set Meld. A set of 3 or 4 cards with the same rank but different suits."""
    meld_from_hand(cards, MeldKind.SET, ok)


@pytest.mark.parametrize("cards, ok", [
    ("4H 5H 6H", True), ("AH 2H 3H", True), ("8S 9S 10S JS QS KS", True), ("4H 5H", False),
    ("4H 5H 7H", False), ("4H 5H 6S", False), ("QH KH AH", False),
])
def test_run_meld(cards, ok):
    """Run Meld. A set of at least 3 cards of the same suit AND in sequence."""
    meld_from_hand(cards, MeldKind.RUN, ok)


def test_meld_some_or_all_cards_and_add_to_melds_on_the_table():
    """Players can use some or all cards in hand to meld or add cards to pre-existing melds already on the table."""
    game = carousel_game(["6C 9H 9S 9D KD", "", ""], table=["3C 4C 5C", "JS JD JH"])
    play(game, "play 3C 4C 5C +6C / JS JD JH / +9H +9S +9D")
    assert [m.text() for m in game.table] == ["3C 4C 5C 6C", "JD JH JS", "9D 9H 9S"]
    assert "KD" in texts(game.hand(0)) and len(game.hand(0)) == 6


def test_must_meld_if_able_at_least_more_than_one():
    """If you have the ability to meld more than 1 card you are required to. However, this is not to say you must
    meld EVERY card that can be melded, but at least more than one.  (Decision: two or more playable, at least
    two played; `must_play`.)"""
    game = carousel_game(["7C 8C 9C 5H", "", ""], stock="2S", table=["5S 5D 5C"])
    assert DrawStock(0) not in list(game.legal_moves(0))
    refused(game, DrawStock(0), "you can play, so you must")
    refused(game, Rearrange(0, tuple(m.cards for m in game.table), ()), "at least one card")
    refused(game, game.parse("play 5S 5D 5C +5H", 0), "you can play 4 cards, so you must play at least 2")
    assert all(len(m.played) >= 2 for m in game.legal_moves(0))
    play(game, "play 5S 5D 5C / +7C +8C +9C")  # three, though four could go: not EVERY card
    assert texts(game.table_cards()) == texts(parse_cards("5S 5D 5C 7C 8C 9C"))
    assert "5H" in texts(game.hand(0)) and game.turn == 1


def test_one_playable_card_is_played_alone():
    """Our reading of "at least more than one": a hand that can play just one card must play that one."""
    game = carousel_game(["5H KD", "", ""], stock="2S", table=["5S 5D 5C"])
    refused(game, DrawStock(0), "you can play, so you must")
    play(game, "play 5S 5D 5C +5H")
    assert game.turn == 1 and texts(game.hand(0)).count("5H") == 0


def test_unable_to_meld_draws_the_top_card_of_the_stock():
    """Players that are unable to meld any cards must draw 1 card from the top of the stockpile."""
    game = carousel_game([DEAD[0], "", ""], stock="QH 9D")
    assert list(game.legal_moves(0)) == [DrawStock(0)]
    refused(game, game.parse("play +AC +4C +7C", 0), "is no meld")
    events = game.apply(DrawStock(0))
    assert [str(e) for e in events] == ["seat 0 draws QH"]
    assert "QH" in texts(game.hand(0)) and len(game.stock) == 104 - 30 - 1


def test_keep_drawing_until_a_playable_card_then_play_it():
    """If they can play that card, they must, if not they are to continue drawing until they draw a playable card."""
    game = carousel_game([DEAD[0], "", ""], stock="QH 9D 2S")
    game.apply(DrawStock(0))  # QH plays nowhere
    assert game.turn == 0 and list(game.legal_moves(0)) == [DrawStock(0)]
    game.apply(DrawStock(0))  # 9D: 8D 9D 10D
    assert game.turn == 0 and game.drawn[-1].face == parse_cards("9D")[0].face
    refused(game, DrawStock(0), "you can play, so you must")
    (best,) = [m for m in game.legal_moves(0) if isinstance(m, Rearrange)]
    assert texts(best.played) == ["10D", "8D", "9D"]
    game.apply(best)
    assert game.turn == 1 and len(game.hand(0)) == 9


def test_the_turn_is_over_once_a_card_is_melded():
    """Once they meld a card their turn is over."""
    game = carousel_game(["7C 8C 9C 10C", "", ""], table=["JC QC KC"])
    play(game, "play +7C +8C +9C / JC QC KC")
    assert game.turn == 1 and game.to_move() == [1]
    refused(game, game.parse("play 7C 8C 9C +10C / JC QC KC", 0), "it is seat 1's turn")


def test_melding_the_last_card_ends_the_hand():
    """Once a player melds their last card the game ends.  (The game ends when one player has played all the cards in
    their hand.)"""
    game = carousel_game(["3C 4C 5C 6C 7H 7S 7D 9S 10S JS", "", ""])
    events = play(game, "play +3C +4C +5C +6C / +7H +7S +7D / +9S +10S +JS")
    assert any(isinstance(e, WentOut) and e.seat == 0 for e in events)
    (ended,) = [e for e in events if isinstance(e, RoundEnded)]
    assert ended.result.winner == 0 and game.round_no == 2  # the next hand is dealt at once


def test_a_shanghai_rearranges_the_table_to_play_cards():
    """A Shanghai occurs if a player can rearrange some or all of the melds on the table to allow them to play cards
    in their hand. This is a valid move, permitting all the melds are legal."""
    game = carousel_game(["6S 6D" + " " + DEAD[0].replace("5D 8D 10D", "QS"), "", ""], table=["3H 4H 5H 6H 7H 8H 9H"])
    plays = [m for m in game.legal_moves(0) if isinstance(m, Rearrange)]
    assert plays and texts(plays[0].played) == ["6D", "6S"]  # the solver finds the split
    refused(game, game.parse("play 3H 4H 5H / 6H +6S +6D / 7H 8H / 9H", 0), "7H 8H is no meld")
    play(game, "play 3H 4H 5H / 6H +6S +6D / 7H 8H 9H")
    assert [m.text() for m in game.table] == ["3H 4H 5H", "6D 6H 6S", "7H 8H 9H"]


def test_no_table_card_returns_to_a_hand():
    """rules-variants.md: "as long as every meld on the table is valid when the turn ends and no table card
    returns to a hand"."""
    game = carousel_game(["6S 6D 6C", "", ""], table=["3H 4H 5H 6H"])
    why = refused(game, game.parse("play 3H 4H 5H / +6S +6D +6C", 0), "must stay on the table")
    assert "6H" in why
    sixes = tuple(c for c in game.hand(0) if c.rank == 6)
    refused(game, Rearrange(0, (game.table[0].cards, sixes, sixes[-1:]), sixes), "on the new table twice")
    other = game.hand(1)[0]
    refused(game, Rearrange(0, (tuple(game.table[0].cards) + (other,),), (other,)), "does not hold")
    stray = game.faces[game.stock[0]]
    refused(game, Rearrange(0, (tuple(game.table[0].cards), tuple(game.hand(0)[:3]) + (stray,)), tuple(game.hand(0)[:3])),
            "neither on the table nor played")
    six_s = game.hand(0)[0]
    refused(game, Rearrange(0, (tuple(game.table[0].cards),), (six_s,)), "placed in no meld")


# -- the score and the end ------------------------------------------------------------------------------

def test_the_winner_scores_0_the_others_1_point_a_card():
    """That player scores 0 points. Players that remain in the game score 1 point per card left in hand."""
    game = carousel_game(["3C 4C 5C 6C 7H 7S 7D 9S 10S JS", "", "", ""])
    events = play(game, "play +3C +4C +5C +6C / +7H +7S +7D / +9S +10S +JS")
    (ended,) = [e for e in events if isinstance(e, RoundEnded)]
    assert ended.result.points == (0, 10, 10, 10) and game.scores == [0, 10, 10, 10]
    assert penalty(RULES, parse_cards("KS AS 2C")) == 3


def test_hands_go_on_until_someone_reaches_the_target_and_loses():
    """The game has no official end, hands are continually played until someone reaches the target score and LOSES."""
    for rules, seed in ((RULES, 11), (RULES.override(target_score=8), 12)):
        game = play_game(rules, [make_bot("basic", random.Random(seed + s)) for s in range(3)], seed=seed)
        rounds = game.result.rounds
        assert all(max(r.totals) < rules.target_score for r in rounds[:-1])
        assert max(rounds[-1].totals) >= rules.target_score
        totals = game.result.totals
        assert [totals[s] for s in game.result.ranking] == sorted(totals)  # lowest total first
        assert totals[game.result.ranking[-1]] >= rules.target_score  # the one who reached it is last
        assert game.result.winners == tuple(s for s in game.result.ranking if totals[s] == min(totals))


# -- the empty stock (the seed is silent: our decision) ----------------------------------------------------

def test_a_player_who_cannot_play_on_an_empty_stock_passes_and_all_passing_blocks_the_hand():
    """Decision: a player who cannot play and finds the stock empty passes; when every player has passed in a row
    the hand is blocked and scored as usual, with no winner."""
    game = carousel_game(DEAD, only_stock=True)
    assert list(game.legal_moves(0)) == [PassClaim(0)]
    refused(game, DrawStock(0), "the stock is empty")
    assert [str(e) for e in game.apply(PassClaim(0))] == ["seat 0 cannot play, the stock is empty: passes"]
    game.apply(PassClaim(1))
    events = game.apply(PassClaim(2))
    assert any(isinstance(e, Blocked) for e in events)
    (ended,) = [e for e in events if isinstance(e, RoundEnded)]
    assert ended.result.winner is None and ended.result.points == (10, 10, 10)


def test_a_play_between_passes_restarts_the_count_and_passing_is_refused_when_able():
    """Decision: the hand is blocked only when every player in a row has passed; a pass is refused when the
    stock is not empty or the player can play."""
    game = carousel_game([DEAD[0], "7H 8H 9H", DEAD[2]], only_stock=True)
    refused(game, game.parse("pass", 1), "it is seat 0's turn")
    game.apply(PassClaim(0))
    refused(game, PassClaim(1), "you can play, so you must")
    play(game, "play +7H +8H +9H")
    game.apply(PassClaim(2))
    game.apply(PassClaim(0))
    assert game.phase is Phase.PLAY and game.turn == 1 and game.passes == 2
    stocked = carousel_game([DEAD[0], "", ""], stock="2C")
    refused(stocked, PassClaim(0), "the stock is not empty")


# -- the notation and the view ------------------------------------------------------------------------

def test_play_notation_reads_and_writes_the_table_and_the_played_cards():
    game = carousel_game(["7H 6H", "", ""], table=["7H 7S 7D", "8H 9H 10H"])
    move = game.parse("play 7H 7S 7D / +6H +7H 8H 9H 10H", 0)
    assert isinstance(move, Rearrange) and texts(move.played) == ["6H", "7H"]
    on_table = set(game.table_cards())
    assert [c in on_table for c in move.table[1]] == [False, False, True, True, True]
    assert [c in on_table for c in move.table[0]] == [True, True, True]
    assert move.text() == "play 7H 7S 7D / +6H +7H 8H 9H 10H"
    assert game.parse(move.text(), 0) == move
    game.apply(move)
    assert sorted(texts(m.cards) for m in game.table) == [texts(parse_cards("6H 7H 8H 9H 10H")), ["7D", "7H", "7S"]]


def test_a_seat_sees_its_own_hand_and_the_table_only():
    game = carousel_game(["7C 8C 9C", "", ""], viewer=None)
    play(game, "play +7C +8C +9C")
    view = view_of(game, 1)
    assert view.hand == tuple(game.hand(1)) and view.table == tuple(game.table)
    assert view.contract == (0, 0) and view.my_turn and view.hand_sizes == (7, 10, 10)
    replica = new_game(RULES, 3, LocalDealer(9), viewer=(new_game(RULES, 3, LocalDealer(9)).turn + 1) % 3)
    seat = replica.turn  # a hand this replica cannot see: it cannot tell whether the seat can play
    assert replica.hand(seat) == [] and replica.can_play(seat) is None
    assert list(replica.legal_moves(seat)) == [DrawStock(seat)]
