"""The view model on its own: what the screen shows for a given PlayerView."""

from __future__ import annotations

import dataclasses

from shanghai_net.cards import parse_cards
from shanghai_net.console.viewmodel import (
    arrangements, contract_tracker, fits, game_over_table, round_summary, sort_hand, view_model,
)
from shanghai_net.engine import (Discarded, Drew, LocalDealer, Phase, RoundResult,
                                 ShanghaiCalled, new_game, view_of)
from shanghai_net.rules import arrange, preset
from shanghai_net.session import ClaimInfo, Connection, LogEntry, SeatInfo

DAVIS = preset("davis")


def a_view(rules=DAVIS, players=4, seat=0, seed=1, **changes):
    game = new_game(rules, players, LocalDealer(seed))
    view = view_of(game, seat)
    return dataclasses.replace(view, **changes) if changes else view, game


def melds(*texts, rules=DAVIS):
    return tuple(arrange(rules, parse_cards(t)) for t in texts)


def all_text(vm) -> str:
    parts = [vm.title, vm.contract, vm.status, *vm.tracker, *vm.log, *vm.chat, vm.message]
    parts += [m.text for m in vm.table] + [h.text for h in vm.hand]
    parts += [f"{r.name} {r.hand_size} {r.score}" for r in vm.seats]
    return "\n".join(parts)


def test_other_seats_only_as_hand_sizes():
    view, game = a_view()
    vm = view_model(view)
    assert [h.card for h in vm.hand] == sort_hand(DAVIS, game.hand(0))
    assert [r.hand_size for r in vm.seats] == [len(game.hand(s)) for s in range(4)] == [11] * 4
    # the other seats' cards appear nowhere (no face that only they hold)
    mine = {c.face for c in game.hand(0)}
    theirs = {c.text(True) for s in (1, 2, 3) for c in game.hand(s) if c.face not in mine and not c.is_joker}
    top = view.discard_top.text(True)
    shown = all_text(vm).replace(top, "")
    hand_texts = set(shown.split())
    assert not (theirs - {top}) & hand_texts


def test_title_contract_and_words_of_each_preset():
    davis, _ = a_view(DAVIS)
    vm = view_model(davis)
    assert vm.contract == "two books"
    assert vm.title.startswith("davis · round 1 of 7")
    assert ("m", "MAY I") in view_model(dataclasses.replace(davis, may_claim=True, claim_open=True)).keys
    gm, _ = a_view(preset("good-miller"))
    vm = view_model(dataclasses.replace(gm, may_claim=True, claim_open=True))
    assert vm.contract == "two sets" and ("m", "I call") in vm.keys
    assert not any(k == "!" for k, _ in vm.keys)  # no SHANGHAI in good-miller
    last = dataclasses.replace(gm, round_no=7, contract=(0, 3), meld_all=True)
    assert view_model(last).contract == "three runs (meld every card)"


def test_the_title_counts_contracts_not_deals():
    """Issue 22: a round voided and dealt again is the same contract in a new deal; the title's
    "round N of 7" is the contract."""
    _, game = a_view(DAVIS)
    game.void_round(leaver=1, go_on=True)
    again = view_of(game, 0)
    assert (again.round_no, again.contract_no) == (2, 1)
    assert view_model(again).title.startswith("davis · round 1 of 7")


def test_money_for_marcelle_points_elsewhere():
    view, _ = a_view(preset("marcelle"))
    vm = view_model(view)
    assert vm.pot == "20¢" and [r.score for r in vm.seats] == ["25¢"] * 4
    assert view_model(view, ascii=True).pot == "20c"
    davis, _ = a_view(DAVIS, scores=(0, 15, 40, 5))
    assert [r.score for r in view_model(davis).seats] == ["0", "15", "40", "5"] and view_model(davis).pot is None


def test_contract_tracker():
    hand = parse_cards("7H 7S 7D 9C 9D KS 4H 5H 6H JK")
    assert contract_tracker(DAVIS, hand, (2, 0)) == ["7s 3/3 ok", "9s 2/3", "wild 1"]
    assert contract_tracker(DAVIS, hand, (1, 1)) == ["7s 3/3 ok", "run ♥ 4-7 4/4 ok", "wild 1"]
    assert contract_tracker(DAVIS, parse_cards("4H 5H 8H 9S"), (0, 1)) == ["run ♥ 2-5 2/4"]
    assert contract_tracker(DAVIS, hand, (0, 1), ascii=True) == ["run H 4-7 4/4 ok", "wild 1"]
    assert contract_tracker(DAVIS, parse_cards("2C 5D"), (2, 0)) == ["5s 1/3", "2s 1/3"]
    # marcelle's twos are wild, so they count as wild, not toward a set of twos
    assert contract_tracker(preset("marcelle"), parse_cards("2C 2D 8S 8H"), (2, 0)) == ["8s 2/3", "set 0/3", "wild 2"]


def test_tracker_in_view_model_and_ready_ways():
    hand = tuple(parse_cards("7H 7S 7D 9C 9D 9H KS 4H 5H 6H QC"))
    view, _ = a_view(hand=hand, phase=Phase.PLAY, turn=0)
    vm = view_model(view)
    assert vm.tracker[:2] == ["9s 3/3 ok", "7s 3/3 ok"]  # ties: the higher rank first
    assert vm.ready_ways == len(arrangements(view)) >= 1
    down, _ = a_view(hand=hand, down=(True, False, False, False))
    assert view_model(down).tracker == ["down"] and view_model(down).ready_ways == 0


def test_fits_here_marks():
    table = melds("7H 7S 7D", "4H 5H 6H 7H")
    hand = tuple(parse_cards("7C 8H 3H KS"))
    view, _ = a_view(hand=hand, table=table, meld_owners=(1, 2))
    vm = view_model(view, sort="rank")
    marks = {h.text: h.fits for h in vm.hand}
    assert marks == {"3♥": (1,), "7♣": (0,), "8♥": (1,), "K♠": ()}
    assert fits(DAVIS, table, parse_cards("JK")[0]) == (0, 1)
    # the table marks the melds the card under the cursor fits (cursor on 7♣ by rank: 3♥ 7♣ 8♥ K♠)
    vm = view_model(view, sort="rank", cursor=1)
    assert [m.fits_cursor for m in vm.table] == [True, False]
    assert [(m.number, m.owner, m.text) for m in vm.table] == [(1, 1, "7♦ 7♥ 7♠"), (2, 2, "4♥ 5♥ 6♥ 7♥")]


def test_hand_sorting_cursor_and_selection():
    hand = tuple(parse_cards("KS 2H AS 2C JK 9D"))
    view, _ = a_view(hand=hand)
    by_suit = [h.text for h in view_model(view).hand]
    by_rank = [h.text for h in view_model(view, sort="rank").hand]
    assert by_suit == ["K♠", "A♠", "2♥", "2♣", "9♦", "JK"]  # spades, hearts, clubs, diamonds; aces high
    assert by_rank == ["2♥", "2♣", "9♦", "K♠", "A♠", "JK"]
    ascii = [h.text for h in view_model(view, ascii=True).hand]
    assert ascii == ["KS", "AS", "2H", "2C", "9D", "JK"]
    vm = view_model(view, cursor=99, selected=[hand[0]])
    assert [h.cursor for h in vm.hand] == [False] * 5 + [True]  # clamped to the last card
    assert [h.selected for h in vm.hand] == [True] + [False] * 5
    picked = view_model(view, pending=[(hand[0], hand[2])])
    assert [h.text for h in picked.hand] == ["2♥", "2♣", "9♦", "JK"] and picked.pending == ["K♠ A♠"]


def test_seat_rows_and_connection():
    seats = (SeatInfo(0, "ann", None, Connection.LOCAL), SeatInfo(1, "bob", None, Connection.LOST),
             SeatInfo(2, "basic bot", "basic", Connection.LOCAL), SeatInfo(3, "cy", None, Connection.CONNECTED))
    view, game = a_view(down=(False, True, False, False), claims_left=(2, 1, 0, 2))
    vm = view_model(view, seats=seats)
    rows = [(r.name, r.down, r.claims_left, r.connection, r.to_move, r.dealer) for r in vm.seats]
    assert rows[1] == ("bob", True, 1, Connection.LOST, game.turn == 1, game.dealer_seat == 1)
    assert rows[0][0] == "you" and vm.seats[0].you
    assert sum(r.to_move for r in vm.seats) == 1


def test_claim_countdown_and_status():
    view, _ = a_view(turn=2, may_claim=True, claim_open=True)
    claim = ClaimInfo(view.discard_top, deadline=17.0, undecided=(0,), claimants=())
    vm = view_model(view, claim=claim, now=12.2)
    assert vm.claim_seconds == 5 and vm.may_claim
    assert "MAY I?" in vm.status
    assert view_model(view, claim=claim, now=30).claim_seconds == 0
    assert view_model(view).claim_seconds is None


def test_log_and_chat():
    view, _ = a_view()
    log = [LogEntry(0, "seat 1 draws from the stock"), LogEntry(1, "hi", chat_from=2), LogEntry(2, "seat 1 discards 7H")]
    seats = [SeatInfo(s, n, None, Connection.LOCAL) for s, n in enumerate(["me", "b", "carol", "d"])]
    vm = view_model(view, log=log, seats=seats)
    assert vm.log == ["seat 1 draws from the stock", "seat 1 discards 7H"]
    assert vm.chat == ["carol: hi"]


def test_the_log_names_the_players_and_shows_suits():
    """An event in the log reads with the players' names and the cards as the hand shows them
    (suit symbols, or letters with ``ascii``); a notice without an event stays as it is."""
    view, _ = a_view()
    seats = [SeatInfo(s, n, None, Connection.LOCAL) for s, n in enumerate(["ann", "bob", "cy", "di"])]
    seven, king = parse_cards("7H KS")
    log = [LogEntry(0, "seat 1 draws from the stock", event=Drew(1, None)),
           LogEntry(1, "seat 2 discards 7H", event=Discarded(2, seven, False)),
           LogEntry(2, "", event=ShanghaiCalled(3, king, 0, 2)),
           LogEntry(3, "bob lost connection")]
    vm = view_model(view, log=log, seats=seats)
    assert vm.log == ["bob draws from the stock", "cy discards 7♥",
                      "di calls SHANGHAI: K♠ goes on meld 1; cy draws from di's hand",
                      "bob lost connection"]
    assert view_model(view, log=log, seats=seats, ascii=True).log[1] == "cy discards 7H"
    assert view_model(view, log=log).log[0] == "seat 1 draws from the stock"
    # your own moves read as "you", as the players panel says (not your login name)
    mine = [LogEntry(4, "", event=Discarded(0, seven, False)), LogEntry(5, "", event=Drew(0, king)),
            LogEntry(6, "", event=ShanghaiCalled(3, king, 0, 0))]
    assert view_model(view, log=mine, seats=seats).log == [
        "you discard 7♥", "you draw K♠", "di calls SHANGHAI: K♠ goes on meld 1; you draw from di's hand"]


def test_footer_keys_follow_the_phase():
    view, _ = a_view(turn=0, phase=Phase.DRAW)
    keys = [k for k, _ in view_model(view).keys]
    assert keys[:2] == ["d", "t"] and "x" not in keys
    play = dataclasses.replace(view, phase=Phase.PLAY)
    keys = [k for k, _ in view_model(play).keys]
    assert {"g", "a", "x"} <= set(keys) and not {"d", "l", "X"} & set(keys)
    # X (discard declaring SHANGHAI) once a card in the hand plays on the table
    sevens = dataclasses.replace(play, table=melds("7H 7S 7D"), meld_owners=(1,), hand=tuple(parse_cards("7C 9S")))
    assert "X" in [k for k, _ in view_model(sevens).keys]
    down = dataclasses.replace(play, down=(True, False, False, False))
    assert "l" in [k for k, _ in view_model(down).keys]
    # issue 24: in the last round (meld every card) a player not down yet discards too
    assert "x" in [k for k, _ in view_model(dataclasses.replace(play, meld_all=True)).keys]
    owed = dataclasses.replace(down, must_lay_off=tuple(parse_cards("7C")))
    assert "x" not in [k for k, _ in view_model(owed).keys]
    assert [k for k, _ in view_model(view).keys][-5:] == ["←→", "s", "c", "?", "q"]
    # no t when the discard cannot be taken: none there, or it was discarded with SHANGHAI
    for untakable in (dataclasses.replace(view, discard_top=None, discard_size=0),
                      dataclasses.replace(view, top_shanghaied=True)):
        assert [k for k, _ in view_model(untakable).keys][0] == "d"
        assert "t" not in [k for k, _ in view_model(untakable).keys]


def test_shanghai_call_key_only_when_the_engine_allows_it():
    """davis: any other player may call SHANGHAI on a discard that plays; not its discarder, and not on
    the card turned up at the deal (nobody discarded it): the engine says which, the footer follows."""
    view, _ = a_view(turn=1, phase=Phase.DRAW, table=melds("7H 7S 7D"), meld_owners=(2,),
                     discard_top=parse_cards("7C")[0])
    allowed = dataclasses.replace(view, may_call_shanghai=True)
    assert "!" in [k for k, _ in view_model(allowed).keys]
    refused = dataclasses.replace(view, may_call_shanghai=False)
    assert "!" not in [k for k, _ in view_model(refused).keys]
    elsewhere = dataclasses.replace(allowed, discard_top=parse_cards("9C")[0])
    assert "!" not in [k for k, _ in view_model(elsewhere).keys]


def test_round_summary_reveals_every_hand():
    hands = (tuple(parse_cards("7H JK")), (), tuple(parse_cards("AS")))
    result = RoundResult(1, 1, hands, (60, 0, 20), (60, 0, 20))
    seats = [SeatInfo(s, n, None, Connection.LOCAL) for s, n in enumerate(["me", "bob", "cy"])]
    lines = round_summary(result, seats, 0, DAVIS)
    assert lines[0] == "Round 1 over: 1 bob went out"
    assert lines[1].startswith("0 you ")  # you, with your seat number as the others have theirs
    assert "7♥ JK" in lines[1] and "+60" in lines[1] and "(out)" in lines[2] and "A♠" in lines[3]


def test_game_over_sheet_has_every_round_and_tied_places():
    from shanghai_net.engine import GameResult

    seats = [SeatInfo(s, n, None, Connection.LOCAL) for s, n in enumerate(["me", "bob", "cy", "di"])]
    rounds = (RoundResult(1, 1, ((),) * 4, (10, 0, 5, 10), (10, 0, 5, 10)),
              RoundResult(2, 0, ((),) * 4, (0, 15, 5, 0), (10, 15, 10, 10)))
    result = GameResult((10, 15, 10, 10), (0, 2, 3, 1), (0, 2, 3), rounds)
    lines = game_over_table(result, seats, 0, DAVIS)
    assert lines[0] == "Game over: you and 2 cy and 3 di win"
    assert lines[1].split() == ["R1", "R2", "total"]
    rows = [line.split() for line in lines[2:]]
    assert rows == [["1.", "0", "you", "10", "0", "10", "pts"], ["1.", "2", "cy", "5", "5", "10", "pts"],
                    ["1.", "3", "di", "10", "0", "10", "pts"], ["4.", "1", "bob", "0", "15", "15", "pts"]]
    # a long game keeps the latest rounds that fit, and says some are left out
    many = tuple(RoundResult(n, 0, ((),) * 4, (1, 2, 3, 4), (n, 2 * n, 3 * n, 4 * n)) for n in range(1, 31))
    long = game_over_table(GameResult((30, 60, 90, 120), (0, 1, 2, 3), (0,), many), seats, 0, DAVIS, width=60)
    assert all(len(line) <= 60 for line in long) and "…" in long[1] and long[1].split()[-2] == "R30"


def test_the_copy_taken_from_the_pile_is_marked_until_the_seat_discards():
    """Issue 24: with two A♦ in hand, one just taken, `x` on the first was refused: the hand
    marks the copy that came from the pile (a take or a claim) until this seat discards."""
    from shanghai_net.engine.events import Claimed, Discarded, RoundStarted, TookDiscard
    from shanghai_net.session import LogEntry

    held, taken = parse_cards("AD AD")
    view, _ = a_view(turn=0, phase=Phase.PLAY, hand=(held, *parse_cards("5S 9C"), taken))

    def marked(*events):
        log = [LogEntry(0.0, "", e) for e in (RoundStarted(1, 3, "two books"), *events)]
        return [h.card for h in view_model(view, log=log).hand if h.taken]

    assert marked(TookDiscard(0, taken)) == [taken] and held is not taken
    assert marked(Claimed(0, taken, 1)) == [taken]
    assert marked(TookDiscard(1, taken)) == []  # another seat's take
    assert marked(TookDiscard(0, taken), Discarded(0, view.hand[1], False)) == []
    assert marked(TookDiscard(0, taken), RoundStarted(2, 0, "a book and a run")) == []


def test_the_final_table_names_who_plays_each_seat_now_and_shows_the_leave_penalty():
    """Issue 22: a seat that changed hands shows as its holder is ("bot for bea"), and a seat
    whose player left pays the leave penalty: the final table has a ``left`` column, so a row's
    rounds and penalty add up to its total; the score sheet's voided round shows it too, and a
    local session reads it from its log."""
    from shanghai_net.console.sheets import score_sheet
    from shanghai_net.engine import GameResult
    from shanghai_net.engine.events import RoundEnded, RoundVoided
    from shanghai_net.session import LocalSession
    from types import SimpleNamespace

    seats = [SeatInfo(s, n, None, Connection.LOCAL) for s, n in enumerate(["me", "bob", "bot for bea"])]
    rounds = (RoundResult(1, 1, ((),) * 3, (10, 0, 5), (10, 0, 5)),
              RoundResult(3, 0, ((),) * 3, (0, 15, 5), (10, 15, 60)))
    log = [LogEntry(0, "", RoundEnded(rounds[0])), LogEntry(0, "", RoundVoided(2, 2, 50, False, True)),
           LogEntry(0, "", RoundEnded(rounds[1]))]
    paid = {2: 50}  # Session.penalties
    lines = game_over_table(GameResult((10, 15, 60), (0, 1, 2), (0,), rounds), seats, 0, DAVIS,
                            penalties=paid)
    assert lines[1].split() == ["R1", "R2", "left", "total"]  # issue 42: round 2 was dealt again
    assert [line.split() for line in lines[2:]] == [
        ["1.", "0", "you", "10", "0", "10", "pts"], ["2.", "1", "bob", "0", "15", "15", "pts"],
        ["3.", "2", "bot", "for", "bea", "5", "5", "+50", "60", "pts"]]
    assert game_over_table(GameResult((10, 15, 60), (0, 1, 2), (0,), rounds), seats, 0,
                           DAVIS)[1].split() == ["R1", "R2", "total"]  # no one left: no column
    assert LocalSession.penalties.fget(SimpleNamespace(log=log)) == paid
    sheet = score_sheet(DAVIS, log, seats, 0, 3)
    assert [line.split() for line in sheet if line.startswith(" 2")] == [["2", "voided", "-", "-", "+50"]]
