"""Issue 41, item 4: text is broken between words everywhere, and every overlay scrolls.

Seen in tmux: dialogs split words ("some│one"), the host's banner broke "--fresh-"/"identity",
the footer pushed "q quit" to a second line at 100 columns, a summary row broke inside a card
("J" / "♦"), and at 60x20 the help broke words, was cut off and could not scroll.  Each is read
here off the screen as drawn (`grid_text`), overlays included."""

from __future__ import annotations

import re

from shanghai_net.engine import RoundResult
from shanghai_net.cards import parse_cards
from shanghai_net.session import LogEntry

from console_harness import davis_session, grid_text, run, running


def box_rows(screen: str) -> list[str]:
    """The rows inside the overlay's box (between its corners' columns), as drawn."""
    rows = screen.splitlines()
    top = next(i for i, row in enumerate(rows) if "┌" in row)
    left, right = rows[top].index("┌"), rows[top].index("┐")
    bottom = next(i for i in range(top + 1, len(rows)) if "└" in rows[i])
    return [row[left + 1:right] for row in rows[top + 1:bottom]]


def words(text: str) -> list[str]:
    return text.split()


def test_the_help_at_60x20_breaks_between_words_and_scrolls_to_its_end():
    async def body():
        async with running(davis_session()) as d:
            await d.press("?")
            whole = words(d.console.screen.help_text()[0][1])
            seen: list[str] = []
            for _ in range(10):
                rows = box_rows(grid_text(d.console, 60, 20))
                assert len(rows) <= 18  # the box fits the terminal
                where = re.search(r"lines (\d+)-(\d+) of (\d+)", rows[-1])
                assert where, rows[-1]  # taller than the terminal: a page, and where it is
                for word in words(" ".join(rows[:-1])):
                    assert word in whole, f"{word!r}: a word cut by the border"
                seen += words(" ".join(rows[:-1]))
                if where.group(2) == where.group(3):
                    break
                await d.press("pagedown")
            assert where.group(2) == where.group(3), "the help's end was never reached"
            assert set(seen) == set(whole)  # every word of it was shown
            assert "confirms)" in seen[-3:]  # "q  quit (y confirms)", its last line
            await d.press("up")
            assert f"lines {int(where.group(1)) - 1}-" in box_rows(grid_text(d.console, 60, 20))[-1]
            await d.press("esc")
            assert not d.state.help_open
            await d.press("?")  # opened again: from its top
            assert "lines 1-" in box_rows(grid_text(d.console, 60, 20))[-1]

    run(body)


def test_a_round_summary_at_60_columns_never_breaks_inside_a_card():
    async def body():
        async with running(davis_session()) as d:
            hand = tuple(parse_cards("JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS"))
            d.state.summary = RoundResult(1, 0, ((), hand, hand), (0, 95, 95), (0, 95, 95))
            for columns in range(56, 72):  # wherever the border falls
                rows = box_rows(grid_text(d.console, columns, 24))
                drawn = words(" ".join(rows))
                for card in ("J♦", "Q♦", "K♦", "A♦", "10♠", "J♠"):
                    assert drawn.count(card) == 2, (columns, card, rows)
                assert not {"J", "♦", "♠", "10"} & set(drawn), (columns, rows)

    run(body)


def test_the_log_keeps_an_option_whole():
    async def body():
        async with running(davis_session()) as d:
            d.session._log.append(LogEntry(0.0, "hosting davis on port 7792: others on this "
                                                "machine join with `shanghai join "
                                                "127.0.0.1:7792 --fresh-identity`"))
            screen = grid_text(d.console, 60, 24)
            assert "--fresh-identity`" in screen and "--fresh-\n" not in screen

    run(body)


def test_the_footer_keeps_q_quit_on_its_line():
    """In a turn's play the footer may offer more keys than a line holds (at 100 columns with
    a joker to buy and a card to discard declaring SHANGHAI; at 80 in davis): the keys of every
    turn (move, sort, chat) give way, not q quit."""
    async def body():
        async with running(davis_session()) as d:
            await d.press("d")
            for columns, rows in ((100, 36), (80, 24)):
                footer = grid_text(d.console, columns, rows).splitlines()[-1]
                assert footer.rstrip().endswith("? help  q quit"), (columns, footer)
                assert "x discard" in footer and "spc select" in footer

    run(body)


def test_ascii_draws_no_arrow_in_the_help_or_the_panels():
    """Issue 41, item 9: ``--ascii`` still drew ↑↓."""
    async def body():
        async with running(davis_session(), ascii=True) as d:
            for keys in (["?"], ["esc", "L"], ["L", "R"]):
                await d.press(*keys)
                for columns, rows in ((60, 20), (100, 36)):
                    screen = grid_text(d.console, columns, rows)
                    assert not set("↑↓←→") & set(screen), screen
            await d.press("R", "?")
            assert "up/down PgUp PgDn" in grid_text(d.console, 60, 20)  # the help's page

    run(body)
