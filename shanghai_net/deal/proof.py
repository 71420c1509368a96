"""Optional cut-and-choose proof that a pass-1 output is the input keyed and permuted.

Sako-Kilian style, made non-interactive with Fiat-Shamir.  For each of ``ROUNDS`` rounds the
prover shuffles the input X afresh, Z = b·ρ(X), with b and ρ from the injected random source
(never from the seed: two proofs over different inputs with the same b would reveal a).  The
challenge bits are ``SHAKE-256(b"shanghai-net v1 shuffle proof" || ctx || u8 author
|| X... || Y... || Z_1... || ... || Z_R...)`` read least-significant bit first.  Bit 0 opens
(b, ρ), showing Z from X; bit 1 opens (a·b⁻¹, τ) with τ = ρ⁻¹∘π, showing Y from Z.  Each opening
alone is uniformly random, so nothing about a or π leaks; a prover whose Y is not a·π(X) passes
a round with probability 1/2 at most, so all ``ROUNDS`` with 2^-40.

Encoding: ``msgpack([[Z_r as one bytes of 32·n] per round, [[scalar, [index...]] per round]])``.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import msgpack

from .group import POINT_BYTES, invert, is_scalar, multiply_all, reduce_scalar, scalar_mul
from .messages import Context
from .randomness import RandomBytes
from .seeds import fisher_yates

ROUNDS = 40
PROOF_TAG = b"shanghai-net v1 shuffle proof"


def _challenge(context: Context, author: int, inputs: Sequence[bytes], outputs: Sequence[bytes],
               shuffles: Sequence[bytes]) -> list[int]:
    h = hashlib.shake_256(PROOF_TAG + context.encode() + bytes([author]))
    for chunk in (b"".join(inputs), b"".join(outputs), *shuffles):
        h.update(chunk)
    bits = int.from_bytes(h.digest((ROUNDS + 7) // 8), "little")
    return [(bits >> r) & 1 for r in range(ROUNDS)]


def _fresh_scalar(random: RandomBytes) -> bytes:
    scalar = reduce_scalar(random(64))
    while scalar is None:
        scalar = reduce_scalar(random(64))
    return scalar


def prove_shuffle(context: Context, author: int, inputs: Sequence[bytes], outputs: Sequence[bytes],
                  key: bytes, permutation: Sequence[int], random: RandomBytes) -> bytes:
    """Proof that ``outputs[t] == key·inputs[permutation[t]]``."""
    n = len(inputs)
    openings = []
    shuffles = []
    for _ in range(ROUNDS):
        blind = _fresh_scalar(random)
        rho = fisher_yates(random(32), n)
        shuffles.append(b"".join(multiply_all(blind, [inputs[i] for i in rho])))
        openings.append((blind, rho))
    answers = []
    for (blind, rho), bit in zip(openings, _challenge(context, author, inputs, outputs, shuffles)):
        if bit == 0:
            answers.append([blind, rho])
        else:
            rho_inverse = [0] * n
            for t, i in enumerate(rho):
                rho_inverse[i] = t
            answers.append([scalar_mul(key, invert(blind)), [rho_inverse[i] for i in permutation]])
    return msgpack.packb([shuffles, answers])


def verify_shuffle(context: Context, author: int, inputs: Sequence[bytes],
                   outputs: Sequence[bytes], proof: bytes) -> str | None:
    """``None`` if the proof holds, else what is wrong with it."""
    n = len(inputs)
    try:
        shuffles, answers = msgpack.unpackb(proof)
        if len(shuffles) != ROUNDS or len(answers) != ROUNDS:
            return f"the proof has {len(shuffles)} shuffles and {len(answers)} answers"
        bits = _challenge(context, author, inputs, outputs, shuffles)
        for r, ((scalar, order), bit, shuffled) in enumerate(zip(answers, bits, shuffles)):
            if not is_scalar(scalar) or sorted(order) != list(range(n)):
                return f"round {r} opens to a malformed scalar or permutation"
            z = [shuffled[t:t + POINT_BYTES] for t in range(0, len(shuffled), POINT_BYTES)]
            if len(z) != n:
                return f"round {r} shuffle has {len(z)} points, not {n}"
            source, target = (inputs, z) if bit == 0 else (z, outputs)
            if multiply_all(scalar, [source[i] for i in order]) != list(target):
                return f"round {r} (challenge {bit}) does not open"
    except (ValueError, TypeError) as error:
        return f"the proof is malformed ({error})"
    return None
