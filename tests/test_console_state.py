"""ConsoleState on its own: the moves its keys build (no app, a fake session, moves captured)."""

from __future__ import annotations

import dataclasses

from shanghai_net.cards import parse_cards
from shanghai_net.console import ConsoleState, Target
from shanghai_net.engine import (
    BuyJoker, CallShanghai, Discard, LayOff, LocalDealer, Phase, SwapJoker, new_game, view_of,
)
from shanghai_net.rules import End, arrange, preset
from shanghai_net.session import Accepted, Refused


class FakeSession:
    def __init__(self, view):
        self.view = view
        self.seat = view.seat
        self.seats = ()
        self.log = []
        self.claim = None
        self.result = None
        self.over = False

    def now(self):
        return 0.0


def state_for(rules_name, hand, table=(), **changes):
    rules = preset(rules_name)
    view = view_of(new_game(rules, 3, LocalDealer(1)), 0)
    melds = tuple(arrange(rules, parse_cards(t)) for t in table)
    changes = {"turn": 0, "phase": Phase.PLAY, **changes}
    view = dataclasses.replace(view, hand=tuple(parse_cards(hand)), table=melds, meld_owners=(1,) * len(melds),
                               **changes)
    state = ConsoleState(FakeSession(view))
    sent = []
    state.send = sent.append
    return state, sent


def card(state, text):
    return next(c for c in state.view.hand if str(c) == text)


def test_swap_a_joker_picks_the_joker_and_the_end():
    state, sent = state_for("good-miller", "5H 8H KS", ["4H JK 6H 7H"], down=(True, False, False))
    state.selected = [card(state, "5H"), card(state, "8H")]
    state.ask_target(Target.SWAP)
    assert state.target is Target.SWAP
    state.type_digit("1")
    joker = state.view.table[0].cards[1]
    assert sent == [SwapJoker(0, 0, joker, card(state, "5H"), card(state, "8H"), End.HIGH)]


def test_buy_a_joker_and_call_shanghai():
    state, sent = state_for("marcelle", "9S KD", ["9C 9D JK"])
    state.cursor = state.hand().index(card(state, "9S"))
    state.ask_target(Target.BUY)
    state.type_digit("1")
    assert sent == [BuyJoker(0, 0, state.view.table[0].cards[2], card(state, "9S"))]
    state, sent = state_for("davis", "KS QS", ["4H 5H 6H 7H"], turn=1, phase=Phase.DRAW,
                            discard_top=parse_cards("8H")[0])
    state.ask_target(Target.SHANGHAI)
    state.type_digit("1")
    assert sent == [CallShanghai(0, 0, End.HIGH)]


def test_lay_off_direct_when_one_meld_fits_and_two_digit_meld_numbers():
    tables = [f"{r}C {r}D {r}H" for r in "3456789TJQK"] + ["AC AD AH"]
    state, sent = state_for("davis", "KS 9S", tables, down=(True, False, False))
    state.cursor = state.hand().index(card(state, "9S"))
    state.ask_target(Target.LAY)  # the 9 fits only meld 7: laid at once
    assert sent == [LayOff(0, card(state, "9S"), 6, None)] and state.target is None
    state.cursor = state.hand().index(card(state, "KS"))
    state.selected = []
    state.toggle_select()
    state.ask_target(Target.LAY)  # one meld fits, so it goes straight there too
    assert sent[-1] == LayOff(0, card(state, "KS"), 10, None)
    state.selected = [card(state, "KS")]
    state.target, state.target_cards, state.digits = Target.LAY, (card(state, "KS"),), ""
    state.type_digit("1")  # 12 melds: "1" may become 10, 11 or 12, so it waits
    assert len(sent) == 2 and "meld 1…" in state.message
    state.type_digit("2")
    assert sent[-1] == LayOff(0, card(state, "KS"), 11, None)


def test_outcomes_keep_or_clear_the_selection():
    state, sent = state_for("davis", "KS 9S 4D", [])
    ks = card(state, "KS")
    state.selected = [ks]
    state.discard()
    move = sent[-1]
    assert move == Discard(0, ks) and state.busy
    state.on_outcome(Refused(move, "'discard KS' by seat 0: it is seat 1's turn"))
    assert state.selected == [ks] and state.error and not state.busy and "seat 1's turn" in state.message
    state.session.view = dataclasses.replace(state.view, hand=tuple(c for c in state.view.hand if c != ks))
    state.on_outcome(Accepted(move, ()))
    assert state.selected == [] and not state.error
    state.selected = [card(state, "9S"), card(state, "4D")]
    state.discard()
    assert state.error and "select one card" in state.message and len(sent) == 1


def test_q_quits_at_once_only_once_the_game_is_over_and_audited():
    """Between the last hand and its audit the seat's seeds may not be out yet: quitting then
    would lose the round's score, so q asks first and says why; once audited, q quits."""
    state, _ = state_for("davis", "3H 4H")
    state.session.result = object()  # the last hand is over: its audit runs
    state.ask_quit()
    assert state.quit_asked and not state.exit_requested
    state.quit_asked = False
    state.session.over = True
    state.ask_quit()
    assert state.exit_requested and not state.quit_asked


def test_a_networked_draw_says_its_card_once_it_comes():
    """Issue 41, item 9: "the card is on its way" stayed after the card had come."""
    from shanghai_net.engine import DrawStock, Drew
    from shanghai_net.session import LogEntry

    state, sent = state_for("davis", "KS 9S 4D", [], phase=Phase.DRAW)
    state.on_session_change()  # the deal seen
    state.draw()
    state.on_outcome(Accepted(sent[-1], ()))  # the host sequenced it; its keys are to come
    assert state.message == "you draw from the stock: the card is on its way"
    state.on_session_change()
    assert state.message.endswith("on its way")  # not yet
    eight = parse_cards("8D")[0]
    state.session.log.append(LogEntry(0.0, "", event=Drew(0, eight)))
    state.on_session_change()
    assert "draw" in state.message and state.message.endswith("8♦"), state.message  # its card
    assert isinstance(sent[-1], DrawStock)
