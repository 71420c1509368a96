"""The expert's carousel play: which cards to put down, judged by what the table then offers.

Carousel has no discard, so the one choice a turn is the play itself.  The engine lists the play
with the most cards; the solver also finds the smallest play around each hand card, and every
one of those is legal (the table's cards stay, at least `must_play` cards go down).  Each play is
weighed by the cards it leaves in hand and whether what is left can still play next turn (a hand
that cannot play must draw instead of shedding).  A play that empties the hand is always taken;
close to someone's going out the most cards go down.  (Weighing how often the next seats could
play on the new table, sampled from the unseen cards, measured no better: a ten-card hand nearly
always plays, and a short one's chance to go out weighed against the play lost more games.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine.events import Words
from ..engine.moves import Move, Rearrange
from ..engine.view import PlayerView
from ..rules.carousel_solver import can_play, smallest_play

__all__ = ["choose_play"]

KEEP = 1.5
"""What a hand that can still play next turn is worth (it sheds instead of drawing)."""
CLOSE = 3
"""A seat with this many cards or fewer may go out soon: then the most cards go down."""


@dataclass(frozen=True, slots=True)
class _Weighed:
    move: Rearrange
    cost: float
    left: int
    keeps: bool


def _candidates(view: PlayerView, moves: list[Move]) -> list[Rearrange]:
    """The listed plays and the smallest play around each hand card that plays enough cards."""
    listed = [m for m in moves if isinstance(m, Rearrange)]
    best = listed[0]
    # the engine lists single lay-offs only when one card is enough
    least = 1 if len(listed) > 1 or len(best.played) == 1 else min(view.rules.must_play, len(best.played))
    found = {frozenset(m.played): m for m in listed}
    for card in view.hand:
        play = smallest_play(view.rules, view.table, view.hand, [card])
        if play is not None and len(play.played) >= least and frozenset(play.played) not in found:
            found[frozenset(play.played)] = Rearrange(view.seat, play.table, play.played)
    return list(found.values())


def choose_play(view: PlayerView, moves: Sequence[Move], words: Words) -> tuple[Move, str]:
    """The play (or the draw or pass when nothing plays) and why."""
    moves = list(moves)
    first = moves[0]
    if not isinstance(first, Rearrange):
        why = "nothing of yours plays" if first.text().startswith("draw") else "nothing plays and the stock is empty"
        return first, f"{first.text()}: {why}"
    hand = view.hand
    if len(first.played) == len(hand):
        return first, f"play {words.cards(first.played)}: it empties your hand"
    others = [view.hand_sizes[s] for s in range(view.players) if s != view.seat]
    plays = _candidates(view, moves)
    if len(plays) == 1 or min(others) <= CLOSE:
        why = "someone is close to going out" if min(others) <= CLOSE else "the only play"
        return first, f"play {words.cards(first.played)}: the most cards, {why}"
    weighed = []
    for move in plays:
        left = [c for c in hand if c not in set(move.played)]
        keeps = can_play(view.rules, move.table, left)
        weighed.append(_Weighed(move, len(left) - KEEP * keeps, len(left), keeps))
    pick = min(weighed, key=lambda w: (w.cost, w.left))
    cards = words.cards(pick.move.played)
    if pick.move is first:
        return first, f"play {cards}: the most cards" + (", and what is left still plays" if pick.keeps else "")
    held = [c for c in first.played if c not in set(pick.move.played)]
    return pick.move, f"play {cards}, hold {words.cards(held)}: it still plays next turn, so you need not draw"
