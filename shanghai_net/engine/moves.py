"""Moves: what a seat can do, as plain values, with a short text notation.

Notation (one move a line, case-insensitive; cards as in `shanghai_net.cards`; melds on the table
are numbered from 1 in the order they were laid down)::

    draw                      take the top stock card
    take                      take the top discard
    mayi | claim | call       claim the discard out of turn (MAY I / I call)
    pass                      let the discard go
    down 7H 7S JK / 8C 8D 8S  go down with the contract (a run in the order given)
    lay 9H on 2 [low|high]    lay off on meld 2 (at one end of a run)
    swap JK on 2 with 9H 9S [low|high]   replace the joker, extend with the second card
    buy JK on 2 with 9H       trade a natural card for a joker (paying its owner)
    discard 7H [shanghai]     discard, declaring SHANGHAI if it plays on the table
    shanghai 2 [low|high]     call SHANGHAI: the last discard goes on meld 2
    play 7H 8H +9H / +5S 5D 5C   carousel: the table's whole new arrangement, melds split by
                              ``/``, a ``+`` before each card that comes from the hand
    pass                      carousel: cannot play and the stock is empty
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import Card, format_cards, parse_card, parse_melds
from ..rules.melds import End

__all__ = [
    "Move", "DrawStock", "TakeDiscard", "MayI", "PassClaim", "CallShanghai", "GoDown", "LayOff",
    "SwapJoker", "BuyJoker", "Discard", "Rearrange", "parse_move",
]


@dataclass(frozen=True, slots=True)
class Move:
    seat: int

    def text(self) -> str:  # pragma: no cover - every move overrides it
        raise NotImplementedError


def _end(end: End | None) -> str:
    return f" {end.value}" if end else ""


@dataclass(frozen=True, slots=True)
class DrawStock(Move):
    def text(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class TakeDiscard(Move):
    def text(self) -> str:
        return "take"


@dataclass(frozen=True, slots=True)
class MayI(Move):
    """Claim the discard out of turn: it and the penalty cards, no discard."""

    def text(self) -> str:
        return "mayi"


@dataclass(frozen=True, slots=True)
class PassClaim(Move):
    def text(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class CallShanghai(Move):
    """The last discard plays on meld ``meld``: it goes there and its discarder pays."""

    meld: int
    end: End | None = None

    def text(self) -> str:
        return f"shanghai {self.meld + 1}{_end(self.end)}"


@dataclass(frozen=True, slots=True)
class GoDown(Move):
    melds: tuple[tuple[Card, ...], ...]

    def text(self) -> str:
        return "down " + " / ".join(format_cards(m) for m in self.melds)


@dataclass(frozen=True, slots=True)
class LayOff(Move):
    card: Card
    meld: int
    end: End | None = None

    def text(self) -> str:
        return f"lay {self.card} on {self.meld + 1}{_end(self.end)}"


@dataclass(frozen=True, slots=True)
class SwapJoker(Move):
    """good-miller: the natural card replaces the joker, ``extension`` lengthens the meld."""

    meld: int
    joker: Card
    replacement: Card
    extension: Card
    end: End | None = None

    def text(self) -> str:
        return f"swap {self.joker} on {self.meld + 1} with {self.replacement} {self.extension}{_end(self.end)}"


@dataclass(frozen=True, slots=True)
class BuyJoker(Move):
    """marcelle: pay the joker's owner and trade the natural card it stands for."""

    meld: int
    joker: Card
    replacement: Card

    def text(self) -> str:
        return f"buy {self.joker} on {self.meld + 1} with {self.replacement}"


@dataclass(frozen=True, slots=True)
class Discard(Move):
    card: Card
    shanghai: bool = False

    def text(self) -> str:
        return f"discard {self.card}" + (" shanghai" if self.shanghai else "")


@dataclass(frozen=True, slots=True)
class Rearrange(Move):
    """carousel: the table's complete new arrangement, and the cards played from the hand into it."""

    table: tuple[tuple[Card, ...], ...]
    played: tuple[Card, ...]

    def text(self) -> str:
        mine = set(self.played)
        groups = [" ".join(("+" if c in mine else "") + c.text() for c in meld) for meld in self.table]
        stray = [c for c in self.played if not any(c in meld for meld in self.table)]
        if stray:  # an illegal move quoted in an error: the played cards placed nowhere
            groups.append(" ".join("+" + c.text() for c in stray))
        return "play " + " / ".join(groups)


def _rearrange(seat: int, args: list[str], pick, table: Sequence[Card]) -> Rearrange:
    """``play`` words: table cards are matched to the physical ``table`` cards of that face."""
    body = " ".join(args)
    melds = parse_melds(body.replace("+", " "))
    marks = [w.startswith("+") for part in body.split("/") for w in part.replace(",", " ").split()
             if w.strip("+")]
    on_table: dict[tuple, list[Card]] = {}
    for card in table:
        on_table.setdefault(card.face, []).append(card)
    flags = iter(marks)
    groups, played = [], []
    for meld in melds:
        group = []
        for card in meld:
            if next(flags):
                card = pick(card)
                played.append(card)
            elif on_table.get(card.face):
                card = on_table[card.face].pop(0)
            group.append(card)
        groups.append(tuple(group))
    return Rearrange(seat, tuple(groups), tuple(played))


def _meld_number(word: str, text: str) -> int:
    if not word.isdigit() or int(word) < 1:
        raise ValueError(f"{text!r}: {word!r} is not a meld number (1, 2, ...)")
    return int(word) - 1


def _split_end(words: list[str]) -> tuple[list[str], End | None]:
    if words and words[-1] in ("low", "high"):
        return words[:-1], End(words[-1])
    return words, None


def parse_move(text: str, seat: int, cards_of=None, table: Sequence[Card] = ()) -> Move:
    """Parse the notation above into a move for ``seat``.

    ``cards_of(face_card) -> Card`` maps a parsed face to the physical card the player means (the
    copy in their hand or on the table); without it the first copy is used.  In ``play`` the
    unmarked cards are matched to the physical cards of ``table`` (the cards on the table now).
    """
    pick = cards_of or (lambda c: c)
    words = text.strip().lower().split()
    if not words:
        raise ValueError("empty move")
    verb, args = words[0], words[1:]
    try:
        if verb == "draw" and not args:
            return DrawStock(seat)
        if verb == "take" and not args:
            return TakeDiscard(seat)
        if verb in ("mayi", "may", "claim", "call") and (not args or args == ["i"]):
            return MayI(seat)
        if verb == "pass" and not args:
            return PassClaim(seat)
        if verb == "down" and args:
            melds = parse_melds(" ".join(args))
            return GoDown(seat, tuple(tuple(pick(c) for c in m) for m in melds))
        if verb == "play" and args:
            return _rearrange(seat, args, pick, table)
        if verb == "discard" and args:
            shanghai = args[-1] == "shanghai"
            if shanghai:
                args = args[:-1]
            if len(args) == 1:
                return Discard(seat, pick(parse_card(args[0])), shanghai)
        if verb == "shanghai" and args:
            args, end = _split_end(args)
            if len(args) == 1:
                return CallShanghai(seat, _meld_number(args[0], text), end)
        if verb == "lay" and len(args) >= 3 and args[1] == "on":
            rest, end = _split_end(args[2:])
            if len(rest) == 1:
                return LayOff(seat, pick(parse_card(args[0])), _meld_number(rest[0], text), end)
        if verb in ("swap", "buy") and len(args) >= 5 and args[1] == "on" and args[3] == "with":
            rest, end = _split_end(args[4:])
            meld = _meld_number(args[2], text)
            joker = parse_card(args[0])
            if verb == "buy" and len(rest) == 1 and end is None:
                return BuyJoker(seat, meld, joker, pick(parse_card(rest[0])))
            if verb == "swap" and len(rest) == 2:
                return SwapJoker(seat, meld, joker, pick(parse_card(rest[0])), pick(parse_card(rest[1])), end)
    except ValueError as exc:
        raise ValueError(f"cannot read move {text!r}: {exc}") from None
    raise ValueError(f"cannot read move {text!r} (try: draw, take, mayi, pass, down ..., lay C on N, discard C, play ...)")
