"""The deal's defensive checks, each with the cheat it stops (issue 16: mutation survivors).

Bad keys are made the way a cheater would make them, through the public API: a seat's derived
key is overwritten before it shares or reveals it, or its outgoing reveal is changed before it is
signed; nothing here builds a box or a message by hand."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.deal import (CheatDetected, Context, KeyReveal, MentalTable, Participant,
                               PickCommitment, seeded)
from shanghai_net.deal.group import ORDER, invert, scalar_mul
from shanghai_net.deal.picks import nonce_digest, pick_index
from shanghai_net.deal.seeds import fisher_yates

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


def test_no_pass_is_taken_before_every_seat_has_committed_to_its_seed():
    """A seat that saw the shuffle begin could otherwise choose its seed after the others: the
    first pass waits for every commitment (what the audit's reading of commitments relies on)."""
    table = MentalTable(4, seeded(b"early pass"), cards=CARDS, deal=False)
    commitments = [p.start_generation(0, CARDS) for p in table.participants]
    first = table.participants[0]
    for commitment in commitments[1:3]:
        first.receive(commitment)
    with pytest.raises(ValueError, match="no seed commitment yet from seats \\[3\\]"):
        first.make_pass(0)
    first.receive(commitments[3])
    assert first.make_pass(0).phase == 1


def test_a_pass_out_of_turn_or_of_no_phase_is_refused_saying_which():
    """Seat 1 cannot make its pass before seat 0's (its permutation would go first), and a pass
    of a phase the deal has not (3) is refused as what it is."""
    table = MentalTable(3, seeded(b"pass order"), cards=CARDS, deal=False)
    commitments = [p.start_generation(0, CARDS) for p in table.participants]
    for participant in table.participants:
        for commitment in commitments:
            if commitment.author != participant.seat:
                participant.receive(commitment)
    with pytest.raises(ValueError) as info:
        table.participants[1].make_pass(0)
    assert str(info.value) == "generation 0 does not wait for seat 1's pass"
    third = dataclasses.replace(table.participants[0].make_pass(0), phase=3)
    with pytest.raises(ValueError) as info:
        table.participants[1].receive(third)
    assert str(info.value) == "no pass 3"


def test_keys_are_shared_for_distinct_positions_with_another_seat_only():
    table = table_with({})
    sharer = table.participants[2]
    for positions in ([], [3, 3], [len(CARDS)]):
        with pytest.raises(ValueError, match="are not distinct positions of a 16-card deck"):
            sharer.share_keys(0, 0, positions)
    for seat in (2, 4, -1):
        with pytest.raises(ValueError, match=f"seat 2 cannot share keys with seat {seat}"):
            sharer.share_keys(0, seat, [3])


def test_a_restored_seat_remembers_the_keys_it_gave_and_the_cards_shown():
    table = MentalTable(3, seeded(b"save given"), cards=CARDS)
    table.open_to(4, 0)  # seat 1 sealed its key for position 4 to seat 0
    table.open_to(5, 1)
    shown = table.open_public(5)
    table.restore(1, table.save(1))
    restored = table.participants[1]
    with pytest.raises(ValueError, match="position 4 of generation 0 already went to seat 0"):
        restored.share_keys(0, 2, [4])
    assert restored.public_card(0, 5) == shown and restored.public_card(0, 4) is None


class TwoMinds(Participant):
    """Commits to one nonce for a pick, then to another for the same pick."""

    def outgoing(self, message):
        if isinstance(message, PickCommitment) and getattr(self, "committed", False):
            return dataclasses.replace(message, digest=bytes(32))
        self.committed = isinstance(message, PickCommitment)
        return message


def test_two_commitments_for_one_pick_name_their_author():
    table = table_with({2: TwoMinds})
    first, second = (table.participants[2].pick_commit(0, 4, [0, 2]) for _ in range(2))
    table.participants[0].receive(first)
    with pytest.raises(CheatDetected, match="seat 2: sent two different commitments for pick "
                                            "0") as caught:
        table.participants[0].receive(second)
    assert caught.value.culprit == 2


@pytest.mark.parametrize("n, parties", [(0, [0, 1]), (4, []), (4, [1, 0]), (4, [0, 0]),
                                        (4, [0, 4]), (4, [-1, 0])])
def test_a_pick_among_seats_off_the_table_or_of_nothing_is_refused(n, parties):
    with pytest.raises(ValueError, match="is malformed"):
        table_with({}).participants[0].pick_commit(0, n, parties)


def test_a_pick_nonce_is_32_bytes_and_a_pick_of_one_is_that_one():
    context = Context(b"shanghai-net game", 1, 0)
    for nonce in (bytes(31), bytes(33), "x" * 32):
        with pytest.raises(ValueError, match="a pick nonce is 32 bytes"):
            nonce_digest(context, 0, 4, [0, 1], 0, nonce)
    assert pick_index(context, 0, 1, [bytes(32), bytes(32)]) == 0
    with pytest.raises(ValueError, match="cannot pick an index in range\\(0\\)"):
        pick_index(context, 0, 0, [bytes(32)])


def test_a_shuffle_of_more_cards_than_the_first_block_of_the_stream_holds():
    """The stream is read on past its first 256 words for a deck that long (the deal takes up
    to 65535 cards, though no preset deals more than 162)."""
    order = fisher_yates(bytes(32), 600)
    assert sorted(order) == list(range(600)) and order != list(range(600))


@pytest.mark.parametrize("seat", [-1, 4])
def test_a_participant_sits_at_one_of_the_rosters_seats(seat):
    table = table_with({})
    with pytest.raises(ValueError, match=f"seat {seat} of 4 seats"):
        Participant(seat, table.roster, b"shanghai-net game", 1, None, seeded(b""))


SHUFFLES = {"no card": [], "a card twice": [CARDS[0], CARDS[1], CARDS[0]]}


@pytest.mark.parametrize("cards", SHUFFLES.values(), ids=SHUFFLES.keys())
def test_a_shuffle_of_no_card_or_of_a_card_twice_is_refused_quoting_the_cards(cards):
    """A deck holding a card twice would deal one card to two hands; the engine never asks for
    one, and a participant asked anyway refuses, quoting the cards, and starts nothing."""
    table = table_with({})
    seat = Participant(0, table.roster, b"shanghai-net game", 1, None, seeded(b""))
    with pytest.raises(ValueError) as info:
        seat.start_generation(0, cards)
    assert str(info.value) == f"a shuffle needs 1 or more distinct cards, got {list(cards)!r}"
    assert seat.start_generation(0, CARDS[:3]).context.generation == 0  # 0 was not started


def test_a_game_id_longer_than_its_two_byte_length_is_refused():
    """A context's encoding gives the game id's length in two bytes: 65,535 is the most."""
    assert Context(bytes(0xFFFF), 1, 0).encode()
    with pytest.raises(ValueError) as info:
        Context(bytes(0x10000), 1, 0)
    assert str(info.value) == f"game_id must be at most 65535 bytes, got {repr(bytes(0x10000))[:60]}"


def test_a_word_in_the_stream_s_uneven_top_is_drawn_again(monkeypatch):
    """Fisher-Yates stays uniform by drawing again a word at or above the largest multiple of
    the bound (for 3 cards, 2**32 - 1): that word swaps nothing, the next one does."""
    from shanghai_net.deal import seeds

    monkeypatch.setattr(seeds, "_words", lambda seed: iter([2**32 - 1, 5, 0]))
    assert fisher_yates(b"seed", 3) == [1, 0, 2]


def test_every_point_multiplied_is_counted_for_the_benchmark():
    """benchmarks/deal.py reports the multiplications a deal costs from this count."""
    from shanghai_net.deal.group import card_point, multiplications, multiply_each

    two = bytes([2]) + bytes(31)
    before = multiplications()
    multiply_each([two] * 3, [card_point(c) for c in range(3)])
    assert multiplications() - before == 3
