"""Key bindings: each key calls one `ConsoleState` method (the footer and `?` help list them)."""

from __future__ import annotations

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings

from .state import ConsoleState, Panel, Target

__all__ = ["create_key_bindings"]


def create_key_bindings(state: ConsoleState) -> KeyBindings:
    kb = KeyBindings()
    chat = Condition(lambda: state.chat_open)
    helping = Condition(lambda: state.help_open)
    quitting = Condition(lambda: state.quit_asked)
    voting = Condition(lambda: state.vote_asked)
    summary = Condition(lambda: state.summary is not None)
    options = Condition(lambda: state.options is not None)
    lobby = Condition(lambda: state.in_lobby)
    panel = Condition(lambda: state.panel is not None)
    handing = Condition(lambda: state.handing_over)
    offers = Condition(lambda: state.offers_shown is not None)
    confirming = Condition(lambda: state.hand_to is not None)
    bot = Condition(lambda: state.bot_asked)
    watching = Condition(lambda: state.watching is not None)
    # a question asked (quit, vote, the arrangements, a hand-over, the chat line) takes only its
    # own keys; the round summary, a panel and the help merely float over the table: a key the
    # footer offers closes them and acts (`ConsoleState.close_floating`), so that no key the
    # footer shows is swallowed (issue 42)
    asked = chat | quitting | voting | options | handing
    table = ~asked & ~lobby
    play = table & ~watching

    def on(*keys, filter=play, eager=False, closes=True):
        def register(handler):
            def act(event):
                if closes:
                    state.close_floating()
                handler()
            kb.add(*keys, filter=filter, eager=eager)(act)
            return handler
        return register

    on("left")(lambda: state.move_cursor(-1))
    on("right")(lambda: state.move_cursor(1))
    on("home")(lambda: state.cursor_to(0))
    on("end")(lambda: state.cursor_to(-1))
    on(" ")(state.toggle_select)
    on("s")(state.toggle_sort)
    on("d")(state.draw)
    on("t")(state.take)
    # a claim window answered under the summary or a panel leaves it open: its countdown
    # shows there (issue 24)
    on("m", closes=False)(state.claim)
    on("p", closes=False)(state.pass_claim)
    on("P")(state.toggle_auto_pass)
    on("g")(state.add_meld)
    on("u")(state.undo_meld)
    on("backspace")(state.undo_meld)
    on("a")(state.show_arrangements)
    on("l")(lambda: state.ask_target(Target.LAY))
    on("w")(lambda: state.ask_target(Target.SWAP))
    on("b")(lambda: state.ask_target(Target.BUY))
    on("!")(lambda: state.ask_target(Target.SHANGHAI))
    carousel = Condition(lambda: state.carousel)
    on("k", filter=table & carousel)(lambda: state.ask_target(Target.PICK))
    on("j", filter=table & carousel)(lambda: state.ask_target(Target.PICK_CARD))
    on("x")(state.discard)
    on("X")(lambda: state.discard(shanghai=True))
    on("enter")(state.confirm_target)
    on("r", filter=~asked & lobby)(state.toggle_ready)
    on("r", filter=table & Condition(lambda: state.game_over))(state.ask_rematch)
    on("V")(state.ask_vote)
    on("y", filter=voting & ~chat, closes=False)(state.vote_void)
    on("n", filter=voting, closes=False)(lambda: setattr(state, "vote_asked", False))
    on("W")(state.wait_for_them)
    on("h")(state.hint)
    # the seat changes hands: to a watcher who offers (its number if several, then y beside its
    # name and key), or to a bot this program starts (its level, or Enter for the host's)
    on("H")(state.ask_hand_over)
    on("B")(state.ask_bot)
    asking = ~chat & ~helping & ~quitting
    for digit in "123456789":
        on(digit, filter=offers & asking, closes=False)(lambda d=digit: state.pick_offer(d))
        on(digit, filter=bot & asking, closes=False)(lambda d=digit: state.pick_level(d))
    on("y", filter=confirming & asking, closes=False)(state.confirm_hand_over)
    on("enter", filter=bot & asking, closes=False)(state.start_bot)
    on("n", filter=handing & asking, closes=False)(state.clear)
    # the score sheet, the whole log, the rules card: the same key closes it (or Esc); another
    # panel's key shows that one instead
    reading = panel & ~helping & ~asked
    on("S", filter=table | reading, closes=False)(lambda: state.toggle_panel(Panel.SCORES))
    on("L", filter=table | reading, closes=False)(lambda: state.toggle_panel(Panel.LOG))
    on("R", filter=~asked, closes=False)(lambda: state.toggle_panel(Panel.RULES))
    on("up", filter=reading, closes=False)(lambda: state.scroll_panel(-1))
    on("down", filter=reading, closes=False)(lambda: state.scroll_panel(1))
    on("pageup", filter=reading, closes=False)(lambda: state.scroll_panel(pages=-1))
    on("pagedown", filter=reading, closes=False)(lambda: state.scroll_panel(pages=1))
    on("home", filter=reading, closes=False)(lambda: state.scroll_panel(to=0))
    on("end", filter=reading, closes=False)(lambda: state.scroll_panel(to=-1))
    # an overlay taller than the terminal (the help at 60x20) scrolls; a panel pages itself
    overlaid = Condition(lambda: state.on_top() not in (None, "panel")) & ~chat
    on("up", filter=overlaid, closes=False)(lambda: state.scroll_overlay(-1))
    on("down", filter=overlaid, closes=False)(lambda: state.scroll_overlay(1))
    on("pageup", filter=overlaid, closes=False)(lambda: state.scroll_overlay(pages=-1))
    on("pagedown", filter=overlaid, closes=False)(lambda: state.scroll_overlay(pages=1))
    on("?", filter=~asked & ~helping)(state.toggle_help)
    on("?", filter=helping & ~asked, closes=False)(state.toggle_help)
    for digit in "0123456789":
        on(digit, filter=table & Condition(lambda: state.target is not None))(
            lambda d=digit: state.type_digit(d))
        on(digit, filter=options & ~helping & ~quitting, closes=False)(
            lambda d=digit: state.type_digit(d))

    @kb.add("c", filter=~asked)
    def _(event):
        state.close_floating()
        state.open_chat()
        event.app.layout.focus(event.app.chat_window)

    on("escape", filter=~chat & ~quitting, eager=True, closes=False)(state.clear)
    # Enter and space close the summary (the footer offers neither else while it is open)
    on("enter", filter=summary & ~helping & ~asked, closes=False)(state.close_summary)
    on(" ", filter=summary & ~helping & ~asked, closes=False)(state.close_summary)

    @kb.add("q", filter=~chat & ~quitting)
    @kb.add("c-c")
    def _(event):
        state.ask_quit()
        if state.exit_requested:
            event.app.exit(result=0)

    on("n", filter=quitting, closes=False)(lambda: setattr(state, "quit_asked", False))
    on("escape", filter=quitting, eager=True, closes=False)(
        lambda: setattr(state, "quit_asked", False))

    @kb.add("y", filter=quitting & ~chat)
    def _(event):
        state.confirm_quit()
        event.app.exit(result=0)

    @kb.add("escape", filter=chat, eager=True)
    def _(event):
        state.chat_open = False
        event.app.chat_buffer.reset()
        event.app.layout.focus(event.app.main_window)

    return kb
