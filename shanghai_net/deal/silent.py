"""R2, a seat silent at its seeds (sharing on; docs/dealing.md, "R2, silent at its seeds"): the
shares every ``seeds`` owes, and the seats whose seeds the audit lacks rebuilt from the shares
in the others' ``seeds``, so that the audit checks them in full.

Functions of a round's generations as any party keeps them (a seat's participant, the host's
public table, ``verify``), so that every party reads the same ``seeds`` the same way and
rebuilds the same seats: only the ``seeds`` the stream sequenced count, and a party's own
``seeds`` that never reached it (its seat was timed out) count at no party.
"""

from __future__ import annotations

from typing import Collection, Iterable, Mapping

from .errors import CheatDetected
from .generation import Generation
from .messages import SeedReveal
from .sharing import rebuild


def owed_shares(g: Generation, author: int, lost: Collection[int] = ()) -> list[int]:
    """The dealers, ascending, whose shares of ``g`` ``author``'s seeds carry: those whose commit
    had its seat among the holders; none once its seat was ``lost`` this round (its replacement
    holds none of its predecessor's shares)."""
    return [] if author in lost else g.sharing.dealers_held_by(author, g.commitments)


def check_seeds_shares(g: Generation, reveal: SeedReveal, lost: Collection[int] = ()) -> None:
    """A ``seeds`` of ``g`` carries its author's share of each dealer it holds
    (:func:`owed_shares`), nil only for those its sequenced complaints name; else ValueError
    (the ``seeds`` is refused, and names its author if sequenced)."""
    owed = owed_shares(g, reveal.author, lost)
    shares = getattr(reveal, "shares", None)
    complained = g.sharing.complaints.get(reveal.author, ())
    where = f"seat {reveal.author}'s seeds of generation {g.context.generation} refused"
    dealers = [entry[0] if isinstance(entry, tuple) and len(entry) == 2 else None
               for entry in shares] if isinstance(shares, tuple) else None
    if dealers != owed:
        raise ValueError(f"{where}: they carry shares of seats {dealers}, not of {owed}")
    for dealer, share in shares:
        if share is None and dealer not in complained:
            raise ValueError(f"{where}: nil for seat {dealer}'s share, not complained of")
        if share is not None and not (isinstance(share, bytes) and len(share) == 32):
            raise ValueError(f"{where}: seat {dealer}'s share is not 32 bytes")


def rebuild_silent(generations: Mapping[int, Generation], silent: Iterable[int],
                   lost: Mapping[int, Iterable[int]] | None = None) -> frozenset[int]:
    """Rebuild, from the shares in the sequenced ``seeds`` of ``generations`` (number ->
    generation: those the audit opens), each seat of ``silent`` (its seeds timed out) in every
    generation it committed, in seat order, then each seat of ``lost`` (lost this round, its R1
    rebuild cut short by the round's stop) in its generations listed; the seats that stay
    absent (below ``t`` shares for some generation, or sharing off).

    A seat's shares are checked only when it is rebuilt, each in stream order: one off the
    seat's commitments names the author of its ``seeds``, a rebuilt seed off its digest names
    the seat (CheatDetected, its reason prefixed with the generation).  The ``seeds`` of a
    ``silent`` seat never reached the stream, so the shares they carry count nowhere, even at
    the party that made them (and a rebuilt seat's, silent or lost, carry none)."""
    silent = frozenset(silent)
    if not generations or any(g.sharing is None for g in generations.values()):
        return silent | frozenset(lost or ())
    wanted = [(seat, sorted(generations)) for seat in sorted(silent)]
    wanted += [(seat, sorted(n for n in numbers if n in generations))
               for seat, numbers in sorted((lost or {}).items())]
    remaining = set()
    for seat, numbers in wanted:
        seeds = {}
        for number in numbers:
            g = generations[number]
            if seat in g.commitments and seat not in g.sharing.rebuilt:
                seeds[number] = _rebuilt_seed(g, seat, silent)
        if None in seeds.values():
            remaining.add(seat)
            continue
        for number, seed in seeds.items():
            generations[number].sharing.rebuilt[seat] = seed
    return frozenset(remaining)


def _rebuilt_seed(g: Generation, seat: int, silent: frozenset[int]) -> bytes | None:
    """``seat``'s seed of ``g`` from the shares of it in the sequenced ``seeds`` (stream order),
    or ``None`` below ``t`` (or its commit carries no sharing: it had fewer than ``t`` holders);
    CheatDetected as :func:`sharing.rebuild` names."""
    if not g.sharing.commit_holders(seat):
        return None
    published = {author: share for author, reveal in g.seed_reveals.items()
                 if author not in silent and author not in g.sharing.rebuilt
                 for dealer, share in getattr(reveal, "shares", ())
                 if dealer == seat and share is not None}
    commit = g.commitments[seat]
    try:
        return rebuild(g.context, seat, g.sharing.threshold, commit.feldman, commit.digest,
                       published)
    except CheatDetected as cheat:
        raise CheatDetected(cheat.culprit, f"generation {g.context.generation}: "
                                           f"{cheat.reason}") from None
    except ValueError:
        return None
