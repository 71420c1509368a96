"""Physical cards and their notation.

A card is a physical object: the two 7♥ of a two-deck game are different cards (different ids),
which matters for tracking where each card is and for the mental-poker deal, where every physical
card gets its own curve point.  Ids are dense: deck copy ``d`` holds ids ``52*d .. 52*d+51`` (suit
major, ace first), and jokers come after all decks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

__all__ = [
    "Card",
    "Suit",
    "RANKS",
    "JOKER",
    "MAX_DECKS",
    "MAX_JOKERS",
    "deck",
    "card_from_id",
    "parse_card",
    "parse_cards",
    "format_cards",
    "parse_melds",
]

MAX_DECKS = 4
MAX_JOKERS = 8

JOKER = 0
"""The rank of a joker."""

RANKS = range(1, 14)
"""Natural ranks: 1 is the ace, 11 jack, 12 queen, 13 king."""

_RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANK_PARSE = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10, "1": 1}
_RANK_PARSE.update({str(r): r for r in range(2, 11)})


class Suit(IntEnum):
    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)


_SUIT_PARSE = {"C": Suit.CLUBS, "D": Suit.DIAMONDS, "H": Suit.HEARTS, "S": Suit.SPADES,
               "♣": Suit.CLUBS, "♦": Suit.DIAMONDS, "♥": Suit.HEARTS, "♠": Suit.SPADES,
               "♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♡": Suit.HEARTS, "♤": Suit.SPADES}


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One physical card; ``rank`` 0 is a joker.

    There is one object a card (`card_from_id`, pickling and copying give it back), so equality is
    identity and the hash is the id: the cheapest comparison there is, for the sets, dicts and
    ``in`` tests every move makes, and a set's order that is the same in every process."""

    id: int
    rank: int
    suit: Suit | None
    copy: int
    is_joker: bool = field(init=False)
    face: tuple[int, Suit | None] = field(init=False)
    """What the card shows, ignoring which deck copy it is."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "is_joker", self.rank == JOKER)
        object.__setattr__(self, "face", (self.rank, self.suit))

    def __hash__(self) -> int:
        return self.id

    def text(self, unicode: bool = False) -> str:
        if self.is_joker:
            return "🃏" if unicode else "JK"
        rank = _RANK_TEXT.get(self.rank, str(self.rank))
        assert self.suit is not None
        return rank + (self.suit.symbol if unicode else self.suit.letter)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Card({self.text()}#{self.copy})"

    def __lt__(self, other: Card) -> bool:
        return self.id < other.id

    def __copy__(self) -> Card:
        return self  # a card is a value: copies of a game share its cards

    def __deepcopy__(self, memo) -> Card:
        return self

    def __reduce__(self):
        return card_from_id, (self.id,)


def _make(card_id: int) -> Card:
    naturals = 52 * MAX_DECKS
    if card_id < naturals:
        copy, within = divmod(card_id, 52)
        suit, rank0 = divmod(within, 13)
        return Card(card_id, rank0 + 1, Suit(suit), copy)
    return Card(card_id, JOKER, None, card_id - naturals)


_ALL = tuple(_make(i) for i in range(52 * MAX_DECKS + MAX_JOKERS))


def card_from_id(card_id: int) -> Card:
    """The card with this physical id (ids are stable across games and presets)."""
    if not 0 <= card_id < len(_ALL):
        raise ValueError(f"no card has id {card_id}")
    return _ALL[card_id]


def natural(rank: int, suit: Suit, copy: int = 0) -> Card:
    return _ALL[52 * copy + 13 * suit + rank - 1]


def joker(copy: int = 0) -> Card:
    return _ALL[52 * MAX_DECKS + copy]


def deck(decks: int, jokers: int) -> list[Card]:
    """Every physical card of a game played with ``decks`` decks and ``jokers`` jokers."""
    if not 1 <= decks <= MAX_DECKS or not 0 <= jokers <= MAX_JOKERS:
        raise ValueError(f"unsupported deck: {decks} decks, {jokers} jokers")
    return [natural(r, s, d) for d in range(decks) for s in Suit for r in RANKS] + [
        joker(j) for j in range(jokers)
    ]


def parse_card(text: str, copy: int = 0) -> Card:
    """Parse one card: ``7H``, ``10h``, ``TH``, ``7♥``, ``JK``, ``*`` (case-insensitive)."""
    t = text.strip().upper()
    if t in ("JK", "*", "JOKER", "🃏"):
        return joker(copy)
    if len(t) < 2 or t[-1] not in _SUIT_PARSE or t[:-1] not in _RANK_PARSE:
        raise ValueError(f"not a card: {text!r} (expected e.g. 7H, 10H, TH, 7♥, JK or *)")
    return natural(_RANK_PARSE[t[:-1]], _SUIT_PARSE[t[-1]], copy)


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas.

    The same face named twice gives two different physical cards (deck copies 0, 1, ...), so
    ``parse_cards("7H 7H")`` is the pair of sevens of hearts from a two-deck game.
    """
    cards: list[Card] = []
    seen: dict[tuple[int, Suit | None], int] = {}
    for token in text.replace(",", " ").split():
        face = parse_card(token).face
        copy = seen.get(face, 0)
        limit = MAX_JOKERS if face[0] == JOKER else MAX_DECKS
        if copy >= limit:
            raise ValueError(f"more than {limit} copies of {token!r} in {text!r}")
        seen[face] = copy + 1
        cards.append(parse_card(token, copy))
    return cards


def format_cards(cards, unicode: bool = False) -> str:
    return " ".join(c.text(unicode) for c in cards)


def parse_melds(text: str) -> list[list[Card]]:
    """Parse groups of cards separated by ``/``: ``"7H 7S JK / 8C 8D 8S"``.

    Copies are counted across the whole text, so a face named in two groups is two cards.
    """
    cards = parse_cards(text.replace("/", " "))
    groups, i = [], 0
    for part in text.split("/"):
        n = len(part.replace(",", " ").split())
        groups.append(cards[i : i + n])
        i += n
    return groups
