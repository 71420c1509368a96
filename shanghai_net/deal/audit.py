"""The round-end audit: with every seed revealed, recompute every step and name the first seat
whose step does not match.

Steps are checked in protocol order, seats in pass order within a step: seed commitments, pass 1,
pass 2, sealed key shares (every box the stream carried, opened with the box secret its sender's
seed gives: it must open to the keys of its header's positions that the seed gives),
public reveals.  So every fault a seat may only see privately (a card that opens to nothing, a
box that does not open, a wrong key in it) is decided here from public data, and a complaint that
none of them bears out is its complainer's fault.

A seat's every step is a function of its own seed and public data, so a round whose seeds did
not all arrive is still audited seat by seat: the steps of the seats in ``absent`` are skipped,
and those of everyone else checked as usual (a cheat by a seat that opened its seeds is named
whoever else stayed silent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

from .box import SealedShare, share_in, unseal_with_secret
from .errors import CheatDetected
from .generation import Generation
from .handed import audit_handed
from ..cards import Card
from .group import InvalidPoint, is_scalar, multiply_all, multiply_each
from .seeds import SeedKeys, commitment_digest
from .shares import sealed_shares
from .sharing import audit_dealing, check_seed


@dataclass(frozen=True)
class Verdict:
    """``culprit`` is ``None`` when every step matched."""

    culprit: int | None
    reason: str

    @property
    def clean(self) -> bool:
        return self.culprit is None


CLEAN = Verdict(None, "every step matches its seed")


def audit(generations: Sequence[Generation], box_keys: Sequence[X25519PublicKey],
          absent: frozenset[int] = frozenset()) -> Verdict:
    """The first seat whose step its seed contradicts; the steps of ``absent`` seats, whose
    seeds never arrived, are not checked."""
    for generation in generations:
        try:
            _audit_generation(generation, box_keys, absent)
        except CheatDetected as cheat:
            return Verdict(cheat.culprit, f"generation {generation.context.generation}: "
                                          f"{cheat.reason}")
    return CLEAN


def opened_deck(g: Generation) -> tuple[Card, ...]:
    """The generation's cards in position order, opened from every seat's revealed seed: for
    replaying a round, or checking the faces it showed.  Only for a generation audited clean:
    every pass then did what its seed says, so position ``t`` of the final deck holds the card
    the seats' pass-1 permutations bring there (pass 2 moves nothing), and no point need be
    multiplied to know it."""
    permutations = [SeedKeys(g.context, seat, g.seed_of(seat), g.size).permutation
                    for seat in range(g.seats)]
    deck = []
    for position in range(g.size):
        for permutation in reversed(permutations):  # the last pass's input back to the cards
            position = permutation[position]
        deck.append(g.cards[position])
    return tuple(deck)


def _audit_generation(g: Generation, box_keys: Sequence[X25519PublicKey],
                      absent: frozenset[int]) -> None:
    keys = {seat: _seat_keys(g, seat) for seat in range(g.seats) if seat not in absent}
    if g.sharing:
        for dealer in keys:
            if g.sharing.commit_holders(dealer):  # else its commit carries no sharing (below t)
                audit_sharing(g, dealer, box_keys)
    check_steps(g, keys, box_keys)


def pass_output(g: Generation, step: int, keys: SeedKeys) -> list[bytes]:
    """What pass step ``step`` outputs, made with ``keys`` (its seat's)."""
    inputs = g.step_input(step)
    if g.step_of(step)[0] == 1:
        return multiply_all(keys.pass_key, [inputs[i] for i in keys.permutation])
    return multiply_each(keys.layer_swaps, inputs)


def made_pass(g: Generation, step: int, keys: SeedKeys) -> list[bytes]:
    """`pass_output` made in play (a seat's own pass, a rebuilt seat's): an invalid input point
    names the seat whose output it is (CheatDetected)."""
    try:
        return pass_output(g, step, keys)
    except InvalidPoint as bad:
        position = keys.permutation[bad.index] if g.step_of(step)[0] == 1 else bad.index
        before, author = g.step_of(step - 1)
        raise CheatDetected(author, f"seat {author}: pass {before} output position "
                                    f"{position} is not a valid point") from None


def check_steps(g: Generation, keys: dict[int, SeedKeys],
                box_keys: Sequence[X25519PublicKey]) -> None:
    """Every step in the stream of the seats in ``keys`` recomputed from their seeds, in
    protocol order: passes, sealed key shares, the boxes handing a lost hand on, reveals.  The audit checks every seat's; a
    rebuild checks the rebuilt seat's at once."""
    for step, output in enumerate(g.passes):
        phase, seat = g.step_of(step)
        if seat in keys and list(output.points) != pass_output(g, step, keys[seat]):
            what = ("pass 1 output is not its key times the permuted input" if phase == 1 else
                    "pass 2 output is not its per-card keys over its pass-1 key")
            raise CheatDetected(seat, f"seat {seat}: {what}")
    for index, sealed in enumerate(g.boxes):
        if sealed.author in keys:
            recipient = box_keys[sealed.recipient]
            if g.sharing:
                recipient = g.sharing.box_key_of(sealed.recipient, index, recipient)
            _audit_box(g, sealed, keys[sealed.author], recipient)
    for sealed in g.sharing.handed if g.sharing else ():
        if sealed.author in keys:
            audit_handed(g, sealed, keys[sealed.author])
    for reveal in g.reveals:
        for seat, key in reveal.keys:
            if seat in keys and key != keys[seat].card_keys[reveal.position]:
                raise CheatDetected(reveal.author, f"seat {reveal.author}: reveal of position "
                                                   f"{reveal.position} carries a key for seat {seat} "
                                                   "that does not match its seed")


def audit_sharing(g: Generation, dealer: int, box_keys: Sequence[X25519PublicKey]) -> None:
    """Sharing on, the audit's step "sharing": the dealer's commitments and share boxes are
    its seed's."""
    commit = g.commitments[dealer]
    audit_dealing(g.context, dealer, g.sharing.threshold, g.seed_of(dealer), commit.digest,
                  commit.feldman, list(sealed_shares(commit).values()),
                  {h: box_keys[h] for h in g.sharing.commit_holders(dealer)})


def _audit_box(g: Generation, sealed: SealedShare, sender: SeedKeys,
               recipient_key: X25519PublicKey) -> None:
    """The box opens with its sender's box secret to the sender's per-card keys of the
    positions its header names; else the sender is named."""
    author, where = sealed.author, f"positions {list(sealed.positions)} for seat {sealed.recipient}"
    if not all(0 <= p < g.size for p in sealed.positions):
        raise CheatDetected(author, f"seat {author}: sealed a share of {where}, off the deck")
    try:
        plaintext = unseal_with_secret(sender.box_secret(sealed.recipient, sealed.positions),
                                       recipient_key, sealed)
        share = share_in(plaintext, sealed)
    except ValueError as error:
        raise CheatDetected(author, f"seat {author}: the box of {where} is bad: {error}") from None
    expected = tuple(sender.card_keys[p] for p in sealed.positions)
    if share.keys != expected or not all(map(is_scalar, share.keys)):
        raise CheatDetected(author, f"seat {author}: the box of {where} holds per-card keys that "
                                    "do not match its seed")


def _seat_keys(g: Generation, seat: int) -> SeedKeys:
    seed = g.seed_of(seat)
    if seed is None:
        raise CheatDetected(seat, f"seat {seat}: revealed no seed")
    if g.sharing and seat in g.commitments:
        check_seed(g.context, seat, seed, g.commitments[seat].digest)
        return SeedKeys(g.context, seat, seed, g.size)
    try:  # KeyError: no commitment, which only a generation no seat passed can lack, since
        # each pass waits for every seat's (Participant._require_commitments)
        matches = g.commitments[seat].digest == commitment_digest(g.context, seat, seed)
    except (KeyError, ValueError):
        matches = False
    if not matches:
        raise CheatDetected(seat, f"seat {seat}: seed does not match commitment")
    return SeedKeys(g.context, seat, seed, g.size)

