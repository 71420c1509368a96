"""The RuleSet methods issue 25 removed, working again for one release (docs/api.md, "Stability").

``RuleSet.meld_kind``, ``RuleSet.check_contract`` and ``RuleSet.penalty`` were documented names;
they became functions of the rules taking the RuleSet first.  Each old name calls its new one and
warns ``DeprecationWarning`` naming it.  They are set on the class here, above the modules that
define the new names, because ``ruleset.py`` imports none of its importers (tests/test_imports.py);
``shanghai_net.rules`` imports this module, so every RuleSet has them.  Remove in 0.3.0.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

from ..cards import Card
from .contracts import check_contract
from .melds import Meld, meld_kind
from .ruleset import MeldKind, RuleSet
from .scoring import penalty


def _warn(old: str, new: str) -> None:
    warnings.warn(f"RuleSet.{old} is deprecated (removed in 0.3.0): use {new}", DeprecationWarning, stacklevel=3)


def _meld_kind(self: RuleSet, cards: Sequence[Card]) -> MeldKind | None:
    """Deprecated: ``shanghai_net.rules.meld_kind(rules, cards)``."""
    _warn("meld_kind", "shanghai_net.rules.meld_kind(rules, cards)")
    return meld_kind(self, cards)


def _check_contract(self: RuleSet, round_no: int, melds: Sequence[Sequence[Card]]) -> list[Meld]:
    """Deprecated: ``shanghai_net.rules.check_contract(rules, rules.contract(round_no), melds)``."""
    _warn("check_contract", "shanghai_net.rules.check_contract(rules, rules.contract(round_no), melds)")
    return check_contract(self, self.contract(round_no), melds)


def _penalty(self: RuleSet, cards: Sequence[Card]) -> int:
    """Deprecated: ``shanghai_net.rules.penalty(rules, cards)``."""
    _warn("penalty", "shanghai_net.rules.penalty(rules, cards)")
    return penalty(self, cards)


DEPRECATED: dict[str, Callable] = {"meld_kind": _meld_kind, "check_contract": _check_contract, "penalty": _penalty}
for _name, _method in DEPRECATED.items():
    _method.__name__ = _method.__qualname__ = _name
    setattr(RuleSet, _name, _method)
