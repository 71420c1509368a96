"""The console as drawn at 80x24 and 120x40 (the whole screen, overlays included): suit colours
that read on any terminal, messages and help never cut, the players panel's markers, the
overlays' border, and claim windows that cannot help passing by themselves."""

from __future__ import annotations

import re
from dataclasses import replace

from shanghai_net.cards import parse_cards
from shanghai_net.console.viewmodel import claim_helps
from shanghai_net.engine import ClaimPassed, Phase
from shanghai_net.rules import preset
from shanghai_net.session import Connection

from console_harness import davis_session, grid, grid_text, run, running

SIZES = [(80, 24), (120, 40)]


def _suit_colours(d, columns=80, rows=24) -> dict[str, set[tuple[str, str]]]:
    """Each suit symbol drawn anywhere on the screen: the (foreground, background) it gets."""
    style = d.console.app._merged_style
    seen: dict[str, set] = {}
    for text, styles in grid(d.console, columns, rows):
        for char, cell_style in zip(text, styles):
            if char in "♠♣♥♦":
                attrs = style.get_attrs_for_style_str(cell_style)
                seen.setdefault(char, set()).add((attrs.color, attrs.bgcolor))
    return seen


def test_black_suits_take_the_terminals_foreground_red_suits_are_red_in_the_popup_too():
    async def body():
        async with running(davis_session()) as d:
            for shown in (_suit_colours(d), (await d.press("a")) or _suit_colours(d)):
                assert shown["♠"] == shown["♣"] == {("default", "")}, shown  # never true black
                assert shown["♥"] == shown["♦"] == {("ansired", "")}, shown
            assert d.state.options is not None  # the "Go down with" popup was drawn

    run(body)


def test_a_long_message_wraps_and_keeps_its_reason_at_80_and_120_columns():
    async def body():
        async with running(davis_session()) as d:
            for columns, rows in SIZES:
                d.state.note("meld 1 of 2 picked: select the next and press g (u takes the last back, "
                             "Esc clears) and this reason runs on past the end of any line: THE REASON", True)
                screen = grid_text(d.console, columns, rows)
                assert "THE REASON" in screen and "Esc clears" in " ".join(screen.split())
                # the hand and the footer are still there
                assert "d draw" in screen and "♠" in screen

    run(body)


def test_every_help_line_shows_whole_in_a_border():
    async def body():
        async with running(davis_session()) as d:
            await d.press("?")
            for columns, rows in SIZES:
                screen = grid_text(d.console, columns, rows)
                help_lines = "".join(d.console.screen.help_text()[0][1]).splitlines()
                for line in help_lines:
                    whole = re.compile("│" + re.escape(line) + " *│")
                    assert any(whole.search(row) for row in screen.splitlines()), line
                assert re.search("┌─+┐", screen) and re.search("└─+┘", screen)
                assert "vote to void when a player has left" in screen

    run(body)


def test_the_players_panel_shows_lost_and_left():
    async def body():
        session = davis_session()
        seats = list(session._seats)
        seats[1] = replace(seats[1], connection=Connection.LOST)
        seats[2] = replace(seats[2], connection=Connection.LEFT)
        session._seats = tuple(seats)
        async with running(session) as d:
            for columns, rows in SIZES:
                rows_shown = grid_text(d.console, columns, rows).splitlines()
                assert any("1 basic b" in row and row.rstrip().endswith("lost") for row in rows_shown)
                assert any("2 basic b" in row and row.rstrip().endswith("left") for row in rows_shown)

    run(body)


def test_claim_helps_by_rank_and_for_runs_by_suit_nearby():
    davis = preset("davis")
    hand = parse_cards("7H 9C KD")
    books = (2, 0)
    assert claim_helps(davis, hand, books, parse_cards("7S")[0])  # a third seven
    assert not claim_helps(davis, hand, books, parse_cards("8H")[0])  # no eight, runs not wanted
    assert claim_helps(davis, hand, (1, 1), parse_cards("8H")[0])  # beside the 7♥ in a run
    assert not claim_helps(davis, hand, (1, 1), parse_cards("4S")[0])
    assert claim_helps(davis, hand, (1, 1), parse_cards("AD")[0])  # the ace is high above K♦
    assert claim_helps(davis, hand, books, parse_cards("JK")[0])  # a joker always could


def test_a_claim_that_cannot_help_passes_by_itself_and_p_turns_it_off():
    async def body():
        async with running(davis_session(), auto_pass=True) as d:
            await d.press("P")
            assert not d.state.auto_pass and "waits for your m or p" in d.state.message
            await d.press("?")
            assert "auto-pass (off)" in grid_text(d.console)
            await d.press("esc", "P")
            assert d.state.auto_pass
            await d.press("d", "a", "1")  # down with two books: only 7s and 9s help now
            await d.cursor_on("4S")
            await d.press("x")
            pressed = 0
            for _ in range(60):
                view = d.session.view
                if view.phase is Phase.OVER or d.state.summary is not None:
                    break
                if view.may_claim:  # a window that waits for us must be one that could help
                    assert claim_helps(view.rules, view.hand, view.contract, view.discard_top)
                    await d.press("p")
                    pressed += 1
                elif view.my_turn:
                    await d.press("d" if view.phase is Phase.DRAW else "x")
                else:
                    await d.settle()
            passed = [e for e in d.session.log if isinstance(e.event, ClaimPassed) and e.event.seat == 0]
            assert len(passed) > pressed, "no claim window passed by itself"

    run(body)


def test_the_cursor_stays_on_its_card_when_a_draw_shifts_the_hand():
    async def body():
        async with running(davis_session()) as d:
            await d.cursor_on("QC")
            await d.press("d")  # the 9♠ drawn goes in before the Q♣
            assert "9♠" in d.screen()["hand"]
            assert d.state.message == "you draw 9♠"  # what the move did, as the log says it
            assert str(d.state.cursor_card()) == "QC"

    run(body)


def test_a_move_these_rules_lack_says_so_before_asking_for_cards():
    async def body():
        async with running(davis_session()) as d:
            assert not d.session.rules.joker_swap
            await d.press("d", "w")
            assert d.state.error and d.state.message.startswith("davis has no swap the joker")
            assert d.state.target is None

    run(body)


def test_ascii_shows_no_arrows():
    async def body():
        async with running(davis_session(), ascii=True) as d:
            screen = grid_text(d.console)
            assert "<-> move" in screen and "←" not in screen and "→" not in screen
            await d.press("?")
            assert "<- ->" in grid_text(d.console) and "←" not in grid_text(d.console)

    run(body)


def test_a_long_log_line_wraps_and_the_newest_shows_whole():
    from shanghai_net.session import LogEntry

    async def body():
        session = davis_session()
        async with running(session) as d:
            for n in range(30):
                session._log.append(LogEntry(0, f"notice {n}"))
            session._log.append(LogEntry(0, "waiting for bob (V votes to void the round if they do "
                                            "not come back) THE END"))
            for columns, rows in SIZES:
                screen = " ".join(grid_text(d.console, columns, rows).split())
                assert "notice 29" in screen and "(V votes to void the round" in screen
                assert "they do not come back) THE END" in screen  # broken between words

    run(body)


def test_a_terminal_too_small_for_the_hand_says_the_size_it_needs():
    """Issue 24: at 14 rows or fewer the hand disappeared silently, at 15-16 its cursor row; now
    the hand is never cut, and a terminal too small for it and the rest says what it needs."""
    async def body():
        async with running(davis_session()) as d:
            rows = {}
            for columns in (80, 100):
                height = 12
                while "needs" in (screen := grid_text(d.console, columns, height)):
                    rows[columns] = int(re.search(r"needs (\d+) rows", screen)[1])
                    assert screen.startswith(f" This terminal is {columns}x{height}: ")
                    height += 1
                assert height == rows[columns]  # what it said is what it takes
                lines = screen.splitlines()
                hand = next(i for i, line in enumerate(lines) if "♠" in line and "Contract" not in line)
                assert "▲" in lines[hand + 1] and "d draw" in screen
            assert rows[80] == rows[100] == 15  # the dealt hand fits one line of cards either way

    run(body)


def test_the_urgent_prompt_and_the_key_letters_read_on_light_and_dark_terminals():
    """Issue 24: `MAY I? m / p · 8s` in bold yellow and the key letters in bold cyan were poor on
    a light terminal: they take the terminal's own colours, bold (the prompt in reverse)."""
    from shanghai_net.console.layout import STYLE

    countdown = STYLE.get_attrs_for_style_str("class:countdown")
    key = STYLE.get_attrs_for_style_str("class:key")
    assert countdown.reverse and countdown.bold and countdown.color in ("", None)
    assert key.bold and key.color in ("", None) and not key.reverse
