"""The deal's defensive checks, each with the cheat it stops (issue 16: mutation survivors).

Bad keys are made the way a cheater would make them, through the public API: a seat's derived
key is overwritten before it shares or reveals it, or its outgoing reveal is changed before it is
signed; nothing here builds a box or a message by hand."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.deal import CheatDetected, KeyReveal, MentalTable, seeded
from shanghai_net.deal.group import ORDER, invert, scalar_mul

from test_deal_cheats import CARDS, assert_named, cheater, table_with

NOT_KEYS = {"zero": bytes(32), "the group order L": ORDER.to_bytes(32, "little")}


@pytest.mark.parametrize("bad", NOT_KEYS.values(), ids=NOT_KEYS.keys())
def test_a_sealed_share_with_a_key_that_is_no_scalar_names_its_author(bad):
    """Zero (or L, zero written another way) is no key: it has no inverse, so the card would
    never open and the failure would name no one; the recipient refuses it at once, naming the
    author."""
    table = table_with({})
    table.participants[2].generation(0).keys.card_keys[5] = bad
    sealed = table.participants[2].share_keys(0, 0, [5])
    with pytest.raises(CheatDetected, match="seat 2: key share for positions \\[5\\] holds a "
                                            "malformed key") as caught:
        table.participants[0].receive_share(sealed)
    assert caught.value.culprit == 2


@pytest.mark.parametrize("bad", NOT_KEYS.values(), ids=NOT_KEYS.keys())
def test_a_reveal_with_a_key_that_is_no_scalar_names_its_author(bad):
    """A stock card turned up with its author's key alone: a key that is no scalar is refused by
    every other seat before it is used, and the author named."""
    table = table_with({})
    table.participants[1].generation(0).keys.card_keys[7] = bad
    reveal = table.participants[1].reveal_own_key(0, 7)
    for honest in (0, 2, 3):
        with pytest.raises(CheatDetected, match="seat 1: reveal of position 7 holds a malformed "
                                                "key") as caught:
            table.participants[honest].receive(reveal)
        assert caught.value.culprit == 1


def test_the_audit_checks_every_key_of_a_reveal_not_only_the_first():
    """Seat 1 reveals its card with seat 2's and seat 3's keys swapped for others whose product
    is the same: the card opens as it should, so only the audit, checking each key against its
    seat's seed, finds the forgery, and it names the author of the reveal."""
    factor = (987654321).to_bytes(32, "little")

    def shift(self, reveal):
        keys = dict(reveal.keys)
        keys[2] = scalar_mul(keys[2], factor)
        keys[3] = scalar_mul(keys[3], invert(factor))
        return dataclasses.replace(reveal, keys=tuple(sorted(keys.items())))
    table = table_with({1: cheater(KeyReveal, shift)})
    card = table.open_to(6, 1)
    reveal = table.participants[1].reveal(0, 6)
    assert [seat for seat, _ in reveal.keys] == [0, 1, 2, 3]
    for honest in (0, 2, 3):
        table.participants[honest].receive(reveal)
        assert table.participants[honest].public_card(0, 6) == card
    assert_named(table, 1, "seat 1: reveal of position 6 carries a key for seat 2 that does not "
                           "match its seed")


def test_a_seed_revealed_without_a_commitment_is_named():
    """A seed binds nothing unless committed before the shuffle: a seat whose commitment never
    arrived cannot have its seed accepted at the audit, it is named instead."""
    table = MentalTable(4, seeded(b"uncommitted"), cards=CARDS, deal=False)
    auditor, late = table.participants[0], table.participants[1]
    auditor.start_generation(0, CARDS)
    late.start_generation(0, CARDS)  # its commitment is never delivered
    auditor.reveal_seeds()
    for reveal in late.reveal_seeds():
        auditor.receive(reveal)
    verdict = auditor.audit()
    assert verdict.culprit == 1 and "seat 1: seed does not match commitment" in verdict.reason
