"""R1 of version 10's dropout-tolerant deal (docs/dealing.md "R1, lost mid-round", protocol.md
11.10) as clients/simple_bot.py follows it (on, as in the reference; `rebuilds_lost` is its
switch): the client's replica of our in-process tables reads the vote that loses a seat, the round going on, the holders' ``share_reveal``s
(one off its commitments names its author), the rebuild, and a ``"shares"`` timeout below ``t``
(the round void); and as a holder it owes the same ``share_reveal`` our seat sends."""

from __future__ import annotations

import os

import pytest

from shanghai_net.deal.messages import ShareReveal
from shanghai_net.table.fault import Fault
from shanghai_net.wire.messages import Deal

from dropout_helpers import changing
from test_table_dropout_lost_rebuild import lost, published, wrong_share
from test_table_dropout_lost_vote import after_some_draws
from test_table_roster import vote_gone
from test_table_dropout_silent import seat_playing
from test_table_silence import follow, simple_bot_follower


def replica_of(t, seat=None):
    """simple_bot's replica of ``t``'s game: a follower, or (``seat``) a replica
    that holds that seat's box key and draws its seeds, so that it opens its shares."""
    if seat is None:
        replica = simple_bot_follower(t.host.start_game)
    else:
        from cryptography.hazmat.primitives.serialization import (Encoding, NoEncryption,
                                                                  PrivateFormat)
        ours = t.seats[seat]
        seeds = [ours.participant.generation(n).seed + bytes(32)  # 64 bytes that reduce to it
                 for n in sorted(ours.generations)]
        replica = simple_bot_follower(t.host.start_game).__class__(
            t.host.start_game.to_wire(), seat,
            ours._box_key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()),
            t.host.start_game.seats[seat].box_key,
            lambda n: seeds.pop(0) if n == 64 else os.urandom(n), t.ids[seat].sign_public)
    replica.rebuilds_lost = True
    return replica


def last_sequenced(t):
    """Publish the lost seat's shares until a party names someone; the message the host
    sequenced last, the evidence."""
    placed = []
    t.host.admit = lambda msg, admit=t.host.admit: placed.append(admit(msg)) or placed[-1]
    with pytest.raises(Fault):
        published(t)
    return placed[-1]


def test_the_client_s_replica_follows_a_seat_lost_and_rebuilt_and_the_round_going_on():
    t = lost()
    round_no, penalty = t.host.round, t.host.rules.leave_penalty
    published(t)
    replica = replica_of(t)
    follow(replica, t.stream, 0)
    assert replica.verdict == "" and not replica.finished
    assert replica.vacant == {2: round_no} and replica.voided == set()
    assert replica.rebuilds[2].seeds == {0: t.seats[0].participant.generation(0).sharing.rebuilt[2]}
    assert replica.scores == [penalty * (s == 2) for s in range(4)]
    assert not [key for key, owers in replica.owed.items() if 2 in owers]


def test_the_client_owes_the_share_reveal_our_holder_sends():
    t = lost()
    published(t)
    (ours,) = [i for i, m in enumerate(t.stream) if m.author == 1
               and isinstance(m.body, Deal) and m.body.step == "share_reveal"]
    replica = replica_of(t, seat=1)
    follow(replica, t.stream[:ours], 0)
    assert replica.next_body() == t.stream[ours].to_wire()["body"]


def test_the_client_s_replica_names_a_holder_that_publishes_a_wrong_share():
    t = lost(kinds={1: seat_playing(changing(ShareReveal, wrong_share))})
    replica = replica_of(t)
    evidence = last_sequenced(t)
    follow(replica, [*t.stream, evidence], 0)  # (its delivery stopped: t.stream lacks it)
    assert replica.finished
    assert replica.verdict.startswith("round 1: seat 1: it published a share of seat 2's seed "
                                      "of generation 0 that is off its commitments")


def test_the_client_s_replica_voids_the_round_when_a_shares_timeout_leaves_fewer_than_t():
    t = lost(held={3})
    round_no, penalty = t.host.round, t.host.rules.leave_penalty
    published(t)
    timeout = t.time_out(3, "shares")  # (sequenced, and not in t.stream)
    replica = replica_of(t)
    follow(replica, t.stream, 0)
    replica.apply(timeout.seq, timeout.author, timeout.to_wire()["body"])
    assert replica.voided == {round_no} and replica.vacant == {2: round_no}
    assert replica.scores == [penalty * (s == 2) for s in range(4)] == list(t.host.public.scores)


def test_with_its_r1_switched_off_the_client_voids_the_round_at_the_same_votes():
    """With the client's R1 switched off the same votes void the round, as without sharing: the
    switch is what the tests above exercise."""
    t = lost()
    round_no = t.host.round
    published(t)
    replica = replica_of(t)
    replica.rebuilds_lost = False
    follow(replica, t.stream, 0)
    assert replica.voided == {round_no} and replica.rebuilds == {} and replica.vacant == {2: 1}


def test_the_client_s_replica_waits_for_t_holders_votes_beyond_the_seat_majority():
    """5 seats, ``t = 4``: three votes are the seats' majority, not ``t`` holders' votes: the
    round waits; the fourth loses the seat, the round going on."""
    t = after_some_draws()
    vote_gone(t, 2, [0, 1, 3])
    replica = replica_of(t)
    read = follow(replica, t.stream, 0)
    assert replica.vacant == {} and replica.voided == set() and replica.rebuilds == {}
    vote_gone(t, 2, [4])
    follow(replica, t.stream, read)
    assert replica.vacant == {2: t.host.round} and replica.voided == set()
    assert list(replica.rebuilds) == [2]


def test_the_client_hands_a_replaced_seat_s_hidden_cards_to_its_replacement_as_our_deal_does():
    """A replacement of a seat lost this round, approved by every seat not vacant, is seated at
    once; the client then owes it, for each generation, its keys of the seat's hidden cards in a
    ``shares`` box whose secret is read under ``"handed box"``: byte for byte our deal's."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey
    from shanghai_net.deal import seeded
    from shanghai_net.deal.box import seal
    from shanghai_net.deal.handed import handed_box_secret
    from shanghai_net.deal.messages import Context
    from shanghai_net.deal.seeds import SeedKeys
    from shanghai_net.deal.sharing import seed_scalar
    from test_client_bot import client_start, load_client

    bot = load_client()
    keys, start = client_start(4)
    rnd = seeded(b"client handed")
    table = bot.Table({**start, "share_threshold": 3}, 0, rnd(32), rnd(32), rnd, keys[0])
    table.rebuilds_lost = True
    seed = seed_scalar(rnd)
    table.gens[0] = bot.Generation(start["game_id"], table.round_no, 0, list(range(52)), 0, seed)
    table.hands[2] = [(0, 9), (-1, 17), (0, 4), (0, 30)]
    table.shown.add((0, 30))
    table.vacant[2] = table.round_no
    table.rebuilds[2] = bot.Rebuild({})
    newcomer = bytes([50]) * 32
    table.proposed(40, {"seat": 2, "name": "stand-in", "role": "bot", "sign_key": newcomer,
                        "box_key": newcomer})
    for seat in (0, 1, 3):
        table.approved(seat, 40)
    assert table.vacant == {} and table.box_keys[2] == newcomer and 2 in table.replaced
    body = table.next_body()
    ctx = Context(start["game_id"], table.round_no, 0)
    secret = handed_box_secret(ctx, 0, seed, 2, newcomer, (4, 9))
    card_keys = SeedKeys(ctx, 0, seed, 52).card_keys
    ours = seal(secret, X25519PublicKey.from_public_bytes(newcomer), ctx, 0, 2, (4, 9),
                card_keys[4] + card_keys[9])
    assert body == {"kind": "deal", "step": "shares", "data": {
        "round": table.round_no, "generation": 0,
        "boxes": [{"to": 2, "positions": [4, 9], "epk": ours.epk, "box": ours.ciphertext}]}}
    table.apply(41, 0, body)
    assert table.handing == {(2, 0): {1, 3}} and table.next_body() != body


def test_the_client_s_replica_counts_a_first_player_back_mid_round_as_no_holder_of_its_seeds():
    """4 seats, t = 3 (dealing-review s18 #1): seat 2 is lost and rebuilt, its first player
    comes back mid-round with both its start_game keys; then seats 0, 1 and 2 vote seat 3
    gone.  Seat 2 holds no share of the round (a holder again from the next deal), so seat 3
    is not rebuildable and the round is void at every party, the client's replica too.  A
    client counting seat 2 a holder at once loses seat 3 with the round going on, and owes and
    awaits a share of it seat 2 does not hold.  (Over sockets: test_client_bot_seating.py.)"""
    from shanghai_net.engine import RoundVoided
    from test_adversary_r1 import first_player_back

    t = lost()
    published(t)
    first_player_back(t, 2)
    t.run_until(lambda: t.host.settled)
    round_no = t.host.round
    replica = replica_of(t)
    since = follow(replica, t.stream, 0)
    assert replica.share_holders() == [0, 1, 3]
    t.gone.add(3)
    vote_gone(t, 3, [0, 1, 2])
    while t.step(play=False):
        pass
    assert any(isinstance(e, RoundVoided) for e in t.host.public.log)
    follow(replica, t.stream, since)
    assert replica.verdict == "" and not replica.finished
    assert round_no in replica.voided and 3 in replica.vacant
    assert 3 not in replica.rebuilds and replica.round_no == round_no + 1
