"""The dropout-tolerant deal's seed sharing as the table reads it from the stream
(docs/dealing.md), behind start_game's ``share_threshold``, which no host offers yet: each
generation's holders at its due message, a complaint of a seed share, and R2, the seats silent
at their seeds rebuilt from the shares in the others' seeds so that the audit checks them in
full. `SeedSharing` is the part of `StreamTable` that holds it; each party keeps the sharing
itself (`_sharing_of`): a seat in its `Participant`, the public table in its records."""

from __future__ import annotations

from typing import Callable

from ..deal.shares import GenerationShares
from ..wire import messages as wm


class SeedSharing:
    """The part of `StreamTable` that reads the seed sharing off the stream: see the module."""

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
