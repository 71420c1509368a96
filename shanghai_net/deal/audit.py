"""The round-end audit: with every seed revealed, recompute every step and name the first seat
whose step does not match.

Steps are checked in protocol order, seats in pass order within a step: seed commitments, pass 1,
pass 2, key shares (as their recipients report them, each signed by its author), public reveals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .errors import CheatDetected
from .generation import Generation
from ..cards import Card
from .group import invert, multiply, multiply_all, multiply_each, scalar_product
from .messages import verify
from .seeds import SeedKeys, commitment_digest


@dataclass(frozen=True)
class Verdict:
    """``culprit`` is ``None`` when every step matched."""

    culprit: int | None
    reason: str

    @property
    def clean(self) -> bool:
        return self.culprit is None


CLEAN = Verdict(None, "every step matches its seed")


def audit(generations: Sequence[Generation], signing_keys: Sequence[Ed25519PublicKey]) -> Verdict:
    for generation in generations:
        try:
            _audit_generation(generation, signing_keys)
        except CheatDetected as cheat:
            return Verdict(cheat.culprit, f"generation {generation.context.generation}: "
                                          f"{cheat.reason}")
    return CLEAN


def opened_deck(g: Generation) -> tuple[Card, ...]:
    """The generation's cards in position order, opened from every seat's revealed seed: for
    replaying a round, or checking the faces it showed.  Only for a generation audited clean."""
    keys = [SeedKeys(g.context, seat, g.seed_reveals[seat].seed, g.size).card_keys
            for seat in range(g.seats)]
    return tuple(g.card_points[multiply(invert(scalar_product(k[position] for k in keys)), point)]
                 for position, point in enumerate(g.final_deck))


def _audit_generation(g: Generation, signing_keys: Sequence[Ed25519PublicKey]) -> None:
    keys = [_seat_keys(g, seat) for seat in range(g.seats)]
    for step, output in enumerate(g.passes):
        phase, seat = g.step_of(step)
        inputs = g.step_input(step)
        if phase == 1:
            expected = multiply_all(keys[seat].pass_key, [inputs[i] for i in keys[seat].permutation])
            what = "pass 1 output is not its key times the permuted input"
        else:
            expected = multiply_each(keys[seat].layer_swaps, inputs)
            what = "pass 2 output is not its per-card keys over its pass-1 key"
        if list(output.points) != expected:
            raise CheatDetected(seat, f"seat {seat}: {what}")
    for share in sorted(g.evidence, key=lambda s: (s.author, s.recipient, s.positions)):
        try:
            verify(share, signing_keys[share.author])
        except ValueError:
            raise CheatDetected(share.recipient, f"seat {share.recipient}: reports a key share "
                                                 f"seat {share.author} did not sign") from None
        if len(share.keys) != len(share.positions) or \
                not all(isinstance(p, int) and 0 <= p < g.size for p in share.positions):
            raise CheatDetected(share.author, f"seat {share.author}: signed a malformed key share "
                                              f"for positions {list(share.positions)}")
        for position, key in zip(share.positions, share.keys):
            if key != keys[share.author].card_keys[position]:
                raise CheatDetected(share.author, f"seat {share.author}: per-card key for position "
                                                  f"{position} sent to seat {share.recipient} does "
                                                  "not match its seed")
    for reveal in g.reveals:
        for seat, key in reveal.keys:
            if key != keys[seat].card_keys[reveal.position]:
                raise CheatDetected(reveal.author, f"seat {reveal.author}: reveal of position "
                                                   f"{reveal.position} carries a key for seat {seat} "
                                                   "that does not match its seed")


def _seat_keys(g: Generation, seat: int) -> SeedKeys:
    reveal = g.seed_reveals.get(seat)
    if reveal is None:
        raise CheatDetected(seat, f"seat {seat}: revealed no seed")
    try:  # KeyError: no commitment, which only a generation no seat passed can lack, since
        # each pass waits for every seat's (Participant._require_commitments)
        matches = g.commitments[seat].digest == commitment_digest(g.context, seat, reveal.seed)
    except (KeyError, ValueError):
        matches = False
    if not matches:
        raise CheatDetected(seat, f"seat {seat}: seed does not match commitment")
    return SeedKeys(g.context, seat, reveal.seed, g.size)

