"""The tables on the LAN from the command line: ``shanghai tables`` lists them as DNS-SD announces
them (net/discovery.py), the options with which `tables` and `join` look for them, and where
``join`` goes (`find_table`: a table's name, a host's address)."""

from __future__ import annotations

import argparse
import socket

from .options import seconds

__all__ = ["add_tables_command", "address", "browse_options", "find_table"]


def _cmd_tables(args: argparse.Namespace) -> int:
    """List the tables on the LAN: as they come and go until interrupted, or with ``--json``
    once, after browsing ``--wait`` seconds."""
    import json

    import trio

    from ..net.discovery import find_tables, watch

    interfaces = [args.browse] if args.browse else None
    if args.json:
        found = trio.run(find_tables, args.wait, interfaces)
        print(json.dumps([table.to_json() for table in found], indent=1))
        return 0

    def show(listings) -> None:
        print(f"-- {len(listings)} table{'s' if len(listings) != 1 else ''} on the LAN "
              "(ctrl-c stops) --", flush=True)
        for listing in listings:
            print(listing.line(), flush=True)

    print("looking for tables on the LAN (ctrl-c stops)", flush=True)
    try:
        trio.run(watch, show, interfaces)
    except KeyboardInterrupt:
        pass
    return 0


def names_a_machine(name: str) -> bool:
    """Whether ``name`` resolves to an address: ``join NAME`` that names no table on the LAN
    goes to the machine of that name, if there is one."""
    try:
        socket.getaddrinfo(name, None)
    except (socket.gaierror, UnicodeError):
        return False
    return True


def no_table_named(name: str, seen, wait: float) -> str:
    """What ``join NAME`` says when no table on the LAN, nor any machine, has that name: the
    tables it did see (`Listing`s), so that a name mistyped shows beside the right one."""
    names = sorted({table.name for table in seen})
    tables = f"tables seen: {', '.join(names)}" if names else f"no table seen within {wait:g} s"
    return f"no table named {name} on the LAN ({tables}), nor a machine of that name"


def browse_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait", type=seconds(), default=3.0, metavar="SECONDS",
                        help="how long to look for tables on the LAN")
    parser.add_argument("--browse", metavar="ADDRESS",
                        help="look for tables only on the interface with this address "
                             "(127.0.0.1: this machine; default: every interface)")


def add_tables_command(sub, **options) -> None:
    """``shanghai tables``."""
    tables = sub.add_parser("tables", help="list the tables announced on the LAN", **options)
    tables.add_argument("--json", action="store_true",
                        help="print the tables found within --wait seconds as JSON, once")
    browse_options(tables)
    tables.set_defaults(func=_cmd_tables)


def address(text: str) -> tuple[str, int]:
    """``HOST[:PORT]`` as (host, port), the port 7777 unless given; a port out of range is a
    ValueError (a host's name that does not resolve fails at once when joining)."""
    from ..net.peer_link import parse_address

    written = text.rpartition(":")[2]
    if text.count(":") == 1 and not written.isdigit():  # one colon: no IPv6 address
        raise ValueError(f"{text}: the port {written!r} is not a number (HOST[:PORT], the port "
                         "1 to 65535)")
    host, port = parse_address(text)
    if not 1 <= port <= 65535:
        raise ValueError(f"{text}: {port} is no port: 1 to 65535")
    return host, port


def _looks_like_address(text: str) -> bool:
    """``join``'s argument is an address, not a table's name: it has a port, is an IP address,
    or is ``localhost``."""
    import ipaddress

    if ":" in text or text == "localhost":
        return True
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


def find_table(args: argparse.Namespace) -> tuple[tuple[str, int], str] | None:
    """Where ``join`` goes: (address, table).  No address: the tables found on the LAN, one
    chosen in the console; a name: the table of that name (else the argument is a host's
    name), unless its host speaks another protocol version; HOST[:PORT]: that host, at
    ``--table`` (or its first table).  None: none chosen."""
    import trio

    from ..net.discovery import find_tables

    interfaces = [args.browse] if args.browse else None
    target = args.address
    if target is not None and (args.table or _looks_like_address(target)):
        host, port = address(target)
        if not names_a_machine(host):
            raise ValueError(f"{target}: no machine named {host} (HOST[:PORT]: a machine's name "
                             "or address)")
        return (host, port), args.table or ""
    found = trio.run(find_tables, args.wait, interfaces, target)
    if target is not None:
        seen, found = found, [t for t in found if t.name == target]
        if not found and names_a_machine(target):  # no table of that name: a host's name
            return address(target), args.table or ""
        if not found:
            raise ValueError(no_table_named(target, seen, args.wait))
        ours = [t for t in found if t.other_version() is None]
        if not ours:  # its host would refuse our hello: say so before trying
            raise ValueError(f"cannot join {target} at {found[0].address}:{found[0].port}: "
                             f"{found[0].other_version()} (both machines need the same "
                             "version of shanghai-net)")
        found = ours
    if not found:
        raise ValueError(f"no table found on the LAN within {args.wait:g} s; give the host's "
                         "address: shanghai join HOST[:PORT]")
    chosen = found[0] if len(found) == 1 and target is not None else args.pick(found)
    if chosen is None:
        return None
    print(f"joining {chosen.name} at {chosen.address}:{chosen.port}; the lobby should show host "
          f"key {chosen.fingerprint}", flush=True)
    return (chosen.address, chosen.port), chosen.name
