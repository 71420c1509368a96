"""Issue 41, a newcomer's evening: what the command line said that a person could not use.
``join`` with a port that is no number or a table's name that names nothing (one line, exit
2, naming the tables it did see; discovery on loopback only, as in test_net_discovery.py)."""

from __future__ import annotations

import argparse
import socket
import sys

import pytest
import trio

from shanghai_net.cli import main
from shanghai_net.cli.lan import find_table, names_a_machine
from shanghai_net.net.host import HostConfig
from shanghai_net.net.tables import TableServer
from shanghai_net.rules import PRESETS, preset

from test_cli_errors import one_line_error
from test_net_discovery import RUN, multicast_on_loopback  # noqa: F401  (a fixture)


@pytest.mark.parametrize("argv", [["join", "127.0.0.1:abc", "--fresh-identity"],
                                  ["join", "127.0.0.1:", "--fresh-identity"],
                                  ["bot", "localhost:abc"], ["watch", "127.0.0.1:abc"]])
def test_an_address_whose_port_is_no_number_is_one_line(capsys, argv):
    """It was taken for a host's name: "cannot reach 127.0.0.1:abc:7777: [Errno -2] ..."."""
    written = argv[1].rpartition(":")[2]
    line = one_line_error(capsys, argv)
    assert line == f"shanghai: {argv[1]}: the port {written!r} is not a number (HOST[:PORT], " \
                   "the port 1 to 65535)\n"


def exit_code(argv: list[str]) -> int:
    """``main(argv)``'s exit status, in a thread of its own (it runs trio itself)."""
    try:
        return main(argv)
    except SystemExit as exit:
        return exit.code


async def test_join_by_a_name_no_table_nor_machine_has_lists_the_tables_seen(
        capsys, multicast_on_loopback):
    """``join kitchen`` with no such table said Errno -2 (it was looked up as a machine)."""
    porch, kitchen = f"porch-{RUN}", f"kitchen-{RUN}"
    assert not names_a_machine(kitchen)
    server = TableServer(HostConfig(players=3), [porch], announce=True)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            options = argparse.Namespace(address=porch, table=None, browse="127.0.0.1",
                                         wait=20.0, pick=None)
            assert await trio.to_thread.run_sync(find_table, options) == \
                (("127.0.0.1", port), porch)  # porch is seen now: kitchen's browse lists it
            capsys.readouterr()
            code = await trio.to_thread.run_sync(exit_code, [
                "join", kitchen, "--fresh-identity", "--browse", "127.0.0.1", "--wait", "3"])
            nursery.cancel_scope.cancel()
    out, err = capsys.readouterr()
    assert code == 2 and not out and err.count("\n") == 1, err
    assert err.startswith(f"shanghai: no table named {kitchen} on the LAN (tables seen: "), err
    assert porch in err.partition("tables seen: ")[2].partition(")")[0].split(", ")
    assert err.endswith("), nor a machine of that name\n"), err


def test_join_by_a_name_nothing_answers_to_says_no_table_was_seen(capsys):
    """Without a table on the LAN: the name is no table's, nor any machine's."""
    kitchen = f"kitchen-{RUN}"
    line = one_line_error(capsys, ["join", kitchen, "--fresh-identity", "--browse", "127.0.0.1",
                                   "--wait", "0.5"])
    assert line.startswith(f"shanghai: no table named {kitchen} on the LAN ("), line


def test_join_at_a_machine_whose_name_does_not_resolve_is_one_line(capsys):
    """It was "cannot reach kitchen:7777: [Errno -2] Name or service not known"."""
    kitchen = f"kitchen-{RUN}"
    for argv, given in ((["join", f"{kitchen}:7777"], f"{kitchen}:7777"),
                        (["join", kitchen, "--table", "one"], kitchen)):
        line = one_line_error(capsys, [*argv, "--fresh-identity"])
        assert line == f"shanghai: {given}: no machine named {kitchen} (HOST[:PORT]: a " \
                       "machine's name or address)\n"


def test_join_by_the_name_of_a_machine_with_no_table_of_that_name_goes_to_the_machine():
    here = socket.gethostname()
    if not names_a_machine(here):
        pytest.skip(f"this machine's name {here} does not resolve")
    options = argparse.Namespace(address=here, table=None, browse="127.0.0.1", wait=0.5,
                                 pick=None)
    assert find_table(options) == ((here, 7777), "")


HEAVY = ("trio", "prompt_toolkit", "zeroconf", "nacl", "msgpack", "shanghai_net.console",
         "shanghai_net.conformance", "shanghai_net.net.host", "shanghai_net.net.peer",
         "shanghai_net.deal", "shanghai_net.table", "shanghai_net.wire")
"""What no command's ``--help`` needs: the network, the console, the deal and the wire."""


@pytest.mark.parametrize("argv", [["--help"], ["join", "--help"], ["host", "--help"],
                                  ["tables", "--help"], ["conformance", "--help"]])
def test_help_imports_nothing_the_commands_run_with(argv):
    """``shanghai --help`` took 5-9 s on a busy machine: it imported trio, the conformance kit
    and through it the host, the deal and the wire, none of which the parser needs."""
    import subprocess

    probe = ("import sys\nfrom shanghai_net.cli import main\ntry:\n    main(sys.argv[1:])\n"
             "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True,
                          timeout=120)
    assert "usage: shanghai" in done.stdout, done.stderr
    loaded = done.stderr.split()
    assert "shanghai_net.cli" in loaded
    assert not [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY)]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_rules_card_cites_no_design_seed(name):
    """The card said "Davis family rules (seed 000)": the preset's description, which named the
    design document it came from, words for no player."""
    from shanghai_net.console.sheets import rules_card

    rules = preset(name)
    assert "seed" not in rules.description
    assert not [line for line in rules_card(rules, rules.min_players) if "seed" in line]


async def test_a_person_refused_a_seat_is_told_why_in_words_without_the_code():
    """"connection failed: refused: table_full: no free seat ...": the code is for programs."""
    from shanghai_net.cli.net import HostedTable
    from shanghai_net.cli.spectate import may_watch_instead
    from shanghai_net.identity import Identity
    from shanghai_net.net.session import NetSession

    from test_net_session import until

    table = HostedTable(HostConfig(players=3), bots=[], seed=7, name="ann")
    async with trio.open_nursery() as nursery:
        await nursery.start(table.serve)
        await nursery.start(table.session.run)
        await until(table.session, lambda: table.session.lobby is not None)
        people = [NetSession(table.session.address, Identity(bytes([i]) * 32, bytes(32)),
                             name=name, reconnect=False)
                  for i, name in enumerate(("bea", "cy", "dan"))]
        for seat, person in enumerate(people[:2], start=1):
            await nursery.start(person.run)
            await until(person, lambda: person.lobby is not None and person.lobby.you == seat)
        dan = people[2]
        await nursery.start(dan.run)
        await until(dan, lambda: dan.status.startswith("connection failed"))
        nursery.cancel_scope.cancel()
    assert dan.status.startswith("connection failed: the host refused: no free seat at this "
                                 "table (its 3 seats are taken)"), dan.status
    assert "table_full" not in dan.status and may_watch_instead(dan.status)
