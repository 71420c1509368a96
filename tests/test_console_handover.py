"""The console hands its seat over (issue 22, protocol.md 11.9), by keys through a pipe input
onto a DummyOutput: ``H`` hands it to a watcher who offers to take it (picked by number, then
confirmed beside its name and key fingerprint), ``B`` lets a bot of the host's level (or a
chosen one) finish the hand in this program, and a console without a seat shows the game with
no hand and no move.  The last test plays it over real sockets: the person draws by key, a bot
finishes the hand mid-turn, the console watches the game to its end, and ``verify`` accepts."""

from __future__ import annotations

from types import SimpleNamespace

from prompt_toolkit.formatted_text import fragment_list_to_text

from shanghai_net.identity import Identity
from shanghai_net.net.resume import GameSecrets
from shanghai_net.net.session import NetSession
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.bodies import MOVE_BODIES
from shanghai_net.table.verify import verify
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import LobbyState, Offer

from console_harness import grid_text, run, sized_output
from test_console_net import Console, FakePeer, a_started_table, console_on, lobby_state, welcome
from test_net_take_over import drawn, may_draw, table_with_ann

BEA = Offer(name="bea", fingerprint="72bb-8f7e-f513-9860", sign_key=b"\7" * 32,
            box_key=b"\10" * 32, kind="player")
CY = Offer(name="cy", fingerprint="0c0c-1d1d-2e2e-3f3f", sign_key=b"\11" * 32,
           box_key=b"\12" * 32, kind="bot")


class HandingPeer(FakePeer):
    """A fake peer that records the hand-overs it is asked to sign."""

    def __init__(self, *args, **options):
        super().__init__(*args, **options)
        self.handed: list[tuple] = []
        self.waiting = bool(options.get("successor"))
        self.replaying = False

    def hand_over(self, name, role, sign_key, box_key):
        self.handed.append((name, role, sign_key, box_key))
        return True


def offering(*offers) -> LobbyState:
    state = lobby_state(ready=(True,) * 3)
    return LobbyState(seats=state.seats, preset=state.preset, rules=state.rules,
                      join_code=state.join_code, offers=offers)


async def seated(c: Console, *offers) -> None:
    start, table = a_started_table()
    await c.on_trio(lambda: c.peer.changed(status="playing", seat=0, welcome=welcome(),
                                           lobby=offering(*offers), start=start, table=table))


def net_session(tmp_path, **options) -> NetSession:
    return NetSession(("192.0.2.7", 7777), Identity(b"\1" * 32, b"\2" * 32), name="ann",
                      peer_type=HandingPeer, store=GameSecrets(tmp_path / "ann"), **options)


def text(fragments) -> str:
    return flat(fragment_list_to_text(fragments))


def flat(shown: str) -> str:
    """Text as read, whatever the width broke it into."""
    return " ".join(shown.split())


def test_h_hands_the_seat_to_the_watcher_picked_once_its_name_and_key_are_confirmed(tmp_path):
    async def body(c: Console):
        await seated(c)
        await c.press("H")  # nobody offers: says how someone does
        await c.until(lambda: c.state.error)
        assert "shanghai join HOST --take-over" in flat(c.screen()["message"])
        assert not c.state.handing_over
        await c.on_trio(lambda: c.peer.changed(lobby=offering(BEA, CY)))
        log = " ".join(c.screen()["log"].split())
        assert f"bea offers to take a seat (key {BEA.fingerprint}): H hands yours" in log
        await c.press("H")
        await c.until(lambda: c.state.offers_shown is not None)
        listed = text(c.console.screen.offers_text())
        assert f"1. bea (a person) · key {BEA.fingerprint}" in listed
        assert f"2. cy (a bot) · key {CY.fingerprint}" in listed
        await c.press("d")  # a move's key does nothing while the question is open
        assert not c.state.busy
        await c.press("2")
        await c.until(lambda: c.state.hand_to is not None)
        asked = text(c.console.screen.confirm_text())
        assert "Hand your seat to cy?" in asked and CY.fingerprint in asked
        assert "read out the key on their screen" in asked and "y: hand it over" in asked
        await c.press("esc")
        await c.until(lambda: not c.state.handing_over, "Esc to keep the seat")
        assert c.peer.handed == [] and "you keep your seat" in flat(c.screen()["message"])
        await c.press("H", "1")
        await c.until(lambda: c.state.hand_to == BEA)
        await c.press("y")
        await c.until(lambda: c.peer.handed)
        assert c.peer.handed == [("bea", "player", BEA.sign_key, BEA.box_key)]
        await c.until(lambda: "handing your seat to bea" in flat(c.screen()["message"]))
        assert not c.state.error
        assert f"you hand seat 0 to bea (key {BEA.fingerprint})" in " ".join(
            c.screen()["log"].split())
        await c.press("H")  # once: it is on its way
        await c.until(lambda: c.state.error)
        assert "on its way to bea already" in flat(c.screen()["message"])
        await c.press("?")
        await c.until(lambda: c.state.help_open)
        assert "H / B hand your seat to a watcher who offers / a bot finishes it" in \
            text(c.console.screen.help_text())
        await c.press("esc")
        await c.press("q", "y")

    run(console_on, net_session(tmp_path), body)


def test_a_networked_table_s_help_shows_whole_at_80x24(tmp_path):
    """The help of a networked davis table (with H and B) fits the smallest terminal the
    console is made for, every line whole in its border."""
    import re

    async def body(c: Console):
        await seated(c)
        c.console.app.output = sized_output()
        await c.press("?")
        await c.until(lambda: c.state.help_open)
        screen = grid_text(c.console, 80, 24)
        for line in fragment_list_to_text(c.console.screen.help_text()).splitlines():
            assert any(re.search("│" + re.escape(line) + " *│", row)
                       for row in screen.splitlines()), line
        assert re.search("┌─+┐", screen) and re.search("└─+┘", screen)
        assert "H  /  B        hand your seat to a watcher who offers / a bot finishes it" in screen
        await c.press("esc", "q", "y")

    run(console_on, net_session(tmp_path), body)


def test_b_asks_the_bot_s_level_and_says_where_the_bot_runs(tmp_path):
    asked = []

    async def body(c: Console):
        await seated(c)
        await c.on_trio(lambda: c.peer.changed(welcome=welcome(stand_in="expert")))

        async def let_bot_finish(level=None):
            asked.append(level)
            return "handing your seat to bot…"

        c.session.let_bot_finish = let_bot_finish
        await c.press("B")
        await c.until(lambda: c.state.bot_asked)
        shown = text(c.console.screen.bot_text())
        assert "Let a bot finish your hand?" in shown and "1 easy 2 basic 3 expert" in shown
        assert "Enter: expert (the host's)" in shown
        assert "The bot runs in this program: closing it (q) stops the bot" in shown
        await c.press("n")
        await c.until(lambda: not c.state.bot_asked)
        await c.press("B", "1")
        await c.until(lambda: asked == ["easy"])
        await c.press("B", "enter")
        await c.until(lambda: asked == ["easy", None])
        await c.until(lambda: flat(c.screen()["message"]) == "handing your seat to bot…")
        c.session.successors.append(SimpleNamespace(status="playing"))  # a bot playing here
        await c.press("q")
        await c.until(lambda: c.state.quit_asked)
        assert "the bot playing your hand runs here: it stops too" in text(
            c.console.screen.quit_text())
        await c.press("y")

    run(console_on, net_session(tmp_path), body)


def test_a_seat_that_keeps_no_secret_cannot_be_handed_over_and_says_why():
    async def body(c: Console):
        await seated(c, BEA)
        await c.press("B")
        await c.until(lambda: c.state.error)
        assert "keeps no secret of its game on this machine" in flat(c.screen()["message"])
        await c.press("H")
        assert not c.state.handing_over and c.peer.handed == []
        await c.press("q", "y")

    session = NetSession(("192.0.2.7", 7777), Identity(b"\1" * 32, b"\2" * 32), name="ann",
                         peer_type=HandingPeer)
    run(console_on, session, body)


def test_a_console_that_offers_to_take_a_seat_shows_the_game_without_a_hand(tmp_path):
    async def body(c: Console):
        assert c.peer.options["successor"] and c.peer.waiting
        await c.on_trio(lambda: c.peer.changed(status="lobby", welcome=welcome(seat=None),
                                               lobby=offering(BEA)))
        lobby = c.screen()["lobby"]
        assert "you watch, and offer to take a seat" in " ".join(lobby.split())
        assert "r ready" not in c.screen()["footer"]
        assert "bea" in lobby and BEA.fingerprint in lobby  # the offers, as the seats see them
        start, table = a_started_table()
        watched = SimpleNamespace(**{**vars(table), "seat": None})
        await c.on_trio(lambda: c.peer.changed(status="playing", start=start, table=watched))
        screen = c.screen()
        assert c.session.seat == -1 and c.session.view.hand == ()
        hand = " ".join(screen["hand"].split())
        assert "you watch, and offer to take a seat" in hand
        assert c.session.identity.fingerprint in hand
        assert screen["footer"].split() == ["S", "scores", "L", "log", "R", "rules", "c", "chat",
                                            "?", "help", "q", "quit"]
        assert "you hold no hand" in screen["tracker"]
        assert not any(row.startswith(">") or "you" in row.split()[:3]
                       for row in screen["players"].splitlines()[1:])
        await c.press("d", "B", "H")  # no move, no seat to hand over
        assert not c.state.busy and not c.state.handing_over
        await c.press("S")
        await c.until(lambda: c.state.panel is not None)
        await c.press("S", "q", "y")

    run(console_on, net_session(tmp_path, take_over=True), body)


def test_a_person_lets_a_bot_finish_the_hand_by_keys_and_watches_to_the_end(tmp_path):
    record = tmp_path / "game.transcript"
    hosted = table_with_ann(tmp_path, record)

    async def body(c: Console):
        session = c.session
        await c.until(lambda: session.view is not None, "the deal", 120)
        await c.until(lambda: may_draw(session), "ann's turn (the table waits for her)", 120)
        while may_draw(session):  # a MAY I settled by her draw uncovers a card: draw again
            await c.press("d")
            await c.until(lambda: not c.state.busy and (drawn(session) or may_draw(session)),
                          "the card drawn", 60)
        seat = session.seat
        await c.press("B")
        await c.until(lambda: c.state.bot_asked)
        await c.press("enter")  # the host's level
        await c.until(lambda: session.watching is not None and session.seat == -1,
                      "ann watching the game", 120)
        [bot] = session.successors
        await c.until(lambda: bot.table is not None and bot.table.seat == seat,
                      "the bot playing the seat (it replays the game first)", 120)
        assert bot.player.level == "basic"
        screen = c.screen()
        hand = " ".join(screen["hand"].split())
        assert "your seat is bot's now: you watch the game to its end" in hand
        assert "the bot runs in this program: closing it (q) stops the bot" in hand
        assert "d draw" not in screen["footer"] and "q quit" in screen["footer"]
        log = " ".join(screen["log"].split())
        assert f"seat {seat} is played by bot for ann now" in log
        await c.until(lambda: not c.state.message, "the word 'handing your seat to bot…' "
                      "gone once the seat is the bot's", 60)
        await c.until(lambda: session.result is not None and session.table.finished,
                      "the game's end, its last round audited", 240)
        assert session.seats[seat].name == "bot for ann"
        await c.press("q")  # the game is over: q quits at once

    run(console_on, hosted.session, body, [hosted.serve])
    history = hosted.host.history.messages
    handed = next(m for m in history if isinstance(m.body, wm.HandOver))
    assert handed.body.role == "bot" and handed.body.name == "bot"
    first = next(m for m in history if m.seq > handed.seq and m.author == handed.author
                 and isinstance(m.body, MOVE_BODIES))
    assert not isinstance(first.body, (wm.DrawStock, wm.TakeDiscard)), \
        "the bot drew again: it did not play on from the very turn"
    report = verify(read_transcript(record))
    assert report.ok, report.summary()
    assert f"seat {handed.author} played by bot (bot, key" in report.summary()


def test_once_the_seat_changed_hands_the_console_shows_no_hand_while_the_game_replays(tmp_path):
    """Issue 41, item 3: right after the hand-over ann's screen still showed "you" and her
    hand, while her spectator's connection replayed the game: the table shown then is the
    seat's own, but as a watcher sees it."""
    async def body(c: Console):
        await seated(c)
        assert c.session.view.hand and c.session.seat == 0
        c.peer.table.holders[0] = c.peer.table.holders[0].__class__(
            "bea", "player", b"\7" * 32, b"\10" * 32)  # the stream has the hand-over
        await c.on_trio(lambda: c.session._unseated("handed over"))
        screen = c.screen()
        assert c.session.seat == -1 and c.session.view.hand == ()
        assert "your seat is bea's now" in flat(screen["hand"])
        assert not any(row.split()[1:2] == ["you"] or "0 you" in row
                       for row in screen["players"].splitlines()[1:]), screen["players"]
        await c.press("q", "y")

    run(console_on, net_session(tmp_path), body)
