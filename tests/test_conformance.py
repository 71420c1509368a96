"""The conformance kit (`shanghai conformance`) against clients/simple_bot.py, a client written
from the documents alone: every scripted situation passes, over real sockets on 127.0.0.1.  And
against a client that does nothing, every situation fails (so each line can fail)."""

import sys
from pathlib import Path

import trio

from shanghai_net.cli import main
from shanghai_net.cli.conformance import REMATCH_SITUATIONS, SCRIPTED, SEAT_SITUATIONS, \
    run_conformance

BOT = [sys.executable, str(Path(__file__).resolve().parent.parent / "clients" / "simple_bot.py"),
       "--quiet", "{host}:{port}"]


async def test_simple_bot_passes_every_situation():
    """Four tables: the scripted game, one where the client's neighbour is voted gone and the
    host's bot replaces it, one where the client is handed a seat voted gone, and one that
    stays for a rematch, whose second game the client plays."""
    with trio.fail_after(1500):
        outcomes = await run_conformance(BOT, game_timeout=450, step=30)
    assert [o.line() for o in outcomes if not o.passed] == []
    sections = {o.section for o in outcomes}
    assert {"2", "5", "6.3", "6.6", "9", "11.1", "11.2", "11.3", "11.4", "11.5", "11.8"} <= sections
    assert {o.situation for o in outcomes} >= {situation for _, situation
                                               in SCRIPTED + SEAT_SITUATIONS + REMATCH_SITUATIONS}


async def test_a_client_that_does_nothing_fails_every_situation():
    silent = [sys.executable, "-c", "import sys; sys.exit(0)"]
    with trio.fail_after(300):
        outcomes = await run_conformance(silent, game_timeout=60, step=5)
    assert [o.line() for o in outcomes if o.passed] == []
    assert len(outcomes) == 23


def test_the_command_line_needs_a_client_command(capsys):
    try:
        main(["conformance"])
    except SystemExit as exit:
        assert exit.code == 2
    assert "give the client's command after --" in capsys.readouterr().err


def test_a_client_that_cannot_be_run_is_named(capsys):
    try:
        main(["conformance", "--", "/nonexistent/client", "{host}", "{port}"])
    except SystemExit as exit:
        assert exit.code == 2
    else:
        raise AssertionError("a missing client was tried")
    assert "no program '/nonexistent/client'" in capsys.readouterr().err
