"""The rules of Shanghai as pure functions of a RuleSet: melds, contracts, scoring."""

from . import deprecated  # noqa: F401  (RuleSet's removed methods, for one release)
from .contracts import check_contract, describe_contract
from .melds import End, Meld, arrange, arrangements, extend, meld_kind, replace_wild, why_not_meld
from .ruleset import CONTRACTS, PRESETS, Ace, MeldKind, RuleSet, preset
from .scoring import card_points, penalty

__all__ = [
    "Ace", "CONTRACTS", "End", "Meld", "MeldKind", "PRESETS", "RuleSet", "arrange", "arrangements",
    "card_points", "check_contract", "describe_contract", "extend", "meld_kind", "penalty", "preset",
    "replace_wild", "why_not_meld",
]
