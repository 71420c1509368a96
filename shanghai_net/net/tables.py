"""Several tables in one host process: a server owns the listeners, reads each connection's
`hello` and hands the connection to the table it names, each table a `Host` of its own.

Each table runs in a nursery of its own with its connections, so a crash in one table's game
closes that table only (its seats are dropped, the log says why) and a flood at one table meets
that table's budgets, never another's lobby or game.  A table closes when its game is over; a
`hello` with ``open`` opens a table of the name it gives (up to ``max_tables``), so a person in
a lobby starts another game.  The host holds no hidden card at any table: each is a `Host` as
one table always was.  While ``announce`` is on, every open table is announced on the LAN
(`discovery`), and withdrawn when it closes.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Sequence

import trio

from ..identity import Identity
from ..wire import HOST, NEED_DATA, Connection, ProtocolError
from ..wire.messages import PROTOCOL_VERSION, Hello, Refused
from .host import Host, HostConfig, loopback
from .rematch import Previous

__all__ = ["Table", "TableServer", "check_table_name"]

log = logging.getLogger("shanghai_net.tables")

REFRESH = 2.0
"""Seconds between two looks at the tables' seats and states for their announcements (a lobby
fills without telling the server)."""


def check_table_name(name: str) -> str:
    """A table's name as announced and given in `hello`: 1..32 printable characters, no dot
    (a DNS-SD instance name of our own, readable in a list)."""
    if not 1 <= len(name) <= 32 or not name.isprintable() or "." in name:
        raise ValueError(f"table name {name!r}: 1 to 32 printable characters, without a dot")
    return name


class Table:
    """One table of the server: its name, its `Host`, and the nursery its connections run in
    (set once the table runs)."""

    def __init__(self, name: str, host: Host) -> None:
        self.name = name
        self.host = host
        self.nursery: trio.Nursery | None = None
        self.closed = trio.Event()
        self.crash: str | None = None
        """Why the table closed before its game was over, if it crashed."""

    def record(self) -> dict[str, str]:
        """What the LAN is told about this table (the DNS-SD TXT record, protocol.md 5.1)."""
        host = self.host
        taken = sum(c is not None for c in host.seats)
        sharing = host.lobby.sharing
        return {"table": self.name, "preset": host.rules.name, "seats": f"{taken}/{host.players}",
                "state": "lobby" if host.start is None else "playing",
                "fp": host.identity.fingerprint, "v": str(PROTOCOL_VERSION),
                "sharing": "off" if sharing.threshold is None else
                f"{sharing.threshold} of {sharing.holders}"}


class TableServer:
    """Any number of tables behind one set of listeners.  ``config`` is every table's (preset,
    seats, house rules, join code, timeouts, host key); ``names`` are opened at the start, the
    first also being the table of a `hello` that names none; ``rematch``: each stays for a
    rematch once its game is over.  With ``config.record``, the first
    table's transcript is that file and another table's is the file with ``-NAME`` before its
    suffix.  ``run`` serves until every table has closed."""

    def __init__(self, config: HostConfig, names: Sequence[str] = ("table1",), *,
                 max_tables: int = 16, announce: bool = False, rematch: bool = True) -> None:
        if not names:
            raise ValueError("a host needs at least one table")
        if len(set(names)) != len(names):
            raise ValueError(f"two tables have one name: {', '.join(names)}")
        identity = config.identity or Identity(config.random(32), config.random(32))
        self.config = dataclasses.replace(config, identity=identity)
        self.identity = identity
        self.names = [check_table_name(name) for name in names]
        self.max_tables = max(max_tables, len(names))
        self.announce = announce
        self.rematch = rematch
        """A table stays once its game is over, for a rematch (False: a host whose seats only
        its own bots fill, which would close at once, does not say it will)."""
        self.tables: dict[str, Table] = {}
        """The tables open now, by name."""
        self.opened: list[Table] = []
        """Every table opened, closed ones too (each with its host's game and ``crash``)."""
        self.port: int | None = None
        self._address: tuple[str, int] | None = None
        """An address of the listener that this machine reaches (`host.loopback`)."""
        self._changed = trio.Event()
        self._nursery: trio.Nursery | None = None
        self.first_host = self._host(self.names[0], first=True)  # checks preset, rules, seats
        """The first table's `Host` (a console seat sits at it)."""

    def _host(self, name: str, first: bool = False, previous: Previous | None = None) -> Host:
        """A table's host; a rematch's (``previous``: the game before it at the table) records
        its game in a file of its own, the table's with ``-N`` (the game's number) added."""
        config = self.config
        if not first or previous is not None:
            record = config.record
            if record is not None and (previous is None or name != self.names[0]):
                record = record.with_name(f"{record.stem}-{name}{record.suffix}")
            if record is not None and previous is not None:
                record = record.with_name(f"{record.stem}-{previous.game}{record.suffix}")
            config = dataclasses.replace(config, record=record, resume=None, previous=previous)
        return Host(config, next_table=(lambda previous: self._rematch(name, previous))
                    if self.rematch else None)

    async def _rematch(self, name: str, previous: Previous) -> str:
        """Open the next game at table ``name`` in place of the one just over (its seats kept
        for the keys that asked for it); the name to join it by."""
        await self._nursery.start(self._run_table, Table(name, self._host(name, previous=previous)))
        log.info("table %s: game %d opened (a rematch)", name, previous.game)
        return name

    @property
    def first(self) -> Table | None:
        """The table of a `hello` that names none: the oldest one open."""
        return next(iter(self.tables.values()), None)

    async def run(self, listeners: list[trio.SocketListener],
                  task_status=trio.TASK_STATUS_IGNORED) -> None:
        self._address = loopback(listeners[0])
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            for i, name in enumerate(self.names):
                await nursery.start(self._run_table, Table(name, self.first_host if i == 0
                                                           else self._host(name)))
            nursery.start_soon(trio.serve_listeners, self._route, listeners)
            self.port = listeners[0].socket.getsockname()[1]
            if self.announce:
                await nursery.start(self._announce, listeners)
            task_status.started(self.port)
            while self.tables:
                await self._changed.wait()
            nursery.cancel_scope.cancel()

    async def open(self, name: str) -> Table:
        """Open a table named ``name`` (a person asked, in their `hello`)."""
        if name in self.tables:
            return self.tables[name]
        if len(self.tables) >= self.max_tables:
            raise ValueError(f"this host holds {self.max_tables} tables already")
        table = Table(check_table_name(name), self._host(name))
        await self._nursery.start(self._run_table, table)
        log.info("table %s opened", name)
        return table

    async def _run_table(self, table: Table, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Run one table until its game is over; a crash closes it and nothing else."""
        self.tables[table.name] = table
        self.opened.append(table)
        table.host.reach = (self._address, table.name)  # where its stand-in bots connect
        self._touch()
        try:
            async with trio.open_nursery() as nursery:
                table.nursery = nursery
                task_status.started()
                await table.host.run([])
                nursery.cancel_scope.cancel()  # the game is over and its byes are sent
        except Exception as error:  # one table's bug closes that table, not the host
            table.crash = "; ".join(f"{type(e).__name__}: {e}" for e in _leaves(error))
            log.exception("table %s crashed; the other tables go on", table.name)
        finally:
            if self.tables.get(table.name) is table:
                del self.tables[table.name]
            table.closed.set()
            self._touch()

    def _touch(self) -> None:
        """A table opened or closed: wake whoever waits on ``_changed`` (a fresh one follows)."""
        self._changed.set()
        self._changed = trio.Event()

    # -- routing -------------------------------------------------------------------------------

    async def _route(self, stream: trio.SocketStream) -> None:
        """Read the connection's hello and hand it, with every byte read so far, to its table.
        Input that is no hello goes to the first table, which answers it as one table would."""
        conn = Connection(HOST, self.config.max_frame)
        seen = bytearray()
        hello: Hello | None = None
        with trio.move_on_after(self.config.hello_timeout) as waited:
            while hello is None:
                try:
                    data = await stream.receive_some(conn.room)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    data = b""
                if not data:
                    await stream.aclose()
                    return
                seen += data
                conn.receive_data(data)
                try:
                    event = conn.next_event()
                except ProtocolError:
                    break
                if isinstance(event, Hello):
                    hello = event
                elif event is not NEED_DATA:
                    break
        if waited.cancelled_caught:
            await _refuse(stream, conn, "timeout", "no hello in time")
            return
        try:
            table = await self._table_for(hello)
        except LookupError as error:
            await _refuse(stream, conn, "unknown_table", str(error.args[0]))
            return
        except ValueError as error:
            await _refuse(stream, conn, "table_full", str(error))
            return
        served = trio.Event()  # the listener closes the stream once this task returns
        table.nursery.start_soon(_serve, table.host, _Replayed(stream, bytes(seen)), served)
        await served.wait()

    async def _table_for(self, hello: Hello | None) -> Table:
        if hello is None or not hello.table:
            table = self.first
            if table is None:
                raise LookupError("this host has no table open")
            return table
        table = self.tables.get(hello.table)
        if table is not None and not table.closed.is_set():
            return table
        if hello.open:
            return await self.open(hello.table)
        held = ", ".join(sorted(self.tables)) or "none"
        raise LookupError(f"no table {hello.table!r} at this host (it holds: {held})"[:500])

    # -- announcing ----------------------------------------------------------------------------

    async def _announce(self, listeners: list[trio.SocketListener],
                        task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Keep every open table announced, on the interfaces the host listens on."""
        from .discovery import Announcer

        addresses = [listener.socket.getsockname()[0] for listener in listeners]
        try:
            announcer = await Announcer.open(addresses, self.port)
        except Exception as error:  # no multicast here: the tables are joined by address
            log.warning("not announcing the tables on the LAN: %s", error)
            task_status.started()
            return
        async with announcer:
            task_status.started()
            while True:
                try:
                    await announcer.show({name: table.record()
                                          for name, table in self.tables.items()})
                except Exception as error:  # the tables go on; the next look tries again
                    log.warning("announcing the tables failed: %s", error)
                with trio.move_on_after(REFRESH):
                    await self._changed.wait()


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions an exception group holds (nurseries wrap a table's crash in groups)."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


async def _serve(host: Host, stream: _Replayed, served: trio.Event) -> None:
    """A connection served in its table's nursery, so that it ends with its table."""
    try:
        await host.serve_connection(stream)
    finally:
        served.set()


async def _refuse(stream: trio.SocketStream, conn: Connection, code: str, reason: str) -> None:
    """Answer ``refused`` and close (the router's own answer: no table took the connection)."""
    try:
        with trio.move_on_after(5):
            await stream.send_all(conn.send(Refused(code=code, reason=reason)))
            await stream.send_eof()
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, ProtocolError):
        pass
    finally:
        await stream.aclose()


class _Replayed(trio.abc.HalfCloseableStream):
    """A socket stream whose first bytes, read by the router to find the table, are given
    again to the table's host."""

    def __init__(self, stream: trio.SocketStream, prefix: bytes) -> None:
        self.stream = stream
        self._prefix = prefix

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if not self._prefix:
            return await self.stream.receive_some(max_bytes)
        size = len(self._prefix) if max_bytes is None else max_bytes
        out, self._prefix = self._prefix[:size], self._prefix[size:]
        await trio.lowlevel.checkpoint()
        return out

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self.stream.send_eof()

    async def aclose(self) -> None:
        await self.stream.aclose()
