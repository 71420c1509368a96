"""The dropout-tolerant deal's seed sharing as the table reads it from the stream
(docs/dealing.md), behind start_game's ``share_threshold``, which no host offers yet: each
generation's holders at its due message, a complaint of a seed share, and R2, the seats silent
at their seeds rebuilt from the shares in the others' seeds so that the audit checks them in
full. `SeedSharing` is the part of `StreamTable` that holds it; each party keeps the sharing
itself (`_sharing_of`): a seat in its `Participant`, the public table in its records."""

from __future__ import annotations

from typing import Callable

from ..deal.messages import ShareReveal
from ..deal.shares import GenerationShares
from ..wire import messages as wm
from ..wire.messages import HOST_AUTHOR
from .fault import Fault


class SeedSharing:
    """The part of `StreamTable` that reads the seed sharing off the stream: see the module."""

    rebuilds_lost: bool = False
    """R1 (a seat lost mid-round rebuilt, its round going on) is being wired (issue 38): until
    every step of it is (its shares, the rebuild, the replacement mid-round), a vote at a table
    with sharing on voids the round as without sharing, and only tests turn it on."""

    def _generation_holders(self) -> tuple[int, ...] | None:
        """The holders of a generation whose shuffle is asked for now (its due message), or
        None with sharing off.  No seat is the host's yet (``host_run`` is not on the wire)."""
        if self.share_threshold is None:
            return None
        return self.share_holders(self.share_threshold, ())

    def _sharing_of(self, generation: int) -> GenerationShares | None:
        """Hook: the running round's sharing of ``generation`` as this party keeps it."""

    def _any_time(self, author: int, body: object) -> tuple[str | None, Callable[[], None]]:
        """`Disputes._any_time`; a complaint of a seed share (sharing on) also names a share its
        author holds of a commit sequenced, and is recorded before the round stops, so that
        its author's seeds may carry nil for that share alone."""
        why, act = super()._any_time(author, body)
        share = getattr(body, "share", None) if isinstance(body, wm.Complaint) else None
        if why is not None or share is None:
            return why, act
        sharing = None if share.generation not in self.generations else \
            self._sharing_of(share.generation)
        if sharing is None or share.dealer not in self._commits.get(share.generation, ()) or \
                author not in sharing.commit_holders(share.dealer):
            return (f"a complaint of seat {share.dealer}'s seed share of generation "
                    f"{share.generation}, which seat {author} does not hold"), act
        return None, lambda: (self._share_complained(author, share.dealer, share.generation),
                              act())

    def _share_complained(self, complainer: int, dealer: int, generation: int) -> None:
        self._sharing_of(generation).complain(complainer, dealer)

    def _silent_rebuilt(self, rebuild: Callable[[frozenset[int]], frozenset[int]]
                        ) -> frozenset[int]:
        """R2: the seats whose seeds the host timed out, less those ``rebuild`` (the deal's
        ``rebuild_silent``) rebuilt from the shares in the others' seeds, which the audit then
        checks in full (``rebuilt_seeds``).  CheatDetected: a share off its commitments, or a
        rebuilt seed off its digest, names its author."""
        absent = frozenset(self.missing_seeds)
        if self.share_threshold is None or not absent:
            return absent
        remaining = rebuild(absent)
        self.rebuilt_seeds = set(absent - remaining)
        return remaining

    # -- R1: a seat lost mid-round, rebuilt from its holders' published shares ------------------

    def _share_reveal_refused(self, author: int, reveal: ShareReveal) -> None:
        """ValueError when ``reveal`` is not due from ``author`` now (the host answers
        ``out_of_turn``): with sharing off, or no lost seat's rebuild waiting for its shares,
        none is."""
        raise ValueError(f"seat {author}: a share_reveal for seat {reveal.seat}, whose rebuild "
                         "no one waits for" + ("" if self.share_threshold is not None else
                                               " (this table shares no seeds)"))

    def _share_reveal(self, author: int, reveal: ShareReveal) -> None:
        """A sequenced ``share_reveal`` (Fault: one not due names its author, since the host
        should have refused it)."""
        try:
            self._share_reveal_refused(author, reveal)
        except ValueError as error:
            raise Fault(author, str(error)) from None

    def _rebuild_timeout(self, seq: int, seat: int, what: str) -> None:
        """The host's ``"shares"`` or ``"vote"`` timeout of ``seat`` (sharing on); Fault on the
        host for one that has no place: with sharing off, never.  ``"vote"``: the votes naming
        ``seat`` reached protocol.md 11.5's bar, not ``t`` holders' votes, and none came for
        ``audit_timeout`` (the host's clock): the round is void as without sharing."""
        round_no = self.void_target
        if what == "vote" and self.rebuilds_lost and self.share_threshold is not None and \
                not self.waiting_audit and \
                seat not in self.vacant and self.carried(round_no, seat) and \
                self.rebuildable(seat):
            self._voided_gone(seat, round_no)
            return
        raise Fault(HOST_AUTHOR, f"the host timed out seat {seat}'s {what}, which no lost "
                                 "seat's rebuild waited for")

    def _vote(self, author: int, round_no: int, seat: int) -> None:
        """`Disputes._vote`; with sharing on it also notes whether the voter is a share holder
        as it votes (the rebuild's bar counts those votes)."""
        if self.share_threshold is not None and \
                author in self.share_holders(self.share_threshold, ()):
            self.holder_votes.setdefault((round_no, seat), set()).add(author)
        super()._vote(author, round_no, seat)

    def rebuildable(self, seat: int) -> bool:
        """Whether ``seat`` lost now would be rebuilt (docs/dealing.md, "Rebuildable"): for
        every generation of the running round it committed and whose passes have begun, at
        least ``t`` of that commit's holders other than it are holders still."""
        holders = set(self.share_holders(self.share_threshold, ())) - {seat}
        for generation in sorted(self.generations):
            if seat not in self._commits.get(generation, ()) or not self._passes.get(generation):
                continue
            sharing = self._sharing_of(generation)
            if sharing is None or \
                    len(set(sharing.commit_holders(seat)) & holders) < self.share_threshold:
                return False
        return True

    def _lost_or_waiting(self, seat: int, round_no: int) -> bool:
        """`Disputes._lost_or_waiting`, sharing on (docs/dealing.md, "The vote's bar, with
        sharing on"): a rebuildable seat is lost, the round going on, once ``t`` of the votes
        are holders' other than its own; until then the votes wait (or the host's ``"vote"``
        timeout voids the round).  A seat not rebuildable: the round is void, as without."""
        if not self.rebuilds_lost or self.share_threshold is None or not self.rebuildable(seat):
            return False
        if len(self.holder_votes.get((round_no, seat), set()) - {seat}) >= self.share_threshold:
            self._lose(seat, round_no)
        return True

    def _lose(self, seat: int, round_no: int) -> None:
        """R1: ``seat`` is lost at this message and the round goes on.  It is vacant (its key's
        messages refused) and pays ``leave_penalty`` as a seat voted gone does (not the host's
        stand-in, nor a seat charged for its silence since); its commit of a generation whose
        passes have not begun is dropped (its replacement commits afresh); every party's deal
        rebuilds it (`_lose_own`)."""
        holders = self.share_holders(self.share_threshold, ())
        paid = not self.stand_in(seat) and seat not in self.charged_silent
        self.lost.append((round_no, seat))
        self.silenced.pop(seat, None)
        self.vacant[seat] = round_no
        for generation in self.generations:
            if not self._passes.get(generation):
                self._commits.get(generation, set()).discard(seat)
        self.public.lose_seat(seat, pays=paid)
        self.replay.lose(seat, paid)
        self._lose_own(seat, holders, paid)

    def _lose_own(self, seat: int, holders: tuple[int, ...], paid: bool) -> None:
        """Hook: the party's own deal and replica lose ``seat`` too (``holders``: the holders at
        the deciding vote)."""
