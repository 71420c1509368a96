"""Issue 41, item 3: names were cut silently after a hand-over ("dan for an" / "dan for " in the
panels, "0 dan f" on the score sheet).  A name shows whole where the terminal has the room (the
players panel widens for it), and where it has not, its cut is marked with "…"."""

from __future__ import annotations

import re
from dataclasses import replace

from console_harness import davis_session, grid_text, run, running


def test_a_hand_over_s_name_shows_whole_or_marked_cut():
    async def body():
        session = davis_session()
        seats = list(session._seats)
        seats[1] = replace(seats[1], name="dan for ann")
        session._seats = tuple(seats)
        async with running(session) as d:
            for columns, rows in ((100, 36), (80, 24)):
                screen = grid_text(d.console, columns, rows)
                assert re.search(r"│.. 1 dan for ann +11 ", screen), screen
            screen = grid_text(d.console, 60, 20)
            assert "1 dan fo…" in screen, screen  # no room: cut, and shown to be
            await d.press("S")
            sheet = grid_text(d.console, 100, 36)
            assert re.search(r"round +0 you +1 dan for ann +2 basic bot", sheet), sheet

    run(body)
