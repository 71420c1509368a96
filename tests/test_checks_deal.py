"""Checks of the deal core that no test made fail before docs/checks.md listed them, each with
the attack it stops."""

from __future__ import annotations

import dataclasses
import hashlib

import msgpack
import pytest

from shanghai_net.deal import (CheatDetected, KeyShare, MentalTable, Participant, PassOutput,
                               PickReveal, seeded)
from shanghai_net.deal.group import multiply, multiply_all
from shanghai_net.deal.messages import Context
from shanghai_net.deal.proof import ROUNDS, _challenge, verify_shuffle

from test_deal_cheats import CARDS, cheater
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


def test_a_pass_ahead_of_its_turn_is_refused_not_taken_in_the_turn_before_it():
    """A relay hands seat 0 seat 2's pass 1 (points of its choosing) before seat 1's.  Taken, it
    would fill seat 1's place in the order, and seat 1's honest pass would then look like a
    second, different one: seat 1 framed for equivocation.  Seat 0 refuses it, naming whose
    pass comes first; seat 1's pass is then taken and the shuffle completes and audits clean."""
    table = MentalTable(3, seeded(b"turn"), cards=CARDS, deal=False)
    for commitment in [p.start_generation(0, CARDS) for p in table.participants]:
        broadcast(table, commitment)
    first = table.participants[0].make_pass(0)
    broadcast(table, first)
    early = PassOutput(first.context, 2, 1, tuple(reversed(first.points)))
    with pytest.raises(ValueError, match="pass 1 from seat 2 out of turn: pass 1 of seat 1 "
                                         "comes first"):
        table.participants[0].receive(early)
    for sender in table.participants[1:]:
        broadcast(table, sender.make_pass(0))  # seat 1's included: no one is named
    passes(table, 2)
    assert table.audit().clean


WRONG_POINTS = {"one point short": (lambda points, other: points[:-1], "has 15 points, not 16"),
                "one point over": (lambda points, other: points + (other,), "has 17 points, not 16"),
                "a point of 31 bytes": (lambda points, other: (points[0][:31],) + points[1:],
                                        "holds something that is not a 32-byte point"),
                "a point that is no bytes": (lambda points, other: (points[0].hex(),) + points[1:],
                                             "holds something that is not a 32-byte point")}


@pytest.mark.parametrize("change", WRONG_POINTS)
def test_a_pass_of_the_wrong_size_or_with_no_point_is_named_for_what_it_is(change):
    """Seat 1's pass 1 drops a point, adds one, or holds something that is no 32-byte point:
    every other seat names seat 1 at once, for that (not for repeating a point, which it does
    not; not later, when the next seat's pass finds it cannot multiply it)."""
    table = MentalTable(3, seeded(b"size"), cards=CARDS, deal=False)
    for commitment in [p.start_generation(0, CARDS) for p in table.participants]:
        broadcast(table, commitment)
    first = table.participants[0].make_pass(0)
    broadcast(table, first)
    honest = table.participants[1].make_pass(0)
    alter, why = WRONG_POINTS[change]
    wrong = dataclasses.replace(honest, points=alter(honest.points, first.points[0]))
    for seat in (0, 2):
        with pytest.raises(CheatDetected, match=f"seat 1: pass 1 output {why}") as info:
            table.participants[seat].receive(wrong)
        assert info.value.culprit == 1


def test_a_card_is_handed_over_only_from_the_seat_that_holds_it():
    """Seat 1 holds position 4.  A lying driver (the host's stream, a seat's adapter) says seat
    0's card at position 4 goes to seat 2, as a SHANGHAI penalty would: were it believed, seat 0
    and seat 1 would each seal their key of it to seat 2, which would read seat 1's card.  Both
    refuse the hand-over and the keys; seat 1 keeps its card, hidden."""
    table = MentalTable(3, seeded(b"hand over"), cards=CARDS)
    card = table.open_to(4, 1)
    for seat in (0, 1):
        sharer = table.participants[seat]
        with pytest.raises(ValueError, match="position 4 of generation 0 is not a hidden card "
                                             "of seat 0"):
            sharer.hand_over(0, 4, 0, 2)
        with pytest.raises(ValueError, match="position 4 of generation 0 already went to seat 1"):
            sharer.share_keys(0, 2, [4])
    assert table.participants[1].hand() == {(0, 4): card}
    assert table.participants[2].hand() == {}


def test_a_reveal_that_carries_another_seat_s_own_key_is_refused():
    """A stock card is turned up: each seat reveals its own key of it, seat 1 first.  Seat 0's
    reveal also carries a key "of seat 1" (one it made up).  Taken, it would replace seat 1's
    real key, and seat 2 would find no card where the others find one.  Seat 2 refuses it; the
    card then opens alike at every seat."""
    table = MentalTable(3, seeded(b"own keys"), cards=CARDS)
    broadcast(table, table.participants[1].reveal_own_key(0, 7))
    honest = table.participants[0].reveal_own_key(0, 7)
    made_up = table.participants[0].generation(0).keys.card_keys[8]  # a scalar, not seat 1's
    forged = dataclasses.replace(honest, keys=((0, honest.keys[0][1]), (1, made_up)))
    with pytest.raises(ValueError, match=r"every seat's key or its author's, not seats \[0, 1\]"):
        table.participants[2].receive(forged)
    broadcast(table, honest)
    broadcast(table, table.participants[2].reveal_own_key(0, 7))
    cards = {p.public_card(0, 7) for p in table.participants}
    assert len(cards) == 1 and None not in cards, cards


PENALTY = 1, 3, (0, 1)
"""A pick of the kind a SHANGHAI penalty runs: number 1, range(3), between seats 0 and 1 (seat
2 looks on)."""


@pytest.mark.parametrize("lie", ["another range", "another pair of seats"])
def test_a_pick_commitment_for_another_pick_than_the_one_running_is_refused(lie):
    """Seat 0 commits to the penalty pick as one of another range, or among itself alone (its
    nonce alone would choose the card).  Seat 1, which runs the pick, refuses it at once."""
    table = MentalTable(3, seeded(b"pick lie"), cards=CARDS)
    number, n, parties = PENALTY
    table.participants[1].pick_commit(number, n, parties)
    honest = table.participants[0].pick_commit(number, n, parties)
    forged = dataclasses.replace(honest, n=2) if lie == "another range" else \
        dataclasses.replace(honest, parties=(0,))
    with pytest.raises(ValueError, match="pick 1 is range\\(3\\) among seats \\[0, 1\\], not "):
        table.participants[1].receive(forged)
    table.participants[1].receive(honest)


def test_a_seat_not_party_to_a_pick_has_no_say_in_it():
    """Seat 2 looks on at the penalty pick between seats 0 and 1, and sends a commitment and a
    nonce of its own anyway: each is refused by the parties and by no one taken."""
    table = MentalTable(3, seeded(b"pick outsider"), cards=CARDS)
    number, n, parties = PENALTY
    commitments = [table.participants[s].pick_commit(number, n, parties) for s in parties]
    with pytest.raises(ValueError, match="seat 2 is not a party to pick 1"):
        table.participants[2].pick_commit(number, n, parties)
    outsider = dataclasses.replace(commitments[0], author=2)
    for seat in parties:
        with pytest.raises(ValueError, match="seat 2 is not a party to pick 1"):
            table.participants[seat].receive(outsider)
    for message in commitments:
        broadcast(table, message)
    nonce = PickReveal(commitments[0].context, number, 2, bytes(32))
    for seat in parties:
        with pytest.raises(ValueError, match="seat 2 is not a party to pick 1"):
            table.participants[seat].receive(nonce)
    for message in [table.participants[s].pick_reveal(number) for s in parties]:
        broadcast(table, message)
    assert len({p.pick_result(number) for p in table.participants}) == 1


def test_a_box_for_positions_off_the_deck_is_named_by_the_audit_too():
    """Seat 1 seals seat 0 a share "for position 16" of a 16-card deck.  Seat 0 names it at once
    (only seat 0 can open the box); the round-end audit, which every seat runs on the boxes the
    stream carried, names seat 1 as well, rather than fail on a position the deck has not."""
    def off_deck(self, share):
        return dataclasses.replace(share, positions=(len(CARDS),))

    table = MentalTable(3, seeded(b"off deck"), cards=CARDS,
                        participant_types={1: cheater(KeyShare, off_deck)})
    sealed = table.participants[1].share_keys(0, 0, [3])
    table.participants[2].record_box(sealed)
    with pytest.raises(CheatDetected, match="off the deck"):
        table.participants[0].receive_share(sealed)
    verdict = table.audit()
    assert verdict.culprit == 1 and "seat 1: sealed a share of positions [16] for seat 0, off " \
        "the deck" in verdict.reason


class MarkerWithoutProof(Participant):
    """Marks a card in its pass 1 (a point doubled) and sends a shuffle proof of no rounds."""

    def outgoing(self, message):
        if isinstance(message, PassOutput) and message.phase == 1:
            points = list(message.points)
            points[3] = multiply((2).to_bytes(32, "little"), points[3])
            return dataclasses.replace(message, points=tuple(points),
                                       proof=msgpack.packb([[], []]))
        return message


def test_a_shuffle_proof_of_no_rounds_proves_nothing():
    """Where the rules ask for shuffle proofs, seat 1 marks a card in its pass 1 and sends a
    proof of no rounds (nothing to open, nothing to fail): the next seat names it before its own
    pass, for the rounds its proof lacks."""
    with pytest.raises(CheatDetected, match="seat 1: pass 1 output comes with a shuffle proof "
                                            "that does not verify: the proof has 0 shuffles and "
                                            "0 answers") as caught:
        MentalTable(3, seeded(b"proof rounds"), cards=CARDS, shuffle_proof=True,
                    participant_types={1: MarkerWithoutProof})
    assert caught.value.culprit == 1


def first_round_changed(proof, change, inputs, outputs):
    """``proof`` with its first round changed by ``change(shuffle, answer, k)``; a changed
    shuffle is chosen (over ``k``) so that the challenge, recomputed over it, asks that round
    for the opening from the shuffle to the output: the side a verifier indexes the shuffle by."""
    shuffles, answers = msgpack.unpackb(proof)
    for k in range(len(inputs)):
        z, answer = change(shuffles[0], answers[0], k)
        changed = [z, *shuffles[1:]]
        if z == shuffles[0] or _challenge(CONTEXT, 0, inputs, outputs, changed)[0] == 1:
            return msgpack.packb([changed, [answer, *answers[1:]]])
    raise AssertionError("no shorter shuffle asks for the second opening")


MALFORMED = {
    "a shuffle a point short": (lambda z, answer, k: (z[:32 * k] + z[32 * k + 32:], answer),
                                "shuffle has 7 points, not 8"),
    "an order that repeats an index": (lambda z, answer, k: (z, [answer[0], [0, *answer[1][1:]]]),
                                       "opens to a malformed scalar or permutation"),
    "a scalar that is zero": (lambda z, answer, k: (z, [bytes(32), answer[1]]),
                              "opens to a malformed scalar or permutation"),
}


@pytest.mark.parametrize("malformed", MALFORMED)
def test_a_shuffle_proof_with_a_malformed_round_is_refused_for_it(malformed):
    """A proof one of whose rounds is malformed (its shuffle short of a point, its opening no
    permutation or no scalar): the verifier says which round and what is wrong, rather than
    fail on it (an index past the short shuffle) or judge it on what it happens to compute."""
    inputs, outputs, proof = honest_shuffle()
    change, why = MALFORMED[malformed]
    bad = first_round_changed(proof, change, inputs, outputs)
    assert verify_shuffle(CONTEXT, 0, inputs, outputs, bad) == f"round 0 {why}"
