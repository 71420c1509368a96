"""Whom a reference seat votes against with sharing on (docs/dealing.md, "What the reference
clients vote on"), on a `Peer` with a stand-in table: only on the signed stream, a seat owing
the deal a step with nothing of its own for its wait, or a seat whose ``leave`` is sequenced,
at once; never on the lobby's word that a seat's link is down or that it quit, nor because a
person voted.  The same peer without sharing keeps version 9's rule."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.voting import STALL_VOTE
from shanghai_net.wire.messages import LobbyState, SeatInfo


def seat_zero(sharing, quit=frozenset(), voted=frozenset()):
    """Seat 0 of four: the lobby says seat 1's link is down and its player quit, seat 2 owes
    the deal a step since 10 s (the table waits on it), seat 3's ``leave`` is in ``quit``; ``voted``: the seats that
    voted this round (seat 1 is a person's)."""
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(), void_after=60.0)
    peer.seat = 0
    peer.table = SimpleNamespace(
        seat=0, share_threshold=2 if sharing else None, quitters=lambda: set(quit), vacant={},
        unheard=set(), silenced={}, stalled_by=lambda: {2}, finished=False, waiting_audit=False,
        void_target=1, void_votes={1: set(voted)}, still_silent=set,
        chain=SimpleNamespace(next_seq=0))
    peer.outbox = SimpleNamespace(deal=[], flying=[])
    peer.lobby = LobbyState(seats=tuple(
        SeatInfo(seat=s, name=f"s{s}", fingerprint="f", ready=True, connected=s != 1,
                 left=s == 1, kind="player" if s in (0, 1) else "bot") for s in range(4)),
        preset="davis", rules={}, join_code="")
    peer.absent, peer.left, peer.stalling = {1: 5.0}, frozenset({1}), {2: 10.0}
    return peer


@pytest.mark.parametrize("sharing", [True, False], ids=["sharing on", "sharing off"])
def test_a_person_is_offered_a_vote_on_the_lobby_s_word_only_without_sharing(sharing):
    peer = seat_zero(sharing)
    lobby = {1} if not sharing else set()
    assert peer.holding_up(10.0 + STALL_VOTE - 0.1) == lobby
    assert peer.holding_up(10.0 + STALL_VOTE) == lobby | {2}
    assert seat_zero(sharing, quit={3}).holding_up(11.0) == lobby | {3}


@pytest.mark.parametrize("sharing", [True, False], ids=["sharing on", "sharing off"])
def test_a_bot_votes_at_once_only_on_a_leave_with_sharing_on(sharing):
    peer = seat_zero(sharing)
    assert peer._vote_due() == (10.0 + 60.0 if sharing else -math.inf)  # the lobby's "left"
    assert peer.vote_target(peer._away()) == (2 if sharing else 1)
    voted = seat_zero(sharing, voted={1})  # a person voted
    assert voted._vote_due() == (10.0 + 60.0 if sharing else -math.inf)
    quitting = seat_zero(sharing, quit={3})
    assert quitting._vote_due() == -math.inf  # sharing off: seat 1 (the lobby's) goes first
    assert quitting.vote_target(quitting._away()) == (3 if sharing else 1)
