"""The view model: what the game screen shows, computed from one seat's `PlayerView`.

Pure data, no prompt_toolkit: the layout renders it, tests read it.  Everything here comes from
the PlayerView (and the session's seats, log and claim window), so other seats can only ever be
shown as hand sizes.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice, permutations

from ..cards import Card, Suit, parse_card
from ..engine import GameResult, Phase, PlayerView, RoundResult, Words, round_numbers
from ..engine.events import Claimed, Discarded, RoundStarted, TookDiscard
from ..rules import Ace, Meld, RuleSet, describe_contract, extend
from ..rules.carousel_solver import can_play
from ..rules.contracts import kind_counts
from ..rules.finder import contract_options
from ..rules.melds import run_bounds
from ..rules.ruleset import Contract, MeldKind, PhaseContract
from ..session import ClaimInfo, Connection, Lobby, LogEntry, SeatInfo

__all__ = [
    "ViewModel", "HandCard", "SeatRow", "TableMeld", "view_model", "sort_hand", "card_text",
    "contract_tracker", "fits", "arrangements", "money_text", "carousel_view", "carousel_keys",
    "LobbyModel", "lobby_model", "reason_text", "describe_events", "entry_lines", "names_at", "table_words",
    "claim_helps",
    "AUTO_PASS_RULE",
]

SUIT_ORDER = {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.CLUBS: 2, Suit.DIAMONDS: 3}  # colours alternate


def card_text(card: Card, ascii: bool = False) -> str:
    """``7♥`` (or ``7H``), ``10♠``, ``JK``: never wider than three cells."""
    if card.is_joker:
        return "JK"
    return card.text(unicode=not ascii)


_MOVE_IN_LETTERS = re.compile(r"^'[^']*'(?: by seat \d+)?: ")
_CARD_IN_LETTERS = re.compile(r"(?<![\w'])(10|[2-9TJQKA])([SHDC])(?!\w)")


def reason_text(reason: str, ascii: bool = False) -> str:
    """A refusal as the player reads it: the reason without the move spelt out in letters in
    front of it (the screen shows the move), cards written as the hand shows them."""
    reason = _MOVE_IN_LETTERS.sub("", reason, count=1)
    if ascii:
        return reason
    return _CARD_IN_LETTERS.sub(lambda m: card_text(parse_card(m.group(0)), ascii), reason)


AUTO_PASS_RULE = ("a claim passes by itself when no card you hold has its rank (for runs: "
                  "its suit within 2 ranks)")
"""What `claim_helps` checks, in the words of the help."""


def claim_helps(rules: RuleSet, hand: Sequence[Card], contract: Contract, card: Card) -> bool:
    """Whether claiming ``card`` could help this hand toward ``contract`` (`AUTO_PASS_RULE`): a
    wild card always could; else a natural of its rank (for a set) or, when the contract has
    runs, one of its suit (of any suit, where runs are) within two ranks; or one of its suit,
    when the contract has cards of one suit."""
    if rules.is_wild(card):
        return True
    sets, runs, suits = kind_counts(contract)
    naturals = [c for c in hand if not rules.is_wild(c)]
    if sets and any(c.rank == card.rank for c in naturals):
        return True
    if suits and any(c.suit == card.suit for c in naturals):
        return True
    if runs:
        ranks = {card.rank, _rank_value(rules, card.rank)}
        return any((c.suit == card.suit or rules.runs_any_suit) and min(abs(r - q) for r in ranks
                                                 for q in (c.rank, _rank_value(rules, c.rank))) <= 2
                   for c in naturals)
    return False


def money_text(cents: int, ascii: bool = False) -> str:
    return f"{cents}{'c' if ascii else '¢'}"


def _rank_value(rules: RuleSet, rank: int) -> int:
    return 14 if rank == 1 and rules.ace is not Ace.LOW else rank


def _rank_key(rules: RuleSet, card: Card) -> int:
    return 99 if card.is_joker else _rank_value(rules, card.rank)


def sort_hand(rules: RuleSet, hand: Iterable[Card], by: str = "suit") -> list[Card]:
    """The hand sorted by suit then rank, or by rank then suit; wild cards last."""

    def key(card: Card):
        wild = rules.is_wild(card)
        suit = SUIT_ORDER[card.suit] if card.suit is not None else 9
        rank = _rank_key(rules, card)
        return (wild, suit, rank, card.id) if by == "suit" else (wild, rank, suit, card.id)

    return sorted(hand, key=key)


def fits(rules: RuleSet, table: Sequence[Meld], card: Card) -> tuple[int, ...]:
    """Meld numbers (0-based) that ``card`` could be laid off on."""
    return tuple(i for i, meld in enumerate(table) if extend(rules, meld, card) is not None)


@lru_cache(maxsize=64)
def _options(rules: RuleSet, hand: tuple[Card, ...], contract: Contract, meld_all: bool, limit: int):
    """Distinct arrangements, those that meld the most cards first: one that only keeps back
    cards a listed one melds (the same melds less a card, or another copy of a face) is left
    out, so that ``a`` does not list nine near-twins (the melds picked by hand with ``g`` give
    those)."""
    found = sorted(islice(contract_options(rules, hand, contract, meld_all), OPTIONS_READ),
                   key=lambda option: -sum(len(meld) for meld in option))
    listed: list[tuple[tuple[Card, ...], ...]] = []
    for option in found:
        if not any(_within(option, other) for other in listed):
            listed.append(option)
            if len(listed) == limit:
                break
    return tuple(listed)


OPTIONS_READ = 400
"""Arrangements read from the finder before the distinct ones are picked."""


def _within(option, other) -> bool:
    """Each meld of ``option`` holds only faces the same meld of ``other`` holds (in some
    order of the melds)."""
    if len(option) != len(other):
        return False
    faces = [Counter(card.face for card in meld) for meld in option]
    return any(all(not faces[i] - Counter(card.face for card in meld) for i, meld in enumerate(order))
               for order in permutations(other))


def arrangements(view: PlayerView, limit: int = 9) -> tuple[tuple[tuple[Card, ...], ...], ...]:
    """The go-down arrangements the engine finds for this hand (at most ``limit``)."""
    if view.down[view.seat]:
        return ()
    hand = tuple(sorted(view.hand))
    return _options(view.rules, hand, view.contract, view.meld_all, limit)


def _rank_name(rank: int) -> str:
    return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))


def _phase_tracker(rules: RuleSet, hand: Sequence[Card], contract: PhaseContract, ascii: bool) -> list[str]:
    """`contract_tracker` for a phase: each meld it asks for at its own size, the best the hand
    holds toward it (sets of different ranks, runs by distinct ranks in their window, cards of
    one suit by the longest suits)."""
    naturals = [c for c in hand if not rules.is_wild(c)]
    wilds = len(hand) - len(naturals)
    out: list[str] = []
    by_rank = Counter(c.rank for c in naturals)
    set_ranks = sorted(by_rank.items(), key=lambda kv: (-kv[1], -_rank_value(rules, kv[0])))
    by_suit = sorted(Counter(c.suit for c in naturals).items(), key=lambda kv: (-kv[1], SUIT_ORDER[kv[0]]))
    lo, hi = run_bounds(rules)
    for kind, size in sorted(contract.melds, key=lambda need: -need[1]):
        if kind is MeldKind.SET:
            if set_ranks:
                rank, n = set_ranks.pop(0)
                out.append(f"{_rank_name(rank)}s {min(n, size)}/{size}" + (" ok" if n >= size else ""))
            else:
                out.append(f"{rules.set_word} 0/{size}")
        elif kind is MeldKind.SUIT:
            if by_suit:
                suit, n = by_suit.pop(0)
                sym = suit.letter if ascii else suit.symbol
                out.append(f"{sym} {min(n, size)}/{size}" + (" ok" if n >= size else ""))
            else:
                out.append(f"suit 0/{size}")
        else:
            best = (0, None, lo)
            for suit in ((None,) if rules.runs_any_suit else tuple(Suit)):
                held = {c.rank for c in naturals if suit is None or c.suit is suit}
                if 1 in held:
                    held |= {1, 14}
                for low in range(lo, hi - size + 2):
                    count = sum(1 for p in range(low, low + size) if p in held)
                    if count > best[0]:
                        best = (count, suit, low)
            count, suit, low = best
            sym = "" if suit is None else (suit.letter if ascii else suit.symbol) + " "
            top = low + size - 1
            out.append(f"run {sym}{_rank_name(1 if low == 14 else low)}-{_rank_name(1 if top == 14 else top)} "
                       f"{count}/{size}" + (" ok" if count >= size else ""))
    if wilds:
        out.append(f"wild {wilds}")
    return out


def contract_tracker(rules: RuleSet, hand: Sequence[Card], contract: Contract, ascii: bool = False) -> list[str]:
    """What the hand already holds toward the contract: the best sets and runs so far, and wilds.

    ``["7s 3/3 ok", "9s 2/3", "run ♥ 4-7 3/4", "wild 1"]``
    """
    if isinstance(contract, PhaseContract):
        return _phase_tracker(rules, hand, contract, ascii)
    sets, runs = contract
    wilds = [c for c in hand if rules.is_wild(c)]
    naturals = [c for c in hand if not rules.is_wild(c)]
    out: list[str] = []
    if sets:
        by_rank = Counter(c.rank for c in naturals)
        best = sorted(by_rank.items(), key=lambda kv: (-kv[1], -_rank_value(rules, kv[0])))[:sets]
        for rank, n in best:
            name = {1: "A", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))
            have = min(n, rules.min_set)
            out.append(f"{name}s {have}/{rules.min_set}" + (" ok" if n >= rules.min_set else ""))
        for _ in range(sets - len(best)):
            out.append(f"{rules.set_word} 0/{rules.min_set}")
    if runs:
        lo, hi = run_bounds(rules)
        n = rules.min_run
        candidates = []
        for suit in Suit:
            held = {c.rank for c in naturals if c.suit is suit}
            if 1 in held:
                held |= {1, 14}
            best_low, best_count = None, 0
            for low in range(lo, hi - n + 2):
                count = sum(1 for p in range(low, low + n) if p in held)
                if count > best_count:
                    best_low, best_count = low, count
            if best_low is not None:
                candidates.append((best_count, suit, best_low))
        candidates.sort(key=lambda t: (-t[0], SUIT_ORDER[t[1]]))
        for count, suit, low in candidates[:runs]:
            sym = suit.letter if ascii else suit.symbol

            def name(p: int) -> str:
                r = 1 if p == 14 else p
                return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(r, str(r))

            out.append(f"run {sym} {name(low)}-{name(low + n - 1)} {count}/{n}" + (" ok" if count >= n else ""))
        for _ in range(runs - len(candidates[:runs])):
            out.append(f"run 0/{n}")
    if wilds:
        out.append(f"wild {len(wilds)}")
    return out


@dataclass(frozen=True, slots=True)
class HandCard:
    card: Card
    text: str
    selected: bool
    cursor: bool
    fits: tuple[int, ...]  # meld numbers (0-based) it could be laid off on
    pending: bool  # already put in a meld for going down
    work: bool = False  # carousel: a card of the working area (picked up from the table)
    taken: bool = False  # the card taken from the discard pile (or claimed) since our discard


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    name: str
    you: bool
    hand_size: int
    down: bool
    claims_left: int | None  # None: no limit
    connection: Connection
    score: str  # points, or money for marcelle
    to_move: bool
    dealer: bool


@dataclass(frozen=True, slots=True)
class TableMeld:
    number: int  # 1-based, as the keys and the log name it
    owner: int
    text: str
    cards: tuple[Card, ...]
    fits_cursor: bool  # the card under the cursor could be laid off here
    played: tuple[Card, ...] = ()  # carousel: cards of this meld coming from your hand this turn


@dataclass
class ViewModel:
    seat: int
    title: str  # preset, round, contract
    contract: str
    status: str  # whose turn, what to do
    tracker: list[str]
    down: bool
    ready_ways: int  # arrangements the engine finds (capped)
    seats: list[SeatRow]
    table: list[TableMeld]
    stock: int
    discard_top: str | None
    discard_size: int
    top_shanghaied: bool
    claim_word: str
    set_word: str
    claim_seconds: int | None  # countdown of an open claim window
    may_claim: bool
    hand: list[HandCard]
    pending: list[str]  # melds picked for going down
    log: list[str]
    chat: list[str]
    message: str
    error: bool
    pot: str | None
    phase: Phase
    my_turn: bool
    keys: list[tuple[str, str]] = field(default_factory=list)
    carousel: bool = False
    work: list[str] = field(default_factory=list)  # carousel: the working area's cards
    edited: bool = False  # carousel: the table shown is your working arrangement
    connection: str = ""  # the session's connection in words, when it needs attention
    watching: str | None = None  # no seat of ours: what this console does instead (no hand)


def _seat_label(seats: Sequence[SeatInfo] | None, seat: int, me: int) -> str:
    """``0 you`` or ``2 basic bot``: the seat number keeps equal names apart."""
    return f"{seat} {_seat_name(seats, seat, me)}"


_YOUR_VERB = re.compile(r"(^|; |: )you (draws|takes|lets|claims|goes|lays|swaps|buys|discards|calls|deals)\b")


def table_words(seats: Sequence[SeatInfo] | None, me: int, ascii: bool = False,
                rounds: Mapping[int, int] | None = None) -> Words:
    """The players' names (yours "you"), the cards as the hand shows them and the rounds as the
    table counts them (``rounds``: `Session.round_numbers`)."""
    return Words(tuple(_seat_name(seats, s, me) for s in range(len(seats))) if seats else (),
                 lambda card: card_text(card, ascii), rounds or {})


def describe_events(events: Iterable, seats: Sequence[SeatInfo] | None, me: int,
                    ascii: bool = False, rounds: Mapping[int, int] | None = None) -> list[str]:
    """Log lines of events (None: skipped) with the players' names and the cards as the hand
    shows them; your own moves under "you", as the players panel has it ("you draw 8♦")."""
    words = table_words(seats, me, ascii, rounds)
    return [_told(event, words) for event in events if event is not None]


def entry_lines(entries: Iterable[LogEntry], seats: Sequence[SeatInfo] | None, me: int,
                ascii: bool = False, rounds: Mapping[int, int] | None = None) -> list[str]:
    """Log lines of the log's events, each naming who played each seat when it happened (the
    entry's ``names``, where the session knows them: a stand-in's moves are "bot for carl"'s,
    not those of whoever holds the seat now); a notice is its text."""
    now = table_words(seats, me, ascii, rounds)
    return [entry.text if entry.event is None else _told(
        entry.event, now if entry.names is None else Words(entry.names, now.card, now.rounds))
        for entry in entries]


def names_at(log: Iterable[LogEntry], result: RoundResult) -> tuple[str, ...] | None:
    """Who played each seat when the round of ``result`` ended, as its log entry says (None: the
    log does not know)."""
    return next((e.names for e in log if getattr(e.event, "result", None) is result), None)


def _told(event, words: Words) -> str:
    """``event`` in ``words``, "you" with a verb to match ("you draw 8♦")."""
    line = _YOUR_VERB.sub(lambda m: f"{m[1]}you {'go' if m[2] == 'goes' else m[2][:-1]}",
                          event.describe(words))
    if line.startswith("you claim "):
        line = line.replace(" and draws ", " and draw ", 1)
    return line.replace("you's hand", "your hand")


def _seat_named(seats: Sequence[SeatInfo] | None, seat: int, me: int) -> str:
    """In a headline: ``you``, or ``2 basic bot``."""
    return "you" if seat == me else _seat_label(seats, seat, me)


def _seat_name(seats: Sequence[SeatInfo] | None, seat: int, me: int) -> str:
    if seat == me:
        return "you"
    if seats and seat < len(seats):
        return seats[seat].name
    return f"seat {seat}"


def just_taken(log: Sequence[LogEntry], me: int) -> Card | None:
    """The card seat ``me`` took from the discard pile (or claimed) since its last discard in
    this round: the hand marks that copy (with two A♦, the one from the pile)."""
    for entry in reversed(log):
        event = entry.event
        if isinstance(event, RoundStarted) or isinstance(event, Discarded) and event.seat == me:
            return None
        if isinstance(event, (TookDiscard, Claimed)) and event.seat == me:
            return event.card
    return None


def view_model(
    view: PlayerView,
    *,
    seats: Sequence[SeatInfo] | None = None,
    log: Sequence[LogEntry] = (),
    claim: ClaimInfo | None = None,
    now: float = 0.0,
    cursor: int = 0,
    selected: Iterable[Card] = (),
    pending: Sequence[Sequence[Card]] = (),
    sort: str = "suit",
    ascii: bool = False,
    message: str = "",
    error: bool = False,
    log_lines: int = 50,
    connection: str = "",
    watching: str | None = None,
) -> ViewModel:
    """``view`` of seat -1 (with ``watching``, what the console does instead): the game as a
    watcher sees it, with no hand, no contract of ours and no move."""
    rules = view.rules
    me = view.seat
    selected = set(selected)
    in_pending = {c for meld in pending for c in meld}
    contract = describe_contract(rules, view.contract)
    hand_cards = [c for c in sort_hand(rules, view.hand, sort) if c not in in_pending]
    cursor = max(0, min(cursor, len(hand_cards) - 1)) if hand_cards else 0
    under = hand_cards[cursor] if hand_cards else None
    taken = just_taken(log, me)
    hand = [
        HandCard(c, card_text(c, ascii), c in selected, i == cursor, fits(rules, view.table, c), False,
                 taken=c is taken)
        for i, c in enumerate(hand_cards)
    ]
    table = [
        TableMeld(i + 1, view.meld_owners[i], " ".join(card_text(c, ascii) for c in m.cards), m.cards,
                  under is not None and extend(rules, m, under) is not None)
        for i, m in enumerate(view.table)
    ]
    to_move = view.turn if view.phase in (Phase.DRAW, Phase.PLAY) else None
    rows = []
    for s in range(view.players):
        conn = seats[s].connection if seats and s < len(seats) else Connection.LOCAL
        score = money_text(view.money[s], ascii) if rules.money else str(view.scores[s])
        rows.append(SeatRow(s, _seat_name(seats, s, me), s == me, view.hand_sizes[s], view.down[s],
                            view.claims_left[s], conn, score, s == to_move, s == view.dealer))
    watcher = me < 0
    down = not watcher and view.down[me]
    ways = 0 if down or watcher else len(arrangements(view))
    tracker = [] if watcher else ["down"] if down else \
        contract_tracker(rules, view.hand, view.contract, ascii)
    seconds = None
    if claim is not None:
        seconds = max(0, math.ceil(claim.deadline - now))
    status = _status(view, seats, claim is not None and view.may_claim, rules.claim_word)
    entries = [e for e in log if e.chat_from is None][-log_lines:]
    events = entry_lines(entries, seats, me, ascii,
                         round_numbers(e.event for e in log if e.event is not None))
    chat = [f"{_seat_name(seats, e.chat_from, me)}: {e.text}" for e in log if e.chat_from is not None][-log_lines:]
    vm = ViewModel(
        seat=me,
        title=(f"{rules.name} · hand {view.contract_no}" if rules.progression and watcher else
               f"{rules.name} · hand {view.contract_no} · {'phase' if rules.phases else 'contract'} "
               f"{min(view.progress[me] + 1, rules.rounds)} of {rules.rounds}" if rules.progression
               else f"{rules.name} · round {view.contract_no} of {rules.rounds}"),
        contract=contract + (" (meld every card)" if view.meld_all else ""),
        status=status,
        tracker=tracker,
        down=down,
        ready_ways=ways,
        seats=rows,
        table=table,
        stock=view.stock_size,
        discard_top=card_text(view.discard_top, ascii) if view.discard_top else None,
        discard_size=view.discard_size,
        top_shanghaied=view.top_shanghaied,
        claim_word=rules.claim_word,
        set_word=rules.set_word,
        claim_seconds=seconds,
        may_claim=view.may_claim,
        hand=hand,
        pending=[" ".join(card_text(c, ascii) for c in m) for m in pending],
        log=events,
        chat=chat,
        message=message,
        error=error,
        pot=money_text(view.pot, ascii) if rules.money else None,
        phase=view.phase,
        my_turn=view.my_turn,
        connection=connection,
        watching=watching if watcher else None,
    )
    vm.keys = WATCHER_KEYS if watcher else footer_keys(view, vm)
    return vm


WATCHER_KEYS = [("S", "scores"), ("L", "log"), ("R", "rules"), ("c", "chat"), ("?", "help"),
                ("q", "quit")]
"""The footer of a console that watches: it has no move to make."""


def carousel_view(vm: ViewModel, view: PlayerView, *, groups: Sequence[Sequence[Card]], hand: Sequence[Card],
                  loose: Sequence[Card], cursor: int, selected: Iterable[Card], edited: bool,
                  ascii: bool = False) -> ViewModel:
    """Turn ``vm`` into a carousel table's: the working arrangement, the working area, its keys."""
    rules = view.rules
    mine = set(view.hand)
    work = set(loose)
    selected = set(selected)
    owners = {m.cards: o for m, o in zip(view.table, view.meld_owners)}
    cursor = max(0, min(cursor, len(hand) - 1)) if hand else 0
    vm.carousel = True
    vm.edited = edited
    vm.title = f"{rules.name} · hand {view.contract_no} · {rules.target_score} points loses"
    vm.contract = "meld, add, rearrange"
    vm.tracker, vm.down, vm.ready_ways, vm.pending = [], False, 0, []
    vm.table = [
        TableMeld(i + 1, owners.get(tuple(g), view.seat), " ".join(card_text(c, ascii) for c in g), tuple(g), False,
                  tuple(c for c in g if c in mine))
        for i, g in enumerate(groups)
    ]
    vm.hand = [HandCard(c, card_text(c, ascii), c in selected, i == cursor, (), False, c in work)
               for i, c in enumerate(hand)]
    vm.work = [card_text(c, ascii) for c in loose]
    if view.phase is Phase.PLAY and view.my_turn:
        able = can_play(rules, view.table, view.hand)
        vm.status = ("your turn: play (rearrange the table freely)" if able else
                     "your turn: nothing plays, draw" if view.stock_size else "your turn: nothing plays, pass")
    vm.keys = carousel_keys(view, vm)
    return vm


def carousel_keys(view: PlayerView, vm: ViewModel) -> list[tuple[str, str]]:
    keys: list[tuple[str, str]] = []
    if view.my_turn and view.phase is Phase.PLAY:
        keys += [("spc", "select"), ("k", "pick up meld"), ("j", "pick up card"), ("g", "new meld"),
                 ("l", "add to meld"), ("Enter", "commit"), ("u", "undo"), ("a", "best play")]
        if not can_play(view.rules, view.table, view.hand):
            keys += [("d", "draw")] if view.stock_size else [("p", "pass")]
    keys += [("←→", "move"), ("s", "sort"), ("c", "chat"), ("?", "help"), ("q", "quit")]
    return keys


def _status(view: PlayerView, seats, may_claim: bool, claim_word: str) -> str:
    if view.phase is Phase.OVER:
        return "game over"
    if view.phase not in (Phase.DRAW, Phase.PLAY):
        return "dealing…"
    if view.my_turn:
        if view.phase is Phase.DRAW:
            return "your turn: draw or take the discard"
        if view.must_lay_off:
            return "your turn: lay off the joker you freed"
        if not view.down[view.seat]:
            return "your turn: go down if you can, then discard"
        return "your turn: lay off, then discard"
    who = f"seat {view.turn} ({_seat_name(seats, view.turn, view.seat)})"
    if may_claim:
        return f"{who} to play · {claim_word}?"
    return f"{who} to {'draw' if view.phase is Phase.DRAW else 'play'}"


def footer_keys(view: PlayerView, vm: ViewModel) -> list[tuple[str, str]]:
    """The keys that do something now, then the ones that always do."""
    rules = view.rules
    keys: list[tuple[str, str]] = []
    me = view.seat
    if view.my_turn and view.phase is Phase.DRAW:
        keys += [("d", "draw")]
        if view.discard_top is not None and not view.top_shanghaied:
            keys += [("t", "take discard")]
    if view.may_claim:
        keys += [("m", rules.claim_word), ("p", "pass")]
    if view.may_call_shanghai and fits(rules, view.table, view.discard_top):
        keys += [("!", "call SHANGHAI")]
    if view.my_turn and view.phase is Phase.PLAY:
        keys += [("spc", "select")]
        if not view.down[me]:
            keys += [("g", "meld"), ("a", "arrangements")]
            if rules.joker_buy:
                keys += [("b", "buy joker")]
        else:
            keys += [("l", "lay off")]
            if rules.joker_swap:
                keys += [("w", "swap joker")]
        if not view.must_lay_off:  # meld every card or not, a turn may end with a discard
            keys += [("x", "discard")]
            if rules.shanghai and any(fits(rules, view.table, c) for c in view.hand):
                keys += [("X", "discard SHANGHAI")]
    keys += [("←→", "move"), ("s", "sort"), ("c", "chat"), ("?", "help"), ("q", "quit")]
    return keys


def round_summary(result: RoundResult, seats: Sequence[SeatInfo] | None, me: int, rules: RuleSet, ascii: bool = False,
                  audit: str | None = None, rounds: Mapping[int, int] | None = None,
                  names: Sequence[str] | None = None) -> list[str]:
    """Lines of the round summary: every hand revealed, the points and the totals, and the deal's
    audit verdict when the deal was audited (``audit``: "clean" or the fault); the round as the
    table counts rounds (``rounds``: `Session.round_numbers`) and each seat by who played it
    in that round (``names``: `names_at`; None: ``seats`` as they are now)."""
    number = (rounds or {}).get(result.round_no, result.round_no)
    if names is not None:  # who played each seat in that round ("you" where we did)
        me = names.index("you") if "you" in names else -1
        seats = [SeatInfo(s, name, None, Connection.LOCAL) for s, name in enumerate(names)]
    lines = [f"Round {number} over: " + (
        f"{_seat_named(seats, result.winner, me)} went out" if result.winner is not None else "nobody went out")]
    width = max(len(_seat_label(seats, s, me)) for s in range(len(result.hands)))
    unit = (lambda v: money_text(v, ascii)) if rules.money else str
    for s, hand in enumerate(result.hands):
        cards = " ".join(card_text(c, ascii) for c in sort_hand(rules, hand)) or "(out)"
        lines.append(f"{_seat_label(seats, s, me):<{width}}  {result.points[s]:+5d}  total {unit(result.totals[s]):>6}  {cards}")
    if audit is not None:
        lines.append(f"deal audit: {audit}")
    return lines


def game_over_table(result: GameResult, seats, me: int, rules: RuleSet, ascii: bool = False,
                    width: int = 74, penalties: dict[int, int] | None = None) -> list[str]:
    """The final score sheet: a line per player, best first, with the place (tied totals share
    it), every round's points (the latest rounds that fit ``width``), what a seat paid for
    leaving (``penalties``, `Session.penalties`: a ``left`` column when any seat did) and the
    total.  A seat's name is its holder's as ``seats`` gives it ("bot for ann")."""
    unit = (lambda v: money_text(v, ascii)) if rules.money else (lambda v: f"{v} pts")
    paid = {s: p for s, p in (penalties or {}).items() if p}
    left_width = 6 if paid else 0
    winners = result.winners
    lines = ["Game over: no round was scored, so nobody wins" if not result.rounds else
             "Game over: " + " and ".join(_seat_named(seats, s, me) for s in winners)
             + (" win" if len(winners) > 1 or me in winners else " wins")]
    names = {s: _seat_label(seats, s, me)[:14] for s in result.ranking}
    name_width = max(len(n) for n in names.values())
    room = max(0, (width - 4 - name_width - 2 - left_width - 10) // 5)
    # a game's scored rounds are its rounds as the table counts them, in order: a voided one
    # is not among them, and the deal that played its contract again is
    numbered = list(enumerate(result.rounds, 1))
    shown = numbered[-room:] if room else []
    rounds = [r for _, r in shown]
    skipped = "… " if len(rounds) < len(result.rounds) else "  "
    lines.append(f"{'':4}{'':<{name_width}}{skipped}" + "".join(f"{'R' + str(n):>5}" for n, _ in shown)
                 + (f"{'left':>{left_width}}" if paid else "") + f"{'total':>10}")
    place = 0
    for i, s in enumerate(result.ranking):
        if i == 0 or result.totals[s] != result.totals[result.ranking[i - 1]]:
            place = i + 1
        left = ""
        if paid:
            fine = paid.get(s, 0)
            left = "" if not fine else money_text(-fine, ascii) if rules.money else f"+{fine}"
            left = f"{left:>{left_width}}"
        lines.append(f"{str(place) + '.':<4}{names[s]:<{name_width}}  "
                     + "".join(f"{r.points[s]:>5}" for r in rounds) + left + f"{unit(result.totals[s]):>10}")
    return lines


@dataclass
class LobbyModel:
    """The lobby screen: the table, who sat down with their key fingerprints, the rules."""

    title: str
    rules: str
    seats: list[str]
    ready: bool  # this seat said it is ready
    status: str  # the connection in words, or what the table waits for
    news: list[str]  # notices and chat, newest last
    keys: list[tuple[str, str]]
    offers: list[str] = field(default_factory=list)  # who offers to take a seat, with their key
    sharing: str = ""  # the table's sharing setting and what it promises, in words


def lobby_model(lobby: Lobby | None, status: str = "", log: Sequence[LogEntry] = (),
                lines: int = 8, watching: str | None = None) -> LobbyModel:
    """``watching``: this console has no seat (it offers to take one): no ready key, and that
    instead of what the table waits for."""
    news = [e.text if e.chat_from is None else f"{_lobby_name(lobby, e.chat_from)}: {e.text}"
            for e in log][-lines:]
    keys = [("c", "chat"), ("?", "help"), ("q", "quit")] if watching else \
        [("r", "ready"), ("c", "chat"), ("?", "help"), ("q", "quit")]
    if lobby is None:
        return LobbyModel("shanghai · joining a table", "", [], False, status or "connecting…", news,
                          [("?", "help"), ("q", "quit")])
    taken = {s.seat: s for s in lobby.seats}
    rows = []
    for seat in range(lobby.players):
        s = taken.get(seat)
        if s is None:
            rows.append(f"{seat:<3}(free)")
            continue
        who = "you" if seat == lobby.you else s.name + (
            " (host's bot)" if s.host_run else " (bot)" if s.bot else "")
        state = ("ready" if s.ready else "not ready") + ("" if s.connected else " · lost")
        rows.append(f"{seat:<3}{who[:20]:<21}{s.fingerprint:<21}{state}")
    if lobby.last_game:  # a rematch's lobby: the game before at this table
        rows.append("last game: " + ", ".join(f"{_lobby_name(lobby, seat)} {total}"
                                              for seat, total in lobby.last_game))
    house = ", ".join(f"{k}={v}" for k, v in lobby.house_rules)
    rules = f"rules: {lobby.preset}" + (f" with {house}" if house else " as the preset has them")
    if lobby.join_code:
        rules += f" · join code {lobby.join_code}"
    free = lobby.players - len(lobby.seats)
    waiting = (f"waiting for {free} more player{'s' if free > 1 else ''}" if free else
               "waiting for everyone to be ready" if not all(s.ready for s in lobby.seats) else
               "starting…")
    if lobby.ready:
        keys[0] = ("r", "not ready")
    offers = [f"{name[:20]:<21}{key}" for name, key in lobby.offers]
    return LobbyModel(f"{lobby.preset} table · {lobby.players} seats · host key {lobby.host_fingerprint}",
                      rules, rows, lobby.ready, status or watching or waiting, news, keys, offers,
                      lobby.sharing)


def _lobby_name(lobby: Lobby | None, seat: int) -> str:
    if lobby is not None:
        if seat == lobby.you:
            return "you"
        for s in lobby.seats:
            if s.seat == seat:
                return s.name
    return f"seat {seat}"
