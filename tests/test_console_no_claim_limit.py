"""Issue 25: a table without a claim limit (marcelle's, or `claims_per_round=none`) shows it in the
players panel's claims column instead of a count."""

from __future__ import annotations

import re

import pytest

from shanghai_net.rules import preset

from console_harness import davis_session, grid_text, run, running


@pytest.mark.parametrize(("ascii", "mark"), [(False, "∞"), (True, "any")])
def test_the_players_panel_shows_claims_without_a_limit(ascii, mark):
    async def body():
        session = davis_session(rules=preset("davis").override("claims_per_round=none"))
        async with running(session, ascii=ascii) as d:
            rows = [row.split()[-3:] for row in grid_text(d.console).splitlines()
                    if re.search(r"\d (you|basic bot) +11 ", row)]
            assert rows == [["-", mark, "0"]] * 3  # down, claims, points of each seat

    run(body)
