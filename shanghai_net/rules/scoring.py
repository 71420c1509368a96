"""Penalty points for cards left in a hand."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..cards import Card, Suit, joker, natural
from .ruleset import RuleSet

__all__ = ["penalty", "card_points", "points_by_rank"]


def card_points(rules: RuleSet, card: Card) -> int:
    """2-7 low, 8-K high, ace, joker: the seeds' table (a wild two scores as a two)."""
    if rules.game == "carousel":
        return 1
    if card.is_joker:
        return rules.points_joker
    if card.rank == 1:
        return rules.points_ace
    return rules.points_low if card.rank <= 7 else rules.points_high


@lru_cache(maxsize=64)
def points_by_rank(rules: RuleSet) -> tuple[int, ...]:
    """`card_points` of each rank (0 the joker, 1 the ace), for a bot that weighs every card of a
    hand every turn."""
    return tuple(card_points(rules, joker() if rank == 0 else natural(rank, Suit.CLUBS)) for rank in range(14))


def penalty(rules: RuleSet, cards: Sequence[Card]) -> int:
    return sum(card_points(rules, c) for c in cards)
