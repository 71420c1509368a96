"""The conformance kit (`shanghai conformance`) against clients/simple_bot.py, a client written
from the documents alone: every scripted situation passes, over real sockets on 127.0.0.1.  And
against a client that does nothing, every situation fails (so each line can fail); against a
copy of simple_bot without one box key, one seat, that rule's situations fail."""

import sys
from pathlib import Path
from types import SimpleNamespace

import trio

from shanghai_net.cli import main
from shanghai_net.conformance import run_conformance, runner
from shanghai_net.conformance.box_keys import box_key_tables
from shanghai_net.conformance.relay import Relay
from shanghai_net.conformance.report import unoffered
from shanghai_net.conformance.situations import (BOX_KEY_SITUATIONS, LOST_SITUATIONS,
                                                 REMATCH_SITUATIONS, SCRIPTED, SEAT_SITUATIONS,
                                                 SHARING_SITUATIONS)
from shanghai_net.wire.messages import Deal

ROOT = Path(__file__).resolve().parent.parent
BOT = [sys.executable, str(ROOT / "clients" / "simple_bot.py"), "--quiet", "{host}:{port}"]


async def test_simple_bot_passes_every_situation():
    """Two tables that break one box key, one seat, five that share seeds, then four: the
    scripted game, one where the client's neighbour is voted gone and the host's bot replaces
    it, one where the client is handed a seat voted gone, and one that stays for a rematch,
    whose second game the client plays."""
    with trio.fail_after(1500):
        outcomes = await run_conformance(BOT, game_timeout=450, step=30)
    assert [o.line() for o in outcomes if not o.passed] == []
    sections = {o.section for o in outcomes}
    assert {"2", "5", "6.3", "6.6", "9", "11.1", "11.2", "11.3", "11.4", "11.5", "11.8"} <= sections
    assert {o.situation for o in outcomes} >= {
        situation for _, situation
        in SCRIPTED + SEAT_SITUATIONS + REMATCH_SITUATIONS + BOX_KEY_SITUATIONS
        + SHARING_SITUATIONS + LOST_SITUATIONS}


async def test_a_client_that_does_nothing_fails_every_situation():
    silent = [sys.executable, "-c", "import sys; sys.exit(0)"]
    with trio.fail_after(300):
        outcomes = await run_conformance(silent, game_timeout=60, step=5)
    assert [o.line() for o in outcomes if o.passed] == []
    assert len(outcomes) == 30


ONE_BOX_KEY_CHECKS = (
    ("simple_bot.py",
     '        if len(set(self.box_keys.values())) != self.n:\n'
     '            raise BotStopped("start_game gives two seats one box key: one box key, '
     'one seat")\n',
     ''),
    ("simple_bot_seats.py",
     '        return any(box_key in keys for other, keys in self.box_keys_held.items()',
     '        return False and any(box_key in keys for other, keys in self.box_keys_held.items()'),
)
"""simple_bot's checks of one box key, one seat (its start's, and `box_key_taken`, which its
replace and hand_over checks ask): the file, the check, and what a copy without it has."""


def bot_without(tmp_path: Path, checks) -> list[str]:
    """A copy of clients/ with each ``(file, check, instead)`` of ``checks`` replaced in that
    file, beside a link to protocol/ (the bot reads its presets there)."""
    (tmp_path / "clients").mkdir()
    (tmp_path / "protocol").symlink_to(ROOT / "protocol")
    for part in (ROOT / "clients").glob("*.py"):
        (tmp_path / "clients" / part.name).write_text(part.read_text())
    for name, check, instead in checks:
        copy = tmp_path / "clients" / name
        text = copy.read_text()
        assert text.count(check) == 1, f"{name} no longer has {check.strip()!r}"
        copy.write_text(text.replace(check, instead))
    return [sys.executable, str(tmp_path / "clients" / "simple_bot.py"), "--quiet",
            "{host}:{port}"]


def bot_without_one_box_key(tmp_path: Path) -> list[str]:
    """A copy of clients/simple_bot.py without `ONE_BOX_KEY_CHECKS`."""
    return bot_without(tmp_path, ONE_BOX_KEY_CHECKS)


async def test_one_box_key_one_seat_passes_for_the_bot_and_fails_for_its_copy_without_it(tmp_path):
    """protocol.md 6.2, 11.8: sent a start_game that gives two seats one box key, simple_bot
    signs nothing of the game and leaves; sent a replace the host sequenced with another seat's
    box key, it leaves.  Its copy without the checks plays the start (its first deal step) and
    stays at the table after the replace: both situations fail."""
    with trio.fail_after(150):
        kept = await box_key_tables(BOT, game_timeout=60, step=30)
    assert [o.line() for o in kept if not o.passed] == []
    assert [(o.section, o.situation) for o in kept] == list(BOX_KEY_SITUATIONS)
    assert "it signed nothing of that game; it left" in kept[0].detail
    with trio.fail_after(150):
        lacking = await box_key_tables(bot_without_one_box_key(tmp_path), game_timeout=60, step=8)
    assert [o.passed for o in lacking] == [False, False], [o.line() for o in lacking]
    assert "it signed deal (" in lacking[0].detail and "still there 8 s later" in lacking[0].detail
    assert "it approved nothing; it was still there 8 s later" in lacking[1].detail


async def test_a_relay_the_kit_cancels_closes_the_host_s_end_too():
    """Cancelled with the client still connected, the relay closes its connection to the host
    as well: the reference host waits for that end (up to its send_timeout) before it stops."""
    ended = trio.Event()

    async def host(stream):
        while await stream.receive_some():
            pass
        ended.set()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            host_listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            await nursery.start(trio.serve_listeners, host, host_listeners)
            relay = Relay(host_listeners[0].socket.getsockname()[1])
            with trio.CancelScope() as relay_scope:
                async with trio.open_nursery() as relaying:
                    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
                    await relaying.start(relay.serve, listeners)
                    client = await trio.open_tcp_stream(
                        "127.0.0.1", listeners[0].socket.getsockname()[1])
                    await client.send_all(b"\0\0\0\x01\x80")  # an empty map, to the host
                    while not relay.pairs or relay.pairs[0].host is None:
                        await trio.sleep(0.01)
                    relay_scope.cancel()
            with trio.move_on_after(30):  # ends once the relay closes it, bounds one never closed
                await ended.wait()
            assert ended.is_set(), "the host's end stayed open"
            await client.aclose()
            nursery.cancel_scope.cancel()


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


CLIENT_KEY = b"\x07" * 32


def finished_run(*steps: tuple[int, str, dict], stopped: str = "") -> SimpleNamespace:
    """A scripted game's run as `unoffered` reads it: the client in seat 0 (its hello's key),
    a game that ended without a fault, and the deal steps ``(author, step, data)``."""
    seats = [SimpleNamespace(seat=0, sign_key=CLIENT_KEY)] + [
        SimpleNamespace(seat=s, sign_key=bytes([s]) * 32) for s in (1, 2, 3)]
    history = [SimpleNamespace(author=author, body=Deal(step=step, data=data))
               for author, step, data in steps]
    host = SimpleNamespace(start=SimpleNamespace(seats=seats),
                           public=SimpleNamespace(finished=True, fault=None),
                           history=SimpleNamespace(messages=history))
    return SimpleNamespace(host=host, relay=SimpleNamespace(hello={"sign_key": CLIENT_KEY}),
                           stopped=stopped)


CALLED = (2, "pick_commit", {"round": 1, "pick": 0, "n": 11, "parties": [0, 2]})
RESHUFFLED = (1, "commit", {"round": 5, "generation": 1})


def test_a_game_that_called_no_discard_of_the_client_s_or_reshuffled_offered_neither():
    assert unoffered(finished_run(CALLED, RESHUFFLED)) == []
    first_dealer = (2, "pick_commit", {"round": 0, "pick": 0, "n": 4, "parties": [0, 1, 2, 3]})
    between_our_peers = (2, "pick_commit", {"round": 1, "pick": 0, "n": 11, "parties": [1, 2]})
    assert unoffered(finished_run(first_dealer, between_our_peers, RESHUFFLED)) == [
        "SHANGHAI call on the client's discard"]
    first_deal = (1, "commit", {"round": 5, "generation": 0})
    assert unoffered(finished_run(CALLED, first_deal)) == ["reshuffle"]


def test_a_game_the_kit_stopped_is_judged_as_it_is_not_played_again():
    assert unoffered(finished_run(stopped="the client did not answer")) == []


async def test_the_scripted_game_is_played_again_until_it_gives_the_client_every_chance(monkeypatch):
    offered = finished_run(CALLED, RESHUFFLED)
    runs = [finished_run(RESHUFFLED), finished_run(CALLED), offered]
    judged_runs = []
    monkeypatch.setattr(runner, "judged", lambda run: judged_runs.append(run) or [
        runner.Outcome("5", "handshake", True)])

    async def play(command, game_timeout, step):
        return runs.pop(0)

    outcomes = await runner.scripted_games([], 1, 1, play=play)
    assert runs == [] and judged_runs == [offered]
    assert outcomes[0].detail == ("scripted game 3: game 1 brought about no SHANGHAI call on the "
                                  "client's discard; game 2 brought about no reshuffle")
