"""R2 over real sockets (docs/dealing.md, "R2, silent at its seeds"): a host with sharing on
(``HostConfig.sharing``, resolved to ``t = 3`` over 4 holders), a seat that stays connected but
never shows its seeds; the host times them out, every party rebuilds them from the shares in
the others' seeds and audits the round in full: the round stands, nobody is charged, and
`verify` says the same of the record.  With sharing off the same silence voids the round and
charges the seat (test_net_rejoin.py).  And issue 38's done-when: a seat that planted a deal
cheat and is killed before its seeds leave is rebuilt and named by every seat left, the host
and `verify`."""

from __future__ import annotations

import dataclasses

import trio

from shanghai_net.deal import seeded
from shanghai_net.deal.messages import PassOutput
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import Peer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify

from dropout_helpers import changing
from seating import until
from test_net_rejoin import identities, start_peers
from test_table_dropout_silent import seat_playing

ONE_ROUND = {"contracts": [[2, 0]]}


async def test_a_seat_silent_at_its_seeds_is_audited_from_the_shares_and_its_round_stands(
        tmp_path):
    """Seat 0 is the silent one: the host names the lowest seat whose seeds have not come
    (each after a full ``audit_timeout`` with no message), so a slow honest seat is never
    named before it."""
    record = tmp_path / "game.bin"

    def keeps_its_seeds(table):
        table._send_seeds = lambda: None

    host = Host(HostConfig(players=4, rules=ONE_ROUND, claim_timeout=2, audit_timeout=5.0,
                           sharing="default", record=record, random=seeded(b"r2 over sockets")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    peers, results = {}, {}
    with trio.fail_after(150):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            await start_peers(nursery, port, identities(4), tmp_path, peers, results,
                              {0: {"on_table": keeps_its_seeds}})
            await host.started.wait()
            assert host.start.share_threshold == 3 and host.start.host_run == ()
            await until(lambda: len(results) == 4, "every seat's game over", seconds=140)
    public = host.public
    bodies = [m.body for m in host.history.messages]
    kinds = [body.KIND for body in bodies]
    assert [(b.seat, b.what) for b in bodies if b.KIND == "timeout"] == [(0, "seeds")], kinds
    assert public.finished and public.fault is None and public.verdict is None
    assert public.left == [] and public.silent == set()
    assert "void_round" not in kinds
    result = public.public.result
    assert [r.round_no for r in result.rounds] == [1]
    assert result.totals == [r.points for r in result.rounds][0]  # nobody paid a penalty
    for seat, peer_result in results.items():
        table = peer_result.table
        assert table.fault is None and table.finished, seat
        assert table.verdicts[1].clean, (seat, table.verdicts)
        assert table.game.result == result and table.chain.head == public.chain.head
    report = verify(read_transcript(record))
    assert report.ok and report.silent == frozenset() and report.left == (), report.summary()
    assert report.totals == result.totals


def stacking(participant, output):
    """A planted deal cheat the play never shows: pass 1 put out in another order than the
    seat's seed permutes it (still its key times every input, so every card opens)."""
    if output.phase != 1:
        return output
    return dataclasses.replace(output, points=tuple(reversed(output.points)))


class Stacking(Peer):
    """A peer whose seat stacks the deck (`stacking`)."""

    table_type = seat_playing(changing(PassOutput, stacking))


async def test_a_seat_killed_before_its_seeds_is_rebuilt_and_its_planted_cheat_named_everywhere(
        tmp_path):
    """Issue 38's done-when: seat 0 stacks its pass 1 of the round's deal, plays the round to its
    end, and is killed before its seeds leave (its table never sends them, then its process is
    gone).  The host times its seeds out; every seat left, the host and `verify` rebuild its seed
    from the shares in the others' seeds, audit the round in full and name seat 0 for it."""
    record = tmp_path / "game.bin"

    def keeps_its_seeds(table):
        table._send_seeds = lambda: None

    host = Host(HostConfig(players=4, rules=ONE_ROUND, claim_timeout=2, audit_timeout=5.0,
                           sharing="default", record=record, random=seeded(b"r2 cheat killed")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    peers, results, killed = {}, {}, trio.CancelScope()
    with trio.fail_after(150):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            await start_peers(nursery, port, identities(4), tmp_path, peers, results,
                              {0: {"kind": Stacking, "on_table": keeps_its_seeds}}, {0: killed})
            await host.started.wait()
            assert host.start.share_threshold == 3
            await until(lambda: host.public.waiting_audit, "round 1's audit", seconds=120)
            killed.cancel()
            await until(lambda: len(results) == 3 and host.public.finished,
                        "every seat left's game over", seconds=140)
    public = host.public
    bodies = [m.body for m in host.history.messages]
    assert [(b.seat, b.what) for b in bodies if b.KIND == "timeout"] == [(0, "seeds")]
    assert "seeds" not in [b.step for m, b in zip(host.history.messages, bodies)
                           if m.author == 0 and b.KIND == "deal"]
    why = "pass 1 output is not its key times the permuted input"
    assert public.verdict is not None and public.verdict.culprit == 0, public.verdict
    assert why in public.verdict.reason and public.left == []
    for seat in (1, 2, 3):
        table = results[seat].table
        assert table.verdicts[1].culprit == 0 and why in table.verdicts[1].reason, seat
        assert table.finished and table.chain.head == public.chain.head
    report = verify(read_transcript(record))
    assert report.fault is not None and report.fault.culprit == 0 and why in report.fault.reason
    assert report.silent == frozenset() and report.left == (), report.summary()
