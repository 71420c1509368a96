"""Finding tables with DNS-SD over mDNS, on loopback only: a host bound to 127.0.0.1 announces
its tables there, `shanghai tables --json` and ``join NAME`` find them with their fields, the
record follows the lobby, and a closed table is withdrawn.  Nothing is sent to any other
interface: the hosts bind 127.0.0.1 and every browser is given 127.0.0.1.  Where multicast on
loopback does not work (``ip link set lo multicast on`` may help) the tests skip, saying so
(``make test`` prints every skip with ``-rs``); under CI (``CI=true``, as .ci/run sets) that is a failure."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import threading

import pytest
import trio

from shanghai_net.cli import main
from shanghai_net.identity import Identity
from shanghai_net.cli.lan import find_table
from shanghai_net.net.discovery import SERVICE, watch
from shanghai_net.net.host import HostConfig
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.tables import TableServer
from shanghai_net.wire.messages import PROTOCOL_VERSION

LOOPBACK = ["127.0.0.1"]
RUN = secrets.token_hex(3)
KITCHEN, PORCH, ATTIC = f"kitchen-{RUN}", f"porch-{RUN}", f"attic-{RUN}"
"""Table names of this run only: loopback's mDNS is shared by every process on the machine, so
another test run's tables (a second `make test` beside this one) may be listed too."""


@pytest.fixture(scope="module")
def multicast_on_loopback():
    """Skip unless an mDNS record announced on 127.0.0.1 is heard there; under CI (the
    environment sets ``CI``, as .ci/run does) fail instead: CI's machine has multicast on
    loopback, so there a skip would hide the discovery tests breaking."""
    from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, Zeroconf

    heard = threading.Event()
    announcer = Zeroconf(interfaces=LOOPBACK, ip_version=IPVersion.V4Only)
    listener = Zeroconf(interfaces=LOOPBACK, ip_version=IPVersion.V4Only)
    try:
        info = ServiceInfo(SERVICE, f"probe.{SERVICE}", port=9, properties={"probe": "1"},
                           server="shanghai-probe.local.", parsed_addresses=LOOPBACK)
        announcer.register_service(info, allow_name_change=True)
        browser = ServiceBrowser(listener, SERVICE, handlers=[lambda **_: heard.set()])
        heard.wait(10)
        browser.cancel()
    finally:
        announcer.close()
        listener.close()
    if not heard.is_set():
        why = ("multicast on loopback does not work here: an mDNS record announced on "
               "127.0.0.1 was not heard (try `ip link set lo multicast on`)")
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{why}; CI's machine has it, so under CI (CI={os.environ['CI']}) this is "
                        "a failure, not a skip")
        pytest.skip(why)


class Seen:
    """The tables a browser found, latest first; `until` waits for a predicate on them."""

    def __init__(self) -> None:
        self.latest = []
        self._changed = trio.Event()

    def __call__(self, listings) -> None:
        self.latest = listings
        self._changed.set()
        self._changed = trio.Event()

    async def until(self, check) -> list:
        while not check(self.latest):
            await self._changed.wait()
        return self.latest


def named(name):
    return lambda listings: [t for t in listings if t.name == name]


async def test_an_announced_table_is_listed_with_its_fields(tmp_path, capsys,
                                                            multicast_on_loopback):
    server = TableServer(HostConfig(players=4, preset="good-miller"), [KITCHEN, PORCH],
                         announce=True)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    seen = Seen()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run, listeners)
            await nursery.start(watch, seen, LOOPBACK)
            await seen.until(lambda found: named(KITCHEN)(found) and named(PORCH)(found))

            code = await trio.to_thread.run_sync(  # its own trio run, in a thread
                main, ["tables", "--json", "--browse", "127.0.0.1", "--wait", "5"])
            listed = {t["name"]: t for t in json.loads(capsys.readouterr().out)}
            assert code == 0 and {KITCHEN, PORCH} <= set(listed)
            assert listed[KITCHEN] == {
                "name": KITCHEN, "preset": "good-miller", "seats": "0/4", "state": "lobby",
                "fingerprint": server.identity.fingerprint, "address": "127.0.0.1",
                "port": port, "version": PROTOCOL_VERSION, "sharing": "off"}

            # the lobby's host key (welcome.table.host_fingerprint) is the one listed
            assert all(t.host.identity.fingerprint == listed[KITCHEN]["fingerprint"]
                       for t in server.opened)

            options = argparse.Namespace(address=PORCH, table=None, browse="127.0.0.1",
                                         wait=10.0, pick=None)
            assert await trio.to_thread.run_sync(find_table, options) == \
                (("127.0.0.1", port), PORCH)
            offered = []

            def pick(found):  # `join` with no address: the player chooses from the list
                offered.extend(t.name for t in found)
                return next(t for t in found if t.name == KITCHEN)

            options = argparse.Namespace(address=None, table=None, browse="127.0.0.1",
                                         wait=5.0, pick=pick)
            assert await trio.to_thread.run_sync(find_table, options) == \
                (("127.0.0.1", port), KITCHEN)
            assert {KITCHEN, PORCH} <= set(offered)

            # the record follows the lobby: a seat taken shows
            identity = Identity(bytes(32), bytes([1]) * 32)
            nursery.start_soon(Peer(("127.0.0.1", port), identity, BotPlayer(), name="ann",
                                    table=PORCH, auto_ready=False, reconnect=False).run)
            await seen.until(lambda found: [t for t in named(PORCH)(found) if t.seats == "1/4"])
            nursery.cancel_scope.cancel()


async def test_a_closed_host_withdraws_its_tables(multicast_on_loopback):
    server = TableServer(HostConfig(players=3), [ATTIC], announce=True)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    seen = Seen()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await nursery.start(watch, seen, LOOPBACK)
            async with trio.open_nursery() as hosting:
                await hosting.start(server.run, listeners)
                await seen.until(named(ATTIC))
                hosting.cancel_scope.cancel()
            await seen.until(lambda found: not named(ATTIC)(found))
            nursery.cancel_scope.cancel()

