"""The carousel solver: can hand cards be played onto a table, and how?

The question of manipulation rummy: every card on the table stays on the table, the player adds
some cards from the hand, and the whole lot must split into valid melds (sets of one rank and
different suits, runs of one suit in sequence).  `best_play` finds the play that puts the most
hand cards down, `smallest_play` the one that plays given cards with the fewest others, and
`can_play` whether any play exists ("must play if able").  `arrange_cards` splits a given pile
of cards into melds, if it can.

Method: dynamic programming over the card positions, low to high, as in van Rijn, Takes and Vis,
"The complexity of Rummikub problems" (2015).  The state after a position is, for each suit, the
runs still open there: a sorted tuple of their lengths, capped at ``min_run`` (a run that long may
end; a shorter one must go on).  At each position every card of that face on the table must be
used and every one in the hand may be: each goes on an open run, starts a run, or joins the sets
of that rank, and the cards sent to sets must split into sets of different suits.  Cards of the
same face are interchangeable, so the search works on face counts and the physical cards are put
back in at the end; results are cached by those counts (the engine, the bots and hints ask the
same question several times a turn).

Supported rules: no wild cards, sets of different suits (at most four cards), no run limit, ace
low or ace high (not both, no wrap).  Other rule sets raise ValueError.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product

from ..cards import Card, card_from_id
from .ruleset import Ace, RuleSet

__all__ = ["Play", "best_play", "smallest_play", "can_play", "arrange_cards", "supported"]

SUITS = range(4)


@dataclass(frozen=True, slots=True)
class Play:
    """A play: the table's whole new arrangement (runs low to high) and the hand cards in it."""

    table: tuple[tuple[Card, ...], ...]
    played: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class _Shape:
    """What the solver needs of a rule set."""

    low: int  # lowest position (1: low ace)
    high: int  # highest position (14: high ace)
    min_run: int
    min_set: int
    max_set: int


def supported(rules: RuleSet) -> str | None:
    """None if the solver handles these rules, else why not."""
    if rules.jokers or rules.wild_twos:
        return "wild cards"
    if not rules.set_distinct_suits:
        return "sets with repeated suits"
    if rules.max_run is not None:
        return "a run limit"
    if rules.ace is Ace.EITHER or rules.ace_both_ends:
        return "aces both high and low"
    return None


@lru_cache(maxsize=64)
def _shape(rules: RuleSet) -> _Shape:
    why = supported(rules)
    if why:
        raise ValueError(f"the carousel solver does not handle {why} ({rules.name})")
    low, high = (1, 13) if rules.ace is Ace.LOW else (2, 14)
    max_set = 4 if rules.max_set is None else min(4, rules.max_set)
    return _Shape(low, high, max(1, rules.min_run), max(1, rules.min_set), max_set)


def _position(shape: _Shape, card: Card) -> int:
    return 14 if card.rank == 1 and shape.high == 14 else card.rank


# -- the search, on face counts -----------------------------------------------------------------

Option = tuple[tuple[int, ...], int, int, tuple[int, ...], int]
"""(new open runs, cards to sets, hand cards used, open runs extended (indices), runs started)"""


@lru_cache(maxsize=None)
def _options(runs: tuple[int, ...], min_run: int, table: int, hand: int, ahead: tuple[int, ...]) -> tuple[Option, ...]:
    """One suit at one position: every way to use its cards, given the runs open below it.

    ``ahead[j]`` is how many cards of the suit there are ``j + 1`` positions up: a short run left
    open needs one there for each position it still lacks, so options that cannot finish go now.
    """
    out: dict[tuple, Option] = {}
    must = tuple(i for i, n in enumerate(runs) if n < min_run)
    for used in range(table, table + hand + 1):
        for to_sets in range(used + 1):
            on_runs = used - to_sets
            for extended in range(min(on_runs, len(runs)) + 1):
                for chosen in combinations(range(len(runs)), extended):
                    if any(i not in chosen for i in must):
                        continue
                    new = tuple(sorted([min(runs[i] + 1, min_run) for i in chosen] + [1] * (on_runs - extended)))
                    if any(sum(n <= min_run - j - 1 for n in new) > cards for j, cards in enumerate(ahead)):
                        continue
                    key = (new, to_sets, used - table)
                    out.setdefault(key, (new, to_sets, used - table, chosen, on_runs - extended))
    return tuple(out.values())


@lru_cache(maxsize=None)
def _options_by_sets(runs: tuple[int, ...], min_run: int, table: int, hand: int,
                     ahead: tuple[int, ...]) -> tuple[tuple[Option, ...], ...]:
    """`_options` grouped by how many cards go to sets (index 0, 1, ... up to the cards there)."""
    found = _options(runs, min_run, table, hand, ahead)
    return tuple(tuple(o for o in found if o[1] == g) for g in range(table + hand + 1))


@lru_cache(maxsize=None)
def _set_groups(counts: tuple[int, ...], min_set: int, max_set: int) -> tuple[tuple[int, ...], ...] | None:
    """Split cards of one rank (``counts[suit]`` of each) into sets of different suits, or None."""
    if not any(counts):
        return ()
    first = next(s for s in SUITS if counts[s])
    others = [s for s in SUITS if counts[s] and s != first]
    for size in range(min_set, max_set + 1):
        for rest in combinations(others, size - 1):
            group = (first, *rest)
            left = tuple(n - (s in group) for s, n in enumerate(counts))
            tail = _set_groups(left, min_set, max_set)
            if tail is not None:
                return (group, *tail)
    return None


Faces = tuple[tuple[tuple[int, int], int], ...]  # ((position, suit), count) sorted


@lru_cache(maxsize=None)
def _set_vectors(min_set: int, max_set: int, cards: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every way to send cards of one rank to sets (how many of each suit) that splits into sets,
    with at most ``cards[suit]`` of a suit; none at all first."""
    return tuple(
        counts for counts in product(*(range(n + 1) for n in cards))
        if _set_groups(counts, min_set, max_set) is not None
    )


@lru_cache(maxsize=512)
def _solve(shape: _Shape, table: Faces, hand: Faces, sign: int):
    """The best plan: value (sign * hand cards used) and each position's choice per suit."""
    top = shape.high + shape.min_run + 1
    t = [[0] * top for _ in SUITS]  # t[suit][position]: table cards of that face
    h = [[0] * top for _ in SUITS]
    for counts, faces in ((t, table), (h, hand)):
        for (pos, suit), n in faces:
            counts[suit][pos] = n
    both = [[a + b for a, b in zip(t[s], h[s])] for s in SUITS]
    positions = range(shape.low, shape.high + 2)  # one past the top closes the open runs
    empty = ((),) * 4
    layer: dict[tuple, tuple] = {empty: (0, None, None)}
    history = []
    for pos in positions:
        cards = [(t[s][pos], h[s][pos], tuple(both[s][pos + 1:pos + shape.min_run])) for s in SUITS]
        vectors = _set_vectors(shape.min_set, shape.max_set, tuple(both[s][pos] for s in SUITS))
        nxt: dict[tuple, tuple] = {}
        get = nxt.get
        for state, (value, _, _) in layer.items():
            o0 = _options_by_sets(state[0], shape.min_run, *cards[0])
            o1 = _options_by_sets(state[1], shape.min_run, *cards[1])
            o2 = _options_by_sets(state[2], shape.min_run, *cards[2])
            o3 = _options_by_sets(state[3], shape.min_run, *cards[3])
            for g0, g1, g2, g3 in vectors:  # only the choices whose set cards split into sets
                for a in o0[g0]:
                    for b in o1[g1]:
                        for c in o2[g2]:
                            for d in o3[g3]:
                                new = (a[0], b[0], c[0], d[0])
                                score = value + sign * (a[2] + b[2] + c[2] + d[2])
                                old = get(new)
                                if old is None or score > old[0]:
                                    nxt[new] = (score, state, (a, b, c, d))
        history.append(nxt)
        layer = nxt
        if not layer:
            return None
    final = layer.get(empty)
    if final is None:
        return None
    plan = []
    state = empty
    for nxt in reversed(history):
        _, parent, choice = nxt[state]
        plan.append(choice)
        state = parent
    plan.reverse()
    return final[0], tuple(plan)


def _faces(shape: _Shape, cards: Iterable[Card]) -> Faces:
    return tuple(sorted(Counter((_position(shape, c), int(c.suit)) for c in cards).items()))


def _build(shape: _Shape, plan, table: Sequence[Card], hand: Sequence[Card]) -> Play:
    """Put the physical cards into the plan's melds."""
    where: dict[tuple[int, int], tuple[list[Card], list[Card]]] = {}
    for source, cards in ((0, table), (1, hand)):
        for card in cards:
            where.setdefault((_position(shape, card), int(card.suit)), ([], []))[source].append(card)
    melds: list[tuple[Card, ...]] = []
    played: list[Card] = []
    open_runs: list[list[list[Card]]] = [[] for _ in SUITS]
    nothing: tuple[list[Card], list[Card]] = ([], [])
    for pos, choice in zip(range(shape.low, shape.high + 2), plan):
        pool: list[list[Card]] = [[], [], [], []]
        for s, (_, to_sets, hand_used, chosen, started) in enumerate(choice):
            on_table, in_hand = where.get((pos, s), nothing)
            if not on_table and not hand_used and not open_runs[s]:
                continue
            cards = on_table + in_hand[:hand_used]
            played += in_hand[:hand_used]
            pool[s] = cards[:to_sets]
            rest = iter(cards[to_sets:])
            runs = open_runs[s]
            if len(runs) > 1:
                runs = sorted(runs, key=lambda r: min(len(r), shape.min_run))
            going = []
            for i, run in enumerate(runs):
                if i in chosen:
                    going.append(run + [next(rest)])
                else:
                    melds.append(tuple(run))
            open_runs[s] = going + [[next(rest)] for _ in range(started)]
        if any(pool):
            for group in _set_groups(tuple(map(len, pool)), shape.min_set, shape.max_set) or ():
                melds.append(tuple(pool[s].pop() for s in group))
    return Play(tuple(melds), tuple(played))


# -- the questions ------------------------------------------------------------------------------

def _flat(table: Iterable) -> list[Card]:
    """Table cards, given as cards or as melds (anything with ``cards``, or tuples of cards)."""
    out: list[Card] = []
    for item in table:
        if isinstance(item, Card):
            out.append(item)
        else:
            out.extend(getattr(item, "cards", item))
    return out


def _live(shape: _Shape, fixed: Sequence[Card], optional: Sequence[Card]) -> tuple[Card, ...]:
    """The optional cards that could be in some meld with the cards around (the rest never play)."""
    present: dict[int, set[int]] = {}  # position -> suits
    for card in (*fixed, *optional):
        present.setdefault(_position(shape, card), set()).add(int(card.suit))
    live = []
    for card in optional:
        pos, suit = _position(shape, card), int(card.suit)
        if len(present[pos]) >= shape.min_set:
            live.append(card)
            continue
        streak = 0
        for p in range(pos - shape.min_run + 1, pos + shape.min_run):
            streak = streak + 1 if suit in present.get(p, ()) else 0
            if streak >= shape.min_run:
                live.append(card)
                break
    return tuple(live)


@lru_cache(maxsize=1024)
def _cached_play(shape: _Shape, fixed_ids: tuple[int, ...], optional_ids: tuple[int, ...], required: int,
                 sign: int) -> Play | None:
    """The play for these cards (by id: cheap to hash); the search itself is cached by faces."""
    fixed = [card_from_id(i) for i in fixed_ids]
    optional = _live(shape, fixed, [card_from_id(i) for i in optional_ids])
    if not optional and not required:
        return None
    found = _solve(shape, _faces(shape, fixed), _faces(shape, optional), sign)
    if found is None:
        return None
    play = _build(shape, found[1], fixed, optional)
    played = tuple(fixed[len(fixed) - required:]) + play.played
    return Play(play.table, played) if played else None


def _play(rules: RuleSet, table, hand, require, sign: int) -> Play | None:
    """The cached search; if its play breaks up melds that no hand card comes near, the search
    again without those melds, taken if it plays as many cards (the table then changes less)."""
    shape = _shape(rules)
    required = {c.id for c in require}
    ids = tuple(c.id for c in require)
    optional = tuple(c.id for c in hand if c.id not in required)
    play = _cached_play(shape, tuple(c.id for c in _flat(table)) + ids, optional, len(ids), sign)
    if play is None:
        return None
    melds = [tuple(getattr(m, "cards", m)) for m in table if not isinstance(m, Card)]
    near = _near(shape, melds, [*require, *hand])
    far = [m for m in melds if m not in near]
    kept = {frozenset(m) for m in play.table}
    if any(frozenset(m) not in kept for m in far):
        local = _cached_play(shape, tuple(c.id for m in near for c in m) + ids, optional, len(ids), sign)
        if local is not None and len(local.played) == len(play.played):
            play = Play(tuple(far) + local.table, local.played)
    return _in_table_order(play, table)


def _near(shape: _Shape, melds: list[tuple[Card, ...]], cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    """The melds a hand card comes near: it shares a rank with the meld or is next to a card of it."""
    ranks = {_position(shape, c) for c in cards}
    beside = {(_position(shape, c) + d, c.suit) for c in cards for d in (-1, 1)}
    return [m for m in melds if any(_position(shape, c) in ranks or (_position(shape, c), c.suit) in beside
                                    for c in m)]


def _in_table_order(play: Play, table) -> Play:
    """The play with the table's melds that it leaves whole first, in their places' order."""
    old = [frozenset(getattr(m, "cards", m)) for m in table if not isinstance(m, Card)]
    if not old:
        return play
    place = {cards: i for i, cards in enumerate(old)}
    melds = sorted(play.table, key=lambda m: place.get(frozenset(m), len(old)))
    return Play(tuple(melds), play.played)


def best_play(rules: RuleSet, table, hand: Sequence[Card], require: Sequence[Card] = ()) -> Play | None:
    """The play that puts the most hand cards down (``require`` cards among them), or None."""
    return _play(rules, table, hand, require, +1)


def smallest_play(rules: RuleSet, table, hand: Sequence[Card], require: Sequence[Card]) -> Play | None:
    """A play of the ``require`` cards with as few other hand cards as possible, or None."""
    return _play(rules, table, hand, require, -1)


def can_play(rules: RuleSet, table, hand: Sequence[Card]) -> bool:
    """Whether at least one hand card can be played (with any rearranging of the table)."""
    return bool(hand) and best_play(rules, table, hand) is not None


def arrange_cards(rules: RuleSet, cards: Sequence[Card]) -> tuple[tuple[Card, ...], ...] | None:
    """These cards split into valid melds (every one used), or None if they cannot be."""
    shape = _shape(rules)
    found = _solve(shape, _faces(shape, cards), (), +1)
    return None if found is None else _build(shape, found[1], cards, ()).table
