"""What the console's panels show, as lines of text (no prompt_toolkit): the score sheet (``S``,
round by round per seat), the whole log (``L``, a page of it at a time) and the rules card
(``R``, the table's `RuleSet` in plain words)."""

from __future__ import annotations

import dataclasses
import re
import textwrap
from collections.abc import Callable, Sequence

from ..engine.events import RoundEnded, RoundVoided, round_numbers
from ..rules import PRESETS, Ace, RuleSet, describe_contract
from ..session import LogEntry, SeatInfo

__all__ = ["log_lines", "log_page", "rules_card", "score_sheet"]

_TIMES = {1: "once", 2: "twice", 3: "three times", 4: "four times"}


def _name(seats: Sequence[SeatInfo] | None, seat: int, me: int) -> str:
    if seat == me:
        return "you"
    return seats[seat].name if seats and seat < len(seats) else f"seat {seat}"


def score_sheet(rules: RuleSet, log: Sequence[LogEntry], seats: Sequence[SeatInfo] | None,
                me: int, players: int, playing: int | None = None,
                money: Callable[[int], str] = str) -> list[str]:
    """Round by round, each seat's points (or money won and lost) and the totals: a line a
    round scored or voided, then the round being played (``playing``), then the totals.  A
    ``*`` marks who went out; a voided round shows what its leaver paid, and the deal that
    plays its contract again has its number (the rounds as the table counts them, as the
    title does; ``playing`` is a deal's ``round_no``).  ``money``: how an amount of money is
    written."""
    number = round_numbers(e.event for e in log if e.event is not None)
    results = {}
    voided: dict[int, RoundVoided] = {}
    for entry in log:
        event = entry.event
        if isinstance(event, RoundEnded):
            results[event.result.round_no] = event.result
        elif isinstance(event, RoundVoided):
            results[event.round_no] = None
            voided[event.round_no] = event
    unit = money if rules.money else str
    named = [f"{s} {_name(seats, s, me)}" for s in range(players)]
    # a column as wide as the longest name, as far as the sheet's width allows
    column = max(8, min(max(len(n) for n in named) + 1, (SHEET_WIDTH - 12) // max(1, players)))
    names = [fit_name(n, column - 1) for n in named]
    head = "most money wins" if rules.money else "lowest total wins"
    lines = [f"Score sheet · {head}", f"{'round':<12}" + "".join(f"{n:>{column}}" for n in names)]
    totals: tuple[int, ...] = (0,) * players
    if rules.money:
        totals = (rules.stake,) * players  # each seat sits down with its stake
    for round_no in sorted(results):
        result = results[round_no]
        if result is None:
            void = voided.get(round_no)
            fine = {} if void is None or void.leaver is None or not void.penalty else {
                void.leaver: money(-void.penalty) if rules.money else f"+{void.penalty}"}
            lines.append(f"{number.get(round_no, round_no):>2} voided   " + "".join(
                f"{fine[s] + ' ' if s in fine else '-':>{column}}" for s in range(players)))
            continue
        cells = [(f"{result.points[s]:+d}" if rules.money else str(result.points[s]))
                 + ("*" if s == result.winner else " ") for s in range(players)]
        lines.append(f"{number.get(round_no, round_no):>2}{'':10}"
                     + "".join(f"{c:>{column}}" for c in cells))
        totals = result.totals
    if playing is not None and playing not in results:
        lines.append(f"{number.get(playing, playing):>2} playing")
    lines.append(f"{'total':<12}" + "".join(f"{unit(t) + ' ':>{column}}" for t in totals))
    if any(r is not None and r.winner is not None for r in results.values()):
        lines.append("* went out")
    return lines


SHEET_WIDTH = 72
"""The widest a score sheet's line is (the panel's, less a column each side)."""


def fit_name(name: str, width: int) -> str:
    """``name`` in ``width`` columns: whole, or cut with "…" where it is cut (never silently:
    "dan for an" read as a name)."""
    return name if len(name) <= width else name[:max(0, width - 1)] + "…"


def log_lines(log: Sequence[LogEntry], text_of: Callable[[LogEntry], str],
              width: int) -> list[str]:
    """The whole log, every line broken between words to ``width``: ``text_of(entry)`` writes
    an entry (an event in the table's words, a chat line with its speaker)."""
    out: list[str] = []
    for entry in log:
        out += textwrap.wrap(text_of(entry), width, subsequent_indent="  ") or [""]
    return out


def log_page(lines: Sequence[str], rows: int, back: int) -> tuple[list[str], int]:
    """The page of ``rows`` lines that ends ``back`` lines before the newest, and ``back`` as
    far as it may go (the first page shows the oldest line at its top)."""
    back = max(0, min(back, len(lines) - rows))
    end = len(lines) - back
    return list(lines[max(0, end - rows):end]), back


def _range(least: int, most: int | None) -> str:
    return f"{least} or more" if most is None else f"{least} to {most}"


def _ace(rules: RuleSet) -> str:
    if rules.ace is Ace.HIGH:
        return "an ace is high only (Q-K-A, not A-2-3)"
    if rules.ace is Ace.LOW:
        return "an ace is low only (A-2-3, not Q-K-A)"
    return "an ace is high or low" + (
        ", and a run may have one at each end (A-2-...-K-A)" if rules.ace_both_ends else
        "; a run never turns the corner (no Q-K-A-2)")


def _step(rules: RuleSet) -> str:
    return "phase" if rules.phases else "contract"


def _melds(rules: RuleSet) -> list[str]:
    """What a meld is: in a game of phases each phase says its melds' sizes."""
    suits = "of any suits" if rules.runs_any_suit else "of one suit"
    if not rules.phases:
        return [f"a {rules.set_word}: {_range(rules.min_set, rules.max_set)} cards of one rank"
                + (", each of another suit" if rules.set_distinct_suits else ""),
                f"a run: {_range(rules.min_run, rules.max_run)} cards in order, {suits}; "
                + _ace(rules)]
    melds = [f"a {rules.set_word}: cards of one rank", f"a run: cards in order, {suits}"]
    if rules.least_suit is not None:
        melds.append("cards of one suit, of any ranks")
    return ["melds, each of the size its phase says: " + "; ".join(melds) + "; " + _ace(rules)]


def _contracts(rules: RuleSet) -> str:
    """The contract of each round, or with `progression` each player's own step by step."""
    steps = "; ".join(f"{n}: {describe_contract(rules, rules.contract(n))}"
                      for n in range(1, rules.rounds + 1))
    if rules.progression:
        return (f"the {_step(rules)}s, each player on their own: who goes down with theirs moves "
                f"on to the next {_step(rules)} in the next hand, who does not tries it again: "
                + steps)
    return "the rounds: " + steps


def rules_card(rules: RuleSet, players: int, claim_timeout: float | None = None,
               ascii: bool = False, sharing: str = "") -> list[str]:
    """The table's rules in plain words, a line each (the card ``R`` shows); at a networked
    table, last, its sharing setting and what it promises (``sharing``, docs/dealing.md)."""
    cent = "c" if ascii else "¢"
    sharing_line = [sharing] if sharing else []
    decks, jokers = rules.deck_size(players)
    cards = f"{decks} decks" + (f" and {jokers} jokers" if jokers else ", no jokers")
    deal = f"{rules.hand_size} cards each" + (
        f" ({rules.last_round_hand_size} in the last round)"
        if rules.last_round_hand_size != rules.hand_size and rules.game != "carousel" else "")
    lines = [_heading(rules), f"{players} players, {cards}; {deal}"]
    if rules.game == "carousel":
        return lines + _carousel_card(rules) + sharing_line
    wild = "jokers" + (" and every 2" if rules.wild_twos else "")
    limits = []
    if rules.max_wilds_per_meld is not None:
        limits.append(f"at most {rules.max_wilds_per_meld} in a meld")
    if rules.wilds_at_most_naturals:
        limits.append("no more wild cards than natural ones in a meld")
    lines.append(f"wild cards: {wild}" + (f" ({'; '.join(limits)})" if limits else ""))
    lines += _melds(rules)
    lines.append(_contracts(rules))
    extras = []
    if rules.contract_distinct_set_ranks:
        extras.append(f"no two {rules.set_word}s of one rank")
    if rules.contract_runs_apart:
        extras.append("two runs of one suit must not join into one")
    if rules.contract_minimum_melds:
        extras.append("each meld of the contract at its least size")
    if rules.final_round_meld_all:
        extras.append("in the last round every card is melded at once, with no discard")
    if extras:
        lines.append("going down: " + "; ".join(extras))
    goal = f"your {_step(rules)}" if rules.progression else "the round's contract"
    lines.append("your turn: draw from the stock or take the top discard; go down with "
                 f"{goal}; once down, lay off on any meld"
                 + ("" if rules.lay_off_on_going_down_turn else " (from your next turn on)")
                 + "; then discard")
    lines.append("going out: " + ("only by discarding your last card" if rules.out_by_discard
                                  else "by discarding or by playing your last card"))
    if not rules.discard_taken_card:
        lines.append("a card taken from the pile may not go back on it in the same turn (unless "
                     "it is your last)")
    if rules.claims_per_round == 0:
        lines.append("no card is taken out of turn: only the player whose turn it is takes the "
                     "discard")
    else:
        claims = "as often as you like" if rules.claims_per_round is None else \
            f"{_TIMES.get(rules.claims_per_round, f'{rules.claims_per_round} times')} a round"
        lines.append(f"{rules.claim_word}: out of turn, claim the top discard with "
                     f"{rules.claim_penalty} stock card{'s' if rules.claim_penalty != 1 else ''} "
                     f"more, {claims}" + ("" if rules.claim_when_down else ", not once you are down")
                     + (f"; a claim window waits {claim_timeout:g} s for those who say nothing"
                        if claim_timeout is not None else ""))
    if rules.shanghai:
        lines.append("SHANGHAI: discard a card that plays on a meld declaring SHANGHAI (X), and "
                     "nobody may take it; a card discarded that plays on a meld, undeclared, "
                     "anyone but its discarder may call SHANGHAI on before the next draw (! and "
                     "the meld's number): it goes on that meld, and its discarder draws a card "
                     "from the caller's hand")
    if rules.joker_swap:
        lines.append("once down, swap a joker on the table for the natural card it stands for, "
                     "with a card that extends the meld (w); the joker is laid off at once")
    if rules.joker_buy:
        lines.append(f"before going down, buy a joker on the table from its owner for "
                     f"{rules.joker_price}{cent} with the natural card it stands for (b)")
    lines.append("an empty stock: " + (
        "the whole discard pile is turned over" if rules.turn_pile_over else
        "the discard pile but its top card is shuffled into a new stock")
        + ("" if rules.max_reshuffles is None else f", at most {rules.max_reshuffles} times"))
    if rules.money:
        lines.append(f"money: each player starts with {rules.stake}{cent} (another "
                     f"{rules.stake}{cent} whenever that is spent) and puts {rules.ante}{cent} in "
                     f"the pot each round; who does not go out pays {rules.penny_per_card}{cent} a "
                     "card left in hand into it, and who goes out takes the pot; the most "
                     "money wins")
    else:
        lines.append(f"points for the cards left in hand: 2-7 {rules.points_low}, 8-K "
                     f"{rules.points_high}, ace {rules.points_ace}, joker {rules.points_joker}"
                     + (f"; going out scores {rules.winner_bonus}" if rules.winner_bonus else "")
                     + ("; the first to complete every " + _step(rules) + " wins, the lowest "
                        "total among those who do it in the same hand" if rules.progression
                        else "; the lowest total wins"))
    return lines + sharing_line


def _heading(rules: RuleSet) -> str:
    """The preset's own words, unless house rules change it (then they would say what is not
    played): the fields they change."""
    base = PRESETS.get(rules.name)
    # the seed a preset comes from is the project's reference, not the players' business
    described = re.sub(r" \(seed \d+\)", "", rules.description) or rules.name
    if base is None:
        return described
    changed = [f.name for f in dataclasses.fields(RuleSet)
               if f.compare and getattr(rules, f.name) != getattr(base, f.name)]
    if not changed:
        return described
    return f"{rules.name} with house rules ({', '.join(changed)}), as played:"


def _carousel_card(rules: RuleSet) -> list[str]:
    return [
        f"a set: {_range(rules.min_set, rules.max_set)} cards of one rank, each of another "
        f"suit; a run: {_range(rules.min_run, rules.max_run)} cards in order, of one suit; "
        + _ace(rules),
        "no contract and no discard: each turn, meld, add to melds and rearrange the table "
        "freely, so that every meld is whole at the end of the turn; no table card goes back "
        "to a hand",
        f"a hand that can play {rules.must_play} cards or more must play at least "
        f"{rules.must_play}; one that can play one plays it; one that cannot draws until it can "
        "(an empty stock: pass)",
        f"a point for each card left in hand; the game ends with the hand in which someone "
        f"reaches {rules.target_score} points, and the lowest total wins",
    ]
