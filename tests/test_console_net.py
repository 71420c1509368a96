"""The console on a `NetSession` over a fake peer: the lobby screen (seats, key fingerprints,
ready flags, the rules, the ready key), a dropped connection shown as a status line, a lost seat
in the players panel, chat and notices in the log, the audit verdict in the round summary."""

from __future__ import annotations

import asyncio
import re
import time
from types import SimpleNamespace

import trio
from prompt_toolkit.formatted_text import fragment_list_to_text

from shanghai_net.engine import LocalDealer, new_game
from shanghai_net.deal.audit import Verdict
from shanghai_net.table.roster import Holder
from shanghai_net.identity import Identity, fingerprint
from shanghai_net.net.peer import Peer
from shanghai_net.net.session import NetSession
from shanghai_net.rules import preset
from shanghai_net.wire.messages import PROTOCOL_VERSION, Chat, LobbyState, PlayerSeat, SeatInfo, StartGame, Welcome

from console_harness import KEYS, keys_read, run

SIGN_KEYS = [bytes([3 + s]) * 32 for s in range(3)]
FINGERPRINTS = [fingerprint(key) for key in SIGN_KEYS]
"""The seats' keys as the lobby shows them, the same as the started table's holders'."""


class FakePeer:
    """What NetSession reads of a `Peer`, set by the test; ``changed()`` tells the session."""

    made: list["FakePeer"] = []

    def __init__(self, address, identity, player, *, on_change, **options):
        self.address, self.identity, self.player, self.options = address, identity, player, options
        self.on_change = on_change
        self.seat = None
        self.welcome = self.lobby = self.start = self.table = None
        self.status, self.detail = "connecting", ""
        self.chat, self.errors, self.absent, self.stalling = [], [], {}, {}
        self.left = frozenset()
        self.byes = 0
        self.readies: list[bool] = []
        self.votes = 0
        self.person_vote_after, self._offered_at = 240.0, None
        self.votes_for_person: list[int] = []
        self.said: list[str] = []
        self.stop = None
        self.connected = True
        """What `say` and `set_ready` answer: False while the link is lost."""
        FakePeer.made.append(self)

    async def run(self):
        self.stop = trio.Event()
        await self.stop.wait()

    def nudge(self):
        pass

    holding_up = Peer.holding_up
    vote_target = Peer.vote_target
    _vacant = Peer._vacant
    _away = Peer._away
    _down = Peer._down
    _left = Peer._left
    _idle_silent = Peer._idle_silent
    _quitters = Peer._quitters
    _on_the_stream = Peer._on_the_stream
    person_vote_at = Peer.person_vote_at
    wait_for_them = Peer.wait_for_them

    def _may_vote(self):
        return self.votes == 0

    def vote_void(self, seat=None):
        self.votes += 1
        return self.votes == 1

    async def say(self, text):
        self.said.append(text)
        await trio.lowlevel.checkpoint()
        return self.connected

    async def leave(self):
        self.byes += 1
        await trio.lowlevel.checkpoint()

    async def set_ready(self, ready):
        self.readies.append(ready)
        await trio.lowlevel.checkpoint()
        return self.connected

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
    return Welcome(version=PROTOCOL_VERSION, seat=seat, table={"preset": "davis", "players": 3,
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
        """Send ``keys`` one by one, each once the console has read the one before (a loaded
        machine's slow reader is waited for, not raced: issue 28), or has quit."""
        for key in keys:
            self.pipe.send_text(KEYS.get(key, key))
            if key == "esc":  # a lone Esc is read once no sequence follows it (app.ttimeoutlen)
                await asyncio.sleep(self.console.app.ttimeoutlen * 2)
            await self.until(lambda: keys_read(self.console, self.pipe) or
                             not self.console.app.is_running, "its keys read", 20)

    async def on_trio(self, fn):
        """Run ``fn`` on the trio thread (where the peer calls its listeners) and let it draw."""
        done = asyncio.get_running_loop().create_future()

        def call():
            try:
                done.set_result(fn())
            except Exception as error:  # noqa: BLE001 - the test sees it
                done.set_exception(error)

        self.console._token.run_sync_soon(call)
        try:
            await asyncio.wait_for(done, 30)  # bounds a wait that ends as soon as trio runs
        except asyncio.TimeoutError:
            raise AssertionError("the trio side did not run the test's call in 30 s") from None

    async def until(self, condition, what="there", timeout=60.0):
        """Wait (bounded) until ``condition()`` holds: the keys are read, the answers in."""
        end = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < end, f"the console never got {what} in {timeout:g} s"
            await asyncio.sleep(0.01)

    def screen(self):
        from shanghai_net.console.layout import render_screen_text

        return render_screen_text(self.console.screen)


async def console_on(session, body, services=(), code=0):
    """Run ``body(Console)`` against a console on ``session`` (pipe input, DummyOutput)."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from shanghai_net.console import ConsoleApp

    with create_pipe_input() as pipe:
        # auto-pass off: these tests answer (or let time out) every claim window themselves
        console = ConsoleApp(session, input=pipe, output=DummyOutput(), services=services,
                             auto_pass=False)
        task = asyncio.ensure_future(console.run_async())
        end = time.monotonic() + 30  # bounds (like `until`) only a console that never starts
        while not (console.app.is_running and session.peer is not None or task.done()):
            assert time.monotonic() < end, "the console did not start"
            await asyncio.sleep(0.005)
        try:
            await body(Console(console, pipe))
        finally:
            if console.app.is_running:
                console.app.exit(result=0)
        # its end: the table's goodbye (up to 3 s) and the trio side closing, on a loaded machine
        assert await asyncio.wait_for(task, 60) == code


async def with_console(body, peer_type=FakePeer, code=0):
    session = NetSession(("192.0.2.7", 7777), Identity(b"\1" * 32, b"\2" * 32), name="ann",
                         peer_type=peer_type)
    await console_on(session, body, code=code)
    return session


def test_the_lobby_shows_seats_fingerprints_rules_and_the_ready_key():
    async def body(c: Console):
        screen = c.screen()
        assert "connecting to 192.0.2.7:7777" in screen["lobby"]
        assert "r ready" not in screen["footer"] and "q quit" in screen["footer"]
        await c.on_trio(lambda: c.peer.changed(status="lobby", seat=0, welcome=welcome(),
                                               lobby=lobby_state(house_rules={"contracts": [[2, 0]]})))
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
        await c.press("r")
        await c.until(lambda: c.peer.readies == [True])
        assert not c.state.busy and not c.state.error
        await c.on_trio(lambda: c.peer.changed(lobby=lobby_state(ready=(True, True, True))))
        assert "r not ready" in c.screen()["footer"] and "starting…" in c.screen()["lobby"]
        await c.press("r")
        await c.until(lambda: c.peer.readies == [True, False])
        await c.press("?")
        await c.until(lambda: c.state.help_open)
        assert "vote to void when a player has left / wait for them" in fragment_list_to_text(
            c.console.screen.help_text())
        await c.press("esc")
        await c.until(lambda: not c.state.help_open)
        # chat in the lobby: sent through the peer, shown once the host relays it
        await c.press("c", *"hi all", "enter")
        await c.until(lambda: c.peer.said == ["hi all"])
        await c.on_trio(lambda: c.peer.changed(chat=[Chat(text="hi all", name="ann"),
                                                     Chat(text="gl", name="bot1")]))
        assert "you: hi all" in c.screen()["lobby"] and "bot1: gl" in c.screen()["lobby"]
        # the connection drops: a status line, no crash
        await c.on_trio(lambda: c.peer.changed(
            status="reconnecting", detail="connection lost (the host went silent); retrying in "
                                          "2 s (attempt 3 of 5)"))
        assert "connection lost, retrying in 2 s (attempt 3 of 5)" in c.screen()["lobby"]
        assert c.screen()["lobby"].count("attempt") == 1  # the log's line has no stale count
        assert c.console.app.is_running
        await c.press("q", "y")

    run(with_console, body)


def a_started_table(players=3, seat=0, seed=4):
    """A stand-in for the peer's PeerTable: a dealt local game seen from ``seat``."""
    rules = preset("davis")
    game = new_game(rules, players, LocalDealer(seed))
    start = StartGame(game_id=b"\0" * 16, host_nonce=bytes(32), nonces=(), claim_timeout=10.0,
                      audit_timeout=60.0, seats=tuple(
        PlayerSeat(seat=s, name=n, sign_key=SIGN_KEYS[s], box_key=b"\4" * 32)
        for s, n in enumerate(["ann", "bot1", "bot2"][:players])), preset="davis", rules={},
        first_dealer_pick=None, host_key=None)
    table = SimpleNamespace(game=game, seat=seat, events=list(game.log), verdicts={}, fault=None,
                            rules=rules, settled=True, finished=False, owed=dict,
                            complaint=None, verdict=None, protests=[], waiting_audit=False,
                            holders=[Holder(s.name, "player", s.sign_key, s.box_key)
                                     for s in start.seats], vacant={}, left=[], handovers={},
                            unpaid=set(), unheard=set(), silenced={}, stalled_by=set,
                            share_threshold=None, quitters=set)
    return start, table


def test_v_votes_only_against_a_seat_the_table_waits_on_or_that_left_not_a_link_that_blinked():
    """Seat 2's link drops while it owes the table nothing (a blink): V finds nothing to vote
    on, for a vote lapses only when the seat it names sends what the table waits for, and one
    spent on a seat that owes nothing stood for the round.  Once the table waits on seat 2, V
    votes that it left; a seat that said bye is offered whatever it owes."""
    async def body(c: Console):
        start, table = a_started_table()
        await c.on_trio(lambda: c.peer.changed(status="playing", seat=0, welcome=welcome(),
                                               lobby=lobby_state(ready=(True,) * 3), start=start,
                                               table=table))
        await c.on_trio(lambda: c.peer.changed(absent={2: 0.0}))
        assert "bot2 lost connection" in c.screen()["log"]
        await c.press("V", "y")
        await c.until(lambda: "nothing to vote on" in c.screen()["message"])
        assert c.peer.votes == 0
        table.stalled_by = lambda: {2}  # now the deal waits for its step
        await c.press("V", "y")
        await c.until(lambda: "you voted that seat 2 left" in c.screen()["message"])
        assert c.peer.votes == 1
        c.peer.votes = 0
        table.stalled_by = set
        await c.on_trio(lambda: c.peer.changed(absent={1: 0.0}, left=frozenset({1})))
        await c.press("V", "y")
        await c.until(lambda: "you voted that seat 1 left" in c.screen()["message"])
        assert c.peer.votes == 1

    run(with_console, body)


def test_the_vote_for_a_person_who_presses_no_key_counts_down_and_w_waits_again():
    """While V is offered, the message line counts down to the vote the seat casts for its
    person, and the footer offers V and W; W starts the countdown again (the peer's
    `wait_for_them`).  Once the seat voted by itself the log says so and the countdown is
    gone.  With nothing offered, W says there is nothing to wait for."""
    async def body(c: Console):
        def message():
            return " ".join(c.screen()["message"].split())

        start, table = a_started_table()
        await c.on_trio(lambda: c.peer.changed(status="playing", seat=0, welcome=welcome(),
                                               lobby=lobby_state(ready=(True,) * 3), start=start,
                                               table=table))
        assert "W wait" not in c.screen()["footer"] and "votes" not in message()
        await c.press("W")
        await c.until(lambda: "no vote of yours is counting down" in message())
        table.stalled_by = lambda: {2}  # bot2's link is down while the deal waits on it

        def offered_a_minute_ago():
            c.peer._offered_at = trio.current_time() - 60
            c.peer.changed(absent={2: trio.current_time() - 60})

        await c.on_trio(offered_a_minute_ago)
        counting = r"the table waits for bot2: your seat votes that they left in {}:\d\d"
        assert re.search(counting.format("[23]"), message()), message()
        assert "V vote" in c.screen()["footer"] and "W wait for them" in c.screen()["footer"]
        before = c.peer._offered_at
        await c.press("W")
        await c.until(lambda: "you wait for bot2" in message())
        assert c.peer._offered_at >= before + 60
        assert re.search(counting.format("[34]"), message()), message()
        assert c.peer.votes == 0

        def voted_by_itself():
            c.peer.votes_for_person.append(2)
            c.peer.votes = 1
            c.peer.changed()

        await c.on_trio(voted_by_itself)
        assert "nobody pressed a key for 4 min while the table waited for bot2: your seat " \
            "voted that they left, as V does" in " ".join(c.screen()["log"].split())
        assert "the table waits for" not in message()
        assert "W wait" not in c.screen()["footer"]

    run(with_console, body)


def test_the_game_screen_shows_a_lost_seat_our_dropped_link_and_the_audit():
    async def body(c: Console):
        start, table = a_started_table()
        await c.on_trio(lambda: c.peer.changed(status="playing", seat=0, welcome=welcome(),
                                               lobby=lobby_state(ready=(True,) * 3), start=start,
                                               table=table))
        screen = c.screen()
        assert "davis · round 1 of 7" in screen["title"] and screen["hand"].strip()
        assert "the game starts" in screen["log"]
        await c.press("V")  # issue 24: one key voided the round; V asks first
        await c.until(lambda: c.state.vote_asked)
        await c.press("n")
        assert not c.state.vote_asked and c.peer.votes == 0
        await c.press("V")
        await c.until(lambda: c.state.vote_asked)
        await c.press("esc")  # read once Esc's wait for a sequence is over: waited for
        await c.until(lambda: not c.state.vote_asked, "Esc to take the question back")
        assert c.peer.votes == 0
        await c.press("V", "y")  # nobody has left: nothing to vote on
        await c.until(lambda: "nothing to vote on" in c.screen()["message"])
        assert c.peer.votes == 0
        table.stalled_by = lambda: {2}  # its deal step is owed
        await c.on_trio(lambda: c.peer.changed(absent={2: 0.0}))
        assert any(line.split()[:2] == ["2", "bot2"] and line.endswith("lost")
                   for line in c.screen()["players"].splitlines())
        assert "bot2 lost connection" in c.screen()["log"]
        await c.press("V", "y")
        await c.until(lambda: "you voted that seat 2 left" in c.screen()["message"])
        assert c.peer.votes == 1
        await c.press("V", "y")
        await c.until(lambda: "voted to void this round already" in c.screen()["message"])
        assert c.peer.votes == 2
        await c.on_trio(lambda: c.peer.changed(absent={}))
        assert "bot2 is back" in c.screen()["log"]
        await c.on_trio(lambda: c.peer.changed(absent={1: 0.0}, left=frozenset({1})))
        assert "bot1 left the game" in c.screen()["log"]
        assert any(re.search(r"\b1 bot1 .*left$", line) for line in c.screen()["players"].splitlines())
        await c.on_trio(lambda: c.peer.changed(absent={}, left=frozenset()))
        await c.on_trio(lambda: c.peer.changed(status="reconnecting", detail="connection lost "
                                               "(the host went silent); retrying in 1 s"))
        assert "connection lost, retrying in 1 s" in c.screen()["message"]
        log = " ".join(c.screen()["log"].split())  # a long line wraps between words
        assert "connection lost (the host went silent)" in log
        assert "retrying" not in log  # issue 24: a stale count there contradicted the status
        assert c.session.seats[0].connection == "lost"
        await c.on_trio(lambda: c.peer.changed(status="playing", detail=""))
        assert "connection lost" not in c.screen()["message"] and "reconnected" in c.screen()["log"]
        peer = c.peer
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
        await c.until(lambda: peer.byes == 1)  # quitting says bye: the table sees us leave

    run(with_console, body)


def test_no_stale_word_stays_on_the_status_lines():
    """Issue 24: the lobby's "ready: the game starts when everyone is" stayed in the game, a
    claim window's countdown stood at 0s while the host closed it, and after `d` the message
    said just `draw`."""
    import dataclasses

    from shanghai_net.engine import DrawStock
    from shanghai_net.session import Accepted

    async def body(c: Console):
        await c.on_trio(lambda: c.peer.changed(status="lobby", seat=0, welcome=welcome(),
                                               lobby=lobby_state()))
        await c.press("r")
        await c.until(lambda: "ready: the game starts" in c.screen()["message"])
        start, table = a_started_table()
        await c.on_trio(lambda: c.peer.changed(status="playing", start=start, table=table,
                                               lobby=lobby_state(ready=(True,) * 3)))
        assert c.screen()["hand"].strip() and not c.screen()["message"].strip()
        real = c.state.view_model
        for may_claim, shown in ((True, "MAY I? m / p · closing…"), (False, "claim window closing…")):
            c.state.view_model = lambda *a, **kw: dataclasses.replace(
                real(*a, **kw), claim_seconds=0, may_claim=may_claim)
            assert shown in c.screen()["piles"] and "0s" not in c.screen()["piles"]
        c.state.view_model = real
        c.state.on_outcome(Accepted(DrawStock(0), ()))  # sequenced; the card is on its way
        assert c.screen()["message"].strip() == "you draw from the stock: the card is on its way"
        await c.press("q", "y")

    run(with_console, body)


def test_a_join_that_cannot_succeed_closes_the_console_with_its_reason():
    """Issue 24: a table never reached (or a refusal) is not retried and does not leave a
    window waiting for `q`: the console closes by itself, exit status 1, the reason in the
    session's status (which `shanghai join` prints)."""
    from shanghai_net.net.peer import PeerError

    for reason in ("refused: join_code: the join code is wrong",
                   "cannot reach 192.0.2.7:7777: refused (is a table hosted there?)"):
        class Failing(FakePeer):
            async def run(self, reason=reason):
                await trio.lowlevel.checkpoint()
                raise PeerError(reason)

        async def body(c: Console):
            await c.until(lambda: not c.console.app.is_running)  # no key pressed

        session = run(with_console, body, Failing, 1)
        assert session.status == f"connection failed: {reason}" and session.view is None


# -- over real sockets: a Host on 127.0.0.1, port 0, three bot peers, the seat by key presses ----

def a_hosted_table(seed, auto_ready=False, claim_timeout=5.0):
    from shanghai_net.cli.net import HostedTable
    from shanghai_net.net.host import HostConfig

    # one short round: one book, then a discard; over after 16 turns if nobody went out
    rules = {"contracts": [[1, 0]], "final_round_meld_all": False, "max_turns": 16}
    config = HostConfig(players=4, preset="davis", rules=rules, claim_timeout=claim_timeout)
    return HostedTable(config, bots=3, seed=seed, name="ann", auto_ready=auto_ready)


async def by_keys(c: Console, *keys: str) -> bool:
    """Press ``keys`` (the last one makes a move) and wait for the answer: True if the host
    sequenced the move, False if it was refused (the reason is the console's message)."""
    c.state.note("")
    await c.press(*keys)
    await c.until(lambda: c.state.message and not c.state.busy, timeout=60)
    return not c.state.error


async def play_the_round_by_keys(c: Console) -> dict[str, int]:
    """Seat 0 by keys until the round's summary: claim once, draw, go down when the engine finds
    a way, lay off what fits, discard.  The moves the host sequenced, counted by kind
    (``ready``: the turns the hand could go down)."""
    from shanghai_net.engine import Phase

    done = {"m": 0, "p": 0, "d": 0, "ready": 0, "down": 0, "l": 0, "x": 0}
    table = c.session.table
    for _ in range(200):
        await c.until(lambda: c.state.summary is not None or (
            not c.state.busy and table.can_move()), timeout=60)
        if c.state.summary is not None:
            return done
        view, vm = c.session.view, c.state.view_model()
        fit = [i for i, h in enumerate(vm.hand) if h.fits]
        if view.may_claim:
            key = "p" if done["m"] else "m"
            done[key] += await by_keys(c, key)
        elif view.phase is Phase.DRAW:
            done["d"] += await by_keys(c, "d")
        elif not view.down[0] and vm.ready_ways:
            done["ready"] += 1
            done["down"] += await by_keys(c, "a", "1")
        elif fit and view.down[0]:
            await c.press("home", *["right"] * fit[0])
            if await by_keys(c, "l") and c.state.target is not None:
                done["l"] += await by_keys(c, str(vm.hand[fit[0]].fits[0] + 1))
            else:
                done["l"] += not c.state.error
        else:
            done["x"] += await by_keys(c, "home", "x")
    raise AssertionError("the round did not end")


def test_a_round_by_keys_against_three_bot_peers_with_the_lobby_and_the_audit():
    hosted = a_hosted_table(seed=23)

    async def body(c: Console):
        session = c.session
        await c.until(lambda: session.lobby is not None and len(session.lobby.seats) == 4
                      and all(s.ready for s in session.lobby.seats[1:]))
        screen = c.screen()
        for seat in session.lobby.seats:  # every seat's key fingerprint, for friends to compare
            assert seat.fingerprint in screen["lobby"]
        assert session.identity.fingerprint in screen["lobby"]
        assert hosted.host.identity.fingerprint in screen["lobby_title"]
        assert "rules: davis with contracts=1s" in screen["lobby"]
        assert "waiting for everyone to be ready" in screen["lobby"]
        await c.press("r")
        await c.until(lambda: session.view is not None)
        assert "davis · round 1 of 1 · one book" in c.screen()["title"]
        assert len(session.view.hand) == 11 and c.screen()["hand"].strip()
        # an illegal choice (a discard before drawing, or out of turn): the engine's reason in
        # place, the selection kept, nothing sent
        await c.press("home", " ", "x")
        await c.until(lambda: c.state.error)
        # (the reason depends on where the bots are: still drawing, or another seat's turn)
        message = c.screen()["message"]
        assert ("not now" in message or "turn" in message) and "by seat 0" not in message
        assert len(c.state.selected) == 1 and not c.state.busy
        assert not [e for e in session.log if type(e.event).__name__ == "Discarded"
                    and e.event.seat == 0]
        await c.press("esc")
        await c.until(lambda: not c.state.selected)
        done = await play_the_round_by_keys(c)
        assert done["d"] and done["x"] and done["m"], done
        assert done["down"] or not done["ready"], done  # went down when the hand allowed
        await c.until(lambda: session.audit(1) == "clean", timeout=60)
        summary = fragment_list_to_text(c.console.screen.summary_text())
        assert summary.startswith(" Round 1 over") and "deal audit: clean" in summary
        assert "round 1 audited: clean" in [e.text for e in session.log]
        await c.press("q", "y")

    run(console_on, hosted.session, body, [hosted.serve])


def test_shanghai_play_is_a_game_in_one_command():
    """``shanghai play``: the console comes up on a hand at a table hosted here with three bot
    peers; ``q`` then ``y`` leaves with exit code 0."""
    import threading

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from shanghai_net.cli import main

    class Recording(DummyOutput):
        def __init__(self):
            self.written: list[str] = []

        def write(self, data: str) -> None:
            self.written.append(data)

        def text(self) -> str:
            return "".join(self.written)

    seen = []
    with create_pipe_input() as pipe:
        output = Recording()

        hand = re.compile(r"(\s+(?:10|[2-9AJQK])[SHDC]|\s+JK){11}")

        def quit_once_a_hand_shows():
            # the screen is written in several pieces: wait for the hand itself, not for the
            # first words of the game screen (a loaded machine's snapshot fell between them)
            end = time.monotonic() + 60
            while time.monotonic() < end and not seen:
                text = output.text()
                if "Contract" in text and "Discard" in text and hand.search(text):
                    seen.append(text)
                time.sleep(0.02)
            pipe.send_text("q")
            time.sleep(0.1)
            pipe.send_text("y")

        keys = threading.Thread(target=quit_once_a_hand_shows, daemon=True)
        keys.start()
        with create_app_session(input=pipe, output=output):
            code = main(["play", "--seed", "3", "--ascii"])
        keys.join(5)
    assert seen, "no hand of 11 cards was shown in 60 s"
    assert code == 0
    assert "hosting davis on port" in seen[0]  # the lobby's notice, before the deal
    # on 127.0.0.1 with every seat taken, nobody else can join: it does not say they can
    assert "you and 3 bots, every seat taken" in seen[0] and "others join" not in seen[0]


def test_a_seat_that_follows_the_game_to_take_its_seat_says_so_and_then_plays():
    """Issue 22: a person who comes back to take their seat from the stand-in (or who arrived
    late) follows the game on the public table until the next deal: the console shows the
    table's seats ("bot for ann") and the peer's word, with no hand; once the stream gives its
    keys the seat, the game screen."""
    from shanghai_net.table.roster import Holder

    async def body(c: Console):
        start, table = a_started_table()
        stand_in = Holder("bot", "bot", b"\5" * 32, b"\6" * 32, 3, table.holders[0])
        follower = SimpleNamespace(**{**vars(table), "seat": None, "settled": False,  # public
                                      "holders": [stand_in, *table.holders[1:]]})
        await c.on_trio(lambda: c.peer.changed(
            status="playing", seat=0, welcome=welcome(replacing=True),
            lobby=lobby_state(ready=(True,) * 3), start=start, table=follower,
            detail="waiting to take seat 0 at the next round's deal"))
        assert c.session.table is follower and c.session.table.seat is None
        assert c.session.status == "waiting to take seat 0 at the next round's deal"
        assert c.session.seats[0].name == "bot for ann" and c.session.away == ()
        assert "waiting to take seat 0 at the next round's deal" in c.screen()["lobby"]
        table.left = [(1, 0)]  # the stream's word on who left (its log has no event of it)
        await c.on_trio(lambda: c.peer.changed(table=table, detail="rejoined"))
        screen = c.screen()
        assert "davis · round 1 of 7" in screen["title"] and screen["hand"].strip()
        assert c.session.status == ""
        assert c.session.penalties == {0: table.rules.leave_penalty}
        await c.press("q", "y")

    run(with_console, body)
