"""The game screen, built from a `ConsoleState`: every panel renders the view model afresh.

Designed for 80x24 and wider: the table and the players side by side, the log and chat, the
contract tracker, your hand with its cursor and marks, a message line and the key footer.  Help,
quit, the round summary, the arrangements, the game-over table and the panels (the score sheet,
the whole log, the rules card: `ConsoleState.panel`, a page at a time) float over it.  Before a hand
is dealt the lobby screen takes the table's place: the table, its seats with their key
fingerprints and ready flags, the rules, and what it waits for.
"""

from __future__ import annotations

import itertools
import re
import textwrap

from prompt_toolkit.application.current import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    BufferControl, ConditionalContainer, Float, FloatContainer, FormattedTextControl, HSplit, Layout,
    VSplit, Window,
)
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.styles import Style

from ..cards import Card
from ..session import Connection
from .state import ConsoleState
from .sheets import fit_name
from .viewmodel import AUTO_PASS_RULE, LobbyModel, ViewModel, card_text, game_over_table, names_at, round_summary

__all__ = ["create_layout", "STYLE", "HELP", "render_screen_text"]

PLAYERS_WIDTH = 36
"""The players panel's width with names of 10 columns (seat number included)."""
MAX_NAME_ROOM = 24
CHAT_WIDTH = 28

STYLE = Style.from_dict({
    "title": "reverse bold",
    # not "red"/"black": prompt_toolkit's own colour classes of those names would win, and its
    # "black" is true black (unreadable on a dark terminal); black suits take the terminal's own
    # foreground, so they read on dark and light backgrounds alike
    "suit.red": "fg:ansired bold",
    "suit.black": "fg:default",
    "joker": "fg:ansimagenta bold",
    "selected": "reverse",
    "cursor": "bold underline",
    "fits": "fg:ansigreen bold",
    "dim": "fg:ansibrightblack",
    "error": "fg:ansired bold",
    "ok": "fg:ansigreen",
    # the key letters and the most urgent prompt read on light and dark terminals alike: the
    # terminal's own colours, bold, the prompt in reverse video (bold yellow and cyan did not)
    "key": "bold",
    "countdown": "reverse bold",
    "you": "bold",
    "lost": "fg:ansired",
    "overlay": "",  # the terminal's own colours, inside a border
    "overlay.title": "bold",
    "frame.border": "fg:ansicyan",
    "heading": "bold underline",
    "chat": "fg:ansicyan",
    "played": "underline",
    "work": "fg:ansiyellow",
})

CAROUSEL_HELP = """\
Keys (carousel: rebuild the table, then commit it as one move)
  {arrows} Home End move the cursor over your hand and the working area
  space          select / unselect the card under the cursor (it stays)
  s              sort the hand by suit or by rank
  k  + number    pick up that whole meld into the working area
  j  + number + place   pick up one card of a meld (its place, 1 first)
  g              the selected cards become a new meld
  l  + number    add the selected cards (or the one under the cursor)
  Enter          commit the arrangement (an invalid one shows the reason
                 and the working area stays to be mended)
  u              undo: everything back as at the start of the turn
  a              the solver's best play, ready to commit (Enter)
  d  /  p        draw, or pass when the stock is empty: when nothing plays
  h              hint: what the expert would play now, and why
  S  L  R        the score sheet, the whole log (↑↓ PgUp PgDn), the rules
  c              chat (Enter sends, Esc cancels)
  r              lobby: ready or not; game over: a rematch, the same seats
  V y  /  W      vote to void when a player has left / wait for them
  H  /  B        hand your seat to a watcher who offers / a bot finishes it
  Esc            cancel / clear the selection / close this help
  ?              this help          q  quit (y confirms)"""

HELP = """\
Keys (every move of the game is a key)
  {arrows} Home End move the cursor in your hand (s sorts by suit or rank)
  space          select / unselect the card under the cursor (it stays)
  d  /  t        draw from the stock / take the discard
  m  /  p        claim the discard out of turn ({claim}) / let it go
{auto}  g              the selected cards are the next meld; with the contract
                 complete you go down  (u: take the last meld back)
  a              the arrangements the engine finds; 1-9 goes down with one
  l  + number    lay off the selected card on that meld (green: it fits)
  +n / new      under a card: it lays off on meld n / it came from the pile
  w  + number    swap a joker: select its natural card, then the extension
  b  + number    buy a joker: select the natural card it stands for
  x              discard the selected card (or the one under the cursor)
  X              discard declaring SHANGHAI (it plays on the table)
  !  + number    call SHANGHAI: the last discard goes on that meld
  h  /  c        hint: the expert's play now, and why / chat (Enter sends)
  S  L  R        the score sheet, the whole log (↑↓ PgUp PgDn), the rules
  r              lobby: ready or not; game over: a rematch, the same seats
  V y  /  W      vote to void when a player has left / wait for them
  H  /  B        hand your seat to a watcher who offers / a bot finishes it
  Enter  /  Esc  close the round summary / cancel, clear, close this help
  ?              this help          q  quit (y confirms)"""

def _card_style(card: Card) -> str:
    if card.is_joker:
        return "class:joker"
    return "class:suit.red" if card.suit is not None and card.suit.red else "class:suit.black"


_CONNECTION_MARK = {Connection.LOST: "lost", Connection.LEFT: "left", Connection.CONNECTING: "wait"}
"""The players panel's word for a seat that is not at the table now (at most 4 letters)."""


def _width() -> int:
    try:
        return get_app().output.get_size().columns
    except Exception:  # pragma: no cover - outside an app
        return 80


def _time_left(vm: ViewModel) -> str:
    """A claim window's countdown; at 0 the host is closing it (no 0s standing there)."""
    return f"{vm.claim_seconds}s" if vm.claim_seconds else "closing…"


def _cards_per_line() -> int:
    return max(1, (_width() - 1) // 4)


class Screen:
    """The panels as functions of the state (recomputed on every redraw)."""

    def __init__(self, state: ConsoleState):
        self.state = state
        self._vm: ViewModel | None = None

    def vm(self) -> ViewModel | None:
        return self.state.view_model()

    # each panel -----------------------------------------------------------------------------

    def title(self) -> StyleAndTextTuples:
        vm = self.vm()
        if vm is None:
            return [("class:title", " shanghai · dealing…")]
        left = f" {vm.title} · {vm.contract}"
        right = f"{vm.status} "
        room = _width() - len(right) - 1
        if len(left) > room:  # what to do now matters more than the contract's name
            left = left[:max(0, room - 1)] + "…"
        gap = max(1, _width() - len(left) - len(right))
        return [("class:title", left + " " * gap + right)]

    def table(self) -> StyleAndTextTuples:
        vm = self.vm()
        out: StyleAndTextTuples = []
        if vm is None:
            return out
        out.append(("class:heading", "Table"))
        if vm.carousel and vm.edited:
            out.append(("class:work", "  your working arrangement (Enter commits, u puts back)"))
        out.append(("", "\n"))
        if not vm.table:
            out.append(("class:dim", "  no melds yet\n"))
        names = {r.seat: r.name for r in vm.seats}
        owners: dict[int, list] = {}
        for meld in vm.table:
            owners.setdefault(meld.owner, []).append(meld)
        width = max(30, _width() - self.players_width() - 1)
        room = self.name_room() - 2  # less the seat's number and a space
        indent = room + 3
        for owner, melds in owners.items():
            out.append(("class:you" if owner == vm.seat else "",
                        f" {owner} {fit_name(names[owner], room):<{room}}"))
            used = indent
            for meld in melds:
                texts = [card_text(c, self.state.ascii) for c in meld.cards]
                size = len(f" [{meld.number}]") + sum(len(t) + 1 for t in texts)
                if used > indent and used + size > width:  # wrap between melds, not inside one
                    out.append(("", "\n" + " " * indent))
                    used = indent
                mark = "class:fits" if meld.fits_cursor else "class:dim"
                out.append((mark, f" [{meld.number}]"))
                for card, text in zip(meld.cards, texts):
                    out.append(("", " "))
                    out.append((_card_style(card) + (" class:played" if card in meld.played else ""), text))
                used += size
            out.append(("", "\n"))
        return out

    def players(self) -> StyleAndTextTuples:
        vm = self.vm()
        out: StyleAndTextTuples = []
        if vm is None:
            return out
        ascii = self.state.ascii
        yes = "y" if ascii else "✓"
        money = vm.pot is not None
        # the name's room and 21 columns, so that a 4-letter marker (lost, left) fits too
        room = self.name_room()
        out.append(("class:heading", f"{'':3}{'seat':<{room}}{'hand':>5}{'down':>5}{'clm':>4}{'$' if money else 'pts':>4}"))
        out.append(("", "\n"))
        for r in vm.seats:
            mark = ">" if r.to_move and ascii else ("▶" if r.to_move else " ")
            dealer = "D" if r.dealer else " "
            style = "class:you" if r.you else ""
            who = fit_name(f"{r.seat} {r.name}", room - 1)
            claims = ("any" if ascii else "∞") if r.claims_left is None else r.claims_left
            out.append((style, f"{mark}{dealer} {who:<{room}}{r.hand_size:>5}{(yes if r.down else '-'):>5}{claims:>4}{r.score:>4}"))
            marker = _CONNECTION_MARK.get(r.connection)
            if marker:
                out.append(("class:lost", f" {marker}"))
            out.append(("", "\n"))
        if vm.pot is not None:
            out.append(("", f"  pot {vm.pot}\n"))
        return out

    def name_room(self) -> int:
        """Columns of the players panel's seat and name: the longest name's (a hand-over's
        "dan for ann" whole), within what the terminal leaves the table (10 at 70 columns, 15 at 80)."""
        vm = self.vm()
        longest = max((len(f"{r.seat} {r.name}") + 1 for r in vm.seats), default=0) \
            if vm is not None else 0
        return max(10, min(longest, 10 + max(0, _width() - 70) // 2, MAX_NAME_ROOM))

    def players_width(self) -> int:
        return PLAYERS_WIDTH - 10 + self.name_room()

    def piles(self) -> StyleAndTextTuples:
        vm = self.vm()
        if vm is None:
            return []
        out: StyleAndTextTuples = [("", f" Stock {vm.stock:<3} Discard ")]
        if vm.carousel:
            return [("", f" Stock {vm.stock}")]
        view = self.state.view
        if view.discard_top is not None:
            out.append((_card_style(view.discard_top), card_text(view.discard_top, self.state.ascii)))
            out.append(("", f" ({vm.discard_size})"))
            if vm.top_shanghaied:
                out.append(("class:error", " SHANGHAI'd"))
        else:
            out.append(("class:dim", "empty"))
        if vm.claim_seconds is not None:
            left = _time_left(vm)
            if vm.may_claim:
                out.append(("class:countdown", f"   {vm.claim_word}? m / p · {left}"))
            else:
                out.append(("class:dim", f"   claim window {left}"))
        return out

    def log(self) -> StyleAndTextTuples:
        vm = self.state.view_model(log_lines=40)
        if vm is None:
            return []
        room = max(20, _width() - CHAT_WIDTH - 2)  # a long line goes on below, between words
        rows = [row for line in vm.log
                for row in textwrap.wrap(line, room, initial_indent=" ", subsequent_indent="   ",
                                         break_on_hyphens=False)]
        return [("", "\n".join(rows))]

    def chat(self) -> StyleAndTextTuples:
        vm = self.state.view_model(log_lines=40)
        if vm is None:
            return []
        if not vm.chat:
            return [("class:dim", "chat: press c")]
        return [("class:chat", "\n".join(vm.chat))]

    def last_line(self, fn):
        """A cursor at the end of the last line, so that the window scrolls to the newest (all
        of it, when a long line wraps)."""
        def position():
            from prompt_toolkit.data_structures import Point
            from prompt_toolkit.formatted_text import fragment_list_to_text

            lines = fragment_list_to_text(fn()).split("\n")
            return Point(len(lines[-1]), len(lines) - 1)
        return position

    def tracker(self) -> StyleAndTextTuples:
        vm = self.vm()
        if vm is None:
            return []
        if vm.carousel:
            out: StyleAndTextTuples = [("class:heading", "Working area")]
            if vm.work:
                out.append(("class:work", " " + " ".join(vm.work)))
            else:
                out.append(("class:dim", " empty · k/j pick up from the table"))
            return out
        out: StyleAndTextTuples = [("class:heading", "Contract"), ("", f" {vm.contract}: ")]
        if vm.watching:
            out[-1] = ("", f" {vm.contract} · you hold no hand")
        elif vm.down:
            out.append(("class:ok", "you are down"))
        else:
            for i, item in enumerate(vm.tracker):
                out.append(("class:ok" if item.endswith(" ok") else "", ("" if i == 0 else " · ") + item))
            if vm.ready_ways:
                out.append(("class:ok", f" · ready: a ({vm.ready_ways}{'+' if vm.ready_ways >= 9 else ''})"))
        if vm.pending:
            out.append(("class:key", "  picked: " + " / ".join(vm.pending)))
        return out

    def hand_rows(self) -> int:
        """The rows `hand` takes: two per line of cards (none before the deal); a watcher's,
        the lines of what it does instead."""
        vm = self.vm()
        if vm is not None and vm.watching:
            return max(2, len(self._watching_lines(vm)))
        return 0 if vm is None else 2 * -(-max(len(vm.hand), 1) // _cards_per_line())

    @staticmethod
    def _watching_lines(vm: ViewModel) -> list[str]:
        return textwrap.wrap(vm.watching, max(20, _width() - 2), break_on_hyphens=False,
                             initial_indent=" ",
                             subsequent_indent=" ")

    def too_small(self, needed: int) -> StyleAndTextTuples:
        """What shows instead of a table that does not fit: the size it needs."""
        size = get_app().output.get_size()
        return [("class:error", f" This terminal is {size.columns}x{size.rows}: the table needs "
                                f"{needed} rows at this width (make the window taller); q quits")]

    def hand(self) -> StyleAndTextTuples:
        """Two rows per line of cards: the cards, then the cursor (^) and fits (meld numbers)."""
        vm = self.vm()
        if vm is None:
            return []
        if vm.watching:  # no hand: what this console does instead
            return [("class:key", "\n".join(self._watching_lines(vm)))]
        per_line = _cards_per_line()
        out: StyleAndTextTuples = []
        cards = vm.hand
        for start in range(0, max(len(cards), 1), per_line):
            chunk = cards[start : start + per_line]
            out.append(("", " "))
            for hc in chunk:
                style = _card_style(hc.card)
                if hc.selected:
                    style += " class:selected"
                if hc.cursor:
                    style += " class:cursor"
                if hc.work:
                    style += " class:work"
                out.append((style, f"{hc.text:>3}"))
                out.append(("", " "))
            out.append(("", "\n "))
            for hc in chunk:
                if hc.cursor:
                    mark = ("^" if self.state.ascii else "▲") + (str(hc.fits[0] + 1) if hc.fits else " ")
                    out.append(("class:key", f"{mark:>3}"[:3]))
                elif hc.work:
                    out.append(("class:work", "tbl"))
                elif hc.taken:  # which copy came from the pile
                    out.append(("class:dim", "new"))
                elif hc.fits:
                    out.append(("class:fits", f"{'+' + str(hc.fits[0] + 1):>3}"[:3]))
                else:
                    out.append(("", "   "))
                out.append(("", " "))
            out.append(("", "\n"))
        if out:
            out.pop()  # no empty line under the last row of marks
        return out

    def message(self) -> StyleAndTextTuples:
        """The connection's trouble first (a dropped link retrying), the vote for this person
        counting down (`ConsoleState.vote_countdown`), then `·` and the last message, as one
        text broken between words (`MESSAGE_ROWS` at most), so that none hides another: the
        message's reason is never cut off by the connection's line."""
        state = self.state
        vm = self.vm()
        connection = vm.connection if vm is not None else ""
        styled = [(style, text) for style, text in (
            ("class:lost", connection), ("class:countdown", state.vote_countdown() or ""),
            ("class:error" if state.error else "class:ok", state.message)) if text]
        return _wrapped(styled, max(20, _width() - 2), MESSAGE_ROWS)

    def lobby_title(self) -> StyleAndTextTuples:
        return [("class:title", " " + self.state.lobby_model().title)]

    def lobby(self) -> StyleAndTextTuples:
        lm: LobbyModel = self.state.lobby_model()
        out: StyleAndTextTuples = []
        if lm.rules:
            out.append(("", f" {lm.rules}\n"))
        for row in textwrap.wrap(lm.sharing, max(20, _width() - 2), initial_indent=" ",
                                 subsequent_indent="   "):
            out.append(("", row + "\n"))
        if lm.rules or lm.sharing:
            out.append(("", "\n"))
        if lm.seats:
            out.append(("class:heading", f" {'#':<3}{'name':<21}{'key fingerprint':<21}ready"))
            out.append(("", "\n"))
            for row in lm.seats:
                out.append(("class:you" if row[3:].startswith("you ") else "", f" {row}\n"))
        if lm.offers:
            out.append(("", "\n"))
            out.append(("class:heading", f" {'offers to take a seat':<24}{'key fingerprint'}"))
            out.append(("", "\n"))
            for row in lm.offers:
                out.append(("", f"    {row}\n"))
        out.append(("", "\n"))
        out.append(("class:countdown" if lm.ready else "class:key", f" {lm.status}\n\n"))
        for line in lm.news:  # broken between words, an option's name whole
            for row in textwrap.wrap(line, max(20, _width() - 2), initial_indent=" ",
                                     subsequent_indent="   ", break_on_hyphens=False):
                out.append(("class:dim", row + "\n"))
        return out

    def footer(self) -> StyleAndTextTuples:
        width, used = _width(), 0
        keys = self.state.footer_keys(width)
        out: StyleAndTextTuples = []
        for key, label in keys:
            if self.state.ascii and key == "←→":
                key = "<->"
            item = len(key) + len(label) + 3
            if used and used + item > width:
                out.append(("", "\n"))
                used = 0
            out.append(("class:key", f" {key}"))
            out.append(("", f" {label} "))
            used += item
        return out

    # overlays ---------------------------------------------------------------------------------

    def help_text(self) -> StyleAndTextTuples:
        view = self.state.view
        rules = view.rules if view else None
        claim = rules.claim_word if rules else "MAY I"
        arrows = "<- ->" if self.state.ascii else "← →  "
        if rules is not None and rules.game == "carousel":
            return [("class:overlay", self._seat_keys(_rewrapped(
                CAROUSEL_HELP.format(arrows=arrows)).replace("↑↓", _updown(self.state.ascii))))]
        auto = "\n".join(textwrap.wrap(
            f"auto-pass ({'on' if self.state.auto_pass else 'off'}): {AUTO_PASS_RULE}",
            initial_indent="  P              ", subsequent_indent=" " * 17, width=74)) + "\n"
        lines = HELP.format(claim=claim, arrows=arrows, auto=auto).splitlines()
        if rules is not None:  # only the moves these rules have
            drop = set()
            if not rules.shanghai:
                drop |= {"  X ", "  ! "}
            if not rules.joker_swap:
                drop.add("  w ")
            if not rules.joker_buy:
                drop.add("  b ")
            lines = [line for line in lines if not any(line.startswith(d) for d in drop)]
        return [("class:overlay", self._seat_keys(_rewrapped("\n".join(lines)).replace(
            "↑↓", _updown(self.state.ascii))))]

    def _seat_keys(self, help: str) -> str:
        """``help`` without the keys that hand the seat over at a table on this machine."""
        if getattr(self.state.session, "hands_over", False):
            return help
        return "\n".join(line for line in help.splitlines() if not line.startswith("  H  /  B "))

    def vote_text(self) -> StyleAndTextTuples:
        return [("class:overlay.title", " Vote that the player away left this round? "),
                ("class:overlay", "  once more than half the table has voted, the round scores "
                                  "nothing, that seat pays the leave penalty, a bot plays it "
                                  "from the next deal, and the round is dealt again\n"
                                  "  y: vote   n / Esc: no ")]

    def panel_text(self) -> StyleAndTextTuples:
        """The score sheet, the log or the rules card: a page of it, where it is in the whole,
        its keys, and a claim window's countdown that opens meanwhile (answer it here)."""
        state = self.state
        if state.panel is None:
            return []
        size = get_app().output.get_size()
        width = max(20, min(PANEL_WIDTH, size.columns - 6))
        title, lines = state.panel_lines(width - 2)  # a column each side, in the box
        lines = [" " + line for line in lines]
        rows = max(3, size.rows - 7)  # the box, its title and its keys
        top = len(lines) - rows if state.panel_top is None else state.panel_top
        top = max(0, min(top, len(lines) - rows))
        page = lines[top:top + rows]
        state.panel_page = (top, rows)
        where = f"lines {top + 1}-{top + len(page)} of {len(lines)}" if len(lines) > rows else ""
        key = {"scores": "S", "log": "L", "rules": "R"}[state.panel]
        keys = (f"{_updown(state.ascii)} PgUp PgDn Home End · " if where else "") + \
            f"{key} or Esc closes"
        out: StyleAndTextTuples = [("class:overlay.title", f" {title} "),
                                   ("class:overlay", "\n" + "\n".join(page) + "\n"),
                                   ("class:dim", f" {where}{' · ' if where else ''}{keys}")]
        vm = state.view_model()
        if state.may_claim and vm is not None and vm.claim_seconds is not None:
            out.append(("class:countdown", f"\n {vm.claim_word} {vm.discard_top}? m / p · "
                                           f"{_time_left(vm)}"))
        return out

    def fitted(self, name: str, fragments: StyleAndTextTuples, most: int) -> StyleAndTextTuples:
        """An overlay's text broken between words to fit the terminal's width, and a page of it
        that fits its height: the page ``ConsoleState.scroll_overlay`` is at (for the overlay
        on top), with where it is and the keys that scroll it."""
        state = self.state
        size = get_app().output.get_size()
        lines = wrap_fragments(fragments, min(most, size.columns - 4))
        rows = max(3, size.rows - 2)  # inside the box's border
        if len(lines) <= rows:
            return _joined(lines)
        page = rows - 1
        at, top = state.overlay_scroll
        top = max(0, min(top if at == name else 0, len(lines) - page))
        if at == name:
            state.overlay_scroll = (name, top)
        state.overlay_page = page
        where = f" lines {top + 1}-{top + page} of {len(lines)} · "
        keys = f"{_updown(state.ascii)} PgUp PgDn"
        return _joined(lines[top:top + page] + [[("class:dim", where + keys)]])

    def offers_text(self) -> StyleAndTextTuples:
        """``H`` with several watchers offering: whom to hand the seat to."""
        offers = self.state.offers_shown or ()
        out: StyleAndTextTuples = [("class:overlay.title", " Hand your seat to: (1-9, Esc cancels) "),
                                   ("class:overlay", "\n")]
        for i, offer in enumerate(offers, 1):
            who = "a bot" if offer.kind == "bot" else "a person"
            out.append(("class:overlay", f" {i}. {offer.name} ({who}) · key {offer.fingerprint}\n"))
        return out

    def confirm_text(self) -> StyleAndTextTuples:
        """``H``: the watcher the seat goes to, with the key to compare out loud."""
        offer = self.state.hand_to
        if offer is None:
            return []
        return [("class:overlay.title", f" Hand your seat to {offer.name}? "),
                ("class:overlay", f"\n {offer.name} plays it from this very turn, with your hand, "
                                  "and you watch the game to its end.\n\n"),
                ("class:overlay", f" {offer.name}'s key: "), ("class:countdown", offer.fingerprint),
                ("class:overlay", f"\n Ask {offer.name} to read out the key on their screen: it "
                                  "must be this one (else someone else would get your hand).\n\n"
                                  " y: hand it over   n / Esc: keep it ")]

    def bot_text(self) -> StyleAndTextTuples:
        """``B``: the bot's level, and where the bot runs."""
        state = self.state
        levels = "  ".join(f"{i} {level}" for i, level in enumerate(state.bot_levels, 1))
        default = state.session.stand_in
        return [("class:overlay.title", " Let a bot finish your hand? "),
                ("class:overlay", "\n A bot starts in this program and plays your seat from this "
                                  "very turn; you watch the game to its end.\n"
                                  " The bot runs in this program: closing it (q) stops the bot, "
                                  "and the table then votes its seat gone.\n\n"
                                  f" {levels} · Enter: {default} (the host's)   Esc: keep "
                                  "playing ")]

    def quit_text(self) -> StyleAndTextTuples:
        bots = [bot for bot in getattr(self.state.session, "successors", ())
                if bot.status not in ("over", "failed")]
        stops = "\n  the bot playing your hand runs here: it stops too\n" if bots else ""
        over = self.state.session.over
        auditing = "\n  the last round is being audited: a seat that quits before its " \
            "seeds go out\n  loses that round's score\n" if self.state.game_over and not over else ""
        people = self.state.people_at_stake()
        hosting = "\n" + "\n".join(textwrap.wrap(
            f"you are hosting: quitting ends the game for {', '.join(people)}", 60,
            initial_indent="  ", subsequent_indent="  ")) + "\n" if people else ""
        return [("class:overlay.title", " Quit the game? " if not over or not people else
                 " Stop hosting? "),
                ("class:overlay", hosting + auditing + stops + "  y: quit   n / Esc: stay ")]

    def summary_text(self) -> StyleAndTextTuples:
        state = self.state
        result = state.summary
        if result is None:
            return []
        view = state.view
        session = state.session
        lines = round_summary(result, session.seats, state.seat, view.rules, state.ascii,
                              session.audit(result.round_no), getattr(session, "round_numbers", None),
                              names_at(session.log, result))
        body = "\n".join(lines[1:])
        tail = "\n\n Enter: next round" if not state.game_over else "\n\n Enter: the final table"
        out = [("class:overlay.title", " " + lines[0] + " "), ("class:overlay", "\n" + body + tail)]
        vm = state.view_model()
        if state.may_claim and vm.claim_seconds is not None:  # the next round goes on meanwhile
            out.append(("class:countdown", f"\n {vm.claim_word} {vm.discard_top}? m / p · "
                                           f"{_time_left(vm)}"))
        return out

    def game_over_text(self) -> StyleAndTextTuples:
        state = self.state
        result = state.session.result
        if result is None:
            return []
        lines = game_over_table(result, state.session.seats, state.seat, state.view.rules, state.ascii,
                                width=min(74, _width() - 6),
                                penalties=state.session.penalties)
        rematch = state.rematch_line
        return [("class:overlay.title", " " + lines[0] + " "), ("class:overlay", "\n" + "\n".join(lines[1:]) + (
            f"\n\n {rematch}" if rematch is not None else "") + "\n\n q: quit")]

    def options_text(self) -> StyleAndTextTuples:
        state = self.state
        if state.options is None:
            return []
        out: StyleAndTextTuples = [("class:overlay.title", " Go down with: (1-9, Esc cancels) "), ("class:overlay", "\n")]
        for i, melds in enumerate(state.options, 1):
            out.append(("class:overlay", f" {i}. "))
            for j, meld in enumerate(melds):
                if j:
                    out.append(("class:overlay", " /"))
                for card in meld:
                    out.append((_card_style(card), " " + card_text(card, state.ascii)))
            out.append(("class:overlay", "\n"))
        return out


PANEL_WIDTH = 74
"""The widest a panel's lines are (its box is two columns more)."""

OVERLAY_WIDTH = 76
"""The widest an overlay's text is (its box is two columns more)."""

MESSAGE_ROWS = 3
"""Rows the message line may take: a reason of two rows beside a dropped link's line."""


def _wrapped(parts: list[tuple[str, str]], width: int, rows: int) -> StyleAndTextTuples:
    """``parts`` (style, text) joined by " · ", broken between words into lines of ``width``
    (each after a space), each part keeping its style; past ``rows`` lines, the last ends in
    "…"."""
    joined: StyleAndTextTuples = []
    for style, part in parts:
        if part.strip():
            joined += [("", " · ")] if joined else []
            joined.append((style, " ".join(part.split())))
    lines = wrap_fragments(joined, width - 1)
    cut = len(lines) > rows
    lines = lines[:rows]
    if cut:
        lines[-1] = _clip(lines[-1], width - 2) + [("", "…")]
    out: StyleAndTextTuples = []
    for n, line in enumerate(lines):
        out += [("", "\n " if n else " ")] + line
    return out


def _updown(ascii: bool) -> str:
    """The arrow keys up and down, as ``--ascii`` writes them too."""
    return "up/down" if ascii else "↑↓"


def _rewrapped(help: str) -> str:
    """The help, laid out for 80 columns; narrower, each key's description as one line, for
    the overlay to break again between words."""
    if _width() - 4 >= OVERLAY_WIDTH - 2:
        return help
    return re.sub(r"\n {17}(?=\S)", " ", help)


def _joined(lines: list[StyleAndTextTuples]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for n, line in enumerate(lines):
        out += ([("", "\n")] if n else []) + line
    return out


def _clip(line: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """The first ``width`` characters of a line of fragments."""
    out: StyleAndTextTuples = []
    for style, text in line:
        text = text[:max(0, width)]
        width -= len(text)
        if text:
            out.append((style, text))
    return out


def wrap_fragments(fragments: StyleAndTextTuples, width: int) -> list[StyleAndTextTuples]:
    """Lines of at most ``width`` characters, broken between words (a word longer than a line,
    only then, inside it), each character keeping its style.  A line broken goes on indented as
    far as its text begins, or as its second column (after two spaces or more near its start:
    the key lists' descriptions), so that a card, a word or a key's description is never cut."""
    width = max(8, width)
    lines: list[StyleAndTextTuples] = [[]]
    for style, text in fragments:
        for n, piece in enumerate(text.split("\n")):
            if n:
                lines.append([])
            if piece:
                lines[-1].append((style, piece))
    out: list[StyleAndTextTuples] = []
    for line in lines:
        text = "".join(t for _, t in line)
        if len(text) <= width:
            out.append(line)
            continue
        styles = [style for style, t in line for _ in t]
        indent = _indent(text, width)
        start, first = 0, True
        while start < len(text):
            room = width - (0 if first else indent)
            if len(text) - start <= room:
                end = stop = len(text)
            else:
                end = text.rfind(" ", start + 1, start + room + 1)
                if end <= start or not text[start:end].strip():
                    end = start + room  # a word longer than the line
                stop = end
                while stop < len(text) and text[stop] == " ":
                    stop += 1
            row: StyleAndTextTuples = [] if first else [("", " " * indent)]
            for style, run in itertools.groupby(range(start, len(text[:end].rstrip()) if end > start
                                                      else start), key=styles.__getitem__):
                run = list(run)
                row.append((style, text[run[0]:run[-1] + 1]))
            out.append([f for f in row if f[1]])
            start, first = stop, False
    return out


def _indent(text: str, width: int) -> int:
    """Where a broken line goes on: its second column, else its first character."""
    lead = len(text) - len(text.lstrip(" "))
    columns = [gap.end() for gap in re.finditer(r"(?<=\S) {2,}(?=\S)", text[:40])
               if gap.end() <= width // 2]
    return columns[-1] if columns else lead


def _text_window(fn, **kw) -> Window:
    return Window(FormattedTextControl(fn), **kw)


def _bordered(body: Window, ascii: bool) -> HSplit:
    """``body`` in a box line, so that an overlay stands apart from the screen under it."""
    h, v, (tl, tr, bl, br) = ("-", "|", "++++") if ascii else ("─", "│", "┌┐└┘")

    def edge(left: str, right: str) -> VSplit:
        return VSplit([Window(width=1, height=1, char=left), Window(height=1, char=h),
                       Window(width=1, height=1, char=right)], style="class:frame.border")

    side = Window(width=1, char=v, style="class:frame.border")
    return HSplit([edge(tl, tr), VSplit([side, body, side]), edge(bl, br)], style="class:overlay")


def create_layout(state: ConsoleState, chat_buffer: Buffer) -> tuple[Layout, Screen]:
    screen = Screen(state)
    help_open = Condition(lambda: state.help_open)
    quit_open = Condition(lambda: state.quit_asked)
    vote_open = Condition(lambda: state.vote_asked)
    summary_open = Condition(lambda: state.summary is not None and not state.help_open)
    over_open = Condition(lambda: state.game_over and state.summary is None and not state.help_open
                          and not state.quit_asked and state.panel is None)
    panel_open = Condition(lambda: state.panel is not None and not state.help_open)
    options_open = Condition(lambda: state.options is not None)
    offers_open = Condition(lambda: state.offers_shown is not None and not state.help_open)
    confirm_open = Condition(lambda: state.hand_to is not None and not state.help_open)
    bot_open = Condition(lambda: state.bot_asked and not state.help_open)
    chat_open = Condition(lambda: state.chat_open)

    # the hand is never cut: a terminal too small for it and the rest shows `too_small`
    main = Window(FormattedTextControl(screen.hand, focusable=True, show_cursor=False),
                  height=lambda: D(min=screen.hand_rows()), dont_extend_height=True)
    lobby = Condition(lambda: state.in_lobby)
    body = HSplit([
        ConditionalContainer(HSplit([
            _text_window(screen.lobby_title, height=1),
            _text_window(screen.lobby, wrap_lines=True),
        ]), filter=lobby),
        ConditionalContainer(HSplit([
            _text_window(screen.title, height=1),
            VSplit([
                _text_window(screen.table, wrap_lines=True),
                Window(width=1, char="│" if not state.ascii else "|", style="class:dim"),
                _text_window(screen.players, width=lambda: D.exact(screen.players_width())),
            ], height=D(min=4, preferred=30, weight=3)),
            _text_window(screen.piles, height=1),
            Window(height=1, char="─" if not state.ascii else "-", style="class:dim"),
            VSplit([
                Window(FormattedTextControl(screen.log, get_cursor_position=screen.last_line(screen.log)),
                       height=D(min=3, preferred=5, weight=1), wrap_lines=True),
                Window(width=1, char="│" if not state.ascii else "|", style="class:dim"),
                Window(FormattedTextControl(screen.chat, get_cursor_position=screen.last_line(screen.chat)),
                       width=CHAT_WIDTH,
                       wrap_lines=True),
            ], height=D(min=3, preferred=20, weight=2)),
            _text_window(screen.tracker, height=1),
        ]), filter=~lobby),
        main,
        ConditionalContainer(
            VSplit([Window(FormattedTextControl(" say: "), width=6), Window(BufferControl(chat_buffer), height=1)]),
            filter=chat_open,
        ),
        # a message that does not fit goes on to a second line: its reason is never cut off
        ConditionalContainer(_text_window(screen.message, height=D(min=1, max=MESSAGE_ROWS),
                                          wrap_lines=True),
                             filter=~chat_open),
        _text_window(screen.footer, height=D(min=1, max=2), wrap_lines=True),
    ], window_too_small=_text_window(lambda: screen.too_small(needed()), wrap_lines=True))

    def needed() -> int:
        return body.preferred_height(get_app().output.get_size().columns, 10**6).min

    def overlay(name, fn, cond, width=OVERLAY_WIDTH):
        """A box floating over the table, its text broken between words to the box and, when
        taller than the terminal, a page of it at a time (the panels page themselves)."""
        text = (lambda: _joined(wrap_fragments(fn(), min(width, _width() - 4)))) \
            if name == "panel" else lambda: screen.fitted(name, fn(), width)
        box = Window(FormattedTextControl(text), style="class:overlay", wrap_lines=True,
                     width=D(max=width))
        return Float(ConditionalContainer(_bordered(box, state.ascii), filter=cond))

    floats = [("options", screen.options_text, options_open),
              ("over", screen.game_over_text, over_open),
              ("summary", screen.summary_text, summary_open),
              ("panel", screen.panel_text, panel_open),
              ("offers", screen.offers_text, offers_open),
              ("confirm", screen.confirm_text, confirm_open),
              ("bot", screen.bot_text, bot_open),
              ("help", screen.help_text, help_open),
              ("quit", screen.quit_text, quit_open),
              ("vote", screen.vote_text, vote_open)]
    state.on_top = lambda: next((name for name, _, cond in reversed(floats) if cond()), None)
    root = FloatContainer(body, floats=[overlay(*f) for f in floats])
    return Layout(root, focused_element=main), screen


def render_screen_text(screen: Screen) -> dict[str, str]:
    """Each panel as plain text (for tests and captures)."""
    from prompt_toolkit.formatted_text import fragment_list_to_text

    return {name: fragment_list_to_text(getattr(screen, name)()) for name in (
        "title", "table", "players", "piles", "log", "chat", "tracker", "hand", "message", "footer",
        "lobby_title", "lobby")}
