"""The console on a `NetSession` over a fake peer: the lobby screen (seats, key fingerprints,
ready flags, the rules, the ready key), a dropped connection shown as a status line, a lost seat
in the players panel, chat and notices in the log, the audit verdict in the round summary."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import trio
from prompt_toolkit.formatted_text import fragment_list_to_text

from shanghai_net.engine import LocalDealer, new_game
from shanghai_net.deal.audit import Verdict
from shanghai_net.identity import Identity
from shanghai_net.net.session import NetSession
from shanghai_net.rules import preset
from shanghai_net.wire.messages import Chat, LobbyState, PlayerSeat, SeatInfo, StartGame, Welcome

from console_harness import KEYS, run

FINGERPRINTS = ["a1b2-c3d4-e5f6-0718", "0f0f-1e1e-2d2d-3c3c", "9999-8888-7777-6666"]


class FakePeer:
    """What NetSession reads of a `Peer`, set by the test; ``changed()`` tells the session."""

    made: list["FakePeer"] = []

    def __init__(self, address, identity, player, *, on_change, **options):
        self.address, self.identity, self.player, self.options = address, identity, player, options
        self.on_change = on_change
        self.seat = None
        self.welcome = self.lobby = self.start = self.table = None
        self.status, self.detail = "connecting", ""
        self.chat, self.errors, self.absent = [], [], set()
        self.readies: list[bool] = []
        self.said: list[str] = []
        self.stop = None
        FakePeer.made.append(self)

    async def run(self):
        self.stop = trio.Event()
        await self.stop.wait()

    def nudge(self):
        pass

    async def say(self, text):
        self.said.append(text)
        await trio.lowlevel.checkpoint()

    async def set_ready(self, ready):
        self.readies.append(ready)
        await trio.lowlevel.checkpoint()

    def changed(self, **attributes):
        for name, value in attributes.items():
            setattr(self, name, value)
        self.on_change()


def lobby_state(ready=(False, True, True), house_rules=None):
    seats = tuple(SeatInfo(seat=s, name=name, fingerprint=FINGERPRINTS[s], ready=ready[s],
                           connected=True, kind=kind)
                  for s, (name, kind) in enumerate([("ann", "player"), ("bot1", "bot"),
                                                    ("bot2", "bot")]))
    return LobbyState(seats=seats, preset="davis", rules=house_rules or {}, join_code="")


def welcome(seat=0, **table):
    return Welcome(version=1, seat=seat, table={"preset": "davis", "players": 3,
                                                "host_fingerprint": "abcd-ef01-2345-6789",
                                                "claim_timeout": 7.0, **table})


class Console:
    """A console on a NetSession over a FakePeer, fed keys through a pipe."""

    def __init__(self, console, pipe):
        self.console, self.pipe = console, pipe

    @property
    def state(self):
        return self.console.state

    @property
    def session(self) -> NetSession:
        return self.console.session

    @property
    def peer(self) -> FakePeer:
        return self.session.peer

    async def press(self, *keys):
        for key in keys:
            self.pipe.send_text(KEYS.get(key, key))
            if key == "esc":
                await asyncio.sleep(self.console.app.ttimeoutlen * 2)
            await asyncio.sleep(0.05)

    async def on_trio(self, fn):
        """Run ``fn`` on the trio thread (where the peer calls its listeners) and let it draw."""
        done = asyncio.get_running_loop().create_future()
        self.console._token.run_sync_soon(lambda: (fn(), done.set_result(None)))
        await done
        await asyncio.sleep(0.02)

    def screen(self):
        from shanghai_net.console.layout import render_screen_text

        return render_screen_text(self.console.screen)


async def with_console(body, peer_type=FakePeer):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from shanghai_net.console import ConsoleApp

    session = NetSession(("192.0.2.7", 7777), Identity(b"\1" * 32, b"\2" * 32), name="ann",
                         peer_type=peer_type)
    with create_pipe_input() as pipe:
        console = ConsoleApp(session, input=pipe, output=DummyOutput())
        task = asyncio.ensure_future(console.run_async())
        end = time.monotonic() + 5
        while not (console.app.is_running and session.peer is not None):
            assert time.monotonic() < end, "the console did not start"
            await asyncio.sleep(0.005)
        try:
            await body(Console(console, pipe))
        finally:
            if console.app.is_running:
                console.app.exit(result=0)
            await asyncio.wait_for(task, 5)


def test_the_lobby_shows_seats_fingerprints_rules_and_the_ready_key():
    async def body(c: Console):
        screen = c.screen()
        assert "connecting to 192.0.2.7:7777" in screen["lobby"]
        assert "r ready" not in screen["footer"] and "q quit" in screen["footer"]
        await c.on_trio(lambda: c.peer.changed(status="lobby", seat=0, welcome=welcome(),
                                               lobby=lobby_state(house_rules={"contracts": "2s"})))
        screen = c.screen()
        assert "davis table · 3 seats · host key abcd-ef01-2345-6789" in screen["lobby_title"]
        assert "rules: davis with contracts=2s" in screen["lobby"]
        lines = screen["lobby"].splitlines()
        assert any("you" in line and FINGERPRINTS[0] in line and "not ready" in line for line in lines)
        assert any("bot1 (bot)" in line and FINGERPRINTS[1] in line and " ready" in line
                   for line in lines)
        assert "waiting for everyone to be ready" in screen["lobby"]
        assert "joined the table as seat 0" in screen["lobby"]
        assert "r ready" in screen["footer"]
        await c.press("d")  # a move's key does nothing in the lobby
        assert c.peer.readies == [] and not c.state.busy
        await c.press("r")
        assert c.peer.readies == [True]
        await c.on_trio(lambda: c.peer.changed(lobby=lobby_state(ready=(True, True, True))))
        assert "r not ready" in c.screen()["footer"] and "starting…" in c.screen()["lobby"]
        await c.press("r")
        assert c.peer.readies == [True, False]
        await c.press("?")
        assert "in the lobby: ready / not ready" in fragment_list_to_text(
            c.console.screen.help_text())
        await c.press("esc")
        # chat in the lobby: sent through the peer, shown once the host relays it
        await c.press("c", *"hi all", "enter")
        assert c.peer.said == ["hi all"]
        await c.on_trio(lambda: c.peer.changed(chat=[Chat(text="hi all", name="ann"),
                                                     Chat(text="gl", name="bot1")]))
        assert "you: hi all" in c.screen()["lobby"] and "bot1: gl" in c.screen()["lobby"]
        # the connection drops: a status line, no crash
        await c.on_trio(lambda: c.peer.changed(status="reconnecting",
                                               detail="retrying in 2 s (attempt 3)"))
        assert "connection lost · retrying in 2 s (attempt 3)" in c.screen()["lobby"]
        assert c.console.app.is_running
        await c.press("q", "y")

    run(with_console, body)


def a_started_table(players=3, seat=0, seed=4):
    """A stand-in for the peer's PeerTable: a dealt local game seen from ``seat``."""
    rules = preset("davis")
    game = new_game(rules, players, LocalDealer(seed))
    start = StartGame(game_id=b"\0" * 16, seats=tuple(
        PlayerSeat(seat=s, name=n, sign_key=b"\3" * 32, box_key=b"\4" * 32)
        for s, n in enumerate(["ann", "bot1", "bot2"][:players])), preset="davis", rules={},
        first_dealer_pick=None, host_key=None)
    table = SimpleNamespace(game=game, seat=seat, events=list(game.log), verdicts={}, fault=None,
                            outstanding={}, rules=rules)
    return start, table


def test_the_game_screen_shows_a_lost_seat_our_dropped_link_and_the_audit():
    async def body(c: Console):
        start, table = a_started_table()
        await c.on_trio(lambda: c.peer.changed(status="playing", seat=0, welcome=welcome(),
                                               lobby=lobby_state(ready=(True,) * 3), start=start,
                                               table=table))
        screen = c.screen()
        assert "davis · round 1 of 7" in screen["title"] and screen["hand"].strip()
        assert "the game starts" in screen["log"]
        await c.on_trio(lambda: c.peer.changed(absent={2}))
        assert any(line.split()[:2] == ["2", "bot2"] and line.endswith("lost")
                   for line in c.screen()["players"].splitlines())
        assert "bot2 lost connection" in c.screen()["log"]
        await c.on_trio(lambda: c.peer.changed(absent=set()))
        assert "bot2 is back" in c.screen()["log"]
        await c.on_trio(lambda: c.peer.changed(status="reconnecting", detail="retrying in 1 s"))
        assert "connection lost · retrying in 1 s" in c.screen()["message"]
        assert c.session.seats[0].connection == "lost"
        await c.on_trio(lambda: c.peer.changed(status="playing", detail=""))
        assert "connection lost" not in c.screen()["message"] and "reconnected" in c.screen()["log"]
        # the round's audit verdict reaches the summary (pending until the seeds are in)
        assert c.session.audit(1) == "pending…"
        table.verdicts[1] = Verdict(None, "")
        await c.on_trio(lambda: c.peer.changed())
        assert "round 1 audited: clean" in c.screen()["log"]
        from shanghai_net.console.viewmodel import round_summary
        from shanghai_net.engine import RoundResult
        result = RoundResult(1, 0, ((), (), ()), (0, 5, 5), (0, 5, 5))
        c.state.summary = result
        text = fragment_list_to_text(c.console.screen.summary_text())
        assert "deal audit: clean" in text
        table.verdicts[2] = Verdict(1, "generation 0: a pass that does not match")
        assert c.session.audit(2) == "fault by seat 1: generation 0: a pass that does not match"
        local = round_summary(result, c.session.seats, 0, preset("davis"), audit=None)
        assert not any("audit" in line for line in local)  # a local table's deal is not audited
        await c.press("q", "y")

    run(with_console, body)


def test_a_refused_join_is_a_status_not_a_crash():
    class Refusing(FakePeer):
        async def run(self):
            from shanghai_net.net.peer import PeerError
            await trio.lowlevel.checkpoint()
            raise PeerError("refused: join_code: the join code is wrong")

    async def body(c: Console):
        for _ in range(100):
            if "failed" in c.screen()["lobby"]:
                break
            await asyncio.sleep(0.01)
        assert "connection failed: refused: join_code: the join code is wrong" in c.screen()["lobby"]
        assert c.console.app.is_running
        await c.press("q", "y")

    run(with_console, body, Refusing)
