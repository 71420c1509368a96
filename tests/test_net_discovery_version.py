"""A table whose host speaks another protocol version, found on the LAN (loopback only, as in
test_net_discovery.py): it was offered like any other and its join then refused by the host.
Now `shanghai tables` and the table picker show its version beside ours and the picker offers
only the tables of ours; ``join NAME`` says why in one line before it connects.  The records
are announced here by our own `Announcer` on 127.0.0.1; nothing connects to them."""

from __future__ import annotations

import argparse

import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from shanghai_net.cli.lan import find_table
from shanghai_net.console.picker import TablePicker, pick_table, picker_text
from shanghai_net.net.discovery import Announcer, watch
from shanghai_net.wire.messages import PROTOCOL_VERSION

from test_cli_newcomer import exit_code
from test_net_discovery import LOOPBACK, RUN, Seen, multicast_on_loopback, named  # noqa: F401

KEY = "fb1f-9081-ead7-b44f-0a1b-2c3d-4e5f-6a7b"
OLD, OURS = f"old-{RUN}", f"ours-{RUN}"
BEFORE = PROTOCOL_VERSION - 1


def record(name: str, version: int) -> dict[str, str]:
    return {"table": name, "preset": "davis", "seats": "1/3", "state": "lobby", "fp": KEY,
            "v": str(version)}


async def test_a_table_of_another_protocol_version_is_listed_with_it_and_not_joined(
        capsys, multicast_on_loopback):
    shown, why = [], f"its host speaks protocol version {BEFORE}, this program {PROTOCOL_VERSION}"

    def pick(found):  # ``join`` with no address: the picker, enter at once
        tables = [t for t in found if t.name in (OLD, OURS)]  # not another run's tables
        shown.append("".join(text for _, text in picker_text(TablePicker(tables))))
        with create_pipe_input() as pipe:
            pipe.send_text("\r")
            return pick_table(tables, input=pipe, output=DummyOutput())

    with trio.fail_after(60):
        async with await Announcer.open(LOOPBACK, 9) as announcer:
            await announcer.show({OLD: record(OLD, BEFORE), OURS: record(OURS, PROTOCOL_VERSION)})
            seen = Seen()
            async with trio.open_nursery() as nursery:
                await nursery.start(watch, seen, LOOPBACK)
                found = await seen.until(lambda found: named(OLD)(found) and named(OURS)(found))
                nursery.cancel_scope.cancel()
            [old], [ours] = named(OLD)(found), named(OURS)(found)
            assert old.version == BEFORE and old.line().endswith(f"({why}: cannot join)")
            assert ours.version == PROTOCOL_VERSION and "cannot join" not in ours.line()

            capsys.readouterr()
            code = await trio.to_thread.run_sync(exit_code, [
                "join", OLD, "--fresh-identity", "--browse", "127.0.0.1", "--wait", "20"])
            out, err = capsys.readouterr()
            assert code == 2 and not out and err == (
                f"shanghai: cannot join {OLD} at 127.0.0.1:9: {why} (both machines need the "
                "same version of shanghai-net)\n"), err

            options = argparse.Namespace(address=None, table=None, browse="127.0.0.1",
                                         wait=5.0, pick=pick)
            assert await trio.to_thread.run_sync(find_table, options) == \
                (("127.0.0.1", 9), OURS)  # enter joined ours: the cursor passed the old one by
    [listed] = shown
    assert f"1/3  {why}: cannot join\n" in listed, listed
    assert f"{OURS}  davis" in listed and "1/3  lobby\n" in listed
