"""Issue 41, item 4, the dialogs: they split words ("some│one", in the hand-over's "someone else
would get your hand"), and every overlay is to scroll (test_console_wrap.py reads the help
so, test_console_newcomer.py the panels).  Each dialog a networked seat
opens by key (the offers, the hand-over's confirmation, the bot's level, the vote, quit), and
a local table's arrangements to go down with (``a``) and round summary, is read off the screen
as drawn, at 100x36, 60x20, 44x14 and 40x10: every word whole in its box, and every word of it
shown, a page at a time (PgDn) where the dialog is taller than the terminal."""

from __future__ import annotations

import re

from prompt_toolkit.formatted_text import fragment_list_to_text

from shanghai_net.cards import parse_cards
from shanghai_net.engine import RoundResult

from console_harness import davis_session, grid_text, run, running, sized_output
from test_console_handover import BEA, CY, net_session, seated
from test_console_net import Console, console_on
from test_console_wrap import box_rows, words

SIZES = ((100, 36), (60, 20), (44, 14), (40, 10))


async def read_through(c: Console, text_of, columns: int, rows: int) -> None:
    """The dialog on top, drawn at ``columns`` x ``rows`` from its first page to its last:
    no word cut by the border or a line's end, and none left unshown."""
    whole = words(fragment_list_to_text(text_of()))
    await c.press(*["pageup"] * 6)  # its first page
    seen: list[str] = []
    for _ in range(12):
        shown = box_rows(grid_text(c.console, columns, rows))
        assert len(shown) <= rows - 2, (columns, rows, shown)  # the box fits the terminal
        where = re.search(r"lines (\d+)-(\d+) of (\d+)", shown[-1])
        page = words(" ".join(shown[:-1] if where else shown))
        for word in page:
            assert word in whole, f"{word!r} at {columns}x{rows}: a word cut in {shown}"
        seen += page
        if where is None or where.group(2) == where.group(3):
            break
        await c.press("pagedown")
    assert set(seen) == set(whole), (columns, rows, set(whole) - set(seen))


def test_the_hand_over_dialogs_break_between_words_and_page_on_a_small_terminal(tmp_path):
    async def body(c: Console):
        await seated(c, BEA, CY)
        c.console.app.output = sized_output()
        screen = c.console.screen
        for keys, opened, text_of in (
                (["H"], lambda: c.state.offers_shown is not None, screen.offers_text),
                (["1"], lambda: c.state.hand_to == BEA, screen.confirm_text),
                (["esc", "B"], lambda: c.state.bot_asked, screen.bot_text),
                (["esc", "V"], lambda: c.state.vote_asked, screen.vote_text),
                (["esc", "q"], lambda: c.state.quit_asked, screen.quit_text)):
            await c.press(*keys)
            await c.until(opened)
            for columns, rows in SIZES:
                await read_through(c, text_of, columns, rows)
        await c.press("y")

    run(console_on, net_session(tmp_path), body)


def test_the_arrangements_and_a_round_s_summary_break_between_words_and_page():
    async def body():
        async with running(davis_session()) as d:
            screen = d.console.screen
            await d.press("d", "a")
            assert d.state.options
            for columns, rows in SIZES:
                await read_through(d, screen.options_text, columns, rows)
            await d.press("esc")
            hand = tuple(parse_cards("JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS"))
            d.state.summary = RoundResult(1, 0, ((), hand, hand), (0, 95, 95), (0, 95, 95))
            for columns, rows in SIZES:
                await read_through(d, screen.summary_text, columns, rows)

    run(body)
