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
        own = [(m.seq, m.counter) for m in host.history[:len(seen)] if m.author == seat.seat]
        assert [(p.seq, p.counter) for p in seat.placed] == own and own
        assert all(m.author != seat.seat for m in seat.full)


def test_a_placed_message_the_seat_never_sent_names_the_host():
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(range(32))))
    with pytest.raises(PeerError, match="placed a message 9 of ours at seq 3 that we have not "
                                        "sent"):
        peer._placed(Placed(seq=3, counter=9))
