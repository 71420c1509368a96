"""The one exception a dishonest peer provokes."""

from __future__ import annotations


class CheatDetected(Exception):
    """A peer broke the protocol.

    ``culprit`` is the seat at fault, or ``None`` when the evidence at hand cannot tell who (a card
    that does not open: a key or a pass is wrong); the round-end audit then names the seat.
    """

    def __init__(self, culprit: int | None, reason: str) -> None:
        super().__init__(reason)
        self.culprit = culprit
        self.reason = reason


class GenerationStopped(ValueError):
    """This seat complained of a share it holds of a generation: it sends nothing more of that
    generation (no pass, no key), so no step of it can be read as vouching for the share."""
