"""The levels over the network: ``shanghai bot --level expert`` plays a whole game against the
host's easy bots on 127.0.0.1, and ``shanghai verify`` accepts the host's record of it."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from shanghai_net.cli import main

CLI = [sys.executable, "-m", "shanghai_net.cli"]


def test_an_expert_bot_peer_plays_a_whole_networked_game_that_verifies(tmp_path, capsys):
    record = tmp_path / "game.bin"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    host = subprocess.Popen(
        CLI + ["host", "--port", "0", "--bind", "127.0.0.1", "--players", "3", "--bots", "2",
               "--level", "easy", "--no-console", "--fresh-identity", "--record", str(record),
               "--rule", "contracts=2s,1s1r"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        port = re.search(r"on port (\d+)", host.stdout.readline())[1]
        bot = subprocess.run(CLI + ["bot", f"127.0.0.1:{port}", "--level", "expert", "--think", "0",
                                    "--name", "ex"], env=env, capture_output=True, text=True, timeout=300)
        assert bot.returncode == 0, bot.stdout + bot.stderr
        assert "game over, totals" in bot.stdout
        out, err = host.communicate(timeout=60)
        assert host.returncode == 0, out + err
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()
    capsys.readouterr()
    assert main(["verify", str(record)]) == 0
    summary = capsys.readouterr().out
    seats = re.search(r"seats: (.*)", summary)[1].split(", ")
    assert sorted(s.split()[1] for s in seats) == ["easy1", "easy2", "ex"]  # hosted bots: by level
    assert "ok: every move and every deal checks out" in summary


@pytest.mark.parametrize("command", [["bot", "127.0.0.1:1"], ["host", "--no-console"], ["play"]])
def test_a_level_that_does_not_exist_is_refused_naming_the_levels(command, capsys):
    with pytest.raises(SystemExit) as info:
        main(command + ["--level", "wizard"])
    assert info.value.code == 2
    assert "invalid choice: 'wizard' (choose from 'random', 'easy', 'basic', 'expert')" in capsys.readouterr().err


def test_simulate_names_the_levels_by_seat(capsys):
    assert main(["simulate", "--preset", "marcelle", "--bots", "easy,basic,expert", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[1] for line in out.splitlines()[2:5]] == ["easy", "basic", "expert"]
