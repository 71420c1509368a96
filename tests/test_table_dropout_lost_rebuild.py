"""R1's published shares and rebuild wired into the table, in process over our real classes
(docs/dealing.md, "The published shares of R1", "The rebuild", "Below the threshold"): from
the vote that loses a seat each of its holders publishes its shares (``share_reveal``); every
party checks each as it is sequenced (one off the seat's commitments names its author), and at
``t`` of every rebuilt generation rebuilds the seat; the host times out a holder whose shares do
not come (``"shares"``), and below ``t`` the round is void as without sharing."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.deal.messages import ShareReveal
from shanghai_net.engine import RoundVoided, SeatLost
from shanghai_net.table.fault import Fault
from shanghai_net.table.verify import verify
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

from dropout_helpers import changing
from test_table_dropout_lost_vote import after_some_draws
from test_table_dropout_lost_wire import refused_timeout
from test_table_dropout_silent import parties, seat_playing
from test_table_roster import vote_gone


def lost(kinds=None, held=(), turn=None):
    """Seat 2 of a 4-seat table, ``t = 3``, voted gone after some draws (at ``turn``'s, if
    given) by seats 0, 1 and 3; the host never sequences the ``share_reveal`` of the seats
    ``held``."""
    t = after_some_draws(4, 3, kinds=kinds, turn=turn)
    plain = t.deliver

    def deliver(msg):
        if msg.author in held and isinstance(msg.body, Deal) and msg.body.step == "share_reveal":
            return msg  # kept back by the host for ever
        return plain(msg)

    t.deliver = deliver
    vote_gone(t, 2, [0, 1, 3])
    return t


def published(t):
    while t.step(play=False):
        pass


def test_the_holders_publish_their_shares_and_every_party_rebuilds_the_lost_seat():
    t = lost()
    round_no = t.host.round
    assert t.host.rebuilds[2].owing() == [0, 1, 3]
    published(t)
    reveals = [m for m in t.stream if isinstance(m.body, Deal) and m.body.step == "share_reveal"]
    assert sorted(m.author for m in reveals) == [0, 1, 3]
    assert all(m.body.data["seat"] == 2 for m in reveals)
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party.rebuilds[2].owing() == [] and party.lost == [(round_no, 2)]
        assert not any(isinstance(e, RoundVoided) for e in party.public.log)
    for seat in (0, 1, 3):
        assert t.seats[seat].participant.rebuilt(2)
    seeds = {seat: t.seats[seat].participant.generation(0).sharing.rebuilt[2] for seat in (0, 1, 3)}
    assert len(set(seeds.values())) == 1
    assert t.host.records[0].sharing.rebuilt[2] == seeds[0]


def wrong_share(participant, reveal):
    (number, share), *rest = reveal.shares
    return dataclasses.replace(reveal, shares=((number, bytes([share[0] ^ 1]) + share[1:]),
                                               *rest))


def test_a_holder_that_publishes_a_wrong_share_is_named_by_every_party():
    t = lost(kinds={1: seat_playing(changing(ShareReveal, wrong_share))})
    admitted, admit = [], t.host.admit
    t.host.admit = lambda msg: admitted.append(admit(msg)) or admitted[-1]
    with pytest.raises(Fault):
        published(t)
    evidence = admitted[-1]  # sequenced as the evidence
    for seat in t.seats:  # the delivery stopped at the first seat that named the author
        if seat.fault is None:
            with pytest.raises(Fault):
                seat.receive(evidence)
    assert evidence.body.step == "share_reveal" and evidence.author == 1
    for party in parties(t):
        assert party.fault is not None and party.fault.culprit == 1, party.fault
        assert "off its commitments" in party.fault.reason


def test_a_holder_timed_out_below_t_voids_the_round_as_without_sharing():
    t = lost(held={3})
    round_no, penalty = t.host.round, t.host.rules.leave_penalty
    published(t)
    assert t.host.rebuilds[2].owing() == [3]
    t.time_out(3, "shares")
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party.lost == [] and party.left == [(round_no, 2)] and party.rebuilds == {}
        voided = [e for e in party.public.log if isinstance(e, RoundVoided)]
        assert [(e.round_no, e.leaver, e.penalty) for e in voided] == [(round_no, 2, penalty)]
        assert [e.seat for e in party.public.log if isinstance(e, SeatLost)] == [2]
        assert party.public.scores == [penalty * (s == 2) for s in range(4)]


def test_a_shares_timeout_of_a_holder_not_the_lowest_owing_names_the_host():
    t = lost(held={1, 3})
    published(t)
    assert t.host.rebuilds[2].owing() == [1, 3]
    refused_timeout(t, 3, "shares")


def test_each_holder_owes_its_shares_until_they_are_sequenced():
    t = lost(held={3})
    owed = [(s.seat, s.to, s.generations) for s in t.host.owed_steps() if s.step == "share_reveal"]
    assert owed == [(0, 2, (0,)), (1, 2, (0,)), (3, 2, (0,))]
    published(t)
    for party in parties(t):
        assert party.owed()[3] == "its shares of seat 2's seeds"
        assert [s.seat for s in party.owed_steps() if s.step == "share_reveal"] == [3]


def test_once_rebuilt_the_others_play_on_without_it_until_its_turn():
    """Its key shares and its keys of cards turned up come from its rebuilt seed: the others
    draw and discard (claim windows leaving it out) until the game waits for its move."""
    t = lost(turn=3)
    hand = list(t.host.public.hands[2])
    published(t)
    moves = len(t.stream)
    t.run_until(lambda: t.host.settled and 2 in t.host.public.to_move())
    assert len(t.stream) > moves
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party.public.hands[2] == hand and party.outstanding == {}
    for seat in (0, 1, 3):
        table = t.seats[seat]
        assert table.game.hands[2] == hand and table.settled
        assert all(token in table.game.faces for token in table.game.hands[seat])


def test_after_a_complaint_no_share_reveal_nor_shares_timeout_has_a_place():
    """A complaint stops the round: the shares still owed are owed no more (a complained-of
    share is only ever published in seeds), and the host may time none of them out."""
    t = lost(held={3})
    published(t)
    t.deliver(t.sign(0, t.ids[0].sign_key, wm.Complaint(round=t.host.round, reason="test")))
    assert all(s.step == "seeds" for s in t.host.owed_steps())
    refused_timeout(t, 3, "shares")


def test_a_round_stopped_after_the_rebuild_is_audited_without_the_lost_seat_s_seeds():
    """The lost seat is vacant and owes no seeds: the audit uses its rebuilt seeds and runs in
    full, here naming a false complainer, at every party and in ``verify``."""
    t = lost()
    published(t)
    t.deliver(t.sign(0, t.ids[0].sign_key, wm.Complaint(round=t.host.round, reason="test")))
    while t.step(play=False):
        pass
    for party in parties(t):
        assert party.verdict is not None and party.verdict.culprit == 0, party.verdict
        assert "every step of the deal matches its seed" in party.verdict.reason
    report = verify([t.host.start_game, *t.stream])
    assert not report.ok and report.fault.culprit == 0, report.summary()


def test_the_host_may_not_time_out_the_seeds_of_a_seat_lost_this_round():
    t = lost()
    published(t)
    t.deliver(t.sign(0, t.ids[0].sign_key, wm.Complaint(round=t.host.round, reason="test")))
    refused_timeout(t, 2, "seeds")
