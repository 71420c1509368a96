"""Penalty points for cards left in a hand."""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import Card
from .ruleset import RuleSet

__all__ = ["penalty", "card_points"]


def card_points(rules: RuleSet, card: Card) -> int:
    """2-7 low, 8-K high, ace, joker: the seeds' table (a wild two scores as a two)."""
    if rules.game == "carousel":
        return 1
    if card.is_joker:
        return rules.points_joker
    if card.rank == 1:
        return rules.points_ace
    return rules.points_low if card.rank <= 7 else rules.points_high


def penalty(rules: RuleSet, cards: Sequence[Card]) -> int:
    return sum(card_points(rules, c) for c in cards)
