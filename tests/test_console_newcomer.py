"""Issue 24, what was left of the newcomer's evening, by keys on a console (pipe input,
DummyOutput): a game whose every round was voided, ... """

from __future__ import annotations

from prompt_toolkit.formatted_text import fragment_list_to_text

from console_harness import run
from test_console_net import a_started_table, lobby_state, welcome, with_console


def test_a_game_whose_only_round_was_voided_names_no_winner():
    """A vote voided round 1: the game-over box said "Game over: you and 1 bot1 and 2 bot2
    win" (the player who left a co-winner); no round was scored, so nobody wins."""
    async def body(c):
        start, table = a_started_table()
        await c.on_trio(lambda: c.peer.changed(status="playing", seat=0, welcome=welcome(),
                                               lobby=lobby_state(ready=(True,) * 3), start=start,
                                               table=table))
        table.events.extend(table.game.void_round(False))
        table.finished = True
        await c.on_trio(lambda: c.peer.changed(status="over"))
        await c.until(lambda: c.state.game_over)
        box = fragment_list_to_text(c.console.screen.game_over_text())
        assert box.startswith(" Game over: no round was scored, so nobody wins "), box
        assert " win" not in box.replace("nobody wins", "")
        await c.press("q")

    run(with_console, body)


def test_the_command_line_names_no_winner_of_a_game_with_no_round_scored():
    """What `host` and `play` print at the end: "game over: ann 0, bot1 0, bot2 0" read as
    a three-way tie for a game whose only round was voided."""
    from shanghai_net.cli.net import game_over
    from shanghai_net.engine import GameResult, RoundResult

    names = ["ann", "bot1", "bot2"]
    assert game_over(names, GameResult((0, 0, 0), (0, 1, 2), (0, 1, 2), ())) == \
        "game over: no round was scored, so nobody won"
    scored = GameResult((5, 0, 9), (1, 0, 2), (1,), (RoundResult(1, 1, ((), (), ()), (5, 0, 9),
                                                                 (5, 0, 9)),))
    assert game_over(names, scored) == "game over: bot1 0, ann 5, bot2 9"
