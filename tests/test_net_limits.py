"""The host's limits, each checked directly over real sockets on 127.0.0.1 (issue 16): the join
code, the count of bad messages before an ``abuse`` close, how long a claim window stays open
(on trio's mock clock, so the figure is the host's timer and not the machine's speed), and how
long the host waits for a peer's end of the stream when it closes a connection."""

from __future__ import annotations

import random
from hashlib import sha256
from contextlib import asynccontextmanager

import pytest
import trio

from shanghai_net.deal import seeded
from shanghai_net.engine.moves import DrawStock
from shanghai_net.identity import Identity
from shanghai_net.table.bodies import move_to_body
from shanghai_net.net import link
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import PeerError, run_peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.table.public import PublicTable
from shanghai_net.wire.messages import (Error, GameMessage, Ready, Refused, StartGame, Timeout,
                                        Welcome)

from test_net_errors import frame
from test_net_rejoin import RawClient
from test_net_session import ONE_ROUND
from seating import until


OPEN: list[trio.SocketStream] = []
"""Raw connections for `hosting` to close (else the host waits its ``send_timeout`` for each one's
end of stream)."""


async def join(port: int, name: str, role: str = "player", join_code: str = "",
               ready: bool = False):
    """A connection driven by hand that said hello as ``name``: (it, the host's answer)."""
    me = Identity(sha256(b"sign " + name.encode()).digest(),
                  sha256(b"box " + name.encode()).digest())
    client = await RawClient.hello(port, me.sign_public, me.box_public, role=role, name=name,
                                   join_code=join_code)
    OPEN.append(client.stream)
    first = await client.next(Welcome, Refused)
    if ready and isinstance(first, Welcome):
        await client.send(Ready(ready=True))
    return client, first


@asynccontextmanager
async def hosting(**config):
    """A host on 127.0.0.1, port 0: (host, port)."""
    host = Host(HostConfig(random=seeded(b"limits"), **config))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)
        yield host, port
        while OPEN:
            await OPEN.pop().aclose()
        nursery.cancel_scope.cancel()


def connection_of(host: Host, name: str):
    return next(c for c in host.clients if c.name == name)


async def test_a_wrong_join_code_is_refused_and_takes_no_seat():
    with trio.fail_after(20):
        async with hosting(players=3, join_code="cherry") as (host, port):
            with pytest.raises(PeerError, match="refused: join_code: the join code is wrong"):
                await run_peer(("127.0.0.1", port), Identity(bytes(32), bytes([1] * 32)),
                               name="guesser", join_code="plum", reconnect=False)
            assert host.seats == [None, None, None]
            _, welcome = await join(port, "member", join_code="cherry")
            assert isinstance(welcome, Welcome) and welcome.seat == 0


async def test_bad_frames_are_counted_and_the_one_past_the_limit_closes_the_connection():
    with trio.fail_after(20):
        async with hosting(players=3, abuse_limit=3) as (host, port):
            raw, _ = await join(port, "noisy", role="spectator")
            for strike in range(1, 4):
                await raw.stream.send_all(frame(b"\xc1"))
                assert (await raw.next(Error)).code == "malformed_frame"
                assert connection_of(host, "noisy").strikes == strike
            await raw.stream.send_all(frame(b"\xc1"))
            assert (await raw.next(Error)).code == "malformed_frame"
            assert (await raw.next(Error)).code == "abuse"
            assert await raw.next(Error) is None


async def test_refused_game_messages_are_counted_and_the_one_past_the_limit_closes_the_seat():
    """A seated player's game messages that the sequencer refuses (here: signed against no
    key) each count once; the game goes on for it until one more than ``abuse_limit``."""
    with trio.fail_after(20):
        async with hosting(players=3, abuse_limit=3) as (host, port):
            cheat, _ = await join(port, "ann", ready=True)
            for name in ("bo", "cy"):
                await join(port, name, ready=True)
            assert await cheat.next(StartGame)
            bogus = GameMessage(author=0, counter=0, body=move_to_body(DrawStock(0)),
                                sig=bytes(64))
            for strike in range(1, 4):
                await cheat.send(bogus)
                assert (await cheat.next(Error)).code == "bad_signature"
                assert connection_of(host, "ann").strikes == strike
            await cheat.send(bogus)
            assert (await cheat.next(Error)).code == "bad_signature"
            assert (await cheat.next(Error)).code == "abuse"
            assert await cheat.next(Error) is None
            assert host.sequenced == 0


async def test_a_claim_window_stays_open_for_the_claim_timeout(mock_clock):
    """One bot never answers a claim: each window it holds up is closed by the host's timeout
    exactly ``claim_timeout`` seconds after the discard that opened it (the hello timeout, also
    a per-connection wait, is set apart so that one cannot pass for the other)."""
    mock_clock.autojump_threshold = 0
    claim_timeout, windows = 7.0, []
    rnd = seeded(b"claim window")
    with trio.fail_after(3600):
        async with hosting(players=3, claim_timeout=claim_timeout, hello_timeout=30.0,
                           rules=ONE_ROUND, worker_threads=False) as (host, port):
            watcher, _ = await join(port, "watcher", role="spectator")
            async with trio.open_nursery() as nursery:
                for seat in range(3):  # the silent bot may get any seat
                    player = BotPlayer("basic", random.Random(seat), claims=seat != 1)
                    nursery.start_soon(lambda p=player, s=seat: run_peer(
                        ("127.0.0.1", port), Identity(rnd(32), rnd(32)), p, name=f"bot{s}",
                        random=seeded(b"peer %d" % s), timeout=60, worker_threads=False))
                public = PublicTable(await watcher.next(StartGame))
                held, since = None, 0.0  # the window as the host tracks it, and since when
                while len(windows) < 3:
                    msg = await watcher.next(GameMessage)
                    if isinstance(msg.body, Timeout):
                        windows.append(trio.current_time() - since)
                    public.receive(msg)
                    window = public.open_window()
                    current = window[0] if window else None
                    if current is not held:
                        held, since = current, trio.current_time()
                nursery.cancel_scope.cancel()
    assert windows == pytest.approx([claim_timeout] * 3, abs=1e-6)



def timed_closes(monkeypatch) -> list[float]:
    """How long each of the host's closes (`link.close_gracefully`) took, as each one ends."""
    closes: list[float] = []
    close = link.close_gracefully

    async def timed(stream):
        start = trio.current_time()
        try:
            await close(stream)
        finally:
            closes.append(trio.current_time() - start)

    monkeypatch.setattr(link, "close_gracefully", timed)
    return closes


async def test_a_peer_slow_to_take_its_refusal_is_waited_for_not_reset(monkeypatch):
    """The host's close waits for the peer's end of the stream (what the peer sends meanwhile
    is read and dropped), with ``send_timeout`` only its bound: a peer that answers 1.5 s after
    the refusal (a loaded machine) is not reset (issue 28: a 1 s bound reset a slow client
    that answered a ping or said bye after it), and the close ends with the peer's end."""
    closes = timed_closes(monkeypatch)
    with trio.fail_after(60):
        async with hosting(players=3, join_code="cherry", send_timeout=30.0) as (host, port):
            raw, refused = await join(port, "slow", join_code="plum")
            assert isinstance(refused, Refused) and refused.code == "join_code"
            await trio.sleep(1.5)
            for _ in range(2):  # the first send into a closed socket draws a reset, the next fails
                await raw.stream.send_all(frame({"type": "bye", "reason": "late"}))
                await trio.sleep(0.1)
            assert await raw.stream.receive_some(1) == b"", "not the host's end of stream"
            await raw.stream.aclose()
            await until(lambda: closes, "the host's close ending with the peer's end")


async def test_a_peer_that_never_closes_is_closed_once_the_send_timeout_is_over(monkeypatch):
    """The wait for a peer's end of stream is bounded: one that never closes (nor reads) is
    closed by the host ``send_timeout`` after its refusal, not before and not never."""
    closes = timed_closes(monkeypatch)
    with trio.fail_after(60):
        async with hosting(players=3, join_code="cherry", send_timeout=2.0) as (host, port):
            _, refused = await join(port, "mute", join_code="plum")
            assert isinstance(refused, Refused)
            await until(lambda: closes, "the host's close at its bound")
    assert closes[0] >= 2.0, f"closed after {closes[0]:.2f} s, before the send timeout"
