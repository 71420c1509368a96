"""The host answers an author's own game message with `placed` (its seq), not a copy of it: the
author chains the message it holds, and every other client gets the message in full."""

from __future__ import annotations

import pytest
import trio

from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.wire.messages import GameMessage, Placed

from test_net_game import assert_clean, play


class Watching(Peer):
    """A seat that notes every game message and `placed` the host sends it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.full: list[GameMessage] = []
        self.placed: list[Placed] = []

    async def _on_message(self, link, msg) -> None:
        if isinstance(msg, GameMessage):
            self.full.append(msg)
        elif isinstance(msg, Placed):
            self.placed.append(msg)
        await super()._on_message(link, msg)


async def test_an_author_is_told_where_its_message_went_and_the_others_get_it_whole():
    seats = {}

    class Seat(Watching):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            seats[self.name] = self

    with trio.fail_after(120):
        host, tables, _ = await play(3, "davis", rounds=1, peer_type=Seat)
    assert_clean(host, tables, 1)
    for seat in seats.values():
        seen = sorted([m.seq for m in seat.full] + [p.seq for p in seat.placed])
        assert seen == list(range(len(seen))) and len(seen) > 100  # each seq once, in order
        own = [(m.seq, m.counter) for m in host.history.messages[:len(seen)] if m.author == seat.seat]
        assert [(p.seq, p.counter) for p in seat.placed] == own and own
        assert all(m.author != seat.seat for m in seat.full)


def test_a_placed_message_the_seat_never_sent_names_the_host():
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(range(32))))
    with pytest.raises(PeerError, match="placed a message 9 of ours at seq 3 that we have not "
                                        "sent"):
        peer._placed(Placed(seq=3, counter=9))


async def test_a_host_that_places_a_seat_s_message_elsewhere_is_named_by_that_seat(monkeypatch):
    """The host tells seat 1 that one of its messages went one seq further than it did: seat 1
    chains what it holds where it was told, finds the stream skip, and names the host; the
    other seats, shown the true order, go on without a fault, and no card of seat 1 opens."""
    import random

    from shanghai_net.deal import seeded
    from shanghai_net.net.client import Client
    from shanghai_net.net.host import Host, HostConfig
    from shanghai_net.net.player import BotPlayer

    honest = Client.next_message
    lied = []

    def misplacing(client):
        msg, frame = honest(client)
        if isinstance(msg, Placed) and client.seat == 1 and msg.seq >= 20 and not lied:
            lied.append(msg.seq)
            return Placed(seq=msg.seq + 1, counter=msg.counter), None
        return msg, frame

    monkeypatch.setattr(Client, "next_message", misplacing)
    rnd = seeded(b"misplacing host")
    host = Host(HostConfig(players=3, claim_timeout=1.0, random=rnd))
    outcome = {}
    named = trio.Event()
    peers = {}
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)

            async def seat(i):  # keyed by the seat the host gives it, whatever the order
                peer = Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                            BotPlayer("basic", random.Random(i)), name=f"bot{i}",
                            random=seeded(b"misplaced %d" % i), timeout=20, reconnect=False,
                            on_table=lambda table: peers.__setitem__(table.seat, peer))
                try:
                    await peer.run()
                except PeerError as error:
                    outcome[peer.seat] = error
                    named.set()

            for i in range(3):
                nursery.start_soon(seat, i)
            await named.wait()
            nursery.cancel_scope.cancel()
    assert lied and set(outcome) == {1}
    assert "fault by the host" in str(outcome[1]) and "skips ahead" in str(outcome[1])
    for i in (0, 2):
        table = peers[i].table
        assert table.fault is None
        assert not set(peers[1].table.participant.hand()) & \
            set(table.game.faces)


def test_a_seat_takes_each_placed_message_once_and_never_one_the_host_refused():
    """`placed` names a message still on its way from this connection: once it is chained it
    is no longer on its way (the host placing it twice is the host's fault), and neither is
    one the host refused."""
    from shanghai_net.wire.messages import Error
    from test_net_table import Table

    t = Table(3, seed=8)
    box = t.boxes[0]
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(range(32))))
    peer.table, peer.outbox = t.seats[0], box
    first = box.poll()  # seat 0's first message: the first dealer pick's commitment
    assert first is not None and box.unplaced == {first.counter: first}
    mine = peer._placed(Placed(seq=0, counter=first.counter))
    assert (mine.seq, mine.counter, mine.body) == (0, first.counter, first.body)
    t.deliver(first)  # the host places it: chained at seat 0 as its own
    assert box.unplaced == {}
    with pytest.raises(PeerError, match="that we have not sent"):
        peer._placed(Placed(seq=1, counter=first.counter))
    t.run_until(lambda: bool(box.deal) or box.move is not None)  # seat 0 owes something
    later = box.poll()
    assert later is not None
    box.error(Error(code="illegal_move", reason="refused", ref_counter=later.counter))
    with pytest.raises(PeerError, match="that we have not sent"):
        peer._placed(Placed(seq=t.host.chain.next_seq, counter=later.counter))
