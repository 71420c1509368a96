"""Version 10's lobby over real sockets (docs/dealing.md, "Holders", "The price"): the host
marks the seats its own process runs ``host_run`` in the lobby and in start_game, and resolves
its sharing setting over the others; every seat takes the game the lobby showed it, and a seat
the host marks as its own without having started it refuses the game, naming why."""

from __future__ import annotations

import trio

from shanghai_net.net.host import Host, HostConfig

from seating import kept_in, start_seated, until
from test_net_rejoin import RULES, identities, make_peer


def host_bot(peer):
    """``peer`` as the host's process starts its bots: it knows it is the host's."""
    peer.started_by_host = True
    return peer


async def seat_four(tmp_path, config, ours, ends):
    """Four bot peers at a host of ``config``, seats ``ours`` started as the host's bots (their
    keys in ``config.host_run``); returns once every peer has its start_game or ended."""
    host = Host(config)
    keys = identities(4)
    for seat in ours:
        config.host_run.add(keys[seat].sign_public)
    peers = []
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = await nursery.start(host.run, listeners)
        for seat, identity in enumerate(keys):
            peer = make_peer(port, identity, seat, tmp_path)
            peers.append(host_bot(peer) if seat in ours else peer)
            await start_seated(nursery, peer, seat, kept_in(ends, seat, peer))
        await until(lambda: all(p.table is not None or s in ends for s, p in enumerate(peers)),
                    "every seat took the game or refused it", 30)
        nursery.cancel_scope.cancel()
    return host, peers


async def test_the_host_s_bots_are_host_run_and_sharing_is_resolved_over_the_others(tmp_path):
    """4 seats, one of them the host's bot: 3 holders, and the host's setting of 2 (the one
    threshold 3 holders bear) is what the lobby showed and start_game carries."""
    ends = {}
    with trio.fail_after(60):
        host, peers = await seat_four(tmp_path, HostConfig(players=4, rules=RULES, sharing=2),
                                      ours=(3,), ends=ends)
    assert ends == {}
    start = host.start
    assert start.share_threshold == 2 and start.host_run == (3,)
    for peer in peers:
        assert peer.start.share_threshold == 2 and peer.start.host_run == (3,)
        assert peer.lobby.share_threshold == 2
        assert [s.host_run for s in peer.lobby.seats] == [False, False, False, True]
        assert peer.table.share_holders(2, peer.start.host_run) == (0, 1, 2)


async def test_the_default_is_off_when_the_host_s_bots_leave_too_few_holders(tmp_path):
    ends = {}
    with trio.fail_after(60):
        host, peers = await seat_four(
            tmp_path, HostConfig(players=4, rules=RULES, sharing="default"), ours=(2, 3),
            ends=ends)
    assert ends == {} and host.start.share_threshold is None and host.start.host_run == (2, 3)
    assert all(p.lobby.share_threshold is None for p in peers)


async def test_a_seat_the_host_marks_its_own_without_having_started_it_refuses_the_game(
        tmp_path):
    """A host that marked an honest seat ``host_run`` would lower the holders, and with them
    the ``t`` a coalition needs: that seat leaves, saying why; the others, which cannot tell,
    play on."""
    ends = {}
    keys = identities(4)
    host = Host(HostConfig(players=4, rules=RULES, sharing="default",
                           host_run={keys[1].sign_public}))
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            port = await nursery.start(host.run, listeners)
            peers = [make_peer(port, identity, seat, tmp_path)
                     for seat, identity in enumerate(keys)]
            for seat, peer in enumerate(peers):
                await start_seated(nursery, peer, seat, kept_in(ends, seat, peer))
            await until(lambda: 1 in ends and all(p.table is not None for p in peers[2:]),
                        "seat 1 refused the game, the others took it", 30)
            nursery.cancel_scope.cancel()
    assert host.start.host_run == (1,) and host.start.share_threshold is None
    assert "it marks our seat 1 host_run, but the host did not start us" in str(ends[1])
