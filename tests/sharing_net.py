"""A networked table with sharing on, for the tests of R1 over real sockets (docs/dealing.md,
"When a seat is rebuilt"): our own `Host` and bot `Peer`s on 127.0.0.1, port 0, with
``start_game`` carrying ``share_threshold`` (the host's `HostConfig.sharing`).
Every bot leaves voting to the test (``void_after`` None); seat ``FROZEN``'s player makes no
move in round 1, so the table stalls at its turn, where the test kills it.  The host seats no
stand-in: a seat lost waits (the replacement seated mid-round is being built, issue 38)."""

from __future__ import annotations

import random
from contextlib import asynccontextmanager

import trio

from shanghai_net.deal import seeded
from shanghai_net.engine.events import Drew, TookDiscard
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import PeerError
from shanghai_net.net.player import BotPlayer

from seating import start_seated, until
from test_net_rejoin import identities, make_peer

FROZEN = 2
RULES = {"contracts": [[2, 0], [1, 1]]}


class FrozenInRoundOne(BotPlayer):
    """A bot that makes no move in round 1 once two cards were drawn: the table waits on it."""

    def __init__(self, seed: int) -> None:
        super().__init__("basic", random.Random(seed))

    def choose(self, table):
        drawn = sum(isinstance(e, (Drew, TookDiscard)) for e in table.public.log)
        return None if table.round == 1 and drawn >= 2 else super().choose(table)


OFFERED = {"sharing": "off"}
"""What the hosts `sharing_table` starts offer (`HostConfig.sharing`), unless told."""


def sharing_on(monkeypatch, t: int) -> None:
    """Every host `sharing_table` starts from now on offers ``share_threshold`` ``t``."""
    monkeypatch.setitem(OFFERED, "sharing", t)


@asynccontextmanager
async def sharing_table(tmp_path, players, seed, options=None, frozen=FROZEN, **config):
    """A host and ``players`` bot peers (seat ``frozen`` frozen in round 1, if any), each
    killed by its cancel scope in ``kill``; yields the host, the peers, how each one's run
    ended (its result, or the PeerError that stopped it) and the kill scopes, once the game
    started."""
    host = Host(HostConfig(players=players, rules=RULES, claim_timeout=2, random=seeded(seed),
                           stand_in=None, **{**OFFERED, **config}))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    peers, ends = {}, {}
    kill = {seat: trio.CancelScope() for seat in range(players)}
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)
        for seat, identity in enumerate(identities(players)):
            chosen = {"void_after": None, **(options or {}).get(seat, {})}
            if seat == frozen:
                chosen.setdefault("player", FrozenInRoundOne(seat))
            peers[seat] = make_peer(port, identity, seat, tmp_path, **chosen)

            async def run(seat=seat):
                with kill[seat]:
                    try:
                        ends[seat] = await peers[seat].run()
                    except PeerError as error:
                        ends[seat] = error

            await start_seated(nursery, peers[seat], seat, run)
        await host.started.wait()
        yield host, peers, ends, kill
        nursery.cancel_scope.cancel()


async def frozen_seat_killed(host, kill) -> None:
    """Wait until the table waits on seat ``FROZEN``'s move in round 1, then kill it."""
    public = host.public
    await until(lambda: public.round == 1 and public.moving() == {FROZEN},
                "round 1 waiting on the frozen seat's move", seconds=90,
                state=lambda: (public.round, public.moving(), public.owed()))
    kill[FROZEN].cancel()


async def votes_against(peers, voters, seat, host) -> None:
    """Each of ``voters`` votes that ``seat`` left, all at once (a vote that reaches a bar
    starts the host's clock: the next one must not wait on the test), then waits until the
    host has sequenced them."""
    public = host.public
    for voter in voters:
        assert peers[voter].vote_void(seat)
    await until(lambda: set(voters) <= public.void_votes.get(public.void_target, set()) or
                seat in public.vacant, f"the votes of seats {voters} sequenced",
                state=lambda: public.void_votes)
