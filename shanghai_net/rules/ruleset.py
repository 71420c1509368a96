"""The rule set: every variation point of the seeds as one field, and the named presets.

A table can play a preset or its own house mix: ``preset("davis").override("claims_per_round=3")``.
The rules functions (melds, contracts, scoring) read only these fields, never the preset's name;
they live in their own modules and import this one, never the other way round: a RuleSet is data.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from ..cards import Card

__all__ = ["Ace", "MeldKind", "Need", "PhaseContract", "Contract", "RuleSet", "preset", "PRESETS", "CONTRACTS",
           "PHASES_10", "GAMES", "parse_rules", "typed_rules", "check_rules", "rules_schema", "rule_text"]


class Ace(StrEnum):
    """Where an ace may sit in a run."""

    HIGH = "high"  # J-Q-K-A only
    LOW = "low"  # A-2-3 only
    EITHER = "either"  # low or high, never wrapping (Q-K-A-2)


class MeldKind(StrEnum):
    SET = "set"
    RUN = "run"
    SUIT = "suit"  # cards of one suit, any ranks: Phase 10's "colour" ("7 cards of the same suit", seed 000)


Need = tuple[MeldKind, int]
"""One meld a phase asks for: its kind and its least size (``(MeldKind.RUN, 7)``: a run of 7 or more)."""


@dataclass(frozen=True, slots=True)
class PhaseContract:
    """A contract that names each meld's kind and size (the ``phases`` field), where a classic
    contract is only (sets, runs) at ``min_set`` and ``min_run``: Phase 10's "1 set of 4 + 1 run
    of 4" is ``PhaseContract(((SET, 4), (RUN, 4)))``.  Not a pair, so code that reads a contract
    as (sets, runs) fails loudly on it: rules/contracts.py's `contract_needs` and `kind_counts`
    read both."""

    melds: tuple[Need, ...]


Contract = tuple[int, int] | PhaseContract
"""What a seat must lay down to go down: (sets, runs), or a phase's melds."""


GAMES = ("contract", "carousel")
"""The games a rule set may play (its ``game`` field)."""

CONTRACTS: tuple[tuple[int, int], ...] = ((2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3))
"""(sets, runs) for rounds 1-7, the same in every contract seed."""

_S, _R, _C = MeldKind.SET, MeldKind.RUN, MeldKind.SUIT
PHASES_10: tuple[tuple[Need, ...], ...] = (
    ((_S, 3), (_S, 3)),  # 1: 2 sets of 3
    ((_S, 3), (_R, 4)),  # 2: 1 set of 3 + 1 run of 4
    ((_S, 4), (_R, 4)),  # 3: 1 set of 4 + 1 run of 4
    ((_R, 7),),  # 4: 1 run of 7
    ((_R, 8),),  # 5: 1 run of 8
    ((_R, 9),),  # 6: 1 run of 9
    ((_S, 4), (_S, 4)),  # 7: 2 sets of 4
    ((_C, 7),),  # 8: 7 cards of one colour (here: of one suit)
    ((_S, 5), (_S, 2)),  # 9: 1 set of 5 + 1 set of 2
    ((_S, 5), (_S, 3)),  # 10: 1 set of 5 + 1 set of 3
)
"""Commercial Phase 10's ten phases (Fundex), its "colour" read as a suit (docs/rules.md)."""


@dataclass(frozen=True)
class RuleSet:
    """Every variation point of rules-variants.md.  ``None`` in an ``int | None`` field means no limit."""

    name: str = "custom"
    game: str = "contract"  # "contract" | "carousel"
    min_players: int = 3
    max_players: int = 6
    # the cards
    decks: int = 2
    jokers: int = 4
    big_table_players: int | None = None  # from this many players on, play with big_table_decks
    big_table_decks: int = 3
    big_table_jokers: int = 6
    hand_size: int = 11
    last_round_hand_size: int = 11
    # melds
    wild_twos: bool = False
    max_wilds_per_meld: int | None = None
    wilds_at_most_naturals: bool = False  # house rule: no more wilds than naturals in a meld
    min_set: int = 3
    max_set: int | None = None
    set_distinct_suits: bool = False
    min_run: int = 4
    max_run: int | None = None
    runs_any_suit: bool = False  # Phase 10: "runs do not have to be all in the same suit" (seed 000)
    ace: Ace = Ace.HIGH
    ace_both_ends: bool = False  # A-2-...-K-A, the 14-card run
    # the contract
    contracts: tuple[tuple[int, int], ...] = CONTRACTS
    # each round's (or phase's) melds as (kind, least size), replacing `contracts` when given; in
    # a game of phases each meld's least size is its phase's (min_set and min_run are not read)
    phases: tuple[tuple[Need, ...], ...] = ()
    contract_distinct_set_ranks: bool = False  # no two books of one rank
    contract_runs_apart: bool = False  # two runs of one suit must not join into one
    contract_minimum_melds: bool = False  # each contract meld at its minimum size
    final_round_meld_all: bool = False  # last round: meld every card at once, no discard
    # after going down
    lay_off_on_going_down_turn: bool = True
    out_by_discard: bool = False  # every turn ends with a discard: no going out by playing the last card
    # out-of-turn claims
    claims_per_round: int | None = 2  # None: no limit (marcelle: "Anyone can claim", no count)
    claim_penalty: int = 2  # stock cards drawn with the claimed discard
    claim_when_down: bool = True
    reopen_after_claim: bool = False  # the card a claim uncovers: the drawer chooses again, others may claim it
    # SHANGHAI (davis)
    shanghai: bool = False
    shanghai_caller_min_cards: int = 2  # a caller keeps a card after the penalty draw (at least 1)
    shanghai_after_stock: bool = True  # the drawer who chose the stock may still call SHANGHAI
    # jokers on the table
    joker_swap: bool = False  # good-miller: after going down, replace + extend, lay the joker off
    joker_buy: bool = False  # marcelle: before going down, pay the owner, trade the natural card
    joker_price: int = 5
    # the stock
    turn_pile_over: bool = False  # empty stock: the whole pile becomes the stock (000), not all but its top (002)
    max_reshuffles: int | None = None  # house rule: turn the pile over at most this often (seeds: no limit)
    max_turns: int | None = 1000  # safeguard for bots: a round this long stops, reported as "turn limit"
    discard_taken_card: bool = False  # may a card taken from the pile go back on it the same turn
    # scoring
    points_low: int = 5  # 2-7
    points_high: int = 10  # 8-K
    points_ace: int = 20
    points_joker: int = 50
    winner_bonus: int = 0
    dead_round_scores: bool = True  # a round nobody went out of charges every hand in full
    money: bool = False  # marcelle: coins instead of points
    ante: int = 5
    penny_per_card: int = 1
    stake: int = 30  # 4 nickels + 10 pennies
    leave_penalty: int = 150  # a seat that leaves for good pays it: points, or money into the pot (docs/rules.md)
    # modes
    progression: bool = False  # Phase-10 style: each player advances through the contracts alone
    target_score: int = 25  # carousel: the hands go on until someone reaches it
    must_play: int = 2  # carousel: a hand able to play this many cards (or more) must play at least this many
    shuffle_proof: bool = False  # mental poker: prove every pass-1 shuffle (costly)
    # the table's words
    set_word: str = "set"
    claim_word: str = "I call"
    description: str = field(default="", compare=False)

    # -- derived facts -------------------------------------------------------------------------

    @property
    def rounds(self) -> int:
        """Rounds of the game: one a contract (with `progression`, contracts each player completes)."""
        return len(self.phases) if self.phases else len(self.contracts)

    def deck_size(self, players: int) -> tuple[int, int]:
        """(decks, jokers) for a table of this many players."""
        if self.big_table_players is not None and players >= self.big_table_players:
            return self.big_table_decks, self.big_table_jokers
        return self.decks, self.jokers

    def deal_size(self, round_no: int) -> int:
        return self.last_round_hand_size if round_no == self.rounds else self.hand_size

    def contract(self, round_no: int) -> Contract:
        """What this round (1-based) asks: (sets, runs), or its phase's melds where `phases` is set."""
        if not 1 <= round_no <= self.rounds:
            raise ValueError(f"round {round_no} is not between 1 and {self.rounds}")
        if self.phases:
            return self._phase_contracts[round_no - 1]
        return self.contracts[round_no - 1]

    @cached_property
    def _phase_contracts(self) -> tuple[PhaseContract, ...]:
        return tuple(PhaseContract(tuple(phase)) for phase in self.phases)

    def _least(self, kind: MeldKind) -> int | None:
        sizes = [size for phase in self.phases for k, size in phase if k is kind]
        return min(sizes) if sizes else None

    @cached_property
    def least_set(self) -> int:
        """The fewest cards of a set: ``min_set``, or in a game of phases the smallest set a phase asks."""
        least = self._least(MeldKind.SET) if self.phases else None
        return self.min_set if least is None else least

    @cached_property
    def least_run(self) -> int:
        """The fewest cards of a run: ``min_run``, or in a game of phases the smallest run a phase asks."""
        least = self._least(MeldKind.RUN) if self.phases else None
        return self.min_run if least is None else least

    @cached_property
    def least_suit(self) -> int | None:
        """The fewest cards of a meld of one suit; None where no phase asks for one (then there is
        no such meld: seven hearts are no meld in davis)."""
        return self._least(MeldKind.SUIT)

    def is_wild(self, card: Card) -> bool:
        return card.is_joker or (self.wild_twos and card.rank == 2)

    # -- house rules ---------------------------------------------------------------------------

    def override(self, *assignments: str, **values) -> RuleSet:
        """A copy with fields changed: ``override("claims_per_round=3", shanghai=False)``.

        A ``field=value`` string (a command line's ``--rule``) is parsed by the field's type; a
        keyword value must already have that type, as on the wire (check_rules), so ``"false"``
        is never taken for a boolean.  Unknown fields and bad values raise ValueError naming them.
        """
        typed = {**parse_rules(assignments), **check_rules(values)}
        return dataclasses.replace(self, **{key: _held(key, value) for key, value in typed.items()})

    def as_wire(self) -> dict[str, object]:
        """Every field in its wire type (protocol/presets.json holds this for each preset)."""
        return {f.name: _wire_value(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def as_dict(self) -> dict[str, object]:
        """Plain values only (the lobby sends this over the wire)."""
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = [list(c) for c in value] if f.name == "contracts" else (
                _wire_value(value) if f.name == "phases" else value)
        return out


_HINTS = typing.get_type_hints(RuleSet)


def _field_type(name: str):
    return _HINTS[name]


def _parse_field(name: str, kind, value):
    if not isinstance(value, str):
        return value  # typed already: check_rules judges it
    text = value.strip()
    if text.startswith("["):  # a list in its wire form, as JSON: contracts=[[2,0],[1,1]]
        try:
            return json.loads(text)  # check_rules judges its type
        except json.JSONDecodeError as e:
            raise ValueError(f"rule {name}: cannot read {value!r} as a JSON list ({e.msg} at "
                             f"character {e.pos})") from None
    optional = isinstance(kind, types.UnionType) and type(None) in typing.get_args(kind)
    if optional:
        if text.lower() in ("none", "no", "off", "unlimited"):
            return None
        kind = next(a for a in typing.get_args(kind) if a is not type(None))
    try:
        if kind is bool:
            lowered = text.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if kind is int:
            return int(text)
        if kind is Ace:
            return Ace(text.lower())
        if name == "contracts":
            # "2s,1s1r,2r,..." : each round as <n>s<m>r
            rounds = []
            for part in text.split(","):
                sets = runs = 0
                for count, letter in _count_letters(part.strip().lower()):
                    if letter == "s":
                        sets = count
                    elif letter == "r":
                        runs = count
                    else:
                        raise ValueError
                rounds.append((sets, runs))
            return tuple(rounds)
        if name == "phases":
            return _parse_phases(text)
        return text
    except ValueError:
        what = "phases such as set3+run4,run7,suit7" if name == "phases" else getattr(kind, '__name__', kind)
        raise ValueError(f"rule {name}: cannot read {value!r} as {what}") from None


# -- rules on the wire: each value in its own type, checked against one schema ------------------

def _wire_value(value):
    if isinstance(value, tuple):
        return [_wire_value(v) for v in value]
    return str(value) if isinstance(value, StrEnum) else value


def _held(name: str, value):
    """A wire value as the RuleSet holds it (contracts and phases as tuples, kinds as MeldKind, the ace as Ace)."""
    if name == "contracts":
        return tuple((s, r) for s, r in value)
    if name == "phases":
        return tuple(tuple((MeldKind(kind), size) for kind, size in phase) for phase in value)
    return Ace(value) if name == "ace" else value


def _parse_phases(text: str) -> tuple[tuple[Need, ...], ...]:
    """``set3+set3,set3+run4,...,suit7``: phases split by commas, each phase's melds by ``+``,
    each meld its kind and least size; empty or ``none``: no phases (the contracts are played)."""
    if text.lower() in ("", "none"):
        return ()
    phases = []
    for part in text.split(","):
        melds = []
        for token in part.strip().lower().split("+"):
            token = token.strip()
            kind = token.rstrip("0123456789")
            if kind not in {k.value for k in MeldKind} or kind == token:
                raise ValueError(token)
            melds.append((MeldKind(kind), int(token[len(kind):])))
        phases.append(tuple(melds))
    return tuple(phases)


def parse_rules(assignments: Iterable[str]) -> dict[str, object]:
    """``field=value`` texts (a command line's ``--rule``) as house rules in their wire types."""
    texts = {}
    for assignment in assignments:
        key, sep, text = assignment.partition("=")
        if not sep:
            raise ValueError(f"house rule {assignment!r} is not field=value")
        texts[key.strip()] = text.strip()
    return typed_rules(texts)


def typed_rules(values: dict[str, object]) -> dict[str, object]:
    """House rules as ``start_game.rules`` carries them: each value in its field's wire type.

    The edge (a command line's ``--rule field=value``) hands strings; they are parsed here, by the
    field's type, so nothing past the edge sees ``"false"``.  Errors name the rule and the value.
    """
    fields = {f.name for f in dataclasses.fields(RuleSet)}
    out = {}
    for key, value in values.items():
        if key not in fields:
            raise ValueError(f"no rule named {key!r}; known rules: {', '.join(sorted(fields))}")
        out[key] = _wire_value(_parse_field(key, _field_type(key), value))
    return check_rules(out)


def check_rules(values: object, path: str = "rules") -> dict[str, object]:
    """A rules map from the wire, unchanged if every value has its field's type (rules_schema).

    Raises ValueError naming the field and the type expected: a v1 string such as ``"false"``
    for a boolean is refused, never read as true.
    """
    if not isinstance(values, dict):
        raise ValueError(f"{path}: expected a map of rule names to values, got {values!r:.60}")
    for key, value in values.items():
        schema = _SCHEMAS.get(key) if isinstance(key, str) else None
        if schema is None:
            raise ValueError(f"{path}: no rule named {key!r:.40} (protocol/schema/rules.json)")
        if not _fits(schema, value):
            expected = _PHASES_EXPECTED if key == "phases" else _expected(schema)
            raise ValueError(f"{path}.{key}: expected {expected}, got {value!r:.60}")
    return dict(values)


def rules_schema() -> dict[str, object]:
    """The JSON Schema of a rules map (protocol/schema/rules.json): one property per field."""
    return {"type": "object", "additionalProperties": False,
            "properties": {name: schema for name, schema in _SCHEMAS.items()}}


def rule_text(name: str, value: object) -> str:
    """A wire value as a ``--rule`` would write it (``contracts`` as ``2s,1s1r``; None as none)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if name == "contracts":
        return ",".join((f"{s}s" if s else "") + (f"{r}r" if r else "") or "0s" for s, r in value)
    if name == "phases":
        return ",".join("+".join(f"{kind}{size}" for kind, size in phase) for phase in value) or "none"
    return str(value)


RULE_TEXT_LIMIT = 200
INT_LIMIT = 2**31 - 1
_LEAST = {"winner_bonus": -INT_LIMIT, "min_players": 2, "max_players": 2, "big_table_players": 2,
          "min_set": 2, "max_set": 2, "min_run": 2, "max_run": 2, "decks": 1,
          "big_table_decks": 1, "hand_size": 1, "last_round_hand_size": 1, "max_turns": 1,
          "target_score": 1}
"""The least value of an integer rule other than 0: a count below it means nothing (a hand of
-3 cards); only ``winner_bonus`` may be negative (good-miller's -10 takes points off)."""
MAX_MELD = 64
"""The largest size a phase may ask of a meld (more than any deck holds of one suit)."""


def _type_schema(name: str, kind) -> dict[str, object]:
    if name == "contracts":
        pair = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 8},
                "minItems": 2, "maxItems": 2}
        return {"type": "array", "items": pair, "minItems": 1, "maxItems": 16,
                "description": "(sets, runs) of each round; the game has one round per entry"}
    if name == "phases":
        need = {"type": "array", "prefixItems": [{"type": "string", "enum": [k.value for k in MeldKind]},
                                                 {"type": "integer", "minimum": 2, "maximum": MAX_MELD}],
                "minItems": 2, "maxItems": 2}
        phase = {"type": "array", "items": need, "minItems": 1, "maxItems": 8}
        return {"type": "array", "items": phase, "minItems": 0, "maxItems": 16,
                "description": "each round's melds (with progression, each phase's) as [kind, least size] "
                               "pairs, replacing contracts when not empty: [[[\"set\", 3], [\"run\", 4]], "
                               "[[\"suit\", 7]]] is a set of 3 and a run of 4, then 7 cards of one suit"}
    if isinstance(kind, types.UnionType):
        inner = next(a for a in typing.get_args(kind) if a is not type(None))
        return {"anyOf": [_type_schema(name, inner), {"type": "null"}]}
    if kind is bool:
        return {"type": "boolean"}
    if kind is int:
        return {"type": "integer", "minimum": _LEAST.get(name, 0), "maximum": INT_LIMIT}
    if kind is Ace:
        return {"type": "string", "enum": [a.value for a in Ace]}
    if name == "game":
        return {"type": "string", "enum": list(GAMES)}
    return {"type": "string", "maxLength": RULE_TEXT_LIMIT}


def _fits(schema: dict, value) -> bool:
    if "anyOf" in schema:
        return any(_fits(option, value) for option in schema["anyOf"])
    kind = schema["type"]
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return type(value) is int and schema["minimum"] <= value <= schema["maximum"]
    if kind == "string":
        return isinstance(value, str) and (value in schema["enum"] if "enum" in schema
                                           else len(value) <= schema["maxLength"])
    if not isinstance(value, (list, tuple)) or not schema["minItems"] <= len(value) <= schema["maxItems"]:
        return False
    if "prefixItems" in schema:
        return all(_fits(s, v) for s, v in zip(schema["prefixItems"], value))
    return all(_fits(schema["items"], v) for v in value)


_PHASES_EXPECTED = "an array of phases, each an array of [kind, size] pairs (kind: set, run or suit)"


def _expected(schema: dict) -> str:
    if "anyOf" in schema:
        return " or ".join(_expected(option) for option in schema["anyOf"])
    kind = schema["type"]
    if "enum" in schema:
        return "one of " + ", ".join(map(repr, schema["enum"]))
    if kind == "integer":
        least = schema["minimum"]
        return f"an integer of at least {least}" if least > -INT_LIMIT else "an integer"
    return {"null": "nil", "boolean": "a boolean (true or false)",
            "string": f"a string of at most {RULE_TEXT_LIMIT} characters",
            }.get(kind, "an array of [sets, runs] pairs")


_SCHEMAS = {f.name: _type_schema(f.name, _field_type(f.name)) for f in dataclasses.fields(RuleSet)}


def _count_letters(text: str):
    number = ""
    for ch in text:
        if ch.isdigit():
            number += ch
        else:
            yield int(number or "1"), ch
            number = ""
    if number:
        raise ValueError(text)


DAVIS = RuleSet(
    name="davis",
    description="Davis family rules: MAY I twice a round, SHANGHAI, aces high, one joker a meld",
    max_players=6,
    max_wilds_per_meld=1,
    ace=Ace.HIGH,
    contract_distinct_set_ranks=True,
    contract_runs_apart=True,
    final_round_meld_all=True,
    claims_per_round=2,
    claim_penalty=2,
    reopen_after_claim=True,
    turn_pile_over=True,
    shanghai=True,
    set_word="book",
    claim_word="MAY I",
)

GOOD_MILLER = RuleSet(
    name="good-miller",
    description="Good / Miller house rules: I call three times, joker swap, -10 for going out",
    max_players=6,
    max_set=8,
    max_run=14,
    ace=Ace.EITHER,
    ace_both_ends=True,
    final_round_meld_all=True,
    out_by_discard=True,
    claims_per_round=3,
    claim_penalty=1,
    joker_swap=True,
    winner_bonus=-10,
    set_word="set",
    claim_word="I call",
)

MARCELLE = RuleSet(
    name="marcelle",
    description="Rum a la Marcelle: 2s wild, a coin pot, buy a joker for a nickel",
    min_players=2,  # "DEAL – 12 cards – 1 to 4 – 2 decks": one alone has nobody to play against
    max_players=8,
    big_table_players=5,
    hand_size=12,
    last_round_hand_size=13,
    wild_twos=True,
    ace=Ace.EITHER,
    contract_minimum_melds=True,
    lay_off_on_going_down_turn=False,
    claims_per_round=None,
    claim_penalty=1,
    joker_buy=True,
    money=True,
    leave_penalty=20,  # four nickels: the cost of a bad round, ante and pennies (docs/rules.md)
    set_word="set",
    claim_word="claim",
)

CAROUSEL = RuleSet(
    name="carousel",
    game="carousel",
    description="Shanghai as manipulation rummy: no contracts, no discard, rearrange the table",
    min_players=3,
    max_players=5,
    decks=2,
    jokers=0,
    hand_size=10,  # dealt 3, 3, 3, 1
    last_round_hand_size=10,
    min_set=3,
    max_set=4,
    set_distinct_suits=True,
    min_run=3,
    ace=Ace.LOW,
    claims_per_round=0,
    target_score=25,
    leave_penalty=5,  # a bad hand's points (docs/rules.md)
)

PHASE10 = RuleSet(
    name="phase10",
    description="Phase 10: ten phases, each player on their own; runs of any suits, "
                "7 cards of one suit; the first to complete all ten wins",
    min_players=2,  # Phase 10: 2-6 players
    max_players=6,
    hand_size=10,  # Phase 10 deals 10
    last_round_hand_size=10,
    ace=Ace.HIGH,  # seed 000: "Aces are always high"
    runs_any_suit=True,  # seed 000: "runs do not have to be all in the same suit"
    phases=PHASES_10,
    progression=True,  # "anyone who did not lay down two books or sets in the first round, has to try that for the second"
    claims_per_round=0,  # Phase 10 has no out-of-turn draw
    turn_pile_over=True,  # seed 000: "the discard pile is turned over to form the 'draw from' pile"
    set_word="set",
)

PRESETS: dict[str, RuleSet] = {r.name: r for r in (DAVIS, GOOD_MILLER, MARCELLE, CAROUSEL, PHASE10)}


def preset(name: str) -> RuleSet:
    """The named preset: davis, good-miller, marcelle, carousel or phase10."""
    try:
        return PRESETS[name.lower()]
    except KeyError:
        raise ValueError(f"no preset {name!r}; presets: {', '.join(PRESETS)}") from None
