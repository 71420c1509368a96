"""Each cheat is caught, and its author named: at once where the evidence allows, else by the
round-end audit."""

from __future__ import annotations

import dataclasses

import pytest
from nacl.bindings import crypto_core_ed25519_add

from shanghai_net.cards import deck
from shanghai_net.deal import (CheatDetected, KeyReveal, KeyShare, MentalTable, Participant,
                               PassOutput, PickReveal, SeedReveal, seeded)
from shanghai_net.deal.group import card_point, multiply

CARDS = deck(1, 0)[:16]
TWO = (2).to_bytes(32, "little")
IDENTITY = (1).to_bytes(32, "little")  # small order
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
NON_CANONICAL = (2**255 - 19 + 1).to_bytes(32, "little")  # y = p + 1


def cheater(kind, change):
    """A participant that applies ``change`` to its outgoing messages of type ``kind``."""

    class Cheater(Participant):
        def outgoing(self, message):
            return change(self, message) if isinstance(message, kind) else message

    return Cheater


def in_pass(phase, change_points):
    def change(self, message):
        if message.phase != phase:
            return message
        points = list(message.points)
        change_points(self, points)
        return dataclasses.replace(message, points=tuple(points))
    return cheater(PassOutput, change)


def table_with(cheats, players=4, seed=b"cheat", **options):
    return MentalTable(players, seeded(seed), cards=CARDS, participant_types=cheats, **options)


def deal_all(table):
    """Deal every position round-robin; the complaints raised on the way."""
    complaints = []
    for position in range(len(CARDS)):
        try:
            table.open_to(position, position % table.players)
        except CheatDetected as cheat:
            complaints.append(cheat)
    return complaints


def assert_named(table, seat, reason):
    verdict = table.audit()
    assert verdict.culprit == seat, verdict
    assert reason in verdict.reason


def test_duplicated_card_in_pass_1_is_caught_at_once():
    def duplicate(self, points):
        points[1] = points[0]
    with pytest.raises(CheatDetected, match="seat 2: pass 1 output repeats a point") as caught:
        table_with({2: in_pass(1, duplicate)})
    assert caught.value.culprit == 2


def substitute(self, points):
    points[0] = multiply(self.generation(0).keys.pass_key, card_point(200))


def mark(self, points):
    points[5] = multiply(TWO, points[5])


@pytest.mark.parametrize("change", [substitute, mark], ids=["substitution", "2C-marking"])
@pytest.mark.parametrize("seat", [0, 2])
def test_pass_1_tampering_fails_an_open_and_the_audit_names_it(change, seat):
    table = table_with({seat: in_pass(1, change)})
    complaints = deal_all(table)
    assert len(complaints) == 1 and complaints[0].culprit is None
    assert_named(table, seat, f"seat {seat}: pass 1 output is not its key times the permuted input")


def test_marking_a_card_with_a_known_scalar_is_caught_even_if_never_opened():
    secret = (123456789).to_bytes(32, "little")

    def mark_secretly(self, points):
        points[3] = multiply(secret, points[3])
    table = table_with({1: in_pass(1, mark_secretly)})
    assert_named(table, 1, "seat 1: pass 1 output is not its key times the permuted input")


def test_first_cheater_in_pass_order_is_named():
    table = table_with({1: in_pass(2, mark), 3: in_pass(1, mark)})
    assert_named(table, 3, "seat 3: pass 1")
    table = table_with({1: in_pass(2, mark), 3: in_pass(2, mark)})
    assert_named(table, 1, "seat 1: pass 2 output is not its per-card keys over its pass-1 key")


@pytest.mark.parametrize("bad", [IDENTITY, ORDER_8, NON_CANONICAL, "torsion"])
def test_invalid_point_in_a_pass_is_caught_at_once_by_the_next_seat(bad):
    def plant(self, points):
        points[4] = crypto_core_ed25519_add(points[4], ORDER_8) if bad == "torsion" else bad
    with pytest.raises(CheatDetected, match="seat 1: pass 1 output position 4 is not a valid"):
        table_with({1: in_pass(1, plant)})


def test_invalid_point_in_the_final_deck_is_caught_when_opened():
    def plant(self, points):
        points[6] = ORDER_8
    table = table_with({3: in_pass(2, plant)})
    with pytest.raises(CheatDetected) as caught:
        table.open_to(6, 0)
    assert caught.value.culprit == 3
    assert caught.value.reason == "seat 3: pass 2 output position 6 is not a valid point"


def test_wrong_per_card_key_fails_the_open_and_the_audit_names_the_sender():
    def wrong_key(self, share):
        keys = list(share.keys)
        keys[0] = (12345).to_bytes(32, "little")
        return dataclasses.replace(share, keys=tuple(keys))
    table = table_with({2: cheater(KeyShare, wrong_key)})
    with pytest.raises(CheatDetected, match="position 9 of generation 0 does not open") as caught:
        table.open_to(9, 0)
    assert caught.value.culprit is None
    assert_named(table, 2, "seat 2: the box of positions [9] for seat 0 holds per-card keys that "
                           "do not match its seed")


def test_seed_not_matching_its_commitment_is_named():
    def other_seed(self, reveal):
        return dataclasses.replace(reveal, seed=bytes(32))
    table = table_with({3: cheater(SeedReveal, other_seed)})
    deal_all(table)
    assert_named(table, 3, "seat 3: seed does not match commitment")


def test_reveal_with_a_forged_key_is_caught_by_every_seat():
    def forge(self, reveal):
        keys = [(seat, key if seat == self.seat else (7).to_bytes(32, "little"))
                for seat, key in reveal.keys]
        return dataclasses.replace(reveal, keys=tuple(keys))
    table = table_with({1: cheater(KeyReveal, forge)})
    table.open_to(2, 1)
    reveal = table.participants[1].reveal(0, 2)
    for honest in (0, 2, 3):
        with pytest.raises(CheatDetected, match="seat 1: reveal of position 2 .* forged key") as c:
            table.participants[honest].receive(reveal)
        assert c.value.culprit == 1


def test_wrong_coin_flip_nonce_is_named():
    def other_nonce(self, reveal):
        return dataclasses.replace(reveal, nonce=bytes(32))
    table = table_with({2: cheater(PickReveal, other_nonce)})
    with pytest.raises(CheatDetected, match="seat 2: nonce for pick 0 does not match") as caught:
        table.pick(4, [0, 2, 3])
    assert caught.value.culprit == 2


def garbage_box(self, g, share):
    """A sender that seals its share so that it does not open (or opens under another key)."""
    sealed = Participant.seal(self, g, share)
    return dataclasses.replace(sealed, ciphertext=bytes(len(sealed.ciphertext)))


@pytest.mark.parametrize("seal", [
    garbage_box,
    lambda self, g, share: dataclasses.replace(Participant.seal(self, g, share),
                                               epk=g.keys.box_secret(9, (0,))),
], ids=["garbage", "box-key-off-its-seed"])
def test_a_box_that_does_not_open_is_decided_by_the_audit_from_the_sender_s_seed(seal):
    table = table_with({1: type("BadBox", (Participant,), {"seal": seal})})
    with pytest.raises(CheatDetected) as caught:
        table.open_to(4, 0)
    assert caught.value.culprit == 1  # the recipient's own view; the table decides at the audit
    verdict = table.audit(seats=[0, 2, 3])
    assert verdict.culprit == 1 and "seat 1: the box of positions [4] for seat 0 is bad" in \
        verdict.reason


def test_every_seat_keeps_every_box_and_an_honest_deal_audits_clean():
    table = table_with({})
    deal_all(table)
    for participant in table.participants:
        assert len(participant.generation(0).boxes) == len(CARDS) * (table.players - 1)
    assert table.audit().clean


def test_share_for_a_position_off_the_deck_names_its_sender():
    def off_deck(self, share):
        return dataclasses.replace(share, positions=(len(CARDS),))
    table = table_with({1: cheater(KeyShare, off_deck)})
    sealed = table.participants[1].share_keys(0, 0, [3])
    with pytest.raises(CheatDetected, match=r"seat 1: key share for positions \[16\], off the deck") \
            as caught:
        table.participants[0].receive_share(sealed)
    assert caught.value.culprit == 1
