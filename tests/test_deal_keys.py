"""Card points, scalars and the seed's derivations."""

from __future__ import annotations

import collections

import pytest
from nacl.bindings import crypto_scalarmult_ed25519_base_noclamp

from shanghai_net.cards import deck
from shanghai_net.deal import Context
from shanghai_net.deal.group import (ORDER, InvalidPoint, card_point, invert, is_scalar,
                                     is_valid_point, multiply, multiply_all, scalar_mul)
from shanghai_net.deal.picks import pick_index
from shanghai_net.deal.seeds import SeedKeys, commitment_digest, fisher_yates

CONTEXT = Context(b"keys", 2, 0)


def test_card_points_are_distinct_valid_and_not_multiples_of_the_base():
    cards = deck(4, 8)
    points = [card_point(c.id) for c in cards]
    assert len(set(points)) == len(cards) and all(map(is_valid_point, points))
    for i in (1, 2, 3, 52):
        assert crypto_scalarmult_ed25519_base_noclamp(i.to_bytes(32, "little")) not in points


def test_key_times_inverse_is_the_identity_map():
    keys = SeedKeys(CONTEXT, 1, bytes(32), 10)
    point = card_point(5)
    assert multiply(keys.pass_key_inverse, multiply(keys.pass_key, point)) == point
    swapped = multiply(keys.layer_swaps[3], multiply(keys.pass_key, point))
    assert swapped == multiply(keys.card_keys[3], point)
    assert scalar_mul(keys.pass_key, invert(keys.pass_key)) == (1).to_bytes(32, "little")


def test_derived_keys_are_canonical_distinct_and_bound_to_their_context():
    keys = SeedKeys(CONTEXT, 1, bytes(32), 50)
    scalars = [keys.pass_key, *keys.card_keys]
    assert all(map(is_scalar, scalars)) and len(set(scalars)) == 51
    assert sorted(keys.permutation) == list(range(50))
    for other in (SeedKeys(CONTEXT, 2, bytes(32), 50),
                  SeedKeys(Context(b"keys", 2, 1), 1, bytes(32), 50),
                  SeedKeys(CONTEXT, 1, bytes(31) + b"\x01", 50)):
        assert other.pass_key != keys.pass_key and other.permutation != keys.permutation


def test_commitment_binds_every_field():
    digest = commitment_digest(CONTEXT, 0, bytes(32))
    assert len({digest, commitment_digest(CONTEXT, 1, bytes(32)),
                commitment_digest(Context(b"keys", 3, 0), 0, bytes(32)),
                commitment_digest(CONTEXT, 0, b"\x01" * 32)}) == 4
    with pytest.raises(ValueError, match="a seed is 32 bytes"):
        commitment_digest(CONTEXT, 0, b"short")


def test_scalar_checks():
    assert not is_scalar(bytes(32))
    assert not is_scalar(ORDER.to_bytes(32, "little"))
    assert is_scalar((ORDER - 1).to_bytes(32, "little"))


def test_invalid_points_are_named_by_index():
    good = card_point(1)
    with pytest.raises(InvalidPoint) as caught:
        multiply_all((3).to_bytes(32, "little"), [good, good, (1).to_bytes(32, "little")])
    assert caught.value.index == 2
    with pytest.raises(InvalidPoint):
        multiply_all((3).to_bytes(32, "little"), [good[:31]])


def test_fisher_yates_is_uniform_on_three_items():
    counts = collections.Counter(tuple(fisher_yates(bytes([i, j]), 3))
                                 for i in range(40) for j in range(60))
    assert len(counts) == 6 and all(300 < c < 500 for c in counts.values())


def test_pick_index_covers_its_range_evenly():
    counts = collections.Counter(pick_index(CONTEXT, 0, 3, [bytes([i]) * 32]) for i in range(240))
    assert set(counts) == {0, 1, 2} and all(50 < c < 110 for c in counts.values())
    with pytest.raises(ValueError, match="range\\(0\\)"):
        pick_index(CONTEXT, 0, 0, [])
