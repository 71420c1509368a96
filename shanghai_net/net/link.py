"""The host's connections, in trio: `Connections` runs a reader, a writer and a pinger for each
and keeps every connection within its budget.

The reader decodes what a client sends, no faster than its byte rate, drops messages over its
message rate, and hands each message that passed to ``on_message`` (the lobby, the sequencer);
bad input gets an ``error`` and counts towards ``abuse_limit``.  The writer sends what is due to
the client (`Client.next_message`) in batches, each within ``send_timeout``.  Every wait on a
peer is bounded: the hello, each send, and silence (the pinger pings; a peer that answers
nothing is dropped).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable

import trio

from ..wire import NEED_DATA, ConnectionClosed, LocalProtocolError, RemoteProtocolError
from ..wire.messages import Bye, Error, Message, Ping, Refused
from ..wire.state import State
from .budget import Limits, TokenBucket
from .client import Client
from .config import HostConfig
from .history import History

__all__ = ["Connections", "close_gracefully"]

log = logging.getLogger("shanghai_net.host")


class Connections:
    """Every connection of one table, and the bytes that went through them."""

    WRITE_BATCH = 1 << 16
    """Frames due to one client go out together up to this many bytes: one send and one wake-up
    of the reader for the shares a draw brings from every seat at once, not one each."""

    def __init__(self, config: HostConfig, history: History, barred: set[bytes],
                 on_message: Callable[[Client, Message], Awaitable[None]],
                 on_closed: Callable[[Client], None]) -> None:
        self.config = config
        self.history = history
        self.barred = barred
        self.on_message = on_message
        self.on_closed = on_closed
        """Told of each connection that ended (its seat may be free again)."""
        self.clients: set[Client] = set()
        self.bytes_in = 0
        self.bytes_out = 0
        self.limits = Limits(config.message_rate, config.message_burst, config.byte_rate,
                             config.byte_burst, config.chat_rate, config.chat_burst,
                             config.stale_rate, config.stale_burst, config.patience)
        self._numbers = itertools.count()
        self._chats: dict[str, TokenBucket] = {}
        """The chat budget of each address, shared by its connections."""

    def new_client(self, stream: trio.abc.Stream | None) -> Client:
        address = peer_address(stream)
        chats = None if address is None else self._chats.setdefault(
            address, TokenBucket(self.limits.chat_rate, self.limits.chat_burst))
        return Client(next(self._numbers), stream, self.config, self.limits, self.history,
                      self.barred, chats)

    def sending(self) -> bool:
        """Some client in the game still has frames due, or on their way out."""
        return any(c.connected and c.in_game and c.next_due for c in self.clients)

    async def handle(self, stream: trio.abc.HalfCloseableStream) -> None:
        """Serve one connection until it ends."""
        client = self.new_client(stream)
        self.clients.add(client)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._writer, client, nursery.cancel_scope)
                nursery.start_soon(self._pinger, client)
                await self._reader(client)
                client.closing = True
                client.wake.set()
        except* (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # the peer went away
        except* Exception:  # a bug in serving one connection must not stop the table
            log.exception("the connection of %s failed", client.name)
        finally:
            client.connected = False
            self.clients.discard(client)
            self.on_closed(client)
            # ended by the peer's end of the stream; the bound, the time a peer has to take
            # what we send it, only catches a peer that never closes (issue 28: 1 s, a bound
            # meant for the close alone, reset slow peers that answered after it)
            with trio.move_on_after(self.config.send_timeout) as scope:
                scope.shield = True
                await close_gracefully(stream)

    async def _writer(self, client: Client, scope: trio.CancelScope) -> None:
        try:
            while client.connected:
                data, last = self._due(client)
                if not data:
                    if client.closing:
                        break
                    client.wake = trio.Event()
                    await client.wake.wait()
                    continue
                client.sending = True
                with trio.fail_after(self.config.send_timeout):
                    await client.stream.send_all(data)
                client.sending = False
                self.bytes_out += len(data)
                if last:
                    break
        except (trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        client.connected = False
        scope.cancel()

    def _due(self, client: Client) -> tuple[bytes, bool]:
        """The frames due to ``client`` now, joined; and whether the last of them ends the
        connection (a refusal, a bye, a fatal error)."""
        frames: list[bytes] = []
        size = 0
        while size < self.WRITE_BATCH:
            msg, frame = client.next_message()
            if msg is None:
                break
            try:
                data = client.conn.send(msg, frame)
            except LocalProtocolError as error:
                log.warning("not sending %s to %s: %s", msg.TYPE, client.name, error)
                continue
            frames.append(data)
            size += len(data)
            if isinstance(msg, (Refused, Bye)) or (isinstance(msg, Error) and msg.code in
                                                    ("abuse", "frame_too_large")):
                return b"".join(frames), True
        return b"".join(frames), False

    async def _pinger(self, client: Client) -> None:
        """A ping now and then, which a live peer answers: a machine that is gone shows as
        silence (`_reader`), not as a seat connected for ever."""
        nonce = 0
        while client.connected:
            await trio.sleep(self.config.ping_interval)
            if client.hello is not None and client.conn.our_state in (State.LOBBY, State.GAME):
                nonce += 1
                client.queue(Ping(nonce=nonce))

    async def _reader(self, client: Client) -> None:
        """Read, decode and act on what ``client`` sends, within its budget: bytes are read no
        faster than ``byte_rate``, messages over ``message_rate`` are dropped."""
        conn, budget = client.conn, client.budget
        deadline = trio.current_time() + self.config.hello_timeout
        while client.connected:
            if client.hello is not None and client.rejoining is None:
                deadline = trio.current_time() + self.config.silence_timeout
            try:
                with trio.fail_at(deadline):
                    data = await client.stream.receive_some(conn.room)
            except trio.TooSlowError:
                if client.hello is None or client.rejoining is not None:
                    client.queue(Refused(code="timeout", reason="no hello in time" if client.hello
                                         is None else "no proof of the seat's key in time"))
                else:
                    client.drop(f"silent for {self.config.silence_timeout:g} s")
                return
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return  # the peer went away (it may come back with its key)
            self.bytes_in += len(data)
            conn.receive_data(data)
            while True:
                try:
                    event = conn.next_event()
                except RemoteProtocolError as error:
                    if error.code == "version" and conn.our_state is State.ANSWER:
                        client.queue(Refused(code="version", reason=error.reason[:500]))
                        return
                    if client.hello is None and conn.our_state is State.HELLO:
                        # no hello yet, so no `error` may answer: refuse, naming what was wrong
                        client.queue(Refused(code=error.code, reason=error.reason[:500]))
                        return
                    if error.fatal:
                        client.error(error)
                        return
                    client.strike(error)
                    if client.closing:
                        return
                    continue
                if event is NEED_DATA:
                    break
                if isinstance(event, ConnectionClosed):
                    return
                if client.over_budget(budget.message(trio.current_time()), event.TYPE):
                    if client.closing:
                        return
                    continue
                try:
                    await self.on_message(client, event)
                except RemoteProtocolError as error:
                    client.strike(error)
                except (trio.Cancelled, KeyboardInterrupt):
                    raise
                except Exception as error:  # never let one peer's input stop the host
                    log.exception("input from %s failed", client.name)
                    client.error(RemoteProtocolError("bad_message", f"refused: {error}"))
                if not client.connected or client.closing:
                    return
            await trio.sleep_until(budget.read(trio.current_time(), len(data)))


def peer_address(stream: trio.abc.Stream | None) -> str | None:
    """The address ``stream`` comes from, if it is a socket's (a table's router passes the
    socket stream it read the hello from)."""
    sock = getattr(getattr(stream, "stream", stream), "socket", None)
    try:
        return sock.getpeername()[0] if sock is not None else None
    except OSError:  # it went away already
        return None


async def close_gracefully(stream: trio.abc.HalfCloseableStream) -> None:
    """Close after the peer has read what we sent: our end of the stream first, then whatever
    it still sends is read and dropped until its own end (closing on unread input, or before
    input still to come, would reset the connection and could lose the last error or game
    messages we sent it).  The caller bounds the wait, for a peer that never closes."""
    try:
        await stream.send_eof()
        while await stream.receive_some(65536):
            pass
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass
    finally:
        await stream.aclose()
