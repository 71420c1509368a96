"""Checks of the deal core that no test made fail before docs/checks.md listed them, each with
the attack it stops."""

from __future__ import annotations

import hashlib

import msgpack
import pytest

from shanghai_net.deal import MentalTable, seeded
from shanghai_net.deal.group import multiply_all
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

