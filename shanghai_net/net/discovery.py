"""Finding a table on the LAN: DNS-SD over mDNS (python-zeroconf), service ``_shanghai._tcp``.

A host announces each open table (`Announcer`) with a TXT record of its name, preset, seats
taken/total, state and host key fingerprint (protocol.md 5.1), only on the interfaces it
listens on (a host bound to 127.0.0.1 announces on loopback only), and withdraws it when the
table closes.  `watch` and `find_tables` browse.  zeroconf runs its own threads and asyncio
loop: every call into it goes through `trio.to_thread`, and its callbacks come back through
the trio token; none of it reaches the sans-IO core.
"""

from __future__ import annotations

import math
import re
import socket
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import trio

from ..wire.messages import PROTOCOL_VERSION

__all__ = ["SERVICE", "Listing", "Announcer", "watch", "find_tables"]

SERVICE = "_shanghai._tcp.local."
RESOLVE_MS = 3000
"""How long to wait for a table's record once its name is seen."""


@dataclass(frozen=True)
class Listing:
    """One table found on the LAN (its TXT record, and where to connect)."""

    name: str
    preset: str
    seats: str
    """Taken/total, as ``"2/4"``."""
    state: str
    """``lobby`` or ``playing``."""
    fingerprint: str
    """The host key's fingerprint, the one its lobby shows."""
    address: str
    port: int
    version: int
    """The protocol version the host speaks (0: its record says none)."""
    sharing: str = ""
    """The table's sharing setting (docs/dealing.md): ``off``, or ``T of H`` (any ``T`` of
    its ``H`` share holders could see every card, and rebuild a silent seat); empty: its
    record says none."""

    def to_json(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        other = self.other_version()
        return (f"{self.name:<20} {self.preset:<12} {self.seats:>5}  {self.state:<8} "
                f"{self.address}:{self.port}  host key {self.fingerprint}"
                + (f"  sharing {self.sharing}" if self.sharing else "")
                + (f"  ({other}: cannot join)" if other else ""))

    def other_version(self) -> str | None:
        """Why this program cannot join the table, if its host announces another protocol
        version than ours (its host would refuse our hello); None if it speaks ours, or its
        record says no version (a join finds out)."""
        if self.version in (0, PROTOCOL_VERSION):
            return None
        return f"its host speaks protocol version {self.version}, this program {PROTOCOL_VERSION}"


def _listing(info) -> Listing | None:
    """The listing a resolved service holds; None if its record lacks a field (not ours)."""
    fields = {key.decode(errors="replace"): (value or b"").decode(errors="replace")
              for key, value in info.properties.items()}
    addresses = info.parsed_addresses()
    try:
        return Listing(name=fields["table"], preset=fields["preset"], seats=fields["seats"],
                       state=fields["state"], fingerprint=fields["fp"], address=addresses[0],
                       port=int(info.port), version=int(fields.get("v", "0")),
                       sharing=fields.get("sharing", "")[:16])
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def _zeroconf(addresses: Sequence[str] | None):
    """A zeroconf instance on the interfaces with these addresses (None or ``0.0.0.0``: all)."""
    from zeroconf import InterfaceChoice, IPVersion, Zeroconf

    wide = not addresses or any(a in ("0.0.0.0", "", "::") for a in addresses)
    return Zeroconf(interfaces=InterfaceChoice.All if wide else list(addresses),
                    ip_version=IPVersion.V4Only)


def _own_addresses(addresses: Sequence[str]) -> list[str]:
    """The addresses a table is announced with: those the host listens on, or for a wildcard
    every IPv4 address of the machine but loopback (a loopback address is no use elsewhere)."""
    if not any(a in ("0.0.0.0", "") for a in addresses):
        return list(addresses)
    import ifaddr

    found = [ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips
             if isinstance(ip.ip, str) and not ip.ip.startswith("127.")]
    return found or ["127.0.0.1"]


class Announcer:
    """The tables of one host on the LAN: `show` makes the announced set equal to the records
    it is given (new ones registered, changed ones updated, gone ones withdrawn)."""

    def __init__(self, zc, addresses: list[str], port: int) -> None:
        self._zc = zc
        self._addresses = addresses
        self._port = port
        self._shown: dict[str, tuple[object, dict[str, str]]] = {}
        label = re.sub(r"[^a-z0-9-]", "-", socket.gethostname().lower())[:40].strip("-")
        self._server = f"shanghai-{label or 'host'}-{port}.local."

    @classmethod
    async def open(cls, addresses: Sequence[str], port: int) -> Announcer:
        zc = await trio.to_thread.run_sync(_zeroconf, list(addresses))
        return cls(zc, _own_addresses(addresses), port)

    async def __aenter__(self) -> Announcer:
        return self

    async def __aexit__(self, *exc) -> None:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(self._close)

    def _close(self) -> None:
        self._zc.unregister_all_services()
        self._zc.close()

    async def show(self, records: dict[str, dict[str, str]]) -> None:
        from zeroconf import ServiceInfo

        for name in [n for n in self._shown if n not in records]:
            info, _ = self._shown.pop(name)
            await trio.to_thread.run_sync(self._zc.unregister_service, info)
        for name, record in records.items():
            shown = self._shown.get(name)
            if shown is not None and shown[1] == record:
                continue
            # another host's table of the same name gets " (2)" in DNS-SD: keep what it got
            instance = f"{name}.{SERVICE}" if shown is None else shown[0].name
            info = ServiceInfo(SERVICE, instance, port=self._port, properties=record,
                               server=self._server, parsed_addresses=self._addresses)
            if shown is None:
                await trio.to_thread.run_sync(
                    lambda: self._zc.register_service(info, allow_name_change=True))
            else:
                await trio.to_thread.run_sync(self._zc.update_service, info)
            self._shown[name] = (info, record)


async def watch(on_change: Callable[[list[Listing]], None], addresses: Sequence[str] | None = None,
                task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Browse until cancelled, calling ``on_change`` with every table found (by name) each time
    the set changes.  ``addresses``: browse on these interfaces only (None: all)."""
    from zeroconf import ServiceBrowser, ServiceInfo, ServiceStateChange

    token = trio.lowlevel.current_trio_token()
    send, receive = trio.open_memory_channel(math.inf)

    def heard(zeroconf, service_type, name, state_change) -> None:  # zeroconf's thread
        try:
            token.run_sync_soon(send.send_nowait, (name, state_change))
        except trio.RunFinishedError:
            pass

    zc = await trio.to_thread.run_sync(_zeroconf, addresses)
    browser = None
    try:
        browser = await trio.to_thread.run_sync(
            lambda: ServiceBrowser(zc, SERVICE, handlers=[heard]))
        task_status.started()
        found: dict[str, Listing] = {}
        async for name, change in receive:
            if change is ServiceStateChange.Removed:
                found.pop(name, None)
            else:
                info = ServiceInfo(SERVICE, name)
                listing = None
                if await trio.to_thread.run_sync(info.request, zc, RESOLVE_MS):
                    listing = _listing(info)
                if listing is None:
                    continue
                found[name] = listing
            on_change(sorted(found.values(), key=lambda t: (t.name, t.address, t.port)))
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_stop, browser, zc)


def _stop(browser, zc) -> None:
    if browser is not None:
        browser.cancel()
    zc.close()


async def find_tables(seconds: float = 3.0, addresses: Sequence[str] | None = None,
                      name: str | None = None) -> list[Listing]:
    """The tables found within ``seconds`` of browsing; with ``name``, as soon as one of that
    name is found (the list then holds every table found so far: the caller picks by name, or
    says which tables there were)."""
    latest: list[Listing] = []
    with trio.move_on_after(seconds):
        async with trio.open_nursery() as nursery:
            def seen(listings: list[Listing]) -> None:
                latest[:] = listings
                if name is not None and any(t.name == name for t in listings):
                    nursery.cancel_scope.cancel()
            nursery.start_soon(watch, seen, addresses)
    return latest
