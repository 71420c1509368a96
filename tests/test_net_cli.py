"""``shanghai host --no-console --bots K`` hosts a whole game between bots over loopback and
exits 0 when it is over; a bad house rule is refused before anything listens."""

from __future__ import annotations

import os
import subprocess
import time
import sys

import pytest

from shanghai_net.cli import main
from shanghai_net.net.transcript import read_transcript


def test_host_with_bots_plays_a_whole_game_and_exits_0(tmp_path):
    record = tmp_path / "game.bin"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    # a one-round game (a house rule), so the command line is checked end to end quickly
    done = subprocess.run(
        [sys.executable, "-m", "shanghai_net.cli", "host", "--port", "0", "--bind", "127.0.0.1",
         "--players", "3", "--bots", "3", "--no-console", "--record", str(record),
         "--rule", "contracts=2s"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "game over:" in done.stdout
    messages = read_transcript(record)
    assert messages[0].TYPE == "start_game" and messages[0].rules == {"contracts": [[2, 0]]}
    assert (tmp_path / "config" / "shanghai-net" / "identity").exists()


def test_bad_house_rule_is_refused():
    with pytest.raises(SystemExit) as info:
        main(["host", "--port", "0", "--rule", "no_such_rule=1", "--no-console"])
    assert info.value.code == 2


def test_a_killed_host_resumes_from_its_transcript_with_its_bots(tmp_path):
    """``shanghai host --resume FILE``: the host process is killed mid-game; started again on
    the transcript (without --bots: it finds its bots' kept keys among the seats), it starts its
    bots again, they rejoin their seats, and the game finishes."""
    record = tmp_path / "game.bin"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    command = [sys.executable, "-m", "shanghai_net.cli", "host", "--port", "0", "--bind",
               "127.0.0.1", "--no-console"]
    first = subprocess.Popen(command + ["--bots", "3", "--players", "3", "--record", str(record),
                                        "--rule", "contracts=2s"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120  # bounds a wait the record's growth ends
        while not record.exists() or record.stat().st_size < 40_000:  # well into the round
            assert first.poll() is None, "the first host ended before it could be killed"
            assert time.monotonic() < deadline, "the first host's record did not reach 40 KB " \
                "(well into the round) in 120 s"
            time.sleep(0.05)
    finally:
        first.kill()
        first.communicate()
    before = len(read_transcript(record))
    done = subprocess.run(command + ["--resume", str(record)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"resuming {record} at message {before - 1}" in done.stdout
    assert "game over:" in done.stdout
    assert len(read_transcript(record)) > before


def test_every_option_of_every_command_says_what_it_does_and_its_default():
    from shanghai_net.cli import _parser
    from shanghai_net.cli.net import HelpWithDefaults

    parser = _parser()
    commands = next(a for a in parser._actions if a.choices and "play" in a.choices).choices
    assert {"simulate", "watch", "play", "host", "join", "bot", "verify"} <= set(commands)
    for name, command in commands.items():
        shown = HelpWithDefaults(name)
        for action in command._actions:
            if action.dest == "help":
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}: no help"
            flag = action.nargs == 0  # a switch: off unless given
            if action.option_strings and not flag:
                assert "default" in shown._get_help_string(action), f"{name} {action.option_strings}"
    assert "(default: davis)" in commands["play"].format_help()


def test_join_keys_come_from_identity_dir_or_are_fresh_and_play_takes_a_name(tmp_path, monkeypatch):
    from shanghai_net import cli
    from shanghai_net.identity import load_or_create

    seen = []
    monkeypatch.setattr(cli, "run_console", lambda session, ascii, **kw: seen.append((session, kw)) or 0)
    home = tmp_path / "second"
    # nothing answers on port 1: the console returns at once, no hand was dealt, exit 1
    assert main(["join", "127.0.0.1:1", "--identity", str(home), "--name", "bea"]) == 1
    assert seen[-1][0].identity.fingerprint == load_or_create(home).fingerprint
    assert seen[-1][0].name == "bea" and seen[-1][1] == {"auto_pass": True}
    assert main(["join", "127.0.0.1:1", "--fresh-identity", "--no-auto-pass"]) == 1
    fresh = seen[-1][0].identity.fingerprint
    assert fresh != load_or_create(home).fingerprint and seen[-1][1] == {"auto_pass": False}
    assert main(["join", "127.0.0.1:1", "--fresh-identity"]) == 1
    assert seen[-1][0].identity.fingerprint != fresh

    played = []
    monkeypatch.setattr(cli, "hosted_console", lambda config, **table: played.append(table) or 0)
    assert main(["play", "--name", "cy", "--seed", "4"]) == 0
    assert played[-1]["name"] == "cy" and played[-1]["auto_pass"] is True


def test_the_network_layer_does_not_import_the_console():
    done = subprocess.run([sys.executable, "-c", "import sys, shanghai_net.cli.net, shanghai_net.net.session; "
                           "print(any(m.startswith('shanghai_net.console') for m in sys.modules))"],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def test_sigterm_quits_play_and_gives_the_terminal_back(tmp_path):
    """``shanghai play`` on a terminal (a pty) killed with SIGTERM leaves the alternate screen
    and exits 143, instead of leaving the terminal drawn over."""
    import pty
    import select
    import signal

    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "TERM": "xterm"}
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    game = subprocess.Popen([sys.executable, "-m", "shanghai_net.cli", "play", "--seed", "3"],
                            stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    seen = b""

    def read(until: float) -> None:
        """Read what the game writes until ``until``, or until it has ended and all it wrote
        is read (a read takes a pty's buffer at most: returning at the first read after the
        exit missed the last screen's end, 1 in 10 in a model of it)."""
        nonlocal seen
        while time.monotonic() < until:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    seen += os.read(master, 65536)
                except OSError:  # the other end closed, and everything it wrote is read
                    return
            elif game.poll() is not None:
                return

    try:
        deadline = time.monotonic() + 60
        while b"Contract" not in seen:
            assert time.monotonic() < deadline and game.poll() is None, seen[-500:]
            read(time.monotonic() + 0.2)
        drawn = len(seen)
        game.send_signal(signal.SIGTERM)
        assert game.wait(30) == 128 + signal.SIGTERM
        read(time.monotonic() + 1)
    finally:
        if game.poll() is None:
            game.kill()
        os.close(master)
    assert b"\x1b[?1049l" in seen[drawn:], seen[drawn:][-300:]  # the alternate screen is left


def test_watch_names_the_bots_and_shows_suits(capsys):
    assert main(["watch", "--delay", "0", "--rounds", "1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "round 1: basic" in out and "seat " not in out
    assert any(symbol in out for symbol in "♠♥♦♣")
    assert "JK" in out and "🃏" not in out  # issue 24: the joker as the console writes it
    assert main(["watch", "--delay", "0", "--rounds", "1", "--seed", "2", "--ascii"]) == 0
    assert not any(symbol in capsys.readouterr().out for symbol in "♠♥♦♣")


def test_the_host_says_the_address_to_give_not_this_machine():
    """Issue 24: the lobby said `join THIS-MACHINE:7777` and never showed the address to give."""
    from shanghai_net.cli.net import address_to_give, how_to_join

    everywhere = address_to_give("0.0.0.0")
    assert everywhere not in ("0.0.0.0", "127.0.0.1")  # a LAN address, else the machine's name
    assert how_to_join("0.0.0.0", 7777, "") == f"others join with `shanghai join {everywhere}:7777`"
    assert how_to_join("192.168.1.20", 7000, "cherry") == \
        "others join with `shanghai join 192.168.1.20:7000 --join-code cherry`"
    assert how_to_join("127.0.0.1", 7000, "") == \
        "others on this machine join with `shanghai join 127.0.0.1:7000 --fresh-identity`"


def test_play_and_host_wait_as_long_for_a_claim():
    """Issue 24: `play` defaulted the claim timeout to 8 s, `host` to 10 s."""
    from shanghai_net.cli import _parser
    from shanghai_net.net.config import HostConfig

    parse = _parser().parse_args
    assert parse(["play"]).claim_timeout == parse(["host"]).claim_timeout == \
        HostConfig.claim_timeout


def test_host_records_each_game_by_default_and_keeps_the_last_twenty(data_home, monkeypatch):
    """Issue 24: --record was off by default, so a host that crashed without it could not be
    resumed: now a new transcript in the data directory, unless --record or --no-record."""
    import shanghai_net.cli as cli
    from shanghai_net.cli.net import KEEP_RECORDS, recording

    records = data_home / "shanghai-net" / "records"
    hosted = []
    monkeypatch.setattr(cli, "hosted_console", lambda config, **table: hosted.append(config) or 0)
    for _ in range(KEEP_RECORDS + 3):
        assert main(["host", "--fresh-identity", "--players", "3"]) == 0
        hosted[-1].record.write_bytes(b"a game")  # what the host would write
    assert all(c.record.parent == records and c.record.suffix == ".bin" for c in hosted)
    assert len(set(c.record for c in hosted)) == len(hosted)  # a new file each time
    assert sorted(records.iterdir()) == sorted(c.record for c in hosted[-KEEP_RECORDS:])
    assert main(["host", "--fresh-identity", "--players", "3", "--no-record"]) == 0
    assert hosted[-1].record is None
    assert recording(None) == "not recording (--no-record): a crash cannot be taken up again"
    assert recording(records / "x.bin") == \
        f"recording to {records / 'x.bin'} (after a crash: shanghai host --resume {records / 'x.bin'})"
