"""Checks of the deal core that no test made fail before docs/checks.md listed them, each with
the attack it stops."""

from __future__ import annotations

import dataclasses
import hashlib

import msgpack
import pytest

from shanghai_net.deal import MentalTable, PassOutput, seeded
from shanghai_net.deal.group import multiply_all
from shanghai_net.deal.messages import Context
from shanghai_net.deal.proof import ROUNDS

from test_deal_cheats import CARDS
from test_deal_proof import CONTEXT, honest_shuffle


def test_a_seat_gives_no_key_of_a_card_in_its_own_hand():
    """A lying host (or its ``owed`` notice) asks seat 0 for its key of a card seat 0 holds,
    for seat 1 (which may already hold every other seat's key of it): seat 0 refuses."""
    table = MentalTable(3, seeded(b"own hand"), cards=CARDS)
    card = table.open_to(4, 0)
    with pytest.raises(ValueError, match="position 4 of generation 0 already went to seat 0"):
        table.participants[0].share_keys(0, 1, [4])
    assert table.participants[0].generation(0).given.get(4) is None
    assert table.participants[0].hand() == {(0, 4): card}


def test_a_seat_shows_no_own_key_of_a_card_it_gave_to_another_as_if_it_were_turned_up():
    """Asked to turn up a stock card that is in fact seat 2's (the host lists it as a card no
    one holds), seat 0 refuses to publish its key of it; so do the others, and it stays
    hidden."""
    table = MentalTable(3, seeded(b"turned up"), cards=CARDS)
    table.open_to(6, 2)
    for seat in (0, 1):
        with pytest.raises(ValueError, match="position 6 of generation 0 is held by a player"):
            table.participants[seat].reveal_own_key(0, 6)
    assert all(p.public_card(0, 6) is None for p in table.participants)


def documented_challenge(author, inputs, outputs, shuffles):
    """The challenge bits as docs/security.md lays them out, computed here on their own."""
    h = hashlib.shake_256(b"shanghai-net v1 shuffle proof" + CONTEXT.encode() + bytes([author])
                          + b"".join(inputs) + b"".join(outputs) + b"".join(shuffles))
    bits = int.from_bytes(h.digest(5), "little")
    return [(bits >> r) & 1 for r in range(ROUNDS)]


def test_a_shuffle_proof_s_challenge_binds_the_context_author_input_output_and_every_shuffle():
    """Fiat-Shamir over everything the statement holds (docs/security.md, "Shuffle proof"): a
    challenge that left out the output would let a prover fix its answers first and choose what
    it claims to prove after.  Each round's opening is the one the documented bits ask for."""
    inputs, outputs, proof = honest_shuffle()
    shuffles, answers = msgpack.unpackb(proof)
    bits = documented_challenge(0, inputs, outputs, shuffles)
    assert 0 < sum(bits) < ROUNDS
    n = len(inputs)
    for bit, shuffled, (scalar, order) in zip(bits, shuffles, answers):
        z = [shuffled[t:t + 32] for t in range(0, 32 * n, 32)]
        source, target = (inputs, z) if bit == 0 else (z, outputs)
        assert multiply_all(scalar, [source[i] for i in order]) == target



# -- the roster (deal/participant.py Participant.receive) ----------------------------------------

def broadcast(table, message):
    """``message`` to every seat but its author."""
    for p in table.participants:
        if p.seat != message.author:
            p.receive(message)


def passes(table, phase):
    """Every seat's pass ``phase`` of generation 0, in turn, each broadcast; the outputs."""
    outputs = []
    for sender in table.participants:
        outputs.append(sender.make_pass(0))
        assert outputs[-1].phase == phase
        broadcast(table, outputs[-1])
    return outputs


def test_a_pass_from_a_seat_off_the_roster_is_refused_not_taken_as_another_seat_s():
    """A relay hands seat 1 a pass 1 "from seat 3" of a three-seat table (its points valid and
    distinct).  Taken, it would sit where seat 0's pass 2 goes (pass 1 of seat 3 is the fourth
    step), and seat 0's honest pass 2 would then look like a second, different one: seat 0
    framed for equivocation.  Seat 1 refuses it; seat 0's pass is then taken, the shuffle
    completes at every seat and audits clean."""
    table = MentalTable(3, seeded(b"roster"), cards=CARDS, deal=False)
    for commitment in [p.start_generation(0, CARDS) for p in table.participants]:
        broadcast(table, commitment)
    outputs = passes(table, 1)
    forged = PassOutput(outputs[-1].context, 3, 1, tuple(reversed(outputs[-1].points)))
    with pytest.raises(ValueError, match="message from seat 3, not one of 3 seats"):
        table.participants[1].receive(forged)
    passes(table, 2)  # seat 0's pass 2 included: no one is named
    assert len({p.final_deck(0) for p in table.participants}) == 1
    assert table.audit().clean


@pytest.mark.parametrize("where", ["another round", "another game"])
def test_a_commitment_replayed_from_another_round_or_game_is_refused_and_frames_no_one(where):
    """A relay hands seat 1, in round 2, seat 0's seed commitment of round 1 (or of another
    game) before seat 0's own.  Taken, it would stand as seat 0's commitment of round 2, and
    seat 0's real one would look like a second, different one: seat 0 framed for equivocation.
    Seat 1 refuses it; then seat 0's commitment is taken, the shuffle completes, audits clean."""
    table = MentalTable(3, seeded(b"replay"), cards=CARDS)
    old = table.participants[0].generation(0).commitments[0]
    table.new_round(2)
    if where == "another game":
        old = dataclasses.replace(old, context=Context(b"another game", 2, 0))
    commitments = [p.start_generation(0, CARDS) for p in table.participants]
    with pytest.raises(ValueError, match=r"message for game .* not game .* round 2"):
        table.participants[1].receive(old)
    for commitment in commitments:  # seat 0's of round 2 included: no one is named
        broadcast(table, commitment)
    passes(table, 1), passes(table, 2)
    assert table.audit().clean
