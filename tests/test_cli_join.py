"""Issue 41, item 7: join's errors name what was wrong: a port that is no number (it said
"cannot reach 127.0.0.1:abc:7777: [Errno -2]") and a table name nobody announces (it said
Errno -2 instead of naming the tables there are)."""

from __future__ import annotations

import pytest

from test_cli_errors import one_line_error
from test_net_discovery import multicast_on_loopback  # noqa: F401 - a fixture


@pytest.mark.parametrize("argv, said", [
    (["join", "127.0.0.1:abc"], "shanghai: 127.0.0.1:abc: 'abc' is no port: a number from 1 to "
                                "65535\n"),
    (["watch", "localhost:7x"], "shanghai: localhost:7x: '7x' is no port: a number from 1 to "
                                "65535\n"),
    (["join", "no-such-table-here", "--wait", "0.3", "--browse", "127.0.0.1"],
     "shanghai: no table named no-such-table-here on the LAN within 0.3 s (tables seen: *), "
     "nor a host of that name\n"),  # whatever other tests of this machine announce
])
def test_a_join_that_cannot_go_anywhere_says_why(capsys, argv, said):
    import fnmatch

    line = one_line_error(capsys, argv)
    assert fnmatch.fnmatchcase(line, said), line


async def test_a_table_name_not_on_the_lan_is_said_with_the_names_there_are(multicast_on_loopback):
    import argparse

    import trio

    from shanghai_net.cli.net import _find_table
    from shanghai_net.net.host import HostConfig
    from shanghai_net.net.discovery import watch
    from shanghai_net.net.tables import TableServer

    from test_net_discovery import KITCHEN, LOOPBACK, PORCH, Seen, named

    server = TableServer(HostConfig(players=3), [KITCHEN, PORCH], announce=True)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    seen = Seen()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run, listeners)
            await nursery.start(watch, seen, LOOPBACK)
            await seen.until(lambda found: named(KITCHEN)(found) and named(PORCH)(found))
            options = argparse.Namespace(address="no-such-attic", table=None,
                                         browse="127.0.0.1", wait=3.0, pick=None)
            with pytest.raises(ValueError) as refused:
                await trio.to_thread.run_sync(_find_table, options)
            said = str(refused.value)
            assert said.startswith("no table named no-such-attic on the LAN within 3 s (tables "
                                   "seen: ") and KITCHEN in said and PORCH in said, said
            nursery.cancel_scope.cancel()
