"""End-to-end sealing: only the recipient opens a share, for the position it was sealed for."""

from __future__ import annotations

import dataclasses

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from shanghai_net.cards import deck
from shanghai_net.deal import Context, MentalTable, seeded
from shanghai_net.deal.box import box_cipher, seal, unseal

CONTEXT = Context(b"game", 3, 1)


def keys(n):
    random = seeded(b"box keys")
    return [X25519PrivateKey.from_private_bytes(random(32)) for _ in range(n)]


def sealed_from_0_to_1():
    alice, bob, _ = keys(3)
    cipher = box_cipher(alice, alice.public_key(), bob.public_key())
    return seal(cipher, CONTEXT, 0, 1, (7, 8), b"secret keys", seeded(b"nonce"))


def bobs_cipher():
    alice, bob, _ = keys(3)
    return box_cipher(bob, alice.public_key(), bob.public_key())


def test_recipient_opens_and_the_relay_sees_no_plaintext():
    sealed = sealed_from_0_to_1()
    assert b"secret" not in sealed.ciphertext
    assert unseal(bobs_cipher(), sealed) == b"secret keys"


@pytest.mark.parametrize("change", [
    {"ciphertext": b"x" * 27}, {"positions": (7, 9)}, {"positions": (8, 7)},
    {"context": Context(b"game", 3, 2)}, {"author": 2}, {"recipient": 2}, {"nonce": bytes(12)},
], ids=["tampered", "other-position", "reordered", "other-generation", "other-sender",
        "other-recipient", "other-nonce"])
def test_any_change_on_the_way_fails(change):
    altered = dataclasses.replace(sealed_from_0_to_1(), **change)
    with pytest.raises(ValueError, match="does not authenticate"):
        unseal(bobs_cipher(), altered)


def test_a_third_seat_cannot_open_it():
    alice, bob, carol = keys(3)
    for pretender in (box_cipher(carol, alice.public_key(), carol.public_key()),
                      box_cipher(carol, alice.public_key(), bob.public_key())):
        with pytest.raises(ValueError, match="does not authenticate"):
            unseal(pretender, sealed_from_0_to_1())


def test_participant_refuses_a_share_for_another_seat_or_position():
    table = MentalTable(3, seeded(b"box table"), cards=deck(1, 0)[:10])
    sealed = table.participants[1].share_keys(0, 0, [4])
    with pytest.raises(ValueError, match="delivered to seat 2"):
        table.participants[2].receive_share(sealed)
    with pytest.raises(ValueError, match="does not authenticate"):
        table.participants[0].receive_share(dataclasses.replace(sealed, positions=(5,)))
    table.participants[0].receive_share(sealed)
    assert table.participants[0].generation(0).received(4).keys() == {1}
