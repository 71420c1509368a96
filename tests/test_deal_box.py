"""End-to-end sealing: only the recipient opens a share, for the position it was sealed for, and
once the sender's seed is revealed anyone can open it and check what was sealed."""

from __future__ import annotations

import dataclasses

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from shanghai_net.cards import deck
from shanghai_net.deal import CheatDetected, Context, MentalTable, seeded
from shanghai_net.deal.box import seal, unseal, unseal_with_secret

CONTEXT = Context(b"game", 3, 1)
SECRET = seeded(b"box secret")(32)


def keys(n):
    random = seeded(b"box keys")
    return [X25519PrivateKey.from_private_bytes(random(32)) for _ in range(n)]


def sealed_from_0_to_1():
    _, bob, _ = keys(3)
    return seal(SECRET, bob.public_key(), CONTEXT, 0, 1, (7, 8), b"secret keys")


def test_recipient_opens_and_the_relay_sees_no_plaintext():
    sealed = sealed_from_0_to_1()
    assert b"secret" not in sealed.ciphertext
    assert unseal(keys(3)[1], sealed) == b"secret keys"


def test_a_box_is_a_function_of_its_inputs_so_sending_it_again_reuses_nothing():
    assert sealed_from_0_to_1() == sealed_from_0_to_1()
    _, bob, _ = keys(3)
    other = seal(seeded(b"another secret")(32), bob.public_key(), CONTEXT, 0, 1, (7, 8),
                 b"secret keys")
    assert other.epk != sealed_from_0_to_1().epk


@pytest.mark.parametrize("change", [
    {"ciphertext": b"x" * 27}, {"positions": (7, 9)}, {"positions": (8, 7)},
    {"context": Context(b"game", 3, 2)}, {"author": 2}, {"recipient": 2},
    {"epk": keys(3)[2].public_key().public_bytes_raw()}, {"epk": bytes(32)},
], ids=["tampered", "other-position", "reordered", "other-generation", "other-sender",
        "other-recipient", "other-box-key", "low-order-box-key"])
def test_any_change_on_the_way_fails(change):
    altered = dataclasses.replace(sealed_from_0_to_1(), **change)
    with pytest.raises(ValueError, match="does not authenticate"):
        unseal(keys(3)[1], altered)


def test_a_third_seat_cannot_open_it():
    with pytest.raises(ValueError) as info:
        unseal(keys(3)[2], sealed_from_0_to_1())
    assert str(info.value) == ("sealed share from seat 0 to seat 1 for positions [7, 8] does not "
                               "authenticate: altered, misdirected, relabelled or sealed wrong")


def test_the_box_secret_opens_it_for_an_auditor_and_a_wrong_secret_is_told_apart():
    bob = keys(3)[1].public_key()
    assert unseal_with_secret(SECRET, bob, sealed_from_0_to_1()) == b"secret keys"
    with pytest.raises(ValueError, match="box key its seed does not give"):
        unseal_with_secret(seeded(b"not it")(32), bob, sealed_from_0_to_1())


def test_participant_refuses_a_share_for_another_seat_or_position():
    table = MentalTable(3, seeded(b"box table"), cards=deck(1, 0)[:10])
    sealed = table.participants[1].share_keys(0, 0, [4])
    with pytest.raises(ValueError, match="delivered to seat 2"):
        table.participants[2].receive_share(sealed)
    with pytest.raises(CheatDetected, match="does not authenticate") as caught:
        table.participants[0].receive_share(dataclasses.replace(sealed, positions=(5,)))
    assert caught.value.culprit == 1
    table.participants[0].receive_share(sealed)
    assert table.participants[0].generation(0).received(4).keys() == {1}
