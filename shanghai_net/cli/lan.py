"""The tables on the LAN from the command line: ``shanghai tables`` lists them as DNS-SD announces
them (net/discovery.py), and the options with which `tables` and `join` look for them."""

from __future__ import annotations

import argparse
import socket

from .options import seconds

__all__ = ["add_tables_command", "browse_options", "no_table_named", "names_a_machine"]


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
