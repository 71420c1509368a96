"""One box key, one seat (docs/dealing.md, "One box key, one seat"; protocol.md 6.2, 11.8,
11.9), in process: every party refuses a ``start_game`` that gives two seats one box key; the
host proposes no ``replace``, and a seat hands itself over to no box key, that another seat
has held in the game or a waiting ``replace`` for another seat names; a host that sequences
one anyway is named, by every seat, and nothing else changes.  (The lobby's side, over
sockets, is in test_net_box_key.py.)"""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.table.public import PublicTable
from shanghai_net.table.seat import PeerTable
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import HOST_AUTHOR

from test_net_complaints import assert_no_hidden_card_opened_to
from test_net_table import Table
from test_table_handover import hand_over
from test_table_roster import Roster, newcomer, vote_gone


def with_box_key(start: wm.StartGame, seat: int, box_key: bytes) -> wm.StartGame:
    seats = list(start.seats)
    seats[seat] = dataclasses.replace(seats[seat], box_key=box_key)
    return dataclasses.replace(start, seats=tuple(seats))


async def test_a_start_game_that_gives_two_seats_one_box_key_is_refused_by_every_party():
    """The host's table, a seat's, and a peer that was sent it: each refuses it, naming both
    seats (a peer as for a start whose keys are not ours: it does not play)."""
    t = Table(4, seed=31, verifiable=True)
    start = t.host.start_game
    twins = with_box_key(start, 3, start.seats[1].box_key)
    why = "start_game gives seats 1 and 3 one box key: one box key, one seat"
    with pytest.raises(ValueError, match=why):
        PublicTable(twins)
    with pytest.raises(ValueError, match=why):
        PeerTable(twins, 0, t.ids[0].box_key, seeded(b"seat 0"))
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), role="spectator")
    with pytest.raises(PeerError, match="cannot play the game the host started: " + why):
        await peer._on_message(None, twins)
    PublicTable(start)  # the same start with four box keys is played


def seat_three_gone(seed: int) -> Roster:
    """A table of four whose seat 3 the others voted gone in round 1."""
    t = Roster(4, seed=seed)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone.add(3)
    vote_gone(t, 3, (0, 1, 2))
    assert set(t.host.vacant) == {3}
    return t


def colluder_for(seat: int, box_key: bytes, n: int) -> wm.Replace:
    """A ``replace`` of ``seat`` by a fresh signing key with ``box_key``."""
    return wm.Replace(seat=seat, name="bot", role="bot", sign_key=newcomer(n).sign_public,
                      box_key=box_key)


def test_a_host_that_sequences_a_replace_with_another_seat_s_box_key_is_named():
    """Seat 3 is voted gone; the host proposes for it a fresh signing key with seat 1's box key
    (its colluder's: a second seat, a second share).  Its own check refuses it; sequenced
    anyway, every seat names the host, and nothing else changed: no proposal waits, every
    seat is played by its keys, no card opened."""
    t = seat_three_gone(32)
    grab = colluder_for(3, t.ids[1].box_public, 32)
    assert t.host.replace_refused(grab) == (
        "the host proposed for seat 3 a box key seat 1 has held in this game: one box key, "
        "one seat")
    before = [table.holders[:] for table in t.seats]
    said = t.relay(t.host.chain.sign(t.host_id.sign_key, HOST_AUTHOR, grab))
    for seat in (0, 1, 2):
        assert said[seat].culprit == HOST_AUTHOR, said[seat]
        assert "a box key seat 1 has held in this game" in said[seat].reason
        assert not t.seats[seat].proposals and t.seats[seat].holders == before[seat]
        assert_no_hidden_card_opened_to(t, seat)
    assert said[3] is not None  # the vacant seat's own table names it too


def test_a_box_key_another_seat_held_or_a_waiting_replace_names_is_refused_its_own_is_not():
    """Seat 3 is voted gone and seat 0 hands itself over to bea (her box key takes effect at
    the next deal, but is seat 0's from the hand-over on).  The host may not propose for seat 3
    seat 0's first box key nor bea's; it may propose seat 3's own first box key (its player
    coming back) or a fresh one.  Once a fresh one waits for seat 3, no other seat's
    ``replace`` may name it, and a later ``replace`` of seat 3 may (it takes its place)."""
    t = seat_three_gone(33)
    bea = newcomer(33)
    t.deliver(hand_over(t, 0, bea))
    for box_key in (t.ids[0].box_public, bea.box_public):
        assert "a box key seat 0 has held in this game" in t.host.replace_refused(
            colluder_for(3, box_key, 34))
    assert t.host.replace_refused(colluder_for(3, t.ids[3].box_public, 35)) is None
    fresh = colluder_for(3, newcomer(36).box_public, 36)
    waiting = t.host_says(fresh)
    assert t.host.replace_refused(colluder_for(2, fresh.box_key, 37)) == (
        f"the host proposed for seat 2 a box key the host proposed for seat 3 (seq "
        f"{waiting.seq}), still waiting: one box key, one seat")
    assert t.host.replace_refused(colluder_for(3, fresh.box_key, 38)) is None


def test_a_hand_over_to_another_seat_s_box_key_is_refused_and_a_host_relaying_it_names_its_author():
    """Seat 1 hands itself over to a fresh signing key with seat 2's box key, or with the box
    key a waiting ``replace`` of seat 3 names: the host refuses it, ``out_of_turn``; relayed
    anyway, every seat names seat 1, who signed it (as for a hand-over to a key at the table),
    and seat 1 is still its player's.  A seat handed over may be handed back to its first box
    key."""
    t = seat_three_gone(39)
    proposed = t.host_says(colluder_for(3, newcomer(40).box_public, 40))
    for box_key, why in ((t.ids[2].box_public, "seat 2 has held in this game"),
                         (proposed.body.box_key,
                          f"the host proposed for seat 3 (seq {proposed.seq}), still waiting")):
        body = dataclasses.replace(hand_over(t, 1, newcomer(41)).body, box_key=box_key)
        grab = t.sign(1, t.ids[1].sign_key, body)
        with pytest.raises(RemoteProtocolError) as info:
            t.host.admit(grab)
        assert info.value.code == "out_of_turn"
        assert f"hands seat 1 over to a box key {why}: one box key, one seat" in \
            info.value.reason
    said = t.relay(grab)
    for seat in (0, 1, 2):
        assert said[seat].culprit == 1 and "one box key, one seat" in said[seat].reason
        assert t.seats[seat].holders[1].sign_key == t.ids[1].sign_public
        assert_no_hidden_card_opened_to(t, seat)
    back = Roster(4, seed=42)
    back.run_until(lambda: back.host.round == 1 and back.host.settled)
    bea = newcomer(42)
    back.deliver(hand_over(back, 1, bea))
    again = wm.HandOver(name="ann", role="player", sign_key=newcomer(43).sign_public,
                        box_key=back.ids[1].box_public, sealed=bytes(80))
    assert back.host._handover_refused(1, again) is None
