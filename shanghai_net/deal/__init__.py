"""Trustless dealing (mental poker) as a pure, sans-IO core: see docs/security.md."""

from .audit import Verdict
from .box import SealedShare
from .dealer import MentalDealer
from .errors import CheatDetected, GenerationStopped
from .lost import NotRebuildable
from .messages import (Commitment, Context, KeyReveal, KeyShare, Message, PassOutput,
                       PickCommitment, PickReveal, SeedReveal, SharedCommitment,
                       SharedSeedReveal, ShareReveal)
from .participant import Participant, Token
from .randomness import RandomBytes, seeded
from .table import MentalTable

__all__ = ["CheatDetected", "Commitment", "Context", "GenerationStopped", "KeyReveal", "KeyShare",
           "MentalDealer", "MentalTable", "Message", "NotRebuildable", "Participant", "PassOutput",
           "PickCommitment", "PickReveal", "RandomBytes", "SealedShare", "SeedReveal",
           "ShareReveal", "SharedCommitment", "SharedSeedReveal", "Token", "Verdict", "seeded"]
