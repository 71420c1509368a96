"""Issue 24: long work shows progress on a terminal (`simulate --games 300` with one expert left
a blank screen for 3 min 13 s), and nothing anywhere else (--json, or output to a program)."""

from __future__ import annotations

import json

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from shanghai_net.cli import main
from shanghai_net.cli.progress import progress
from shanghai_net.rules import preset
from shanghai_net.simulate import simulate


class Screen(DummyOutput):
    """A terminal that keeps what is written to it."""

    def __init__(self) -> None:
        self.text: list[str] = []

    def write(self, data: str) -> None:
        self.text.append(data)

    write_raw = write


def test_the_bar_counts_each_game_the_simulation_plays():
    screen = Screen()
    with create_pipe_input() as keys, progress(2, "2 games of davis", shown=True, input=keys,
                                               output=screen) as done:
        report = simulate(preset("davis"), ["basic"] * 3, 2, 1, on_game=done)
    drawn = "".join(screen.text)
    assert report.games == 2 and "2 games of davis" in drawn and "2/2" in drawn.replace(" ", "")


def test_no_bar_where_a_program_reads_the_output(capsys):
    assert main(["simulate", "--games", "1", "--players", "3"]) == 0  # stdout is no terminal here
    out = capsys.readouterr().out
    assert out.startswith("1 games of davis") and "eta" not in out
    assert main(["simulate", "--games", "1", "--players", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 1
