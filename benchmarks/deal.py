"""Shuffle and deal one round in one process and compare the time with its multiplication floor.

Usage: ``python benchmarks/deal.py --players N [--proof]``.  Two decks and four jokers (108
cards), 11 cards to each player, one card turned up; every seat is simulated here, so the time
is the sum of all seats' work.  The fastest of ``--repeat`` rounds counts, after a warm-up.  The last line is ``deal_seconds=... mults=... one_mult_ms=...
limit_ratio=...`` where limit_ratio = deal_seconds / (mults × one_mult): 1.0 would mean nothing
but scalar multiplications.
"""

from __future__ import annotations

import argparse
import hashlib
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nacl._sodium import ffi, lib  # noqa: E402

from shanghai_net.cards import deck  # noqa: E402
from shanghai_net.deal import MentalTable  # noqa: E402
from shanghai_net.deal.group import card_point, multiplications, reduce_scalar  # noqa: E402

HAND = 11


def one_mult_ms(count: int = 2000) -> float:
    """The bare libsodium call, best of three batches: the floor a multiplication costs here."""
    scalar = reduce_scalar(hashlib.sha512(b"benchmark").digest())
    points = [card_point(i) for i in range(108)]
    out = ffi.new("unsigned char[]", 32)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for i in range(count):
            lib.crypto_scalarmult_ed25519_noclamp(out, scalar, points[i % 108])
        best = min(best, (time.perf_counter() - start) / count)
    return best * 1000


def deal_round(players: int, proof: bool) -> tuple[float, int]:
    before = multiplications()
    start = time.perf_counter()
    table = MentalTable(players, secrets.token_bytes, cards=deck(2, 4), shuffle_proof=proof)
    for seat in range(players):
        table.open_many_to(range(HAND * seat, HAND * (seat + 1)), seat)
    table.open_public(HAND * players)
    return time.perf_counter() - start, multiplications() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--proof", action="store_true", help="prove and check every pass-1 shuffle")
    parser.add_argument("--repeat", type=int, help="rounds to time, the fastest counts "
                                                   "(default 5, 1 with --proof)")
    args = parser.parse_args()
    repeat = args.repeat or (1 if args.proof else 5)
    MentalTable(3, secrets.token_bytes, cards=deck(1, 0)[:4])  # first-use costs (lazy imports)
    mult_ms = one_mult_ms()
    seconds, mults = min(deal_round(args.players, args.proof) for _ in range(repeat))
    mult_ms = min(mult_ms, one_mult_ms())
    ratio = seconds / (mults * mult_ms / 1000)
    print(f"deal_seconds={seconds:.4f} mults={mults} one_mult_ms={mult_ms:.4f} "
          f"limit_ratio={ratio:.3f}")


if __name__ == "__main__":
    main()
