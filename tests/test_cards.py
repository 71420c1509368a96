"""Cards: physical ids, the notation in and out (docs/api.md: parse_cards), decks per preset."""

from __future__ import annotations

import pytest

from shanghai_net.cards import JOKER, Suit, card_from_id, deck, format_cards, parse_cards, parse_melds
from shanghai_net.rules import preset


@pytest.mark.parametrize(
    "text, faces",
    [
        ("7H", [(7, Suit.HEARTS)]),
        ("10H TH th 10h", [(10, Suit.HEARTS)] * 4),
        ("JK * jk", [(JOKER, None)] * 3),
        ("7♠ 7♥ 7♦ 7♣", [(7, Suit.SPADES), (7, Suit.HEARTS), (7, Suit.DIAMONDS), (7, Suit.CLUBS)]),
        ("ah, kd,qc", [(1, Suit.HEARTS), (13, Suit.DIAMONDS), (12, Suit.CLUBS)]),
        ("2s JS", [(2, Suit.SPADES), (11, Suit.SPADES)]),
    ],
    ids=["digit", "ten-or-T", "joker-JK-or-star", "suit-symbols", "case-and-commas", "jack-vs-joker"],
)
def test_parse_cards_notation(text, faces):
    """api.md: parse_cards accepts 7H, 10H or TH, JK or *, ♠♥♦♣, case-insensitive."""
    assert [c.face for c in parse_cards(text)] == faces


@pytest.mark.parametrize("bad", ["7X", "11H", "ZZ", "H7", "7H 1", "🂡"])
def test_parse_cards_bad_input_quotes_it(bad):
    with pytest.raises(ValueError) as err:
        parse_cards(bad)
    token = bad.split()[-1]
    assert repr(token) in str(err.value) or repr(bad) in str(err.value)


def test_same_face_twice_is_two_physical_cards():
    """Two 7♥ of a two-deck game are different cards (different ids), equal in face."""
    a, b = parse_cards("7H 7H")
    assert a.face == b.face and a != b and a.id != b.id
    assert len({a, b}) == 2


def test_more_copies_than_decks_is_refused():
    with pytest.raises(ValueError, match="copies"):
        parse_cards("7H 7H 7H 7H 7H")


def test_text_round_trip_for_every_card():
    cards = deck(2, 4)
    again = parse_cards(format_cards(cards))
    assert [c.face for c in again] == [c.face for c in cards]
    assert parse_cards(format_cards(cards, unicode=True)) == again
    for card in cards:
        assert card_from_id(card.id) is card


def test_parse_melds_counts_copies_across_groups():
    first, second = parse_melds("7H 7S JK / 7H 8C JK")
    assert first[0].face == second[0].face and first[0] != second[0]
    assert first[2] != second[2] and first[2].is_joker and second[2].is_joker


@pytest.mark.parametrize(
    "name, players, size",
    [("davis", n, 108) for n in range(3, 7)]
    + [("good-miller", n, 108) for n in range(3, 7)]
    + [("marcelle", n, 108) for n in (3, 4)]
    + [("marcelle", n, 162) for n in range(5, 9)],
    ids=lambda v: str(v),
)
def test_deck_size_per_preset_and_players(name, players, size):
    """davis: 'two standard decks, including all four jokers'; good-miller: '2 standard 52 decks with
    all 4 jokers ... 108 cards'; marcelle: '1 to 4 – 2 decks ---- 5,6, or 7 people – 3 decks'."""
    cards = deck(*preset(name).deck_size(players))
    assert len(cards) == size == len(set(cards))
    jokers = sum(c.is_joker for c in cards)
    assert jokers == (4 if size == 108 else 6)
    assert all(sum(c.face == f.face for c in cards) == size // 54 for f in cards if not f.is_joker)
