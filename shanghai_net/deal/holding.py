"""A seat's part in the sharing of the other seats' seeds (sharing on): the shares
it holds and checks at each commit, the complaint of a bad one, the shares its ``seeds`` owe,
and R2, the rebuild of a seat silent at its seeds from the shares in the others' ``seeds``
(docs/dealing.md).  A mixin of :class:`~shanghai_net.deal.participant.Participant`, which owns
the state it reads."""

from __future__ import annotations

from typing import Iterable

from .errors import CheatDetected
from .generation import Generation
from .messages import SeedReveal, SharedCommitment
from .shares import sealed_shares
from .sharing import open_share, rebuild


class ShareHolding:
    """The participant's side of seed sharing: see the module."""

    def _take_share(self, g: Generation, commitment: SharedCommitment) -> None:
        """The holder's check, at once: the share opens and lies on the commitments; else the
        dealer is named (this seat's complaint) and this seat sends nothing more of ``g``."""
        dealer = commitment.author
        if dealer in g.sharing.held:
            return
        try:
            g.sharing.held[dealer] = open_share(self._box_key, sealed_shares(commitment)[self.seat],
                                                commitment.feldman, g.sharing.threshold)
        except CheatDetected:
            g.sharing.complain(self.seat, dealer)
            raise

    def record_complaint(self, complainer: int, dealer: int, generation: int) -> None:
        """A holder's complaint of ``dealer``'s share of ``generation``, as sequenced (a complaint
        names every bad share its author found): its ``seeds`` may carry nil for those alone."""
        g = self.generation(generation)
        if not g.sharing or complainer not in g.sharing.commit_holders(dealer):
            raise ValueError(f"seat {complainer} holds no share of seat {dealer}'s seed of "
                             f"generation {generation}")
        g.sharing.complain(complainer, dealer)

    def _owed_shares(self, g: Generation, author: int) -> list[int]:
        """The dealers whose shares ``author``'s seeds carry: none once its seat was lost (its
        replacement holds none of its predecessor's shares)."""
        return [] if author in self._lost else g.sharing.dealers_held_by(author, g.commitments)

    def _check_seeds_shares(self, g: Generation, reveal: SeedReveal) -> None:
        """A ``seeds`` carries the author's share of each dealer it holds, nil only for those
        its complaint names; else it is refused."""
        owed = self._owed_shares(g, reveal.author)
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

    def rebuild_silent(self, absent: Iterable[int],
                       generations: Iterable[int] | None = None) -> frozenset[int]:
        """R2: rebuild each seat of ``absent`` (seeds timed out) from the shares in the others'
        ``seeds``, in seat order; the seats that stay absent (below ``t`` shares for some
        generation).  Every share of a rebuilt seat is checked in stream order: one off its
        commitments names its author; a rebuilt seed off its digest names the seat."""
        numbers = sorted(self._generations if generations is None else generations)
        remaining = set()
        for seat in sorted(absent):
            seeds = {}
            for number in numbers:
                g = self.generation(number)
                if g.sharing is None or seat not in g.commitments:
                    continue
                published = {author: share for author, reveal in g.seed_reveals.items()
                             for dealer, share in getattr(reveal, "shares", ())
                             if dealer == seat and share is not None}
                if seat not in g.sharing.rebuilt:
                    seeds[number] = self._rebuilt_seed(g, seat, published)
            if None in seeds.values() or self.share_threshold is None:
                remaining.add(seat)
                continue
            for number, seed in seeds.items():
                self.generation(number).sharing.rebuilt[seat] = seed
        return frozenset(remaining)

    def _rebuilt_seed(self, g: Generation, seat: int, published: dict[int, bytes]) -> bytes | None:
        """``seat``'s seed of ``g`` from ``published`` (holder -> share, stream order), or
        ``None`` below ``t``; CheatDetected as :func:`sharing.rebuild` names."""
        commit = g.commitments[seat]
        try:
            return rebuild(g.context, seat, g.sharing.threshold, commit.feldman, commit.digest,
                           published)
        except CheatDetected as cheat:
            raise CheatDetected(cheat.culprit, f"generation {g.context.generation}: "
                                               f"{cheat.reason}") from None
        except ValueError:
            return None
