"""The peer's own clock-driven choices, on trio's mock clock: a bot's think time."""

from __future__ import annotations

from types import SimpleNamespace

from shanghai_net.engine import Phase
from shanghai_net.identity import Identity
from shanghai_net.net.peer import BotPlayer, Peer


def table_at(version, phase=Phase.DRAW, round_no=1):
    return SimpleNamespace(round=round_no, version=version, game=SimpleNamespace(phase=phase))


async def test_a_bot_thinks_before_each_decision_and_not_again_for_the_same_one(mock_clock):
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(think=2.0))
    assert not peer._thought(table_at(3))  # the decision arises: think first
    mock_clock.jump(1.9)
    assert not peer._thought(table_at(3))
    mock_clock.jump(0.2)
    assert peer._thought(table_at(3)) and peer._thought(table_at(3))
    assert not peer._thought(table_at(4))  # the game moved on: a new decision
    assert not peer._thought(table_at(4, Phase.PLAY, 2))


async def test_a_bot_that_does_not_think_decides_at_once(mock_clock):
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer())
    assert peer._thought(table_at(1)) and peer._thought(table_at(2))


async def test_a_vote_already_in_the_stream_is_not_cast_again(mock_clock):
    """After a crash the replayed stream holds this seat's own vote: the peer does not wait to
    vote again (it would wake at once, for ever)."""
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(), void_after=5.0)
    peer.seat, peer.outbox, peer.absent = 0, object(), {2: 0.0}
    peer.table = SimpleNamespace(finished=False, void_target=3, void_votes={})
    assert peer._vote_due() == 5.0
    peer.table.void_votes[3] = {0}
    assert peer._vote_due() == float("inf")
