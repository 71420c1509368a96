"""Issue 42, items 4 and 6: the person who runs the host.

Item 4: after handing her seat over, the host's console offered "q: quit", and one ``q`` closed
the host: the next game died for the other three.  Now ``q`` names the people whose game ends
("you are hosting: quitting ends the game for bea") and waits for ``y``, the host stays up while
its console watches, and closes by itself once its tables are done.  Over real sockets on
127.0.0.1: ann hosts, bea (a person's seat) and a bot play; ann lets a bot finish her hand and
watches; the other seats' game goes on to its end; ``q`` asks while bea is still at the table;
once bea leaves, the console closes by itself.

Item 6: ``shanghai host --resume RECORD`` with the console exited 1 and printed nothing when the
seat its key had played was someone else's (handed over): the console now comes up watching the
resumed game, through the CLI entry in-process."""

from __future__ import annotations

import asyncio
import os
import random
import time

import trio
from prompt_toolkit.formatted_text import fragment_list_to_text

from shanghai_net.cli.net import HostedTable
from shanghai_net.identity import Identity
from shanghai_net.net.host import HostConfig
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.resume import GameSecrets
from shanghai_net.net.session import NetSession

from console_harness import run
from test_console_net import Console
from test_net_take_over import TWO_ROUNDS, drawn, may_draw


async def hosting_console(hosted, body, services=()):
    """Run ``body(Console)`` on the console ``shanghai host`` runs (the table served beside
    it, ``hosting`` given), over a pipe input; the console's exit code."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from shanghai_net.console import ConsoleApp

    with create_pipe_input() as pipe:
        console = ConsoleApp(hosted.session, input=pipe, output=DummyOutput(),
                             services=[hosted.serve, *services], auto_pass=False, hosting=hosted)
        task = asyncio.ensure_future(console.run_async())
        end = time.monotonic() + 30
        while not (console.app.is_running and hosted.session.peer is not None or task.done()):
            assert time.monotonic() < end, "the console did not start"
            await asyncio.sleep(0.005)
        try:
            await body(Console(console, pipe))
        except BaseException:
            if console.app.is_running:
                console.app.exit(result=0)
            raise
        return await asyncio.wait_for(task, 60)


def quit_text(c: Console) -> str:
    return " ".join(fragment_list_to_text(c.console.screen.quit_text()).split())


class TableWithBea:
    """ann hosts a table of three here (`HostedTable`, her console's session following its
    next games), a bot of the host's and bea, a person's seat (its `hello` says player) played
    by a bot's choices, which stays at the table once the game is over until told to
    ``then`` (``leave``, or ask for a ``rematch``)."""

    def __init__(self, tmp_path, rematch_wait: float) -> None:
        config = HostConfig(players=3, preset="davis", rules=dict(TWO_ROUNDS),
                            claim_timeout=1.0, rematch_wait=rematch_wait)
        self.hosted = HostedTable(config, bots=[BotPlayer("basic", random.Random(31))], seed=3,
                                  name="ann", auto_ready=True)
        rnd = random.Random(3)
        self.hosted.session = NetSession(
            None, Identity(rnd.randbytes(32), rnd.randbytes(32)), name="ann", auto_ready=True,
            store=GameSecrets(tmp_path / "ann"), think=0.0, next_game=self.hosted.next_game)
        self.bea: dict = {}
        self.then = trio.Event()
        self.next = "leave"

    async def bea_plays(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        peer = Peer(self.hosted.session.address, Identity(os.urandom(32), os.urandom(32)),
                    BotPlayer("basic", random.Random(32)), name="bea", role="player",
                    rematch=None)
        self.bea["peer"] = peer
        async with trio.open_nursery() as nursery:
            async def play() -> None:
                self.bea["result"] = await peer.run()
            nursery.start_soon(play)
            await self.then.wait()
            await (peer.leave() if self.next == "leave" else peer.ask_rematch())


async def ann_lets_a_bot_finish(c: Console) -> None:
    """ann draws on her first turn, then lets a bot of the host's level finish her hand, and
    watches."""
    session = c.session
    await c.until(lambda: session.view is not None, "the deal", 120)
    await c.until(lambda: may_draw(session), "ann's turn", 120)
    while may_draw(session):
        await c.press("d")
        await c.until(lambda: not c.state.busy and (drawn(session) or may_draw(session)),
                      "the card drawn", 60)
    await c.press("B", "enter")
    await c.until(lambda: session.watching is not None and session.seat == -1,
                  "ann watching the game", 120)


def test_the_host_s_person_hands_her_seat_over_and_q_asks_before_ending_bea_s_game(tmp_path):
    table = TableWithBea(tmp_path, rematch_wait=120.0)
    hosted, bea, bea_leaves = table.hosted, table.bea, table.then
    bea_plays = table.bea_plays

    async def body(c: Console) -> None:
        session = c.session
        await ann_lets_a_bot_finish(c)
        await c.press("q")  # the game goes on for bea: q asks, and says so
        await c.until(lambda: c.state.quit_asked)
        assert "you are hosting: quitting ends the game for bea" in quit_text(c)
        await c.press("n")
        assert c.console.app.is_running and not c.state.quit_asked
        await c.until(lambda: session.over, "the game's end, its last round audited", 240)
        await c.until(lambda: bea["peer"].table.finished, "bea's replica at the game's end", 60)
        assert bea["peer"].table.finished and bea["peer"].table.fault is None
        # the game is over, but bea is still at the table this program hosts (for a rematch)
        await c.press("q")
        await c.until(lambda: c.state.quit_asked)
        assert "you are hosting: quitting ends the game for bea" in quit_text(c)
        assert "Stop hosting?" in fragment_list_to_text(c.console.screen.quit_text())
        await c.press("n")
        assert c.console.app.is_running
        await c.on_trio(bea_leaves.set)  # bea goes: the table closes, and so does the console
        await c.until(lambda: not c.console.app.is_running, "the console closing by itself", 60)

    assert run(hosting_console, hosted, body, [bea_plays]) == 0
    assert bea["result"].table.finished and hosted.done


def test_the_host_s_person_watches_the_rematch_played_without_her(tmp_path):
    """The table plays on after ann's game: bea and the host's bot ask for a rematch, and ann's
    console, which only watches, shows the next game at the table (its lobby, where bea does not
    come back), and closes by itself once that table closes too."""
    table = TableWithBea(tmp_path, rematch_wait=15.0)
    table.next = "rematch"

    async def body(c: Console) -> None:
        session = c.session
        await ann_lets_a_bot_finish(c)
        await c.until(lambda: session.over and table.bea["peer"].table.finished,
                      "the game's end, its last round audited", 240)
        await c.on_trio(table.then.set)  # bea asks for a rematch; so does the host's bot
        await c.until(lambda: any("the next game at this table: you watch it" in e.text
                                  for e in session.log), "the next game watched", 60)
        await c.until(lambda: session.lobby is not None and session.view is None,
                      "the next game's lobby shown", 60)
        assert c.console.app.is_running and session.peer.status == "lobby"
        await c.until(lambda: not c.console.app.is_running, "the console closing by itself once "
                      "the rematch's lobby closes (bea never came back)", 90)

    assert run(hosting_console, table.hosted, body, [table.bea_plays]) == 0
    assert table.hosted.done and table.hosted.host.game == 1 and table.hosted._watched == 2


def test_a_resumed_host_whose_seat_was_handed_over_watches_the_game(tmp_path, monkeypatch):
    """Issue 42, item 6: the first host's person lets a bot finish her hand, then the host
    stops (``q`` ``y``: no person is left to ask about); ``shanghai host --resume RECORD``
    comes up on the console watching the game instead of exiting 1 in silence."""
    import shanghai_net.cli as cli
    from shanghai_net.cli import main

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    record = tmp_path / "game.bin"
    bodies = []

    def console(session, ascii=False, **options):
        async def go():
            from prompt_toolkit.input import create_pipe_input
            from prompt_toolkit.output import DummyOutput
            from shanghai_net.console import ConsoleApp

            with create_pipe_input() as pipe:
                app = ConsoleApp(session, input=pipe, output=DummyOutput(), **options)
                task = asyncio.ensure_future(app.run_async())
                end = time.monotonic() + 30
                while not (app.app.is_running and session.peer is not None or task.done()):
                    assert time.monotonic() < end, "the console did not start"
                    await asyncio.sleep(0.005)
                if not task.done():
                    await bodies.pop(0)(Console(app, pipe))
                return await asyncio.wait_for(task, 60)
        return asyncio.run(go())

    monkeypatch.setattr(cli, "run_console", console)
    command = ["host", "--port", "0", "--bind", "127.0.0.1", "--no-announce", "--name", "ann",
               "--claim-timeout", "1"]

    async def first(c: Console) -> None:
        session = c.session
        await c.until(lambda: session.lobby is not None and session.lobby.you is not None and
                      len(session.lobby.seats) == 3, "the bots seated", 120)
        await c.press("r")  # ready
        await c.until(lambda: session.view is not None, "the deal", 120)
        await c.until(lambda: may_draw(session) or drawn(session), "ann's turn", 120)
        await c.press("B", "enter")
        await c.until(lambda: session.watching is not None and session.seat == -1,
                      "ann watching the game", 120)
        await c.press("q")
        assert c.state.quit_asked and "you are hosting" not in quit_text(c)  # bots only
        await c.press("y")

    bodies.append(first)
    assert main([*command, "--players", "3", "--bots", "2", "--record", str(record),
                 "--rule", "contracts=2s,1s"]) == 0

    async def resumed(c: Console) -> None:
        session = c.session
        await c.until(lambda: session.view is not None, "the resumed game shown", 120)
        screen = c.screen()
        assert session.seat == -1 and "you watch this game" in " ".join(screen["hand"].split())
        assert "you host this game and watch it" in " ".join(screen["log"].split())
        await c.press("q", "y")

    bodies.append(resumed)
    assert main([*command, "--resume", str(record)]) == 0
