"""Finding the ways a hand can lay down a contract.

Used for the engine's legal go-downs, by the bots, and by the console to offer arrangements.  Cards
of equal face (two 7♥, two jokers) are interchangeable for this search: each arrangement is found
once, built from the lowest-numbered copies, so the count stays small.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, product

from ..cards import Card, Suit
from .contracts import fit_contract, meld_kinds
from .melds import _positions, _run, _set, _suit, run_bounds
from .ruleset import Contract, MeldKind, PhaseContract, RuleSet

__all__ = ["contract_options", "set_candidates", "run_candidates", "suit_candidates"]

Face = tuple[int, Suit | None]


def _rank_at(pos: int) -> int:
    return 1 if pos == 14 else pos


def _wild_multisets(wild_faces: Counter, size: int) -> Iterator[tuple[Face, ...]]:
    faces = sorted(wild_faces, key=lambda f: (f[0] != 0, f[0], -1 if f[1] is None else f[1]))

    def rec(i: int, left: int) -> Iterator[tuple[Face, ...]]:
        if left == 0:
            yield ()
            return
        if i == len(faces):
            return
        for take in range(min(left, wild_faces[faces[i]]), -1, -1):
            for rest in rec(i + 1, left - take):
                yield (faces[i],) * take + rest

    yield from rec(0, size)


def _max_wilds(rules: RuleSet, naturals: int, available: int) -> int:
    limit = available
    if rules.max_wilds_per_meld is not None:
        limit = min(limit, rules.max_wilds_per_meld)
    if rules.wilds_at_most_naturals:
        limit = min(limit, naturals)
    return limit


_MEMO: dict[RuleSet, dict[tuple, list]] = {}
_MEMO_SIZE = 50_000


def _memo(rules: RuleSet) -> dict[tuple, list]:
    """The candidate melds of one rank or one suit found so far under these rules, and the kinds
    of each candidate (keyed by its faces).

    They depend only on how many cards of each face of that rank or suit the hand holds and on its
    wilds; a hand changes by a card or two a turn, so most ranks and suits come again (a memo of a
    pure function: it changes no answer, and is forgotten when it grows large)."""
    memo = _MEMO.get(rules)
    if memo is None or len(memo) > _MEMO_SIZE:
        memo = _MEMO[rules] = {}
    return memo


def _wild_key(wilds: Counter) -> tuple:
    return tuple(sorted((f[0], -1 if f[1] is None else int(f[1]), n) for f, n in wilds.items()))


def set_candidates(rules: RuleSet, counts: Counter, reps: dict[Face, Card], minimum: bool) -> Iterator[tuple[Face, ...]]:
    """Every set (as faces) the hand holds, rank by rank: each choice of naturals and of wilds."""
    wild_total = Counter({f: n for f, n in counts.items() if rules.is_wild(reps[f])})
    wild_key = _wild_key(wild_total)
    memo = _memo(rules)
    by_rank: dict[int, list[Face]] = {}
    for f in counts:
        if f[0] == 2 or not rules.is_wild(reps[f]):
            by_rank.setdefault(f[0], []).append(f)
    for rank in sorted(by_rank):
        natural_faces = by_rank[rank]
        key = ("set", minimum, tuple((f, counts[f]) for f in natural_faces), wild_key)
        found = memo.get(key)
        if found is None:
            found = memo[key] = list(_rank_sets(rules, rank, natural_faces, counts, reps, wild_total, minimum))
        yield from found


def _rank_sets(rules: RuleSet, rank: int, natural_faces: list[Face], counts: Counter, reps: dict[Face, Card],
               wild_total: Counter, minimum: bool) -> Iterator[tuple[Face, ...]]:
    wilds = Counter({f: n for f, n in wild_total.items() if f[0] != rank})
    per_face = 1 if rules.set_distinct_suits else None
    ranges = [range(min(counts[f], per_face or counts[f]) + 1) for f in natural_faces]
    for choice in product(*ranges):
        naturals = sum(choice)
        if naturals == 0:
            continue
        nat = tuple(f for f, k in zip(natural_faces, choice) for _ in range(k))
        for w in range(_max_wilds(rules, naturals, sum(wilds.values())) + 1):
            size = naturals + w
            if size < rules.least_set or (rules.max_set is not None and size > rules.max_set):
                continue
            if minimum and size != rules.least_set:
                continue
            for wild in _wild_multisets(wilds, w):
                faces = nat + wild
                if _set(rules, [reps[f] for f in faces], rank):
                    yield faces


def run_candidates(rules: RuleSet, counts: Counter, reps: dict[Face, Card], minimum: bool) -> Iterator[tuple[Face, ...]]:
    """Every run (as faces, low to high) the hand holds, suit by suit: each window, wild placement
    and wild mix."""
    wild_faces = Counter({f: n for f, n in counts.items() if rules.is_wild(reps[f])})
    wild_key = _wild_key(wild_faces)
    memo = _memo(rules)
    if rules.runs_any_suit:
        yield from _any_suit_runs(rules, counts, reps, wild_faces, wild_key, minimum)
        return
    for suit in Suit:
        held = tuple(counts.get((rank, suit), 0) for rank in range(1, 14))
        if not any(held):
            continue
        key = ("run", minimum, suit, held, wild_key)
        found = memo.get(key)
        if found is None:
            found = memo[key] = list(_suit_runs(rules, suit, counts, reps, wild_faces, minimum))
        yield from found


def _any_suit_runs(rules: RuleSet, counts: Counter, reps: dict[Face, Card], wild_faces: Counter, wild_key: tuple,
                   minimum: bool) -> Iterator[tuple[Face, ...]]:
    """Runs of any suits (``runs_any_suit``): each rank of a run is one card of that rank, the
    face the hand holds most copies of (the lowest suit of equals).  One face a rank keeps the
    candidates few (a run of 9 in two suits a rank would be 512 ways); it leaves out only go-downs
    where another meld of the contract needs that very suit, which the engine accepts when played."""
    chosen: dict[int, Face] = {}
    for f in sorted(counts, key=lambda f: (f[0], -counts[f], f[1])):
        if f[1] is not None and not rules.is_wild(reps[f]) and f[0] not in chosen:
            chosen[f[0]] = f
    lo, hi = run_bounds(rules)
    face_of = {p: chosen[_rank_at(p)] for p in range(lo, hi + 1) if _rank_at(p) in chosen}
    if not face_of:
        return
    key = ("any-run", minimum, tuple((p, f, counts[f]) for p, f in face_of.items()), wild_key)
    memo = _memo(rules)
    found = memo.get(key)
    if found is None:
        found = memo[key] = list(_window_runs(rules, face_of, None, counts, reps, wild_faces, minimum))
    yield from found


def _suit_runs(rules: RuleSet, suit: Suit, counts: Counter, reps: dict[Face, Card], wild_faces: Counter,
               minimum: bool) -> Iterator[tuple[Face, ...]]:
    lo, hi = run_bounds(rules)
    face_of = {p: (_rank_at(p), suit) for p in range(lo, hi + 1) if counts.get((_rank_at(p), suit), 0)}
    return _window_runs(rules, face_of, suit, counts, reps, wild_faces, minimum)


def _window_runs(rules: RuleSet, face_of: dict[int, Face], suit: Suit | None, counts: Counter,
                 reps: dict[Face, Card], wild_faces: Counter, minimum: bool) -> Iterator[tuple[Face, ...]]:
    """Every run through the positions ``face_of`` holds (a natural's face at each), of ``suit``
    (None: of any suits): each window, wild placement and wild mix."""
    wild_count = sum(wild_faces.values())
    lo, hi = run_bounds(rules)
    have = list(face_of)
    most = _max_wilds(rules, len(have), wild_count)
    if len(have) + most < rules.least_run:
        return  # too few cards of the suit for any run
    longest = hi - lo + 1 if rules.ace_both_ends else min(hi - lo + 1, 13)
    if rules.max_run is not None:
        longest = min(longest, rules.max_run)
    if minimum:
        longest = min(longest, rules.least_run)
    cap = [_max_wilds(rules, naturals, wild_count) for naturals in range(16)]  # wilds a run may hold
    present = [0] * 16
    for p in have:
        present[p] = 1
    before = [0] * 17  # before[p]: naturals held below position p
    for p in range(1, 16):
        before[p + 1] = before[p] + present[p]
    # a window holds at most every natural of the suit and `most` wilds
    for length in range(rules.least_run, min(longest, len(have) + most) + 1):
        for low in range(lo, hi - length + 2):
            held = before[low + length] - before[low]
            forced = length - held
            if not held or forced > cap[held]:
                continue  # no natural (the run needs one), or too few wilds for the gaps
            if low == 1 and low + length - 1 == 14 and not rules.ace_both_ends:
                continue
            positions = range(low, low + length)
            natural_at = [p for p in positions if present[p]]
            for extra in range(0, len(natural_at) + 1):
                w = forced + extra
                if w > cap[length - w]:
                    break
                for as_wild in combinations(natural_at, extra):
                    wild_positions = [p for p in positions if p not in natural_at or p in as_wild]
                    for wild in _wild_multisets(wild_faces, w):
                        placed = dict(zip(wild_positions, wild))
                        faces = tuple(placed.get(p) or face_of[p] for p in positions)
                        if rules.wild_twos and any(n > counts[f] for f, n in Counter(faces).items()):
                            continue  # a wild two also wanted as the natural two
                        if _run(rules, [reps[f] for f in faces], low, suit):
                            yield faces


def suit_candidates(rules: RuleSet, counts: Counter, reps: dict[Face, Card]) -> Iterator[tuple[Face, ...]]:
    """Every meld of cards of one suit (as faces) the hand holds, suit by suit: each choice of
    naturals and of wilds, at least ``least_suit`` cards (none where the rules have no such meld)."""
    least = rules.least_suit
    if least is None:
        return
    wild_total = Counter({f: n for f, n in counts.items() if rules.is_wild(reps[f])})
    wild_key = _wild_key(wild_total)
    memo = _memo(rules)
    for suit in Suit:
        natural_faces = sorted(f for f in counts if f[1] is suit and not rules.is_wild(reps[f]))
        if not natural_faces:
            continue
        key = ("suit", suit, tuple((f, counts[f]) for f in natural_faces), wild_key)
        found = memo.get(key)
        if found is None:
            found = memo[key] = list(_suit_melds(rules, least, suit, natural_faces, counts, reps, wild_total))
        yield from found


def _suit_melds(rules: RuleSet, least: int, suit: Suit, natural_faces: list[Face], counts: Counter,
                reps: dict[Face, Card], wild_total: Counter) -> Iterator[tuple[Face, ...]]:
    wild_count = sum(wild_total.values())
    held = sum(counts[f] for f in natural_faces)
    if held + _max_wilds(rules, held, wild_count) < least:
        return  # too few cards of the suit
    for choice in product(*(range(counts[f], -1, -1) for f in natural_faces)):
        naturals = sum(choice)
        most = _max_wilds(rules, naturals, wild_count)
        if naturals == 0 or naturals + most < least:
            continue
        nat = tuple(f for f, k in zip(natural_faces, choice) for _ in range(k))
        for w in range(max(0, least - naturals), most + 1):
            for wild in _wild_multisets(wild_total, w):
                faces = nat + wild
                if _suit(rules, [reps[f] for f in faces], suit):
                    yield faces


def contract_options(
    rules: RuleSet, hand: Sequence[Card], contract: Contract, meld_all: bool = False
) -> Iterator[tuple[tuple[Card, ...], ...]]:
    """Every way (up to equal copies) that ``hand`` lays down ``contract``, as melds of cards.

    ``meld_all``: only arrangements that use every card (the last round of davis and good-miller).
    A phase (`PhaseContract`, one of ``rules.phases``) lists its melds in the phase's order.
    """
    if isinstance(contract, PhaseContract):
        yield from _phase_search(rules, hand, contract, meld_all)
    elif _may_hold(rules, hand, *contract, meld_all):
        yield from _search(rules, hand, contract, meld_all)


def _phase_search(rules: RuleSet, hand: Sequence[Card], contract: PhaseContract,
                  meld_all: bool) -> Iterator[tuple[tuple[Card, ...], ...]]:
    """A phase's go-downs: one candidate meld of each meld the phase asks for, of its kind and at
    least its size (exactly, with ``contract_minimum_melds``), no card used twice; the longest
    candidates first, and each go-down once (equal melds the phase asks for take candidates in
    list order, a meld may repeat where the hand holds it twice)."""
    needs = contract.melds
    if not _phase_may_hold(rules, hand, needs):
        return
    packed = _Packed(rules, hand)
    reps, counts, guard, left, usage = packed.reps, packed.counts, packed.guard, packed.left, packed.usage
    exact = rules.contract_minimum_melds
    by_kind: dict[MeldKind, list] = {}
    for kind in dict.fromkeys(kind for kind, _ in needs):
        found = (set_candidates(rules, counts, reps, False) if kind is MeldKind.SET
                 else run_candidates(rules, counts, reps, False) if kind is MeldKind.RUN
                 else suit_candidates(rules, counts, reps))
        by_kind[kind] = sorted(((c, usage(c)) for c in found), key=_longest)
    # the needs in search order: equal ones together (sets, runs, suits; larger first)
    order = sorted(range(len(needs)), key=lambda i: (list(MeldKind).index(needs[i][0]), -needs[i][1]))
    lists = []
    for i in order:
        kind, size = needs[i]
        fits = [c for c in by_kind[kind] if (len(c[0]) == size if exact else len(c[0]) >= size)]
        if not fits:
            return
        lists.append(fits)
    if meld_all:
        covered = {f for cands in lists for cand, _ in cands for f in cand}
        if len(covered) < len(packed.faces):
            return  # a card that no meld can hold
    chosen: list[tuple[Face, ...]] = [()] * len(needs)
    seen: set[tuple] = set()

    def finish() -> Iterator[tuple[tuple[Card, ...], ...]]:
        key = tuple(sorted(chosen))
        if key in seen:
            return  # the same melds, met by the needs in another order
        seen.add(key)
        if not isinstance(fit_contract(rules, contract, [packed.kinds(cand) for cand in chosen]), str):
            yield packed.cards(chosen)

    def search(step: int, start: int) -> Iterator[tuple[tuple[Card, ...], ...]]:
        nonlocal left
        if step == len(order):
            if not meld_all or not left:
                yield from finish()
            return
        same = step > 0 and needs[order[step]] == needs[order[step - 1]]
        room = left | guard
        cands = lists[step]
        for k in range(start if same else 0, len(cands)):
            cand, use = cands[k]
            if (room - use) & guard != guard:
                continue  # a card it needs is used already
            left -= use
            chosen[order[step]] = cand
            yield from search(step + 1, k)
            left += use

    yield from search(0, 0)


def _search(
    rules: RuleSet, hand: Sequence[Card], contract: tuple[int, int], meld_all: bool
) -> Iterator[tuple[tuple[Card, ...], ...]]:
    """A backtracking search over the candidate melds: sets before runs, each list in order (a
    meld may repeat when the hand holds it twice), so every arrangement comes once.

    The cards left are one integer, ``_WIDTH`` bits a face: whether a candidate still
    fits is one subtraction, which is what makes the search fast enough to run every turn."""
    sets_needed, runs_needed = contract
    if meld_all and not sets_needed and len({c.suit for c in hand if not rules.is_wild(c)}) > runs_needed:
        return  # runs only, each of one suit
    packed = _Packed(rules, hand)
    faces, shift, reps, counts, guard, left = packed.faces, packed.shift, packed.reps, packed.counts, packed.guard, packed.left
    minimum = rules.contract_minimum_melds
    usage = packed.usage
    # longest first, so the first lay-downs found meld the most cards; each kind on its own must
    # find its melds in the hand (runs first: they are fewer, and most hands fail there)
    runs = sorted(((c, usage(c)) for c in run_candidates(rules, counts, reps, minimum)), key=_longest) if runs_needed else []
    if not _disjoint(runs, runs_needed, left | guard, guard):
        return
    sets = sorted(((c, usage(c)) for c in set_candidates(rules, counts, reps, minimum)), key=_longest) if sets_needed else []
    if not _disjoint(sets, sets_needed, left | guard, guard):
        return
    chosen: list[tuple[Face, ...]] = []

    def fitting(cands):
        room = left | guard
        return [c for c in cands if (room - c[1]) & guard == guard]

    kinds = packed.kinds

    def finish() -> Iterator[tuple[tuple[Card, ...], ...]]:
        if isinstance(fit_contract(rules, contract, [kinds(cand) for cand in chosen]), str):
            return
        yield packed.cards(chosen)

    # where every card is melded: the candidates by the faces they hold and by the cards they use
    holding: dict[int, dict[int, list]] = {}  # id of a kind's list -> lowest bit of a face -> candidates with it
    exactly: dict[int, list] = {}  # the cards a meld uses -> every meld (placement) using them
    members: dict[int, set[int]] = {}
    if meld_all:
        for kind in (sets, runs):
            by_face = holding[id(kind)] = {}
            for cand in kind:
                for f in set(cand[0]):
                    by_face.setdefault(shift[f], []).append(cand)
        for cand in sets + runs:
            exactly.setdefault(cand[1], []).append(cand)
        members = {id(kind): {id(c) for c in kind} for kind in (sets, runs)}

    def search(cands, need: int, later) -> Iterator[tuple[tuple[Card, ...], ...]]:
        """Choose ``need`` more of ``cands`` (all still fitting the hand), then the ``later`` kinds."""
        nonlocal left
        if need == 0:
            if later:
                (more, more_need), rest = later[0], later[1:]
                yield from search(more if meld_all and not rest else fitting(more), more_need, rest)
            elif not meld_all or not left:
                yield from finish()
            return
        if meld_all and not later:
            # the last kind covers every card left, so its next meld holds the first face left:
            # that fixes the order of its melds instead of their place in the list
            if need == 1:  # the cards left are exactly one meld, or nothing
                for cand in exactly.get(left, ()):
                    if id(cand) in members[id(cands)]:
                        chosen.append(cand[0])
                        yield from finish()
                        chosen.pop()
                return
            if not left:
                return
            first = ((left & -left).bit_length() - 1) // _WIDTH * _WIDTH
            for cand in fitting(holding[id(cands)].get(first, ())):
                left -= cand[1]
                chosen.append(cand[0])
                yield from search(cands, need - 1, later)
                chosen.pop()
                left += cand[1]
            return
        for k, (cand, use) in enumerate(cands):
            left -= use
            chosen.append(cand)
            # the last meld of a kind: what fits after it is never looked at
            yield from search(fitting(cands[k:]) if need > 1 else (), need - 1, later)
            chosen.pop()
            left += use

    if meld_all:
        covered = {f for cand, _ in sets + runs for f in cand}
        if len(covered) < len(faces) or len(hand) > _most_cards(rules, sets_needed, runs_needed):
            return  # a card that no meld can hold, or more cards than the melds can
    if meld_all and not runs_needed:
        yield from search(sets, sets_needed, ())
    else:
        yield from search(fitting(sets), sets_needed, ((runs, runs_needed),))


class _Packed:
    """A hand as the searches read it: its cards by face (the lowest-numbered copies first), one
    representative card a face, and the cards as one integer, ``_WIDTH`` bits a face (``left``),
    with the ``guard`` bit above each count."""

    def __init__(self, rules: RuleSet, hand: Sequence[Card]):
        self.rules = rules
        self.copies: dict[Face, list[Card]] = {}
        for card in sorted(hand):
            self.copies.setdefault(card.face, []).append(card)
        self.faces = list(self.copies)
        self.shift = {f: _WIDTH * i for i, f in enumerate(self.faces)}
        self.reps = {f: c[0] for f, c in self.copies.items()}
        self.counts = Counter({f: len(c) for f, c in self.copies.items()})
        self.guard = sum(_GUARD << s for s in self.shift.values())
        self.left = sum(len(self.copies[f]) << self.shift[f] for f in self.faces)
        self.memo = _memo(rules)

    def usage(self, cand: tuple[Face, ...]) -> int:
        """The cards a candidate uses, packed as ``left`` counts them."""
        shift = self.shift
        return sum(1 << shift[f] for f in cand)

    def kinds(self, cand: tuple[Face, ...]) -> list:
        """The candidate's kinds, for the contract's check (they depend on its faces alone)."""
        found = self.memo.get(cand)
        if found is None:
            found = self.memo[cand] = meld_kinds(self.rules, [self.reps[f] for f in cand])
        return found

    def cards(self, chosen: Sequence[tuple[Face, ...]]) -> tuple[tuple[Card, ...], ...]:
        """The chosen candidates as melds of cards: copies of each face used the lowest first."""
        taken: dict[Face, int] = {}
        melds = []
        for cand in chosen:
            meld = []
            for f in cand:
                k = taken.get(f, 0)
                meld.append(self.copies[f][k])
                taken[f] = k + 1
            melds.append(tuple(meld))
        return tuple(melds)


def _phase_may_hold(rules: RuleSet, hand: Sequence[Card], needs: tuple) -> bool:
    """`_may_hold` for a phase: False when the hand surely cannot hold it, each meld it asks for
    looked at alone (its least natural cards of one rank, in one window of its size, of one suit),
    and the sets together (each needs naturals of its own rank)."""
    if sum(size for _, size in needs) > len(hand):
        return False
    wilds, ranks, held, positions = _counted(rules, hand)
    any_positions = positions[0] | positions[1] | positions[2] | positions[3]
    set_needs = []
    for kind, size in needs:
        need = _least_naturals(rules, size, wilds)
        if kind is MeldKind.SET:
            if max(ranks) < need:
                return False
            set_needs.append(need)
        elif kind is MeldKind.SUIT:
            if max(held) < need:
                return False
        elif rules.runs_any_suit:
            if _most_in_stretch(rules, any_positions, 0, size) < need:
                return False
        elif not any(_most_in_stretch(rules, bits, 0, size) >= need for bits in positions):
            return False
    if len(set_needs) > 1:
        least = min(set_needs)
        if sum(n // least for n in ranks if n >= least) < len(set_needs):
            return False
    return True


_WIDTH = 5
_GUARD = 1 << (_WIDTH - 1)
"""A face's count of cards (at most 15, more than any hand holds of one face) sits in ``_WIDTH``
bits; adding the guard bit above the count and subtracting a meld's use leaves the guard set
exactly when the count is enough."""


def _disjoint(cands: list, need: int, room: int, guard: int) -> bool:
    """Whether ``need`` of the packed candidates fit the cards ``room`` holds together."""
    if need == 0:
        return True
    for k, (_, use) in enumerate(cands):
        if (room - use) & guard == guard and _disjoint(cands[k:], need - 1, room - use, guard):
            return True
    return False


def _longest(cand: tuple[tuple[Face, ...], tuple]) -> int:
    return -len(cand[0])


def _least_naturals(rules: RuleSet, size: int, wilds: int) -> int:
    """The fewest natural cards any meld of at least ``size`` cards holds."""
    need = max(1, size - wilds)
    if rules.wilds_at_most_naturals:
        need = max(need, (size + 1) // 2)
    if rules.max_wilds_per_meld is not None:
        need = max(need, size - rules.max_wilds_per_meld)
    return need


def _may_hold(rules: RuleSet, hand: Sequence[Card], sets: int, runs: int, meld_all: bool = False) -> bool:
    """A quick necessary condition: False when the hand surely cannot hold the contract.

    Each meld needs some natural cards of its own (a set, at least ``min_set`` less the wilds it
    may hold), so count how many melds of each kind the naturals could feed at most.  With
    ``meld_all`` every natural card must also fit some meld: a set of its rank, or a run through
    its place.  Most hands fail here, which spares the full search on most turns.
    """
    if sets * rules.min_set + runs * rules.min_run > len(hand):
        return False
    wilds, ranks, held, positions = _counted(rules, hand)
    if sets:
        need = _least_naturals(rules, rules.min_set, wilds)
        if sum(n // need for n in ranks if n >= need) < sets:
            return False
    if runs:
        need = _least_naturals(rules, rules.min_run, wilds)
        possible = 0
        for suit, bits in enumerate(positions):
            if _most_in_stretch(rules, bits) >= need:
                possible += held[suit] // need
        if possible < runs:
            return False
    if meld_all:
        most = wilds if rules.max_wilds_per_meld is None else min(wilds, rules.max_wilds_per_meld)
        need = max(1, rules.min_run - most)  # naturals in the stretch of min_run around a card of a run
        for c in hand:
            if rules.is_wild(c) or (sets and ranks[c.rank] + most >= rules.min_set):
                continue
            bits = positions[c.suit]
            if not (runs and any(_most_in_stretch(rules, bits, p) >= need for p in _positions(rules, c))):
                return False
    return True


def _counted(rules: RuleSet, hand: Sequence[Card]) -> tuple[int, list[int], list[int], list[int]]:
    """One pass over the hand (asked every turn of every seat not down): its wild cards; the
    naturals and wild twos of each rank (a wild two may stand as itself); the cards of each suit
    (a wild two too); each suit's positions as bits (an ace both 1 and 14)."""
    wilds = 0
    ranks = [0] * 14
    held = [0] * len(Suit)
    positions = [0] * len(Suit)
    wild_twos = rules.wild_twos
    for c in hand:
        rank = c.rank
        if rank == 0:  # a joker
            wilds += 1
            continue
        if rank == 2 and wild_twos:
            wilds += 1
        ranks[rank] += 1
        held[c.suit] += 1
        positions[c.suit] |= _ACE_BITS if rank == 1 else 1 << rank
    return wilds, ranks, held, positions


_STRETCHES: dict[tuple[int, int, int, int, int], int] = {}


def _most_in_stretch(rules: RuleSet, bits: int, through: int = 0, length: int | None = None) -> int:
    """The most positions of ``bits`` that ``length`` (min_run) places in a row hold (all of them
    passing position ``through``, if given): asked for every suit of every hand, so remembered."""
    lo, hi = run_bounds(rules)
    length = rules.min_run if length is None else length
    key = (bits, through, length, lo, hi)
    found = _STRETCHES.get(key)
    if found is None:
        lows = range(lo, hi - length + 2)
        if through:
            lows = range(max(lo, through - length + 1), min(through, hi - length + 1) + 1)
        window = (1 << length) - 1
        if len(_STRETCHES) > 100_000:
            _STRETCHES.clear()
        found = _STRETCHES[key] = max(((bits >> low & window).bit_count() for low in lows), default=0)
    return found


_ACE_BITS = 1 << 1 | 1 << 14


def _most_cards(rules: RuleSet, sets: int, runs: int) -> int:
    lo, hi = run_bounds(rules)
    set_max = rules.max_set if rules.max_set is not None else 52
    run_max = rules.max_run if rules.max_run is not None else hi - lo + 1
    return sets * set_max + runs * run_max
