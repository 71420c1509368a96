"""Issue 24: bad input to a command is one line on stderr naming what was wrong and what to do,
with exit status 2 (1 for a table that cannot be reached), never a traceback nor a silent
nonsense (a port of 70000 hosting on 4464, a rate of -3597122 games a second)."""

from __future__ import annotations

import socket

import pytest

from shanghai_net.cli import main


def one_line_error(capsys, argv: list[str], code: int = 2) -> str:
    with pytest.raises(SystemExit) as exit:
        main(argv)
    assert exit.value.code == code
    return only_line(capsys)


def only_line(capsys) -> str:
    out, err = capsys.readouterr()
    assert not out and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("argv, said", [
    (["host", "--port", "70000"], "--port: 70000 is no port: 0 to 65535 (0: any free one)"),
    (["host", "--port", "-1"], "--port: -1 is no port: 0 to 65535"),
    (["host", "--port", "x"], "--port: 'x' is not a port"),
    (["simulate", "--games", "0"], "--games: 0 is too few: give 1 or more"),
    (["simulate", "--games", "-5"], "--games: -5 is too few: give 1 or more"),
    (["play", "--name", "n" * 33], "--name: 33 characters: a name at the table is 1 to 32"),
    (["bot", "localhost", "--name", ""], "--name: 0 characters: a name at the table is 1 to 32"),
    (["host", "--claim-timeout", "-1"], "--claim-timeout: -1 is no time: give seconds above 0"),
    (["play", "--claim-timeout", "0"], "--claim-timeout: 0 is no time: give seconds above 0"),
    (["watch", "--rounds", "-1"], "--rounds: -1 is too few: give 0 or more"),
    (["watch", "--delay", "-1"], "--delay: -1 is no time: give seconds from 0"),
    (["tables", "--wait", "-1"], "--wait: -1 is no time: give seconds above 0"),
    (["join", "--wait", "nan"], "--wait: nan is no time: give seconds above 0"),
    (["host", "--join-code", "c" * 17], "--join-code: 17 characters: a join code is 0 to 16"),
    (["host", "--tables", "0"], "--tables: 0 is too few: give 1 or more"),
])
def test_an_option_out_of_its_range_is_one_line_naming_the_range(capsys, argv, said):
    line = one_line_error(capsys, argv)
    assert line.startswith(f"shanghai {argv[0]}: argument {said}"), line
    assert line.endswith(f"(see shanghai {argv[0]} --help)\n")


def test_a_port_out_of_range_in_an_address_is_one_line(capsys):
    line = one_line_error(capsys, ["bot", "localhost:99999"])
    assert line == "shanghai: localhost:99999: 99999 is no port: 1 to 65535\n"


def test_a_resume_of_a_missing_file_is_one_line(capsys, tmp_path):
    missing = tmp_path / "game.bin"
    line = one_line_error(capsys, ["host", "--no-console", "--resume", str(missing)])
    assert line == f"shanghai: --resume {missing}: no such file (give the transcript that host " \
                   "--record wrote)\n"


def test_hosting_on_a_port_in_use_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for console in ([], ["--no-console"]):
            line = one_line_error(capsys, ["host", "--bind", "127.0.0.1", "--port", str(port),
                                           "--no-announce", "--players", "3", *console])
            assert line == (f"shanghai: cannot listen on 127.0.0.1:{port}: Address already in "
                            "use (is a table hosted there already?); choose another --port (0: "
                            "any free one)\n"), console


def test_a_bot_sent_where_no_table_is_says_so_at_once(capsys):
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    assert main(["bot", f"127.0.0.1:{port}"]) == 1
    line = only_line(capsys)
    assert line.startswith(f"shanghai bot: cannot reach 127.0.0.1:{port}: ")
    assert line.endswith("(is a table hosted there?)\n")


def test_output_cut_short_by_its_reader_is_no_traceback():
    """`shanghai watch | head -1`: the reader goes away, the command stops without a word."""
    import subprocess
    import sys

    watch = subprocess.Popen([sys.executable, "-m", "shanghai_net.cli", "watch", "--delay", "0",
                              "--rounds", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    watch.stdout.close()  # as head does once it has its line: a whole game is still to come
    assert watch.wait(timeout=120) == 141 and watch.stderr.read() == b""
    watch.stderr.close()


def test_the_console_without_a_terminal_is_one_line(capsys, monkeypatch):
    """`shanghai join` with stdin not a terminal ended in prompt_toolkit's EOFError traceback."""
    import shanghai_net.console as console

    def no_terminal(*args, **kwargs):
        raise EOFError

    monkeypatch.setattr(console, "run_console", no_terminal)
    for argv in (["join", "127.0.0.1:1", "--fresh-identity"],
                 ["play", "--seed", "1"]):
        line = one_line_error(capsys, argv)
        assert line.startswith("shanghai: the console needs a terminal to read your keys from")
