"""ConsoleState: everything the console remembers between key presses, drawing nothing.

In the manner of pyvim's editor state: key bindings call its methods, the layout reads
`ConsoleState.view_model()`.  Moves go out through ``send`` (the app hands them to trio, where the
session answers); `on_outcome` takes the answer back.  A refused move shows the engine's reason
and keeps the selection.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from ..cards import Card
from ..engine import (
    BuyJoker, CallShanghai, Discard, DrawStock, GoDown, LayOff, MayI, Move, PassClaim, Phase,
    SwapJoker, TakeDiscard,
)
from ..engine.events import RoundResult
from ..rules import End, MeldKind, extend, replace_wild
from ..session import Accepted, Outcome, Session
from .viewmodel import ViewModel, arrangements, card_text, sort_hand, view_model

__all__ = ["ConsoleState", "Target"]


class Target(StrEnum):
    """What a meld number typed next is for."""

    LAY = "lay off"
    SWAP = "swap the joker"
    BUY = "buy the joker"
    SHANGHAI = "call SHANGHAI"


class ConsoleState:
    def __init__(self, session: Session, ascii: bool = False):
        self.session = session
        self.ascii = ascii
        self.sort = "suit"
        self.cursor = 0
        self.selected: list[Card] = []  # in the order picked (a run in the order given)
        self.pending: list[tuple[Card, ...]] = []  # melds picked for going down
        self.message = ""
        self.error = False
        self.help_open = False
        self.quit_asked = False
        self.chat_open = False
        self.target: Target | None = None
        self.target_cards: tuple[Card, ...] = ()
        self.digits = ""
        self.options: tuple[tuple[tuple[Card, ...], ...], ...] | None = None  # arrangements shown
        self.summary: RoundResult | None = None
        self._summaries_seen = 0
        self.exit_requested = False
        self.busy = False
        self.send: Callable[[Move], None] | None = None
        """Hands a move to the session (set by the app); the answer comes to `on_outcome`."""
        self.send_chat: Callable[[str], None] | None = None
        self.send_ready: Callable[[], None] | None = None

    # -- reading -------------------------------------------------------------------------------

    @property
    def view(self):
        return self.session.view

    @property
    def seat(self) -> int:
        return self.session.seat

    def hand(self) -> list[Card]:
        """The hand as shown: sorted, without the cards already picked for going down."""
        view = self.view
        if view is None:
            return []
        picked = {c for m in self.pending for c in m}
        return [c for c in sort_hand(view.rules, view.hand, self.sort) if c not in picked]

    def cursor_card(self) -> Card | None:
        hand = self.hand()
        return hand[min(self.cursor, len(hand) - 1)] if hand else None

    def view_model(self, log_lines: int = 50) -> ViewModel | None:
        view = self.view
        if view is None:
            return None
        s = self.session
        return view_model(
            view, seats=s.seats, log=s.log, claim=s.claim, now=s.now(), cursor=self.cursor,
            selected=self.selected, pending=self.pending, sort=self.sort, ascii=self.ascii,
            message=self.message, error=self.error, log_lines=log_lines,
        )

    @property
    def game_over(self) -> bool:
        return self.session.result is not None

    # -- hand navigation -----------------------------------------------------------------------

    def move_cursor(self, delta: int) -> None:
        n = len(self.hand())
        if n:
            self.cursor = max(0, min(n - 1, self.cursor + delta))

    def cursor_to(self, where: int) -> None:
        n = len(self.hand())
        self.cursor = (n - 1 if where < 0 else where) if n else 0

    def toggle_select(self) -> None:
        card = self.cursor_card()
        if card is None:
            return
        if card in self.selected:
            self.selected.remove(card)
        else:
            self.selected.append(card)
        self.move_cursor(1)

    def toggle_sort(self) -> None:
        card = self.cursor_card()
        self.sort = "rank" if self.sort == "suit" else "suit"
        self._follow(card)
        self.note(f"sorted by {self.sort}")

    def clear(self) -> None:
        """Esc: close what is open, else drop the selection and the melds picked."""
        if self.help_open:
            self.help_open = False
        elif self.quit_asked:
            self.quit_asked = False
        elif self.target or self.options is not None:
            self.target, self.options, self.digits = None, None, ""
            self.note("cancelled")
        elif self.summary is not None:
            self.close_summary()
        else:
            self.selected.clear()
            self.pending.clear()
            self.note("")

    def _follow(self, card: Card | None) -> None:
        hand = self.hand()
        if card in hand:
            self.cursor = hand.index(card)
        else:
            self.cursor = max(0, min(self.cursor, len(hand) - 1))

    def note(self, text: str, error: bool = False) -> None:
        self.message, self.error = text, error

    def _chosen(self) -> list[Card]:
        """The selection, or the card under the cursor when nothing is selected."""
        if self.selected:
            return list(self.selected)
        card = self.cursor_card()
        return [card] if card else []

    def _c(self, card: Card) -> str:
        return card_text(card, self.ascii)

    # -- moves ---------------------------------------------------------------------------------

    def submit(self, move: Move) -> None:
        if self.send is None:
            self.note("not connected", True)
            return
        self.busy = True
        self.send(move)

    def draw(self) -> None:
        self.submit(DrawStock(self.seat))

    def take(self) -> None:
        self.submit(TakeDiscard(self.seat))

    def claim(self) -> None:
        self.submit(MayI(self.seat))

    def pass_claim(self) -> None:
        self.submit(PassClaim(self.seat))

    def discard(self, shanghai: bool = False) -> None:
        cards = self._chosen()
        if len(cards) != 1:
            self.note(f"select one card to discard ({len(cards)} selected)", True)
            return
        self.submit(Discard(self.seat, cards[0], shanghai))

    def add_meld(self) -> None:
        """``g``: the selection becomes the next meld; with the contract complete, go down."""
        view = self.view
        if view is None:
            return
        if not self.selected:
            self.note("select the cards of a meld (space), then press g", True)
            return
        need = sum(view.contract)
        self.pending.append(tuple(self.selected))
        self.selected.clear()
        self._follow(self.cursor_card())
        if len(self.pending) < need:
            self.note(f"meld {len(self.pending)} of {need} picked: select the next and press g "
                      "(u takes the last back, Esc clears)")
            return
        self.submit(GoDown(self.seat, tuple(self.pending)))

    def undo_meld(self) -> None:
        if self.pending:
            self.selected = list(self.pending.pop())
            self.note(f"{len(self.pending)} meld(s) picked")

    def show_arrangements(self) -> None:
        view = self.view
        if view is None:
            return
        found = arrangements(view)
        if not found:
            self.note("the engine finds no way to go down with this hand yet", True)
            return
        self.options = found
        self.note("")

    def choose_arrangement(self, n: int) -> None:
        if self.options is None or not 1 <= n <= len(self.options):
            return
        melds = self.options[n - 1]
        self.options = None
        self.selected.clear()
        self.pending.clear()
        self.submit(GoDown(self.seat, melds))

    def ask_target(self, target: Target) -> None:
        """``l``, ``w``, ``b``, ``!``: the cards come from the selection; a meld number follows."""
        view = self.view
        if view is None:
            return
        if not view.table:
            self.note("there is no meld on the table", True)
            return
        cards: tuple[Card, ...] = ()
        if target is Target.LAY or target is Target.BUY:
            chosen = self._chosen()
            if len(chosen) != 1:
                self.note(f"select one card to {target.value} with ({len(chosen)} selected)", True)
                return
            cards = tuple(chosen)
        elif target is Target.SWAP:
            if len(self.selected) != 2:
                self.note("select two cards: the one the joker stands for, then the one that extends the meld", True)
                return
            cards = tuple(self.selected)
        if target is Target.LAY:
            from .viewmodel import fits

            where = fits(view.rules, view.table, cards[0])
            if len(where) == 1:
                self._submit_target(target, cards, where[0])
                return
        self.target, self.target_cards, self.digits = target, cards, ""
        what = " ".join(self._c(c) for c in cards)
        self.note(f"{target.value}{' ' + what if what else ''}: on which meld? type its number (Esc cancels)")

    def type_digit(self, digit: str) -> None:
        if self.options is not None:
            self.choose_arrangement(int(digit))
            return
        if self.target is None or self.view is None:
            return
        self.digits += digit
        melds = len(self.view.table)
        if int(self.digits) * 10 > melds:  # no longer number could follow
            self.confirm_target()
        else:
            self.note(f"{self.target.value}: meld {self.digits}… (Enter)")

    def confirm_target(self) -> None:
        if self.target is None:
            return
        if not self.digits:
            return
        target, cards, number = self.target, self.target_cards, int(self.digits)
        self.target, self.digits = None, ""
        self._submit_target(target, cards, number - 1)

    def _submit_target(self, target: Target, cards: tuple[Card, ...], meld: int) -> None:
        view = self.view
        rules = view.rules
        table = view.table
        on = table[meld] if 0 <= meld < len(table) else None
        seat = self.seat
        if target is Target.LAY:
            self.submit(LayOff(seat, cards[0], meld, _end(rules, on, cards[0])))
        elif target is Target.SHANGHAI:
            top = view.discard_top
            self.submit(CallShanghai(seat, meld, _end(rules, on, top) if top else None))
        else:
            joker = _joker_for(rules, on, cards[0])
            if joker is None:
                names = f"meld {meld + 1}" if on is not None else f"meld {meld + 1} (there is none)"
                self.note(f"no joker on {names} stands for {self._c(cards[0])}", True)
                return
            if target is Target.BUY:
                self.submit(BuyJoker(seat, meld, joker, cards[0]))
            else:
                end = None
                if on.kind is MeldKind.RUN:
                    swapped = replace_wild(rules, on, joker, cards[0])
                    end = next((e for e in (End.HIGH, End.LOW) if swapped and extend(rules, swapped, cards[1], e)), End.HIGH)
                self.submit(SwapJoker(seat, meld, joker, cards[0], cards[1], end))

    def on_outcome(self, outcome: Outcome) -> None:
        """The session's answer to a move sent."""
        self.busy = False
        if isinstance(outcome, Accepted):
            self.note(outcome.move.text())
            view = self.view
            hand = set(view.hand) if view else set()
            self.pending = [m for m in self.pending if all(c in hand for c in m)] if not isinstance(outcome.move, GoDown) else []
            self.selected = [c for c in self.selected if c in hand]
        else:
            reason = outcome.reason
            self.note(reason, True)
            if isinstance(outcome.move, GoDown) and self.pending and outcome.move.melds == tuple(self.pending):
                self.selected = list(self.pending.pop())  # the last meld back to the selection
        self._follow(self.cursor_card())

    def on_session_change(self) -> None:
        """The session changed: keep the cursor and selection valid, notice a round's end."""
        view = self.view
        if view is None:
            return
        hand = set(view.hand)
        self.selected = [c for c in self.selected if c in hand]
        self.pending = [m for m in self.pending if all(c in hand for c in m)]
        self.cursor = max(0, min(self.cursor, len(self.hand()) - 1))
        results = [e.event.result for e in self.session.log
                   if e.event is not None and type(e.event).__name__ == "RoundEnded"]
        if len(results) > self._summaries_seen:
            self._summaries_seen = len(results)
            self.summary = results[-1]
            self.selected.clear()
            self.pending.clear()
            self.target, self.options = None, None

    def close_summary(self) -> None:
        if self.summary is None:
            return
        self.summary = None
        if self.send_ready is not None and not self.game_over:
            self.send_ready()

    # -- the rest ------------------------------------------------------------------------------

    def open_chat(self) -> None:
        self.chat_open = True

    def send_chat_line(self, text: str) -> None:
        self.chat_open = False
        if text.strip() and self.send_chat is not None:
            self.send_chat(text)

    def ask_quit(self) -> None:
        self.quit_asked = True

    def confirm_quit(self) -> None:
        if self.quit_asked:
            self.exit_requested = True

    def in_draw_phase(self) -> bool:
        view = self.view
        return view is not None and view.phase is Phase.DRAW


def _end(rules, meld, card) -> End | None:
    if meld is None or card is None or meld.kind is not MeldKind.RUN:
        return None
    return next((e for e in (End.HIGH, End.LOW) if extend(rules, meld, card, e)), None)


def _joker_for(rules, meld, natural: Card) -> Card | None:
    if meld is None:
        return None
    return next((c for c in meld.cards if c.is_joker and replace_wild(rules, meld, c, natural)), None)
