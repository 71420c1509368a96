"""ConsoleState: everything the console remembers between key presses, drawing nothing.

In the manner of pyvim's editor state: key bindings call its methods, the layout reads
`ConsoleState.view_model()`.  Moves go out through ``send`` (the app hands them to trio, where the
session answers); `on_outcome` takes the answer back.  A refused move shows the engine's reason
and keeps the selection.

Carousel tables (manipulation rummy) are played through a *working arrangement*: ``groups`` is the
table as the player is rebuilding it (None: untouched), ``loose`` the working area of cards picked
up from the table (or taken back off a new meld).  Hand cards join with ``g`` (a new meld from the
selection) or ``l`` (added to a meld); Enter commits the whole arrangement as one `Rearrange`.  A
refused arrangement keeps the working area with the engine's reason; ``u`` puts everything back.

A networked seat changes hands on a key (protocol.md 11.9): ``H`` hands it to a watcher who
offers to take it (one picked by its number when several do, then confirmed with ``y`` beside
its name and key fingerprint, which the two people compare out loud), ``B`` lets a bot finish
the hand (a level picked, Enter for the host's); a console without a seat (``watching``) shows
the game and offers no move.
"""

from __future__ import annotations

import itertools
import math
import random
import textwrap
from collections.abc import Callable, Sequence
from enum import StrEnum

from ..cards import Card
from ..engine import (
    BuyJoker, CallShanghai, Discard, DrawStock, GoDown, LayOff, MayI, Move, PassClaim, Phase,
    Rearrange, SwapJoker, TakeDiscard,
)
from ..engine.events import Claimed, Drew, RoundResult
from ..rules import End, MeldKind, arrange, extend, replace_wild
from ..rules.contracts import meld_count
from ..rules.melds import why_not_meld
from ..rules.carousel_solver import best_play
from ..bots import LEVELS, ExpertBot
from ..session import Accepted, Outcome, Session
from .sheets import log_lines, rules_card, score_sheet
from .viewmodel import (
    LobbyModel, ViewModel, arrangements, card_text, carousel_view, claim_helps, describe_events, lobby_model,
    entry_lines, money_text, reason_text,
    sort_hand, table_words, view_model,
)

__all__ = ["ConsoleState", "Panel", "Target"]


class Panel(StrEnum):
    """What floats over the table on a key, a page at a time."""

    SCORES = "scores"  # S: the score sheet, round by round
    LOG = "log"  # L: the whole log, newest at the bottom
    RULES = "rules"  # R: the rules card


class Target(StrEnum):
    """What a meld number typed next is for."""

    LAY = "lay off"
    SWAP = "swap the joker"
    BUY = "buy the joker"
    SHANGHAI = "call SHANGHAI"
    PICK = "pick up meld"  # carousel: the whole meld to the working area
    PICK_CARD = "pick up a card of meld"  # carousel: a meld number, then the card's place in it


class ConsoleState:
    """``auto_pass``: a claim window on a card that cannot help this hand (`claim_helps`) is
    passed by itself, so that a person answers only the claims worth a thought."""

    def __init__(self, session: Session, ascii: bool = False, auto_pass: bool = True):
        self.session = session
        self.ascii = ascii
        self.auto_pass = auto_pass
        self._passed_on: object = None  # the claim window auto-passed, so it is passed once
        self._auto: tuple[Move, str] | None = None  # the move auto-pass sent, and its words
        self.sort = "suit"
        self.cursor = 0
        self.selected: list[Card] = []  # in the order picked (a run in the order given)
        self.pending: list[tuple[Card, ...]] = []  # melds picked for going down
        self.message = ""
        self.error = False
        self.help_open = False
        self.quit_asked = False
        self.vote_asked = False
        """``V`` was pressed: "Vote to void this round?" waits for ``y``."""
        self.chat_open = False
        self.target: Target | None = None
        self.target_cards: tuple[Card, ...] = ()
        self.digits = ""
        self.options: tuple[tuple[tuple[Card, ...], ...], ...] | None = None  # arrangements shown
        self.summary: RoundResult | None = None
        self.panel: Panel | None = None
        """The score sheet, the log or the rules card, open over the table."""
        self.panel_top: int | None = None
        """The panel's first line shown (None: its last page, where the log's newest is)."""
        self.panel_page: tuple[int, int] = (0, 1)
        """(first line, lines) of the page the screen last showed: scrolling goes from there."""
        self.overlay_scroll: tuple[str | None, int] = (None, 0)
        """(overlay, first line shown) of the overlay on top, when it is taller than the
        terminal (the help at 60x20): ↑ ↓ PgUp PgDn scroll it."""
        self.overlay_page = 1
        """The lines of such an overlay the screen last showed at once."""
        self.on_top: Callable[[], str | None] = lambda: None
        """The name of the overlay drawn on top (set by the layout), None when there is none."""
        self.groups: list[tuple[Card, ...]] | None = None  # carousel: the table being rebuilt
        self.loose: list[Card] = []  # carousel: the working area
        self.pick_meld: int | None = None  # carousel: the meld chosen, its card's place comes next
        self._table_seen: tuple = ()
        self._view_seen = None  # the view the hand was last shown from
        self._summaries_seen = 0
        self.exit_requested = False
        self.busy = False
        self.send: Callable[[Move], None] | None = None
        """Hands a move to the session (set by the app); the answer comes to `on_outcome`."""
        self.send_chat: Callable[[str], None] | None = None
        self.send_ready: Callable[[], None] | None = None
        self.send_vote: Callable[[], None] | None = None
        self.send_wait: Callable[[], None] | None = None
        """``W``: the vote the seat casts for this person waits again (`wait_for_them`)."""
        self.send_lobby_ready: Callable[[bool], None] | None = None
        """Tells a networked table (in its lobby) that this seat is or is not ready."""
        self.offers_shown: tuple | None = None
        """``H`` with several watchers offering: the offers to pick from by number."""
        self.hand_to = None
        """The offer ``H`` hands the seat to once ``y`` confirms it (its name and key shown)."""
        self.bot_asked = False
        """``B``: the bot's level to pick (Enter: the host's), or Esc to keep playing."""
        self._card_due: int | None = None
        """A draw from the stock was accepted before its card came: the log's length then."""
        self._handing_said = False
        """The message line says a hand-over is on its way (until the seat is the successor's)."""
        self.send_hand_over: Callable[[object], None] | None = None
        self.send_rematch: Callable[[], None] | None = None
        self.send_bot: Callable[[str | None], None] | None = None
        self.people_at_stake: Callable[[], Sequence[str]] = tuple
        """The people whose game this program hosts, besides this seat (set by the app for a
        table hosted here): quitting ends it for them, so ``q`` asks and names them."""

    # -- reading -------------------------------------------------------------------------------

    @property
    def view(self):
        return self.session.view

    @property
    def seat(self) -> int:
        return self.session.seat

    @property
    def may_claim(self) -> bool:
        """A claim window is open to this seat now."""
        view = self.view
        return view is not None and view.may_claim

    @property
    def watching(self) -> str | None:
        """This console follows the game without a seat: what it does, in words."""
        return getattr(self.session, "watching", None)

    @property
    def handing_over(self) -> bool:
        """A question about handing the seat over floats over the table."""
        return self.offers_shown is not None or self.hand_to is not None or self.bot_asked

    @property
    def in_lobby(self) -> bool:
        """No hand dealt yet: the lobby screen (a networked table's seats and rules) shows."""
        return self.view is None

    @property
    def carousel(self) -> bool:
        view = self.view
        return view is not None and view.rules.game == "carousel"

    def hand(self, view=None) -> list[Card]:
        """The hand as shown (of ``view``, default the session's): sorted, without the cards
        already picked for going down.

        Carousel: without the cards put into the working arrangement, and the working area's
        cards after the hand (the cursor and the selection run over both)."""
        view = view or self.view
        if view is None:
            return []
        picked = {c for m in self.pending for c in m}
        if self.carousel:
            picked |= {c for g in self.table_groups() for c in g} | set(self.loose)
            return [c for c in sort_hand(view.rules, view.hand, self.sort) if c not in picked] + self.loose
        return [c for c in sort_hand(view.rules, view.hand, self.sort) if c not in picked]

    def table_groups(self) -> list[tuple[Card, ...]]:
        """Carousel: the table as being rebuilt (the table itself when untouched)."""
        if self.groups is not None:
            return self.groups
        view = self.view
        return [m.cards for m in view.table] if view is not None else []

    def played(self) -> tuple[Card, ...]:
        """Carousel: the hand cards put into the working arrangement."""
        hand = set(self.view.hand) if self.view is not None else set()
        return tuple(c for g in self.table_groups() for c in g if c in hand)

    def cursor_card(self) -> Card | None:
        hand = self.hand()
        return hand[min(self.cursor, len(hand) - 1)] if hand else None

    def view_model(self, log_lines: int = 50) -> ViewModel | None:
        view = self.view
        if view is None:
            return None
        s = self.session
        vm = view_model(
            view, seats=s.seats, log=s.log, claim=s.claim, now=s.now(), cursor=self.cursor,
            selected=self.selected, pending=self.pending, sort=self.sort, ascii=self.ascii,
            message=self.message, error=self.error, log_lines=log_lines, connection=s.status,
            watching=self.watching,
        )
        if self.carousel:
            carousel_view(vm, view, groups=self.table_groups(), hand=self.hand(), loose=self.loose,
                          cursor=self.cursor, selected=self.selected, edited=self.groups is not None,
                          ascii=self.ascii)
        return vm

    @property
    def rules(self):
        """The table's rules: the game's, or before the deal the lobby's (None: not known)."""
        view = self.view
        return view.rules if view is not None else getattr(self.session, "rules", None)

    def panel_lines(self, width: int) -> tuple[str, list[str]]:
        """The open panel's title and its lines, each broken between words to ``width``."""
        s, view, rules = self.session, self.view, self.rules
        players = view.players if view is not None else getattr(s, "players", 0)
        if self.panel is Panel.SCORES and rules is not None:
            playing = view.round_no if view is not None and not self.game_over else None
            lines = score_sheet(rules, s.log, s.seats, self.seat, players, playing,
                                lambda cents: money_text(cents, self.ascii))
            return lines[0], lines[1:]
        if self.panel is Panel.LOG:
            return "Game log", log_lines(s.log, self._log_text, width)
        if self.panel is Panel.RULES and rules is not None:
            lobby = getattr(s, "lobby", None)
            card = rules_card(rules, players, getattr(s, "claim_timeout", None), self.ascii,
                              lobby.sharing if lobby is not None else "")
            return f"The rules of {rules.name}", [
                row for line in card for row in textwrap.wrap(line, width, subsequent_indent="  ")]
        return "", []

    def _log_text(self, entry) -> str:
        """A log entry as the panel writes it: an event as the log panel does, a chat line
        with its speaker."""
        if entry.chat_from is not None:
            seats = self.session.seats
            who = "you" if entry.chat_from == self.seat else seats[entry.chat_from].name \
                if entry.chat_from < len(seats) else f"seat {entry.chat_from}"
            return f"{who}: {entry.text}"
        if entry.event is None:
            return entry.text
        return entry_lines([entry], self.session.seats, self.seat, self.ascii,
                           getattr(self.session, "round_numbers", None))[0]

    def lobby_model(self) -> LobbyModel:
        s = self.session
        return lobby_model(s.lobby, s.status, s.log, watching=self.watching)

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
            self.selected.append(card)  # the cursor stays: → is the one key that moves it

    def toggle_sort(self) -> None:
        card = self.cursor_card()
        self.sort = "rank" if self.sort == "suit" else "suit"
        self._follow(card)
        self.note(f"sorted by {self.sort}")

    def toggle_help(self) -> None:
        """``?``: the help, from its top; again, it closes."""
        self.help_open = not self.help_open
        self.overlay_scroll = (None, 0)

    def clear(self) -> None:
        """Esc: close what is open, else drop the selection and the melds picked."""
        self.overlay_scroll = (None, 0)
        if self.help_open:
            self.help_open = False
        elif self.handing_over:
            self.offers_shown, self.hand_to, self.bot_asked = None, None, False
            self.note("you keep your seat")
        elif self.quit_asked or self.vote_asked:
            self.quit_asked = self.vote_asked = False
        elif self.panel is not None:
            self.panel = None
        elif self.target or self.options is not None:
            self.target, self.options, self.digits, self.pick_meld = None, None, "", None
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
        if self.carousel:
            self.build_meld()
            return
        if not self.selected:
            self.note("select the cards of a meld (space), then press g", True)
            return
        need = meld_count(view.contract)
        if arrange(view.rules, self.selected) is None:
            cards = " ".join(self._c(c) for c in self.selected)
            self.note(f"{cards} is no meld: {why_not_meld(view.rules, self.selected)}", True)
            return
        self.pending.append(tuple(self.selected))
        self.selected.clear()
        self._follow(self.cursor_card())
        if len(self.pending) < need:
            self.note(f"meld {len(self.pending)} of {need} picked: select the next and press g "
                      "(u takes the last back, Esc clears)")
            return
        self.submit(GoDown(self.seat, tuple(self.pending)))

    def undo_meld(self) -> None:
        if self.carousel:
            self.undo_turn()
            return
        if self.pending:
            self.selected = list(self.pending.pop())
            self.note(f"{len(self.pending)} meld(s) picked")

    def show_arrangements(self) -> None:
        view = self.view
        if view is None:
            return
        if self.carousel:
            self.offer_best()
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
        if self.carousel:
            self._ask_carousel(target)
            return
        missing = {Target.SWAP: not view.rules.joker_swap, Target.BUY: not view.rules.joker_buy,
                   Target.SHANGHAI: not view.rules.shanghai}
        if missing.get(target):
            self.note(f"{view.rules.name} has no {target.value} (? lists the keys of these rules)", True)
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
        melds = len(self.table_groups()) if self.carousel else len(self.view.table)
        if self.target is Target.PICK_CARD and self.pick_meld is not None:
            groups = self.table_groups()
            melds = len(groups[self.pick_meld]) if self.pick_meld < len(groups) else 0
        if int(self.digits) * 10 > melds:  # no longer number could follow
            self.confirm_target()
        else:
            what = "card" if self.target is Target.PICK_CARD and self.pick_meld is not None else "meld"
            self.note(f"{self.target.value}: {what} {self.digits}… (Enter)")

    def confirm_target(self) -> None:
        if self.target is None:
            if self.carousel and not self.chat_open:
                self.commit()
            return
        if not self.digits:
            return
        target, cards, number = self.target, self.target_cards, int(self.digits)
        self.target, self.digits = None, ""
        if self.carousel:
            self._carousel_target(target, cards, number - 1)
            return
        self._submit_target(target, cards, number - 1)

    # -- carousel: the working arrangement -------------------------------------------------------

    def _my_play_turn(self) -> bool:
        view = self.view
        if view is None or not view.my_turn:
            self.note("it is not your turn", True)
            return False
        return True

    def _ask_carousel(self, target: Target) -> None:
        if not self._my_play_turn():
            return
        if target not in (Target.LAY, Target.PICK, Target.PICK_CARD):
            self.note(f"no {target.value} in carousel: rearrange the table instead (? for keys)", True)
            return
        if not self.table_groups():
            self.note("there is no meld on the table", True)
            return
        cards: tuple[Card, ...] = ()
        if target is Target.LAY:
            cards = tuple(self._chosen())
            if not cards:
                self.note("select the cards to add (space), then l and the meld's number", True)
                return
        self.target, self.target_cards, self.digits, self.pick_meld = target, cards, "", None
        what = " ".join(self._c(c) for c in cards)
        self.note(f"{target.value}{' ' + what if what else ''}: which meld? type its number (Esc cancels)")

    def _carousel_target(self, target: Target, cards: tuple[Card, ...], index: int) -> None:
        groups = list(self.table_groups())
        if target is Target.PICK_CARD and self.pick_meld is not None:
            meld, self.pick_meld = self.pick_meld, None
            group = groups[meld]
            if not 0 <= index < len(group):
                self.note(f"meld {meld + 1} has no card {index + 1}", True)
                return
            card = group[index]
            rest = group[:index] + group[index + 1:]
            groups[meld:meld + 1] = [rest] if rest else []
            self.groups = groups
            self.loose.append(card)
            self.note(f"{self._c(card)} to the working area")
            self._follow(card)
            return
        if not 0 <= index < len(groups):
            self.note(f"there is no meld {index + 1}", True)
            return
        if target is Target.PICK_CARD:
            self.target, self.pick_meld = target, index
            self.note(f"pick up from meld {index + 1}: which card? type its place, 1-{len(groups[index])} (Esc cancels)")
            return
        if target is Target.PICK:
            group = groups.pop(index)
            self.groups = groups
            self.loose += list(group)
            self.note(f"meld {index + 1} to the working area: {' '.join(self._c(c) for c in group)}")
        elif target is Target.LAY:
            self._take_out(cards)
            groups = list(self.table_groups())
            groups[index] = _shown(self.view.rules, groups[index] + cards)
            self.groups = groups
            self.note(f"{' '.join(self._c(c) for c in cards)} added to meld {index + 1}: Enter commits")
        self.selected.clear()
        self._follow(self.cursor_card())

    def _take_out(self, cards) -> None:
        """Cards leaving the working area (or the hand) for a meld."""
        self.loose = [c for c in self.loose if c not in cards]
        self.selected = [c for c in self.selected if c not in cards]

    def build_meld(self) -> None:
        """``g`` (carousel): the selected cards, from the hand and the working area, are a new meld."""
        if not self._my_play_turn():
            return
        cards = tuple(self.selected)
        if not cards:
            self.note("select the cards of the new meld (space: hand or working area), then press g", True)
            return
        self._take_out(cards)
        self.groups = list(self.table_groups()) + [_shown(self.view.rules, cards)]
        self.note(f"new meld {len(self.groups)}: {' '.join(self._c(c) for c in self.groups[-1])}"
                  + (" · Enter commits" if not self.loose else ""))
        self._follow(self.cursor_card())

    def commit(self) -> None:
        """Enter (carousel): the working arrangement as one Rearrange."""
        if not self._my_play_turn():
            return
        played = self.played()
        if not played and not self.loose and self.groups is None:
            self.note("nothing to commit: put cards from your hand into melds (g, l), or a for a play", True)
            return
        self.submit(Rearrange(self.seat, tuple(self.table_groups()), played))

    def undo_turn(self) -> None:
        """``u`` (carousel): everything back where it was at the start of the turn."""
        had = self.groups is not None or self.loose
        self.groups, self.loose, self.pick_meld, self.target = None, [], None, None
        self.selected.clear()
        self._follow(self.cursor_card())
        self.note("everything put back" if had else "")

    def offer_best(self) -> None:
        """``a`` (carousel): the solver's play with the most cards, as a ready arrangement."""
        if not self._my_play_turn():
            return
        view = self.view
        play = best_play(view.rules, view.table, view.hand)
        if play is None:
            self.note("the solver finds no play: draw (d)" + (" or pass (p)" if not view.stock_size else ""), True)
            return
        self.groups, self.loose = [tuple(g) for g in play.table], []
        self.selected.clear()
        self._follow(self.cursor_card())
        self.note(f"best play: {len(play.played)} card(s) {' '.join(self._c(c) for c in play.played)} · Enter commits, u puts back")

    def _carousel_reset(self) -> None:
        self.groups, self.loose, self.pick_meld = None, [], None
        if self.target in (Target.LAY, Target.PICK, Target.PICK_CARD):
            self.target, self.digits = None, ""

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
        if self._auto is not None and self._auto[0] is outcome.move:  # too late is no news
            words, self._auto = self._auto[1], None
            if isinstance(outcome, Accepted):
                self.note(words)
            return
        if self.carousel:
            if isinstance(outcome, Accepted):
                self.note(self._told(outcome))
                self._carousel_reset()
                self.selected.clear()
            else:  # the working arrangement stays to be mended
                self.note(reason_text(outcome.reason, self.ascii), True)
            self._follow(self.cursor_card())
            return
        if isinstance(outcome, Accepted):
            self.note(self._told(outcome))
            view = self.view
            hand = set(view.hand) if view else set()
            self.pending = [m for m in self.pending if all(c in hand for c in m)] if not isinstance(outcome.move, GoDown) else []
            self.selected = [c for c in self.selected if c in hand]
        else:
            self.note(reason_text(outcome.reason, self.ascii), True)
            if isinstance(outcome.move, GoDown) and self.pending and outcome.move.melds == tuple(self.pending):
                self.selected = list(self.pending.pop())  # the last meld back to the selection
        self._follow(self.cursor_card())

    def _told(self, accepted: Accepted) -> str:
        """What a move did, as the log tells it ("you draw 8♦"): its first event; before the
        table has told it (a networked draw's card is on its way), what was done."""
        uncovered = self._claim_settled(accepted)
        if uncovered is not None:
            return uncovered
        lines = describe_events(accepted.events[:1], self.session.seats, self.seat, self.ascii)
        if lines:
            return lines[0]
        if isinstance(accepted.move, DrawStock):
            self._card_due = len(self.session.log)
            return ON_ITS_WAY
        return "you: " + reason_text(accepted.move.text(), self.ascii)

    def _claim_settled(self, accepted: Accepted) -> str | None:
        """``d`` while a claim was called on the discard: choosing the stock settled the claim
        first, and where the rules reopen the pile (davis) the turn is to choose again; said on
        the spot, or the d seems lost."""
        claimed = next((e for e in accepted.events if isinstance(e, Claimed)), None)
        view = self.view
        if not isinstance(accepted.move, DrawStock) or claimed is None or view is None \
                or not (view.my_turn and view.phase is Phase.DRAW):
            return None
        who = describe_events([claimed], self.session.seats, self.seat, self.ascii)[0]
        top = view.discard_top
        again = f"the card it uncovered, {self._c(top)}, is yours to take (t), or draw (d)" \
            if top is not None and not view.top_shanghaied else "now draw (d)"
        return f"{who}: your d let the {view.rules.claim_word} go first; {again}"

    def on_session_change(self) -> None:
        """The session changed: keep the cursor on its card (a drawn card shifts the others) and
        the selection valid, notice a round's end."""
        view, seen = self.view, self._view_seen
        if view is None:  # the lobby (a rematch's too): its first deal is news again
            self._view_seen, self.summary = None, None
            return
        if self.message == ON_ITS_WAY and self._card_due is not None:  # it came: which
            drawn = [e.event for e in self.session.log[self._card_due:]
                     if isinstance(e.event, Drew) and e.event.seat == self.seat and e.event.card]
            if drawn:
                self._card_due = None
                self.note(describe_events(drawn[:1], self.session.seats, self.seat, self.ascii)[0])
        if self._handing_said and self.watching is not None:  # the seat is the successor's:
            self._handing_said = False  # the watching line says so
            self.note("")
        shown = self.hand(seen) if seen is not None and seen.round_no == view.round_no else []
        under = shown[self.cursor] if 0 <= self.cursor < len(shown) else None
        self._view_seen = view
        if seen is None:  # the first deal: a word of the lobby ("ready: ...") is old now
            self.note("")
        hand = set(view.hand)
        if self.carousel:
            if view.table != self._table_seen or not view.my_turn:  # the table moved under us
                if self.groups is not None or self.loose:
                    self._carousel_reset()
                self._table_seen = view.table
            hand |= set(self.loose)
        self.selected = [c for c in self.selected if c in hand]
        self.pending = [m for m in self.pending if all(c in hand for c in m)]
        self._follow(under)
        self._pass_what_cannot_help(view)
        results = [e.event.result for e in self.session.log
                   if e.event is not None and type(e.event).__name__ == "RoundEnded"]
        if len(results) > self._summaries_seen:
            self._summaries_seen = len(results)
            self.summary = results[-1]
            self.panel = None  # the summary says what the sheet would
            self.selected.clear()
            self.pending.clear()
            self.target, self.options = None, None

    def _pass_what_cannot_help(self, view) -> None:
        """Auto-pass: answer a claim window that cannot help this hand, once per window."""
        claim = self.session.claim
        if not (self.auto_pass and view.may_claim and claim is not None and not self.busy):
            return
        window = (claim.card, claim.deadline)
        if window == self._passed_on or claim_helps(view.rules, view.hand, view.contract, claim.card):
            return
        self._passed_on = window
        move = PassClaim(self.seat)
        self._auto = (move, f"{self._c(claim.card)} let go by itself: it fits nothing you hold "
                            "(P: ask every time)")
        self.submit(move)

    def hint(self) -> None:
        """``h``: what the expert bot would do now and why, in one line, without playing it
        (it reads the hand, the table and the log, as the seat may know them)."""
        view = self.view
        moves = iter(self.session.legal_moves() if view is not None else ())
        first = next(moves, None)
        if first is None:
            self.note("no hint: nothing for you to decide now")
            return
        expert = ExpertBot(random.Random(0))
        expert.follow([e.event for e in self.session.log if e.event is not None])
        words = table_words(self.session.seats, self.seat, self.ascii)
        self.note("hint: " + expert.decide(view, itertools.chain([first], moves), words).reason)

    def toggle_panel(self, panel: Panel) -> None:
        """``S``, ``L``, ``R``: open that panel (the log at its newest page, the others at their
        top) in place of the help or the round summary, or close it if it is the one open."""
        self.help_open = False
        self.close_summary()
        if self.panel is panel:
            self.panel = None
            return
        if panel is not Panel.LOG and self.rules is None:
            self.note("the table's rules are not known yet", True)
            return
        self.panel = panel
        self.panel_top = None if panel is Panel.LOG else 0

    def scroll_panel(self, lines: int | None = None, pages: int = 0, to: int | None = None) -> None:
        """↑ ↓ (``lines``), PgUp PgDn (``pages``), Home End (``to``: 0 the top, -1 the end)."""
        top, rows = self.panel_page
        if to is not None:
            self.panel_top = None if to < 0 else 0
        else:
            self.panel_top = max(0, top + (lines or 0) + pages * max(1, rows - 1))

    def scroll_overlay(self, lines: int = 0, pages: int = 0) -> None:
        """↑ ↓ PgUp PgDn over an overlay taller than the terminal: the page moves (the layout
        keeps it within the text)."""
        name = self.on_top()
        at, top = self.overlay_scroll
        top = top if at == name else 0
        self.overlay_scroll = (name, max(0, top + lines + pages * max(1, self.overlay_page - 1)))

    def toggle_auto_pass(self) -> None:
        """``P``: pass claims that cannot help by themselves, or ask every time."""
        self.auto_pass = not self.auto_pass
        self.note("claims that cannot help pass by themselves" if self.auto_pass else
                  "every claim window waits for your m or p")

    def close_floating(self) -> None:
        """A key of the table pressed while the help, a panel or the round summary floats over
        it: they close, and the key acts (a key the footer offers is never swallowed)."""
        self.help_open = False
        self.panel = None
        self.overlay_scroll = (None, 0)
        self.close_summary()

    def footer_keys(self, width: int | None = None) -> list[tuple[str, str]]:
        """The keys the footer offers now, each of which acts: a question's answers while one
        is asked, else the table's (or the lobby's) keys, which close what floats over the
        table first; under the round summary Enter closes it (so space selects nothing).  When
        they do not fit in ``width`` columns, the keys of every turn (move, sort, chat: the
        help lists them) give way to this turn's, so that ``q quit`` stays on the line."""
        keys = self._footer_keys()
        if width is not None and _footer_width(keys) > width:
            keys = [k for k in keys if k[0] not in STEADY_KEYS]
        return keys

    def _footer_keys(self) -> list[tuple[str, str]]:
        question = self._question_keys()
        if question is not None:
            return question
        if self.in_lobby:
            keys = self.lobby_model().keys
        else:
            vm = self.view_model()
            keys = list(vm.keys) if vm is not None else [("?", "help"), ("q", "quit")]
            if self.rematch_line is not None:
                keys = [("r", "rematch"), *keys]
        if self.vote_countdown() is not None:
            keys = [("V", "vote"), ("W", "wait for them"), *keys]
        if self.summary is not None:
            keys = [("Enter", "close summary")] + [k for k in keys if k[0] not in ("spc", "Enter")]
        if self.help_open:
            keys = [("?", "close help") if key == "?" else (key, label) for key, label in keys]
        return keys

    def _question_keys(self) -> list[tuple[str, str]] | None:
        """The answers to the question open (None: none is)."""
        if self.quit_asked:
            return [("y", "quit"), ("n", "stay")]
        if self.chat_open:
            return [("Enter", "send"), ("Esc", "cancel")]
        if self.vote_asked:
            return [("y", "vote"), ("n", "do not vote")]
        if self.options is not None:
            return [(f"1-{len(self.options)}", "go down with it"), ("Esc", "cancel")]
        if self.offers_shown is not None:
            return [(f"1-{len(self.offers_shown)}", "hand it to them"), ("Esc", "cancel")]
        if self.hand_to is not None:
            return [("y", "hand it over"), ("n", "keep it")]
        if self.bot_asked:
            return [(f"1-{len(self.bot_levels)}", "the bot's level"), ("Enter", "the host's"),
                    ("Esc", "keep playing")]
        return None

    def close_summary(self) -> None:
        if self.summary is None:
            return
        self.summary = None
        if self.send_ready is not None and not self.game_over:
            self.send_ready()

    # -- the rest ------------------------------------------------------------------------------

    @property
    def rematch_line(self) -> str | None:
        """Once the game is over at a table that stays: where the rematch stands (``r``)."""
        return self.session.rematch_line if self.game_over else None

    def ask_rematch(self) -> None:
        """``r`` once the game is over: ask for the next game with the same seats."""
        if self.rematch_line is None:
            self.note("no rematch at this table", True)
        elif self.send_rematch is not None:
            self.send_rematch()

    def toggle_ready(self) -> None:
        """``r`` in the lobby: say ready (or take it back); the game starts when all are."""
        lobby = self.session.lobby
        if lobby is None or lobby.you is None:
            self.note("not seated at a table yet", True)
            return
        if self.send_lobby_ready is not None:
            self.send_lobby_ready(not lobby.ready)
            self.note("not ready" if lobby.ready else "ready: the game starts when everyone is")

    # -- the seat changing hands ------------------------------------------------------------------

    def ask_hand_over(self) -> None:
        """``H``: hand the seat to a watcher who offers to take it: the one there is, or one
        picked by number; `confirm_hand_over` (``y``) once its name and key are shown."""
        why = self.session.hand_over_refused()
        offers = tuple(self.session.offers)
        if why is None and not offers:
            why = ("nobody offers to take your seat: the one who will joins with shanghai join "
                   "HOST --take-over, then H hands it to them")
        if why is not None:
            self.note(why, True)
            return
        if len(offers) == 1:
            self.hand_to = offers[0]
        else:
            self.offers_shown = offers[:9]

    def pick_offer(self, digit: str) -> None:
        """A number in the list of offers: that watcher, to confirm."""
        offers, n = self.offers_shown or (), int(digit)
        if 1 <= n <= len(offers):
            self.offers_shown, self.hand_to = None, offers[n - 1]

    def confirm_hand_over(self) -> None:
        """``y``: hand the seat to the watcher shown; the session answers in `handed`."""
        offer, self.hand_to = self.hand_to, None
        if offer is not None and self.send_hand_over is not None:
            self.note(f"handing your seat to {offer.name}…")
            self.send_hand_over(offer)

    def ask_bot(self) -> None:
        """``B``: let a bot finish the hand: its level next (`start_bot`)."""
        why = self.session.hand_over_refused()
        if why is not None:
            self.note(why, True)
            return
        self.bot_asked = True

    @property
    def bot_levels(self) -> tuple[str, ...]:
        return LEVELS

    def start_bot(self, level: str | None = None) -> None:
        """A level picked (None: the host's): the session starts the bot and hands it the
        seat once it follows the game; its answer comes to `handed`."""
        self.bot_asked = False
        if self.send_bot is not None:
            self.note(f"starting a {level or self.session.stand_in} bot to finish your hand…")
            self.send_bot(level)

    def pick_level(self, digit: str) -> None:
        n = int(digit)
        if 1 <= n <= len(self.bot_levels):
            self.start_bot(self.bot_levels[n - 1])

    def handed(self, answer: str) -> None:
        """The session's word on a hand-over asked for."""
        self.note(answer, not answer.startswith("handing"))
        self._handing_said = not self.error

    def ask_vote(self) -> None:
        """``V``: ask before voting to void the round (a vote is not taken back)."""
        self.vote_asked = True

    def vote_void(self) -> None:
        """``y`` to `ask_vote`: vote to void the round when a player has left for good (the
        table waits for them otherwise: their keys are needed to deal); the session answers in
        `voted`."""
        self.vote_asked = False
        if self.send_vote is not None:
            self.send_vote()

    def voted(self, answer: str) -> None:
        self.note(answer, not self.session.away)

    def vote_countdown(self) -> str | None:
        """While ``V`` is offered and nobody presses a key: whom the table waits for, and in
        how long the seat votes for this person that they left, in words (the footer offers
        ``V`` and ``W``, which starts the countdown again)."""
        due = self.session.vote_for_you
        if due is None or self.watching is not None:
            return None
        seat, at = due
        left = max(0, math.ceil(at - self.session.now()))
        seats = self.session.seats
        name = seats[seat].name if seat < len(seats) else f"seat {seat}"
        return (f"the table waits for {name}: your seat votes that they left in "
                f"{left // 60}:{left % 60:02}")

    def wait_for_them(self) -> None:
        """``W``: this person is there and waits for the seat away: the seat's vote for them
        waits again; the session answers in `voted`."""
        if self.session.vote_for_you is None:
            self.note("no vote of yours is counting down: there is no one to wait for", True)
        elif self.send_wait is not None:
            self.send_wait()

    def open_chat(self) -> None:
        self.chat_open = True

    def send_chat_line(self, text: str) -> None:
        self.chat_open = False
        if text.strip() and self.send_chat is not None:
            self.send_chat(text)

    def ask_quit(self) -> None:
        """Ask "Quit the game?"; once the game is over and audited there is nothing to lose:
        quit, unless this program hosts others' game."""
        if self.session.over and not self.people_at_stake():
            self.exit_requested = True
        else:
            self.quit_asked = True

    def confirm_quit(self) -> None:
        if self.quit_asked:
            self.exit_requested = True

    def in_draw_phase(self) -> bool:
        view = self.view
        return view is not None and view.phase is Phase.DRAW


ON_ITS_WAY = "you draw from the stock: the card is on its way"
"""A networked draw accepted before its card's keys have come (then it says the card)."""

STEADY_KEYS = ("←→", "s", "c")
"""Keys that act on every turn, which a crowded footer leaves to the help."""


def _footer_width(keys: list[tuple[str, str]]) -> int:
    """Columns the footer's keys take on one line (" key label " each)."""
    return sum(len(key) + len(label) + 3 for key, label in keys)


def _end(rules, meld, card) -> End | None:
    if meld is None or card is None or meld.kind is not MeldKind.RUN:
        return None
    return next((e for e in (End.HIGH, End.LOW) if extend(rules, meld, card, e)), None)


def _joker_for(rules, meld, natural: Card) -> Card | None:
    if meld is None:
        return None
    return next((c for c in meld.cards if c.is_joker and replace_wild(rules, meld, c, natural)), None)


def _shown(rules, cards) -> tuple:
    """A meld's cards in the order the rules arrange them (as given when they are no meld yet)."""
    meld = arrange(rules, cards)
    return tuple(meld.cards) if meld is not None else tuple(cards)
