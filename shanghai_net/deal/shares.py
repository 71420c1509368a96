"""What one generation's seed sharing is, as one participant sees it (sharing on):
who holds shares, the shares this seat holds, the complaints, and the seeds rebuilt from shares
(docs/dealing.md, "Sharing at the commit" and "When a seat is rebuilt").

A commit's holders are the generation's holders (given by the table, from its rules 1 to 4, at
the message that asks for the shuffle) less the dealer, or, for a replacement's fresh commit of a
restarted generation, the holders at the message that seated it.  A commit with fewer than ``t``
of them carries no sharing (a game's holders only decrease): version 9's commit, its seed not
rebuildable, no share of it owed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

from .box import SealedShare
from .errors import CheatDetected
from .group import POINT_BYTES, is_valid_point
from .messages import Commitment, Context, SharedCommitment
from .seeds import SeedKeys, commitment_digest
from .sharing import SHARE_BOX_BYTES, SealedSeedShare, deal_seed


@dataclass
class GenerationShares:
    threshold: int
    holders: tuple[int, ...]
    """The generation's holders at its due message, ascending."""
    recommitted: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """dealer -> the holders of its fresh commit of this generation (a restarted generation)."""
    held: dict[int, bytes] = field(default_factory=dict)
    """dealer -> this seat's share of the dealer's seed, opened and checked."""
    complaints: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """complainer -> the dealers whose shares of this generation it complained of, in order."""
    rebuilt: dict[int, bytes] = field(default_factory=dict)
    """seat -> its seed, rebuilt from its holders' shares (public from then on)."""
    published: dict[int, dict[int, bytes]] = field(default_factory=dict)
    """lost seat -> holder -> its published share of the seat's seed, in stream order."""
    handed: list = field(default_factory=list)
    """The boxes that handed a lost seat's hand to its replacement (deal/handed.py)."""
    successors: dict[int, bytes] = field(default_factory=dict)
    """seat -> its replacement's box key (raw): what boxes to the seat are sealed to from
    ``replaced_at[seat]`` on."""
    replaced_at: dict[int, int] = field(default_factory=dict)
    """seat -> how many key-share boxes the generation carried when its replacement sat."""
    _keys: dict[int, SeedKeys] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def at(cls, threshold: int, holders: Iterable[int], seats: int) -> GenerationShares:
        holders = tuple(sorted(set(holders)))
        if not all(isinstance(h, int) and 0 <= h < seats for h in holders):
            raise ValueError(f"holders {list(holders)} are not seats of {seats}")
        return cls(threshold, holders)

    def complain(self, complainer: int, dealer: int) -> None:
        if dealer not in self.complaints.get(complainer, ()):
            self.complaints[complainer] = (*self.complaints.get(complainer, ()), dealer)

    def commit_holders(self, dealer: int) -> tuple[int, ...]:
        """The holders a commit of ``dealer`` deals to: none when it has fewer than ``t``
        (its commit carries no sharing)."""
        holders = self.recommitted[dealer] if dealer in self.recommitted else \
            tuple(h for h in self.holders if h != dealer)
        return holders if len(holders) >= self.threshold else ()

    def dealers_held_by(self, holder: int, commitments: Mapping[int, Commitment]) -> list[int]:
        """The dealers, ascending, whose commit has ``holder`` among its holders."""
        return [d for d in sorted(commitments) if holder in self.commit_holders(d)]

    def box_key_of(self, seat: int, index: int, roster_key: X25519PublicKey) -> X25519PublicKey:
        """The box key that held ``seat`` when the generation's ``index``-th box was sealed."""
        if seat in self.replaced_at and index >= self.replaced_at[seat]:
            return X25519PublicKey.from_public_bytes(self.successors[seat])
        return roster_key

    def rebuilt_keys(self, context: Context, seat: int, size: int) -> SeedKeys:
        if seat not in self.rebuilt:
            raise ValueError(f"generation {context.generation}: seat {seat}'s seed is not rebuilt")
        if seat not in self._keys:
            self._keys[seat] = SeedKeys(context, seat, self.rebuilt[seat], size)
        return self._keys[seat]

    def to_plain(self) -> list[Any]:
        return [self.threshold, list(self.holders), sorted(self.recommitted.items()),
                sorted(self.held.items()), sorted(self.complaints.items()),
                sorted(self.rebuilt.items()),
                [[seat, list(shares.items())] for seat, shares in self.published.items()],
                [[b.author, b.recipient, list(b.positions), b.epk, b.ciphertext]
                 for b in self.handed],
                sorted(self.successors.items()), sorted(self.replaced_at.items())]

    @classmethod
    def from_plain(cls, context: Context, plain: Any) -> GenerationShares:
        (threshold, holders, recommitted, held, complaints, rebuilt, published, handed,
         successors, replaced_at) = plain
        return cls(threshold, tuple(holders), {d: tuple(h) for d, h in recommitted},
                   dict(map(tuple, held)), {c: tuple(ds) for c, ds in complaints},
                   dict(map(tuple, rebuilt)),
                   {seat: dict(map(tuple, shares)) for seat, shares in published},
                   [SealedShare(context, a, r, tuple(ps), epk, box)
                    for a, r, ps, epk, box in handed],
                   dict(map(tuple, successors)), dict(map(tuple, replaced_at)))


def shared_commit(context: Context, dealer: int, seed: bytes, threshold: int,
                  holder_keys: Mapping[int, X25519PublicKey]) -> SharedCommitment:
    """The dealer's commit: its seed digest, and its sharing for the commit's holders."""
    feldman, boxes = deal_seed(context, dealer, seed, threshold, holder_keys)
    return SharedCommitment(context, dealer, commitment_digest(context, dealer, seed),
                            tuple(feldman), tuple((b.holder, b.epk, b.box) for b in boxes))


def sealed_shares(commitment: SharedCommitment) -> dict[int, SealedSeedShare]:
    """holder -> the share box the commit carries for it."""
    return {holder: SealedSeedShare(commitment.context, commitment.author, holder, epk, box)
            for holder, epk, box in commitment.shares}


def check_commit(sharing: GenerationShares, commitment: Commitment) -> None:
    """What every party checks of a sequenced commit: with ``t`` holders or more, a commit with
    sharing, with exactly the table's ``t`` commitments and one 48-byte box for each of its
    holders, ascending; with fewer, a commit without (else a ValueError: the commit is refused);
    every commitment a valid point (else its dealer is named)."""
    dealer = commitment.author
    holders = sharing.commit_holders(dealer)
    shared = isinstance(commitment, SharedCommitment)
    if shared != bool(holders):
        raise ValueError(f"seat {dealer}'s commit of generation {commitment.context.generation} "
                         "refused: " + (f"it carries a sharing, with fewer holders than the "
                                        f"table's t = {sharing.threshold}" if shared else
                                        f"it carries no sharing, with {len(holders)} holders "
                                        f"(the table's t = {sharing.threshold})"))
    if not shared:
        return
    feldman, shares = commitment.feldman, commitment.shares
    problem = None
    to = [entry[0] if isinstance(entry, tuple) and len(entry) == 3 else None
          for entry in shares] if isinstance(shares, tuple) else None
    if not isinstance(feldman, tuple):
        problem = "share commitments that are no list"
    elif len(feldman) != sharing.threshold:
        problem = f"{len(feldman)} share commitments, not the table's {sharing.threshold}"
    elif not all(isinstance(c, bytes) and len(c) == POINT_BYTES for c in feldman):
        problem = "a share commitment that is not 32 bytes"
    elif to != list(holders):
        problem = f"share boxes for seats {to}, not for {list(holders)}"
    elif not all(isinstance(epk, bytes) and len(epk) == 32 and isinstance(box, bytes)
                 and len(box) == SHARE_BOX_BYTES for _, epk, box in shares):
        problem = f"a share box that is not a 32-byte key and {SHARE_BOX_BYTES} bytes"
    if problem:
        raise ValueError(f"seat {dealer}'s commit of generation {commitment.context.generation} "
                         f"refused: {problem}")
    for k, point in enumerate(feldman):
        if not is_valid_point(point):
            raise CheatDetected(dealer, f"seat {dealer}: share commitment {k} of generation "
                                        f"{commitment.context.generation} is not a valid point")
