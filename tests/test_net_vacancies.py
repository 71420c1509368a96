"""Two seats lost at once at a table of four, over real sockets with our own `Host` and
`Peer` classes (protocol.md 11.5): the two seats left are no majority of the table, so before
the host's ``silent`` timeouts no vote of theirs could carry and the table waited for good.
Now the host names each lost seat silent, the votes carry one seat a round, the stand-ins take
the seats and the game ends: each lost seat charged once, no seat named, the record verified."""

from __future__ import annotations

import trio

from shanghai_net.deal import seeded
from shanghai_net.engine import Phase
from shanghai_net.engine.events import RoundVoided
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Timeout, VoidRound

from seating import kept_in, start_seated, until
from test_net_rejoin import identities, make_peer

FOUR_ROUNDS = {"contracts": [[2, 0]] * 4}


async def test_two_seats_lost_at_once_at_four_are_voted_gone_and_the_game_ends(tmp_path):
    record = tmp_path / "two lost.bin"
    host = Host(HostConfig(players=4, rules=FOUR_ROUNDS, claim_timeout=2, audit_timeout=2,
                           random=seeded(b"two lost"), record=record))
    lost = {2: trio.CancelScope(), 3: trio.CancelScope()}
    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            port = await nursery.start(host.run, listeners)
            peers, ends = {}, {}
            for seat, identity in enumerate(identities(4)):
                peers[seat] = make_peer(port, identity, seat, tmp_path,
                                        void_after=0.3 if seat < 2 else None)
                run = kept_in(ends, seat, peers[seat])
                if seat in lost:
                    async def run(run=run, scope=lost[seat]):
                        with scope:
                            await run()
                await start_seated(nursery, peers[seat], seat, run)
            await host.started.wait()
            await until(lambda: host.public.round == 2 and host.public.settled and
                        host.public.public.phase is Phase.PLAY, "round 2 under way", 120)
            for scope in lost.values():  # both programs end at once (a crash, a power cut)
                scope.cancel()
            await until(lambda: host.public.finished, "the game's end", seconds=200,
                        state=lambda: (host.public.vacant, host.public.silenced,
                                       host.public.gone_votes, host.public.owed()))
    public = host.public
    assert public.fault is None and public.verdict is None
    assert sorted(seat for _, seat in public.left) == [2, 3]
    messages = read_transcript(record)[1:]
    silent = {m.body.seat for m in messages if isinstance(m.body, Timeout)
              and m.body.what == "silent"}
    assert silent <= {2, 3} and silent, "the host timed out no seat it did not wait for"
    assert {m.author for m in messages if isinstance(m.body, VoidRound)
            and m.body.seat in (2, 3)} <= {0, 1}
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert sorted(paid) == [2, 3], "each lost seat charged once, no other seat"
    result = public.public.result
    for seat in (0, 1):
        table = ends[seat].table
        assert table.finished and table.fault is None and table.game.result == result
    report = verify(read_transcript(record))
    assert report.ok and report.totals == result.totals, report.summary()
