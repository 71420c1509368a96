"""The optional cut-and-choose proof of pass 1: honest shuffles verify, tampered ones are caught
at once, before the next pass."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest

from shanghai_net.cards import deck
from shanghai_net.deal import CheatDetected, Context, MentalTable, Participant, PassOutput, seeded
from shanghai_net.deal.group import card_point, multiply, multiply_all
from shanghai_net.deal.proof import ROUNDS, prove_shuffle, verify_shuffle
from shanghai_net.deal.seeds import SeedKeys

CARDS = deck(1, 0)[:8]
CONTEXT = Context(b"proof", 1, 0)


def honest_shuffle():
    keys = SeedKeys(CONTEXT, 0, bytes(range(32)), len(CARDS))
    inputs = [card_point(c.id) for c in CARDS]
    outputs = multiply_all(keys.pass_key, [inputs[i] for i in keys.permutation])
    proof = prove_shuffle(CONTEXT, 0, inputs, outputs, keys.pass_key, keys.permutation,
                          seeded(b"blinds"))
    return inputs, outputs, proof


def test_honest_proof_verifies_with_fresh_blinds_each_round():
    inputs, outputs, proof = honest_shuffle()
    assert verify_shuffle(CONTEXT, 0, inputs, outputs, proof) is None
    shuffles, answers = msgpack.unpackb(proof)
    assert len(shuffles) == len(answers) == ROUNDS
    assert len({scalar for scalar, _ in answers}) == ROUNDS


@pytest.mark.parametrize("what", ["swapped outputs", "marked output", "other author",
                                  "other context", "truncated"])
def test_proof_fails_for_anything_but_its_shuffle(what):
    inputs, outputs, proof = honest_shuffle()
    author, context = 0, CONTEXT
    if what == "swapped outputs":
        outputs[0], outputs[1] = outputs[1], outputs[0]
    elif what == "marked output":
        outputs[2] = multiply((2).to_bytes(32, "little"), outputs[2])
    elif what == "other author":
        author = 1
    elif what == "other context":
        context = Context(b"proof", 1, 1)
    else:
        proof = proof[:-40]
    assert verify_shuffle(context, author, inputs, outputs, proof) is not None


def test_table_with_proofs_deals_honestly():
    table = MentalTable(3, seeded(b"proof table"), cards=CARDS, shuffle_proof=True)
    assert all(len(o.proof) > 0 for o in table.participants[0].generation(0).passes[:3])
    assert sorted(table.open_many_to(range(8), 2)) == sorted(CARDS)


class Marker(Participant):
    def outgoing(self, message):
        if isinstance(message, PassOutput) and message.phase == 1:
            points = list(message.points)
            points[3] = multiply((2).to_bytes(32, "little"), points[3])
            return dataclasses.replace(message, points=tuple(points))
        return message


def test_marking_under_proof_is_caught_before_the_next_pass():
    with pytest.raises(CheatDetected, match="seat 1: pass 1 output comes with a shuffle proof "
                                            "that does not verify") as caught:
        MentalTable(3, seeded(b"proof mark"), cards=CARDS, shuffle_proof=True,
                    participant_types={1: Marker})
    assert caught.value.culprit == 1
