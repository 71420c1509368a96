"""A peer whose player leaves (`Peer.leave`, its ``bye``) ends its run by itself, with its
result, whether or not its front end then cancels it: it used to go on acting on a connection
it had closed and crash with ``LocalProtocolError`` ("game in state closed").  Over real
sockets with our own `Host` and `Peer` classes; the run is never cancelled here."""

from __future__ import annotations

import trio

from shanghai_net.deal import seeded
from shanghai_net.engine import Phase
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer_link import PeerResult

from seating import kept_in, start_seated, until
from test_net_rejoin import identities, make_peer

TWO_ROUNDS = {"contracts": [[2, 0]] * 2}


async def hosted(nursery, seed: bytes):
    """A host of three seats on 127.0.0.1, port 0: the host and its port."""
    host = Host(HostConfig(players=3, rules=TWO_ROUNDS, claim_timeout=2, random=seeded(seed)))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    return host, await nursery.start(host.run, listeners)


async def test_a_peer_that_leaves_mid_game_ends_its_run_with_its_result(tmp_path):
    ends: dict = {}
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            host, port = await hosted(nursery, b"leaves mid-game")
            peers = {}
            for seat, identity in enumerate(identities(3)):
                peers[seat] = make_peer(port, identity, seat, tmp_path, void_after=None)
                await start_seated(nursery, peers[seat], seat, kept_in(ends, seat, peers[seat]))
            await until(lambda: host.public is not None and host.public.settled
                        and host.public.public.phase is Phase.PLAY, "round 1 under way", 60)
            leaver = peers[1]
            await leaver.leave()
            await until(lambda: 1 in ends, "seat 1's run ended after its bye", 30)
            assert isinstance(ends[1], PeerResult), ends[1]
            assert ends[1].seat == 1 and ends[1].table is not None
            assert leaver.status == "over" and "left" in leaver.detail, leaver.detail
            await until(lambda: 1 in peers[0].left, "the table shows seat 1 as left")
            assert 0 not in ends and 2 not in ends  # the others play on
            nursery.cancel_scope.cancel()


async def test_a_peer_that_leaves_the_lobby_ends_its_run_with_its_result(tmp_path):
    ends: dict = {}
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            _, port = await hosted(nursery, b"leaves the lobby")
            (identity,) = identities(1)
            peer = make_peer(port, identity, 0, tmp_path, auto_ready=False)
            await start_seated(nursery, peer, 0, kept_in(ends, 0, peer))
            await peer.leave()
            await until(lambda: 0 in ends, "the run ended after its bye in the lobby", 30)
            assert isinstance(ends[0], PeerResult), ends[0]
            assert ends[0].table is None and peer.status == "over", peer.detail
            nursery.cancel_scope.cancel()
