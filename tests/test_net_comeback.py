"""Our first player back mid-round over real sockets, the same process (sharing on, R1;
protocol.md 11.10): seat 2's link drops while the table waits on its move in round 1, and its
program keeps its table in memory; the other seats vote it gone, it is lost and rebuilt, the
round going on, and no stand-in takes it (the host seats none).  Then its link comes back
(``resume``): the host proposes its keys, both of its ``start_game`` keys, the seats approve,
and the stream seats it mid-round.  Its peer takes the seat over as a replacement does, its
hand from the handed boxes, and the game ends clean everywhere.  The program started again
with its identity is `test_client_bot_seating.py`'s; both in process: `test_peer_comeback.py`."""

from __future__ import annotations

import random

import trio

from shanghai_net.engine.events import RoundVoided, SeatLost
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.verify import verify

from seating import until
from sharing_net import FROZEN, FrozenInRoundOne, sharing_on, sharing_table, votes_against
from test_net_takeback import KeptAway


class FrozenUntilBack(FrozenInRoundOne):
    """`FrozenInRoundOne` until ``back`` is set (its player back at the table)."""

    def __init__(self, back: trio.Event) -> None:
        super().__init__(FROZEN)
        self.back = back

    def choose(self, table):
        return BotPlayer.choose(self, table) if self.back.is_set() else super().choose(table)


async def test_our_first_player_back_on_its_connection_takes_its_seat_lost_mid_round_over(
        tmp_path, monkeypatch):
    sharing_on(monkeypatch, 3)
    record = tmp_path / "comeback.bin"
    back = trio.Event()
    options = {FROZEN: {"kind": KeptAway, "player": FrozenUntilBack(back)}}
    with trio.fail_after(240):
        async with sharing_table(tmp_path, 4, b"comeback", options, record=record) as (
                host, peers, ends, kill):
            public, peer = host.public, peers[FROZEN]
            await until(lambda: public.round == 1 and public.moving() == {FROZEN},
                        "round 1 waiting on seat 2's move", seconds=90,
                        state=lambda: (public.round, public.moving(), public.owed()))
            kept = peer.table
            await peer._link.stream.aclose()  # its cable pulled; its program waits for `back`
            await votes_against(peers, [0, 1, 3], FROZEN, host)
            await until(lambda: public.lost == [(1, FROZEN)] and FROZEN in public.vacant and
                        public.rebuilds[FROZEN].rebuilt, "seat 2 lost and rebuilt", seconds=60,
                        state=lambda: (public.lost, public.vacant, public.owed()))
            back.set()
            peer.back.set()
            await until(lambda: FROZEN not in public.vacant, "seat 2 seated again", seconds=60,
                        state=lambda: (public.vacant, public.proposals))
            assert public.round == 1
            await until(lambda: public.finished or isinstance(ends.get(FROZEN), Exception),
                        "the game's end", seconds=150,
                        state=lambda: (public.round, public.owed(), public.fault))
            assert not isinstance(ends.get(FROZEN), Exception), ends[FROZEN]
            await until(lambda: FROZEN in ends, "seat 2's peer through the game's end",
                        seconds=60, state=lambda: (peer.status, peer.detail))
    assert public.fault is None and public.lost == [(1, FROZEN)] and public.left == []
    assert not any(isinstance(e, RoundVoided) for e in public.public.log)
    assert [e.seat for e in public.public.log if isinstance(e, SeatLost)] == [FROZEN]
    holder = public.holders[FROZEN]
    assert (holder.sign_key, holder.box_key) == (peer.identity.sign_public,
                                                 host.start.seats[FROZEN].box_key)
    assert holder.replaced and holder.since == 1
    table = peer.result.table
    assert isinstance(table, PeerTable) and table is not kept, "the peer kept its old table"
    assert table.finished and table.fault is None and table.chain.head == public.chain.head
    for seat, end in ends.items():
        assert not isinstance(end, Exception), (seat, end)
    report = verify(read_transcript(record))
    assert report.ok, report.summary()
