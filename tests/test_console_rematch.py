"""The console's rematch: once the game is over at a table that stays, the final table says who
asked for a rematch and that ``r`` plays again, the footer shows ``r``; ``r`` asks, and the
console comes back to the next game's lobby (the last game's result in it) and on to its deal,
with the same seat.  A table hosted here (`HostedTable`: a real host on 127.0.0.1, port 0,
three bot peers that ask at once); the seat plays its round by keys; a pipe input and a
DummyOutput.  A local table has no rematch: ``r`` says so."""

from __future__ import annotations

import trio
from prompt_toolkit.formatted_text import fragment_list_to_text

from shanghai_net.console.layout import HELP

from console_harness import davis_session, run
from test_console_net import Console, a_hosted_table, console_on, play_the_round_by_keys


def test_r_once_the_game_is_over_plays_the_next_game_with_the_same_seat():
    hosted = a_hosted_table(seed=31, auto_ready=True)

    async def body(c: Console):
        session = c.session
        await c.until(lambda: session.view is not None, "the deal", 60)
        first = session.peer
        await play_the_round_by_keys(c)
        await c.until(lambda: c.state.game_over, "the game's end", 60)
        await c.until(lambda: session.rematch_line is not None and
                      "(bot1, bot2, bot3 asked)" in session.rematch_line,
                      "the three bots' rematch asked", 60)
        await c.press("enter")  # the round's summary closes: the final table shows
        over = fragment_list_to_text(c.console.screen.game_over_text())
        assert "r: play again, the same seats (bot1, bot2, bot3 asked)" in over
        assert "r rematch" in c.screen()["footer"]
        await c.press("r")
        await c.until(lambda: session.peer is not first, "the next game's peer", 60)
        await c.until(lambda: session.lobby is not None and session.lobby.last_game,
                      "the rematch's lobby", 60)
        assert session.lobby.you == first.seat
        totals = tuple(first.table.game.result.totals)
        assert session.lobby.last_game == tuple(enumerate(totals))
        assert "game 2 at this table: the same seats, a fresh deal" in [e.text for e in session.log]
        await c.until(lambda: session.view is not None, "game 2's deal", 60)
        assert not c.state.game_over and session.peer.start.game_id != first.start.game_id
        assert session.seat == first.seat
        await c.press("q", "y")

    run(console_on, hosted.session, body, [hosted.serve])
    assert [t.host.game for t in hosted.server.opened] == [1, 2]


def test_the_lobby_shows_the_last_game_and_the_help_names_r():
    """The rematch's lobby lists the game before, by name; the help names ``r`` for it."""
    from shanghai_net.console.viewmodel import lobby_model
    from shanghai_net.session import Lobby, LobbySeat

    seats = (LobbySeat(0, "ann", "a1b2", True, True, False),
             LobbySeat(1, "bot1", "0f0f", True, True, True))
    lobby = Lobby(preset="davis", players=2, house_rules=(), seats=seats, host_fingerprint="ab",
                  join_code="", you=0, last_game=((0, 35), (1, 120)))
    assert "last game: you 35, bot1 120" in lobby_model(lobby).seats
    assert "game over: a rematch, the same seats" in HELP


def test_a_local_table_has_no_rematch():
    """A table played on this machine offers no rematch: nothing to show, and asking says so."""
    session = davis_session()
    assert session.rematch_line is None
    assert "one game" in trio.run(session.ask_rematch)
