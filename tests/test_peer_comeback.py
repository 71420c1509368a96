"""Our first player back mid-round to its seat lost this round (sharing on, R1; protocol.md
11.10), in process: our own `Peer` plays seat 2 on the table its program kept through the loss,
each message of the in-process stream fed to it as its connection would (`Peer._holder_changed`
after each), no sockets.  The host's ``replace`` gives the seat back to the player's keys, both
of its ``start_game`` keys (the same process back) or its signing key with the box key of a
new join (the program started again).  Its table played a deal that lost the seat, so the peer
takes the seat over as a replacement does (`PeerTable.taking_over`): no share of the round's
seeds, its hand from the boxes the others hand it.  Before, it saw no change of holder (the
keys are its own), kept its old table, and faulted at the first handed box, naming its
sender.  A seat given back at a deal's start (its round void) is no mid-round seating: its
table plays on; and a table whose seat is voted gone offers no move."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

import test_net_table
from shanghai_net.deal import seeded
from shanghai_net.engine import RoundVoided
from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.table.secret import SeatSecret
from shanghai_net.table.seat import PeerTable
from shanghai_net.wire import messages as wm

from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_lost_rebuild import lost, published
from test_table_dropout_silent import parties
from test_table_roster import Roster, vote_gone

BACK = 2
"""The seat lost and played again by its first player (`lost`'s)."""


def lost_with_secrets(monkeypatch, make=lost):
    """``make()``'s table (`lost`'s), each seat's box key that of a `SeatSecret` (as a
    peer's is); the table, and those secrets by seat."""
    secrets = []

    def identity(sign_seed: bytes, box_seed: bytes) -> Identity:
        secrets.append(SeatSecret(box_seed))
        return Identity(sign_seed, secrets[-1].box_key.private_bytes(
            Encoding.Raw, PrivateFormat.Raw, NoEncryption()))

    monkeypatch.setattr(test_net_table, "Identity", identity)
    t = make()
    monkeypatch.undo()
    secrets = secrets[:len(t.seats)]  # (the host's identity came next)
    assert [s.box_public for s in secrets] == [x.box_public for x in t.ids]
    return t, secrets


def peer_at_the_seat(t, kept: SeatSecret, own: SeatSecret) -> Peer:
    """Our peer of seat `BACK`, playing the table that followed the stream through the seat's
    loss: ``kept``, the seat's secret it plays with; ``own``, its join's (the same: the same
    process).  From here every message goes through the peer's holder check."""
    peer = Peer(("127.0.0.1", 0), t.ids[BACK], BotPlayer("basic", random.Random(BACK)),
                name="back", role="player", secret=own, random=seeded(b"back"),
                worker_threads=False)
    peer.seat = peer.result.seat = BACK
    peer.start = t.host.start_game
    peer._secrets = [kept]
    peer._sit(peer._seated(t.seats[BACK], kept), [])
    t.boxes[BACK] = peer.outbox
    plain = t._after

    def after(msg):
        plain(msg)
        peer._holder_changed()
        t.seats[BACK], t.boxes[BACK] = peer.table, peer.outbox

    t._after = after
    return peer


@pytest.mark.parametrize("restarted", [False, True], ids=["same process", "started again"])
async def test_our_first_player_back_mid_round_takes_its_seat_over_and_plays_on(
        monkeypatch, restarted):
    """4 seats, t = 3: seat 2 is voted gone after some draws, lost and rebuilt; the host gives
    it back to its first player, the round going on.  Our peer, whose table followed the loss,
    takes the seat over at the approval that seats it: its table holds no share of the round's
    seeds (seat 3's holders are 0, 1 and 3 at every party), it opens its hand from the handed
    boxes, and the round and the game play on: no party faults or names anyone, and no hidden
    card opens to a seat not holding it.  From the next deal seat 2 is a holder again with
    both of its start_game keys, and not with a new join's box key (holders' rule 4)."""
    t, secrets = lost_with_secrets(monkeypatch)
    published(t)
    kept = secrets[BACK]
    own = SeatSecret(seeded(b"a new join")(32)) if restarted else kept
    peer = peer_at_the_seat(t, kept, own)
    old = peer.table
    given = peer.outbox.reserve()  # a counter the old table's outbox gave (a message on its way)
    t.host_says(wm.Replace(seat=BACK, name="p2", role="player", sign_key=t.ids[BACK].sign_public,
                           box_key=own.box_public))
    t.gone.discard(BACK)
    t.run_until(lambda: BACK not in t.host.vacant, play=False)
    t.run_until(lambda: t.host.settled)
    assert peer.table is not old and isinstance(peer.table, PeerTable), \
        "the peer kept the table that lost its seat"
    assert peer._secrets == ([kept, own] if restarted else [kept])
    assert peer.outbox.reserve() > given, "the new outbox gives counters the old one gave"
    round_no = t.host.round
    back = peer.table
    assert not back._hand_unknown() and back.can_move() == (BACK in back.game.to_move())
    assert all(party.share_holders(3, ()) == (0, 1, 3) for party in parties(t))
    t.run_until(lambda: t.host.round > round_no)
    again = (0, 1, 3) if restarted else (0, 1, 2, 3)
    assert [party.share_holders(3, ()) for party in parties(t)] == [again] * 5
    t.run_until(lambda: t.host.finished)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, party.fault
        assert not any(isinstance(e, RoundVoided) for e in party.public.log)
    assert peer.table is back and back.verdicts and all(v.clean for v in back.verdicts.values())
    for seat in range(len(t.seats)):
        assert_no_hidden_card_opened_to(t, seat)


async def test_a_message_the_kept_table_sent_is_ours_when_placed_after_the_seat_is_taken_over(
        monkeypatch):
    """Over sockets (test_net_comeback.py, 2 of 7 runs under load) a message the kept table
    had sent on the new connection was sequenced after the seat's ``replace`` (the same key
    plays the seat again), and the host's `Placed` for it came once the peer had taken the
    seat over with a new outbox: the peer stopped, "the host placed a message 10 of ours at
    seq 48 that we have not sent".  It sent it: the new outbox knows it."""
    t, secrets = lost_with_secrets(monkeypatch)
    published(t)
    kept = secrets[BACK]
    peer = peer_at_the_seat(t, kept, kept)
    old = peer.table
    sent = peer.outbox._sign(wm.DrawStock())  # on its way as the seat is given back
    t.host_says(wm.Replace(seat=BACK, name="p2", role="player", sign_key=t.ids[BACK].sign_public,
                           box_key=kept.box_public))
    t.gone.discard(BACK)
    t.run_until(lambda: BACK not in t.host.vacant, play=False)
    assert peer.table is not old, "the peer kept the table that lost its seat"
    placed = peer._placed(wm.Placed(seq=t.host.chain.next_seq, counter=sent.counter))
    assert (placed.counter, placed.body) == (sent.counter, sent.body)
    assert peer.outbox.reserve() > sent.counter


async def test_our_first_player_back_at_a_deal_s_start_plays_on_with_the_table_it_kept(
        monkeypatch):
    """Sharing off: seat 2 is voted gone and its round void; its first player comes back (the
    same process) and the next deal seats it.  That is no mid-round seating: its table, whose
    deal begins with that round, plays on, and the peer takes nothing over."""
    t, secrets = lost_with_secrets(monkeypatch, lambda: Roster(4, seed=21))
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone.add(BACK)
    vote_gone(t, BACK, (0, 1, 3))
    assert BACK in t.host.vacant and any(isinstance(e, RoundVoided) for e in t.host.public.log)
    peer = peer_at_the_seat(t, secrets[BACK], secrets[BACK])
    kept = peer.table
    t.host_says(wm.Replace(seat=BACK, name="p2", role="player", sign_key=t.ids[BACK].sign_public,
                           box_key=secrets[BACK].box_public))
    t.gone.discard(BACK)
    t.run_until(lambda: t.host.round == 2 and BACK not in t.host.vacant and t.host.settled)
    assert t.host.holders[BACK].replaced and not t.host.rekey_due
    t.run_until(lambda: t.host.finished)
    assert peer.table is kept and t.seats[BACK] is kept
    for party in parties(t):
        assert party.fault is None and party.verdict is None, party.fault
    assert kept.finished and all(v.clean for r, v in kept.verdicts.items() if r >= 2)


def test_a_seat_voted_gone_at_its_turn_makes_no_move_on_the_table_it_kept():
    """Seat 2 is voted gone at its turn (its player's program alive, or started again and
    replaying): its replica shows its turn still, which waits for the seat's next holder, but
    the table offers its player no move.  Before, its bot moved on the table that lost the
    seat, and the host, which had seated the seat again meanwhile, sequenced that move."""
    t = lost(turn=BACK)
    published(t)
    table = t.seats[BACK]
    assert BACK in t.host.vacant and BACK in table.game.to_move() and table.settled
    assert not table.can_move()
