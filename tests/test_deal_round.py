"""Honest rounds: every seat opens exactly its own cards, and the cards dealt are the deck."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shanghai_net.cards import deck
from shanghai_net.deal import CheatDetected, MentalTable, seeded
from shanghai_net.deal.group import card_point, card_points, invert, multiply, scalar_product

SMALL = deck(1, 2)[:20]


def coalition_point(table: MentalTable, position: int, members: list[int]) -> bytes:
    """What ``members`` get by pooling their keys of ``position`` and stripping them."""
    g = table.participants[0].generation(table.generation)
    keys = [table.participants[m].generation(table.generation).keys.card_keys[position]
            for m in members]
    return multiply(invert(scalar_product(keys)), g.final_deck[position])


@pytest.mark.parametrize("players", range(3, 9))
def test_whole_deck_dealt_is_a_permutation_of_it(players):
    table = MentalTable(players, seeded(b"whole deck %d" % players))
    cards = deck(2, 4)
    per_seat = -(-len(cards) // players)
    dealt = []
    for seat in range(players):
        positions = range(seat * per_seat, min(len(cards), (seat + 1) * per_seat))
        dealt += table.open_many_to(positions, seat)
    assert sorted(dealt) == sorted(cards)
    held = [c for p in table.participants for c in p.hand().values()]
    assert sorted(held) == sorted(cards)


@pytest.mark.parametrize("players", range(3, 9))
def test_each_seat_opens_its_own_cards_and_no_coalition_short_of_a_key_does(players):
    table = MentalTable(players, seeded(b"coalition %d" % players), cards=SMALL)
    points = card_points(SMALL)
    for seat in range(players):
        card = table.open_to(seat, seat)
        assert card in SMALL and table.participants[seat].hand() == {(0, seat): card}
        for other in range(players):  # no other seat can open it: it lacks keys
            if other != seat:
                with pytest.raises(ValueError, match="no key yet"):
                    table.participants[other].open(0, seat)
        for missing in range(players):  # every coalition lacking one seat's key fails
            members = [m for m in range(players) if m != missing]
            stripped = coalition_point(table, seat, members)
            assert stripped not in points and stripped != card_point(card.id)
        assert coalition_point(table, seat, list(range(players))) == card_point(card.id)


def test_a_position_goes_to_one_seat_only():
    table = MentalTable(3, seeded(b"once"), cards=SMALL)
    table.open_to(5, 1)
    with pytest.raises(ValueError, match="already went to seat 1"):
        table.participants[0].share_keys(0, 2, [5])
    with pytest.raises(ValueError, match="held by a player"):
        table.participants[0].reveal_own_key(0, 5)


def test_public_reveal_of_a_held_card_and_of_a_stock_card():
    table = MentalTable(4, seeded(b"public"), cards=SMALL)
    card = table.open_to(3, 2)
    assert table.open_public(3) == card
    assert (0, 3) not in table.participants[2].hand()
    top = table.open_public(7)
    assert top in SMALL and top != card
    assert all(p.public_card(0, 7) == top for p in table.participants)
    assert table.audit().clean


def test_token_of_names_the_position_of_a_held_card():
    table = MentalTable(3, seeded(b"token"), cards=SMALL)
    hand = table.open_many_to([2, 9, 11], 1)
    owner = table.participants[1]
    assert [owner.token_of(c) for c in hand] == [(0, 2), (0, 9), (0, 11)]
    with pytest.raises(ValueError, match="holds no hidden"):
        owner.token_of(next(c for c in SMALL if c not in hand))


def test_reshuffle_is_a_new_generation_with_fresh_seeds():
    table = MentalTable(3, seeded(b"reshuffle"), cards=SMALL)
    pile = [table.open_public(p) for p in range(6)]
    generation = table.reshuffle(pile)
    assert generation == 1
    assert sorted(table.open_many_to(range(6), 0)) == sorted(pile)
    seeds = [p.generation(g).seed for p in table.participants for g in (0, 1)]
    assert len(set(seeds)) == len(seeds)
    assert table.participants[0].hand().keys() == {(1, p) for p in range(6)}
    assert table.audit().clean


def test_shuffles_differ_with_the_seeds():
    orders = set()
    for n in range(4):
        table = MentalTable(3, seeded(b"order %d" % n), cards=SMALL)
        orders.add(tuple(table.open_many_to(range(len(SMALL)), 0)))
    assert len(orders) == 4


def test_pick_is_deterministic_in_the_nonces_and_in_range():
    results = [MentalTable(3, seeded(b"pick %d" % n), cards=SMALL).pick(5, [0, 2])
               for n in range(20)]
    assert all(0 <= r < 5 for r in results) and len(set(results)) > 1


def test_opening_before_keys_arrive_is_refused():
    table = MentalTable(3, seeded(b"early"), cards=SMALL)
    with pytest.raises(ValueError, match=r"no key yet from seats \[1, 2\]"):
        table.participants[0].open(0, 4)


@settings(max_examples=12, deadline=None)
@given(players=st.integers(3, 8), size=st.integers(2, 16), seed=st.binary(min_size=1, max_size=8),
       data=st.data())
def test_random_honest_rounds(players, size, seed, data):
    cards = deck(1, 4)[-size:]
    table = MentalTable(players, seeded(seed), cards=cards)
    owners = data.draw(st.lists(st.integers(0, players - 1), min_size=size, max_size=size))
    opened = [table.open_to(position, seat) for position, seat in enumerate(owners)]
    assert sorted(opened) == sorted(cards)
    assert table.open_public(size - 1) == opened[-1]
    assert table.audit(seats=[0]).clean


def test_a_failed_open_is_a_complaint_without_a_culprit():
    table = MentalTable(3, seeded(b"complaint"), cards=SMALL)
    recipient = table.participants[0]
    g = recipient.generation(0)
    g.passes[-1] = type(g.passes[-1])(g.context, 2, 2, (card_point(200),)
                                      + g.passes[-1].points[1:])
    for sender in table.participants[1:]:
        recipient.receive_share(sender.share_keys(0, 0, [0]))
    with pytest.raises(CheatDetected) as caught:
        recipient.open(0, 0)
    assert caught.value.culprit is None and "audit" in caught.value.reason


def test_seats_compare_transcripts_to_catch_split_broadcasts():
    table = MentalTable(3, seeded(b"transcript"), cards=SMALL)
    table.open_public(2)
    digests = {p.transcript_digest(0) for p in table.participants}
    assert len(digests) == 1
    table.participants[2].generation(0).reveals.clear()  # as if seat 2 never saw the reveal
    assert table.participants[2].transcript_digest(0) not in digests
    with pytest.raises(AssertionError, match="different broadcasts in generation 0"):
        table.audit()


@pytest.mark.parametrize("players", [3, 5, 8])
def test_the_opened_deck_after_the_audit_is_what_every_position_opens_to(players):
    """`opened_deck` reads the cards from the seeds' permutations alone; each position's keys,
    all of them, strip its final point to the same card."""
    from shanghai_net.deal.audit import opened_deck
    table = MentalTable(players, seeded(b"opened deck %d" % players), cards=SMALL)
    assert table.audit().clean
    g = table.participants[0].generation(table.generation)
    points = card_points(SMALL)
    keys = [p.generation(table.generation).keys.card_keys for p in table.participants]
    opened = [points[multiply(invert(scalar_product(k[position] for k in keys)), point)]
              for position, point in enumerate(g.final_deck)]
    assert list(opened_deck(g)) == opened and sorted(opened) == sorted(SMALL)
