"""R1, a seat lost mid-round (sharing on; docs/dealing.md, "When a seat is rebuilt"
and "What every party does with a rebuilt seed").

From the vote that decides the loss, each holder of the lost seat's rebuilt generations
publishes its shares of them (:class:`ShareReveal`); every party checks each against the seat's
commitments (one off them names its author) and, once ``t`` are in for every rebuilt generation,
rebuilds the seed, checks it against the seat's digest (off it names the seat) and checks the
seat's steps already in the stream at once (the first off its seed names the seat).  From then
on the seat's steps are public functions: every party makes its remaining passes at their turn
and takes its keys from the seed.  A generation whose passes had not begun is restarted instead:
the seat's commit is dropped, and its replacement commits afresh.  A mixin of
:class:`~shanghai_net.deal.participant.Participant`, which owns the state it reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

from .audit import audit_sharing, check_steps, made_pass
from .box import raw_public
from .errors import CheatDetected
from .generation import Generation
from .messages import Commitment, Context, PassOutput, ShareReveal
from .sharing import seed_from_shares, seed_scalar, share_fits


def rebuilt_pass(g: Generation, step: int) -> PassOutput:
    """Pass ``step`` of ``g``, a rebuilt seat's, made from its rebuilt seed: every party makes
    it at its turn (a seat's participant, the public table's record) and nobody sends it.
    CheatDetected: an invalid input point names the seat whose output it is."""
    phase, seat = g.step_of(step)
    return PassOutput(g.context, seat, phase, tuple(made_pass(g, step, g.seat_keys(seat))))


class NotRebuildable(ValueError):
    """A lost seat whose seed cannot be rebuilt (fewer than ``t`` of its holders are left, or
    can still publish): its round is void, as with sharing off.  No card was learned."""


@dataclass
class LostSeat:
    holders: frozenset[int]
    """The holders at the vote that decided the loss: who may publish."""
    owed: dict[int, tuple[int, ...]]
    """holder -> the rebuilt generations whose commit it holds a share of, ascending."""
    generations: tuple[int, ...]
    """The generations rebuilt: the seat committed and their passes had begun."""
    published: set[int] = field(default_factory=set)
    timed_out: set[int] = field(default_factory=set)
    rebuilt: bool = False

    def to_plain(self) -> list[Any]:
        return [sorted(self.holders), [[h, list(ns)] for h, ns in sorted(self.owed.items())],
                list(self.generations), sorted(self.published), sorted(self.timed_out),
                self.rebuilt]

    @classmethod
    def from_plain(cls, plain: Any) -> LostSeat:
        holders, owed, generations, published, timed_out, rebuilt = plain
        return cls(frozenset(holders), {h: tuple(ns) for h, ns in owed}, tuple(generations),
                   set(published), set(timed_out), rebuilt)


class LostSeats:
    """The participant's side of R1: see the module."""

    def lose(self, seat: int, holders: Iterable[int]) -> tuple[int, ...]:
        """The vote that decides ``seat`` lost is sequenced; ``holders`` are the holders at it.
        Returns the generations to rebuild; drops the seat's commit of every generation whose
        passes have not begun (restarted: the replacement commits afresh).  NotRebuildable
        when some generation to rebuild has fewer than ``t`` holders left, or ``seat`` was lost
        already this round (its replacement lost in turn): nothing changes."""
        if self.share_threshold is None or not 0 <= seat < self.seats:
            raise ValueError(f"seat {seat} cannot be lost and rebuilt here")
        if seat in self._lost:
            raise NotRebuildable(f"seat {seat} is not rebuildable: it was lost already this "
                                 "round, and its replacement is lost too")
        holders = frozenset(holders) - {seat}
        generations = tuple(n for n, g in sorted(self._generations.items())
                            if seat in g.commitments and g.passes)
        owed: dict[int, list[int]] = {}
        for number in generations:
            left = [h for h in self.generation(number).sharing.commit_holders(seat) if h in holders]
            if len(left) < self.share_threshold:
                raise NotRebuildable(f"seat {seat} is not rebuildable: {len(left)} holders of its "
                                     f"generation {number} left, {self.share_threshold} needed")
            for holder in left:
                owed.setdefault(holder, []).append(number)
        for g in self._generations.values():
            if not g.passes:
                g.commitments.pop(seat, None)
                g.sharing.held.pop(seat, None)
        self._lost[seat] = LostSeat(holders, {h: tuple(ns) for h, ns in owed.items()},
                                    generations, rebuilt=not generations)
        return generations

    def _lost_seat(self, seat: int) -> LostSeat:
        if seat not in self._lost:
            raise ValueError(f"no loss of seat {seat} is declared")
        return self._lost[seat]

    def owing(self, seat: int) -> list[int]:
        """The holders whose shares of lost ``seat`` are still due, ascending."""
        lost = self._lost_seat(seat)
        return sorted(set(lost.owed) - lost.published - lost.timed_out)

    def rebuilt(self, seat: int) -> bool:
        """Whether lost ``seat``'s seeds are rebuilt (public) here."""
        return self._lost_seat(seat).rebuilt

    def share_reveal(self, seat: int) -> ShareReveal:
        """This holder's shares of lost ``seat``'s rebuilt generations (broadcast it)."""
        lost = self._lost_seat(seat)
        numbers = lost.owed.get(self.seat, ())
        if not numbers or self.seat in lost.published:
            raise ValueError(f"seat {self.seat} owes no shares of seat {seat}")
        reveal = self.outgoing(ShareReveal(Context(self.game_id, self.round, 0), self.seat, seat,
                                           tuple((n, self.generation(n).sharing.held[seat])
                                                 for n in numbers)))
        if not self.own_when_sequenced:  # else taken in when the stream brings it back
            self._on_share_reveal(reveal)
        return reveal

    def _on_share_reveal(self, reveal: ShareReveal) -> None:
        seat, author = reveal.seat, reveal.author
        where = f"seat {author}'s shares of seat {seat} refused"
        if seat not in self._lost:
            raise ValueError(f"{where}: no loss of seat {seat} is declared")
        lost = self._lost[seat]
        numbers = lost.owed.get(author, ())
        if not numbers or author in lost.published or author in lost.timed_out:
            raise ValueError(f"{where}: it owes none, or sent them, or was timed out")
        shares = reveal.shares if isinstance(reveal.shares, tuple) else ()
        entries = [e if isinstance(e, tuple) and len(e) == 2 else (None, None) for e in shares]
        if [number for number, _ in entries] != list(numbers) or not all(
                isinstance(share, bytes) and len(share) == 32 for _, share in entries):
            raise ValueError(f"{where}: not one 32-byte share for each of generations "
                             f"{list(numbers)}")
        for number, share in reveal.shares:
            if not share_fits(self.generation(number).commitments[seat].feldman, author, share):
                raise CheatDetected(author, f"seat {author}: published a share of seat {seat}'s "
                                            f"seed for generation {number} that is off its "
                                            "commitments")
        for number, share in reveal.shares:
            self.generation(number).sharing.published.setdefault(seat, {})[author] = share
        lost.published.add(author)
        self._complete_rebuild(seat, lost)

    def time_out_shares(self, seat: int, holder: int) -> None:
        """The host timed out ``holder``'s shares of lost ``seat`` (its later ones are
        refused); NotRebuildable once some generation can no longer reach ``t`` shares."""
        lost = self._lost_seat(seat)
        if holder not in lost.owed or holder in lost.published | lost.timed_out:
            raise ValueError(f"seat {holder} owes no shares of seat {seat} now")
        lost.timed_out.add(holder)
        for number in lost.generations:
            can = [h for h in lost.owed if number in lost.owed[h] and h not in lost.timed_out]
            if len(can) < self.share_threshold:
                raise NotRebuildable(f"seat {seat} cannot be rebuilt: {len(can)} shares of its "
                                     f"generation {number} can come, {self.share_threshold} "
                                     "needed; the round is void")

    def _complete_rebuild(self, seat: int, lost: LostSeat) -> None:
        """Once ``t`` shares of every rebuilt generation are in: the seed of each (the first
        ``t`` in stream order), checked against the digest, and the seat's steps already in
        the stream checked against it; then its passes due are made here."""
        generations = [self.generation(n) for n in lost.generations]
        if lost.rebuilt or any(len(g.sharing.published.get(seat, {})) < self.share_threshold
                               for g in generations):
            return
        for g in generations:
            published = g.sharing.published[seat]
            commit = g.commitments[seat]
            try:
                g.sharing.rebuilt[seat] = seed_from_shares(
                    g.context, seat, commit.digest,
                    dict(list(published.items())[:self.share_threshold]))
                audit_sharing(g, seat, self._roster)
                check_steps(g, {seat: g.seat_keys(seat)}, self._roster)
            except CheatDetected as cheat:
                g.sharing.rebuilt.pop(seat, None)
                raise CheatDetected(cheat.culprit, f"generation {g.context.generation}: "
                                                   f"{cheat.reason}") from None
        lost.rebuilt = True
        self._rebuild_nonces(seat)
        for g in generations:
            if g.seat == seat:  # a replacement following its seat's stream: the seed is its own
                g.seed = g.sharing.rebuilt[seat]
                for sealed in g.sharing.handed:  # handed before the rebuild: opened now
                    if sealed.recipient == seat:
                        self._take_handed(g, sealed)
            self._advance_rebuilt(g)
            for position in sorted({r.position for r in g.reveals} - g.public.keys()):
                try:  # a card turned up that waited only for the seat's own key
                    self._turn_up_own_keys(g, position)
                except CheatDetected:
                    pass  # it opens to nothing: the table stops the round (names no one)

    def _advance_rebuilt(self, g: Generation) -> None:
        """Make every pass due of a rebuilt seat (nobody sends them: they are public)."""
        while g.sharing and len(g.passes) < 2 * self.seats and \
                g.step_of(len(g.passes))[1] in g.sharing.rebuilt:
            g.passes.append(rebuilt_pass(g, len(g.passes)))

    def seat_replacement(self, seat: int, box_key: X25519PublicKey, holders: Iterable[int]) -> None:
        """The message that seats lost ``seat``'s replacement is sequenced (``holders``: the
        holders at it): boxes to the seat go to ``box_key`` from here, and the seat owes a fresh
        commit of every generation whose passes have not begun."""
        self._lost_seat(seat)
        if seat in self._successors:
            raise ValueError(f"seat {seat} was replaced already this round")
        self._boxes[seat] = box_key
        self._successors[seat] = raw_public(box_key)
        for g in self._generations.values():
            g.sharing.successors[seat] = self._successors[seat]
            g.sharing.replaced_at.setdefault(seat, len(g.boxes))
            if not g.passes:
                g.sharing.recommitted[seat] = tuple(sorted(set(holders) - {seat}))

    def follow_generation(self, generation: int, cards: Iterable, holders: Iterable[int]) -> None:
        """A replacement's view of a generation its seat's predecessor was dealt in: the
        stream's messages and boxes follow; its seed comes from the rebuild, or from
        :meth:`recommit` if the generation is restarted."""
        self._new_generation(generation, tuple(cards), holders)

    def recommit(self, generation: int) -> Commitment:
        """A replacement's fresh commit of a restarted generation (broadcast it)."""
        g = self.generation(generation)
        if g.seed is not None or g.passes or self.seat not in self._successors:
            raise ValueError(f"generation {generation} waits for no fresh commit of seat "
                             f"{self.seat}")
        g.seed = seed_scalar(self._random)
        return self._commit(g)

    def _rebuilt_keys(self, g: Generation, position: int) -> dict[int, bytes]:
        """The rebuilt seats' keys of ``position``: public."""
        if not g.sharing:
            return {}
        return {seat: g.seat_keys(seat).card_keys[position] for seat in g.sharing.rebuilt}
