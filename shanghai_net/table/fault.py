"""A broken protocol, and whom the evidence names."""

from __future__ import annotations

from ..wire.messages import HOST_AUTHOR

__all__ = ["Fault", "ProvenCheat"]


class Fault(Exception):
    """A peer (or the host: ``culprit == HOST_AUTHOR``) broke the protocol; ``culprit`` is None
    when the evidence cannot tell who."""

    def __init__(self, culprit: int | None, reason: str) -> None:
        super().__init__(reason)
        self.culprit = culprit
        self.reason = reason

    def __str__(self) -> str:
        who = "the host" if self.culprit == HOST_AUTHOR else (
            "unknown" if self.culprit is None else f"seat {self.culprit}")
        return f"fault by {who}: {self.reason}"


class ProvenCheat(Fault):
    """A deal step in its place whose own content, under its author's signature, breaks the deal
    (a pass that repeats a point, a reveal that opens to no card, a nonce off its commitment):
    the message is the evidence, so the host sequences it rather than refuse it (a refusal
    would leave the round stalled with no one named), and every party names its author."""
