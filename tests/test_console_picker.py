"""Issue 24: the table picker (`shanghai join` with no address) joins with enter, cancels with
esc, q or ctrl-c, shows each host key whole, offers no full table, and tells apart two tables of
one name at two hosts."""

from __future__ import annotations

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from shanghai_net.console.picker import TablePicker, pick_table, picker_text
from shanghai_net.net.discovery import Listing
from shanghai_net.wire.messages import PROTOCOL_VERSION

KEY = "fb1f-9081-ead7-b44f-0a1b-2c3d-4e5f-6a7b"


def listing(name, seats="1/4", state="lobby", address="192.168.1.20", version=PROTOCOL_VERSION):
    return Listing(name=name, preset="davis", seats=seats, state=state, fingerprint=KEY,
                   address=address, port=7777, version=version)


TABLES = [listing("table1", seats="4/4"), listing("table1", address="192.168.1.21"),
          listing("porch", seats="3/3", state="playing"), listing("attic", seats="3/3")]


def test_the_cursor_skips_full_tables_and_names_two_hosts_tables_apart():
    picker = TablePicker(TABLES)
    assert picker.labels == ["table1 @ 192.168.1.20:7777", "table1 @ 192.168.1.21:7777",
                             "porch", "attic"]
    assert picker.cursor == 1  # the first table is full
    picker.move(1)
    assert picker.cursor == 2  # a game being played: its players rejoin it
    picker.move(1)
    assert picker.cursor == 2  # the last one is full too
    picker.move(-1)
    picker.move(-1)
    assert picker.cursor == 1
    text = "".join(t for _, t in picker_text(picker))
    assert text.count(f"host key {KEY}\n") == 4
    assert "4/4  full" in text and "playing: its players rejoin" in text
    picker.choose()
    assert picker.done and picker.chosen is TABLES[1]


def test_with_every_table_full_enter_chooses_nothing_and_says_how_to_open_one():
    picker = TablePicker([TABLES[0], TABLES[3]])
    picker.choose()
    assert not picker.done and picker.cursor is None
    assert "--table NAME --open" in "".join(t for _, t in picker_text(picker))


@pytest.mark.parametrize("keys, chosen", [
    ("\r", 1), ("\x1b[B\r", 2), ("j\x1b[A\r", 1), ("q", None), ("\x03", None), ("\x1b", None)])
def test_enter_joins_and_esc_q_and_ctrl_c_cancel(keys, chosen):
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        got = pick_table(TABLES, input=pipe, output=DummyOutput())
    assert got is (None if chosen is None else TABLES[chosen])


def test_a_table_of_another_protocol_version_says_so_and_is_not_offered():
    """It was offered like any other, and its host then refused the join.  A record that says
    no version (0) is offered: the join finds out."""
    other = listing("shed", version=PROTOCOL_VERSION + 1)
    tables = [other, listing("porch", seats="3/3"), listing("old", version=0)]
    picker = TablePicker(tables)
    assert picker.cursor == 2
    picker.move(-1)
    assert picker.cursor == 2
    text = "".join(t for _, t in picker_text(picker))
    assert f"1/4  its host speaks protocol version {PROTOCOL_VERSION + 1}, this program " \
           f"{PROTOCOL_VERSION}: cannot join\n" in text, text
    with create_pipe_input() as pipe:
        pipe.send_text("\x1b[A\x1b[A\r")  # up twice: still the last table
        assert pick_table(tables, input=pipe, output=DummyOutput()) is tables[2]
    picker = TablePicker(tables[:2])
    picker.choose()
    assert not picker.done and picker.cursor is None
    text = "".join(t for _, t in picker_text(picker))
    assert "no table here can be joined: full, or its host speaks another protocol version" \
        in text and "every table is full" not in text
