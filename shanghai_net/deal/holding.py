"""A seat's part in the sharing of the other seats' seeds (sharing on): the shares
it holds and checks at each commit, and the complaint of a bad one (docs/dealing.md).  What
its ``seeds`` owe and R2 are every party's, not a holder's: deal/silent.py.  A mixin of
:class:`~shanghai_net.deal.participant.Participant`, which owns the state it reads."""

from __future__ import annotations

from .errors import CheatDetected
from .generation import Generation
from .messages import SharedCommitment
from .shares import sealed_shares
from .sharing import open_share


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
