"""``shanghai host --no-console --bots K`` hosts a whole game between bots over loopback and
exits 0 when it is over; a bad house rule is refused before anything listens."""

from __future__ import annotations

import os
import subprocess
import time
import sys

import pytest

from shanghai_net.cli import main
from shanghai_net.net.host import read_transcript


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
    assert messages[0].TYPE == "start_game" and messages[0].rules == {"contracts": "2s"}
    assert (tmp_path / "config" / "shanghai-net" / "identity").exists()


def test_bad_house_rule_is_refused():
    with pytest.raises(SystemExit) as info:
        main(["host", "--port", "0", "--rule", "no_such_rule=1", "--no-console"])
    assert info.value.code == 2


def test_a_killed_host_resumes_from_its_transcript_with_its_bots(tmp_path):
    """``shanghai host --resume FILE``: the host process is killed mid-game; started again on
    the transcript, it starts its bots again (their keys and game secrets kept on disk), they
    rejoin their seats, and the game finishes."""
    record = tmp_path / "game.bin"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    command = [sys.executable, "-m", "shanghai_net.cli", "host", "--port", "0", "--bind",
               "127.0.0.1", "--bots", "3", "--no-console"]
    first = subprocess.Popen(command + ["--players", "3", "--record", str(record),
                                        "--rule", "contracts=2s"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not record.exists() or record.stat().st_size < 40_000:  # well into the round
            assert first.poll() is None and time.monotonic() < deadline, "no game to kill"
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
