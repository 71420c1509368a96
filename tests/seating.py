"""Waits for the net tests that end by an event, never by the machine's speed (issue 28).

`until` waits for another task's state within a bound and fails naming what was not seen;
`start_seated` starts a peer and returns once the host has seated it, so that peers started
one after another take the seats in that order (the host gives the lowest free seat);
`kept_in` runs a peer to its end, keeping its result or the PeerError that stopped it."""

from __future__ import annotations

import trio

from shanghai_net.net.peer import PeerError

POLL = 0.01
"""Seconds between looks at another task's state: how late a wait may see it, never whether."""


async def until(check, why, seconds=20.0, state=None):
    """Wait, at most ``seconds``, for ``check()`` to hold (polled: the state is another
    task's); fails saying ``why`` was not seen (and ``state()``, what was seen instead).  The
    bound only catches a hang: on a loaded machine a state the test waits for may come late,
    never not at all."""
    try:
        with trio.fail_after(seconds):
            while not check():
                await trio.sleep(POLL)
    except trio.TooSlowError:
        seen = f"; instead: {state()}" if state is not None else ""
        raise AssertionError(f"not within {seconds:g} s: {why}{seen}") from None


async def start_seated(nursery, peer, seat, run=None, seconds=20.0):
    """Start ``run()`` (by default ``peer.run()``) in ``nursery`` and return once the host has
    seated ``peer`` (its welcome has come: ``peer.seat`` is set), failing unless the seat is
    ``seat``, or if ``run`` ended first (a refusal it caught, say).  The next peer started
    after this one has returned takes the next free seat."""
    ended = []

    async def to_its_end():
        try:
            await (run or peer.run)()
        finally:
            ended.append(True)

    nursery.start_soon(to_its_end)
    await until(lambda: peer.seat is not None or ended,
                f"the host seated {peer.name} (to be seat {seat})", seconds)
    assert peer.seat is not None, f"{peer.name} ended before the host seated it"
    assert peer.seat == seat, f"the host gave {peer.name} seat {peer.seat}, not {seat}"


def kept_in(ends: dict, key, peer):
    """A run of ``peer`` (for `start_seated`) that keeps what it ended with in ``ends[key]``:
    its result, or the PeerError that stopped it."""
    async def run():
        try:
            ends[key] = await peer.run()
        except PeerError as error:
            ends[key] = error

    return run
