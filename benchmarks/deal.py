"""Shuffle and deal one round in one process and compare the time with its multiplication floor.

Usage: ``python benchmarks/deal.py --players N [--proof] [--sharing T]``.  Two decks and four
jokers (108 cards), 11 cards to each player, one card turned up; every seat is simulated here, so
the time is the sum of all seats' work.  The fastest of ``--repeat`` rounds counts, after a
warm-up.  The last line is ``deal_seconds=... mults=... one_mult_ms=... limit_ratio=...`` where
limit_ratio = deal_seconds / (mults × one_mult): 1.0 would mean nothing but scalar
multiplications.

``--sharing T`` deals the same round again with version 9's sharing wired in (docs/dealing.md:
every seat's commit carries its seed's sharing for the other seats, every holder opens and
checks its shares before its pass 1) and adds, on the same line, ``shared_seconds`` and
``shared_mults`` (that deal, fastest of ``--repeat``), ``deal_bytes`` and ``shared_bytes`` (the
deal's points, keys, digests and boxes, and with sharing the commitments and share boxes too; no
framing), ``time_ratio`` (shared over plain), and ``rebuild_seconds``/``rebuild_mults``: one
party's R1 rebuild of a seat lost after the deal, from ``T`` published shares (each checked),
its seed checked and its past steps checked at once.
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
from shanghai_net.deal.messages import SharedCommitment  # noqa: E402

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


def deal_round(players: int, proof: bool, threshold: int | None = None
               ) -> tuple[float, int, MentalTable]:
    before = multiplications()
    start = time.perf_counter()
    table = MentalTable(players, secrets.token_bytes, cards=deck(2, 4), shuffle_proof=proof,
                        share_threshold=threshold)
    for seat in range(players):
        table.open_many_to(range(HAND * seat, HAND * (seat + 1)), seat)
    table.open_public(HAND * players)
    return time.perf_counter() - start, multiplications() - before, table


def deal_bytes(table: MentalTable) -> int:
    """The deal's digests, points, boxes (with their box keys) and revealed keys, and with
    sharing the commitments and the share boxes (with theirs)."""
    g = table.participants[0].generation(0)
    shared = sum(32 * len(c.feldman) + sum(len(epk) + len(box) for _, epk, box in c.shares)
                 for c in g.commitments.values() if isinstance(c, SharedCommitment))
    return 32 * (len(g.commitments) + sum(len(p.points) for p in g.passes)
                 + sum(len(r.keys) for r in g.reveals) + len(g.boxes)) \
        + sum(len(b.ciphertext) for b in g.boxes) + shared


def rebuild_once(table: MentalTable) -> tuple[float, int]:
    """Seat 0's R1 rebuild of seat 1, lost after the deal: its own and ``t-1`` other holders'
    shares checked, the seed rebuilt and checked, and seat 1's past steps checked against it."""
    lost, parties = 1, table.participants
    left = [seat for seat in range(len(parties)) if seat != lost]
    for seat in left:
        parties[seat].lose(lost, left)
    reveals = [parties[h].share_reveal(lost) for h in left[1:table.share_threshold]]
    before = multiplications()
    start = time.perf_counter()
    parties[0].share_reveal(lost)
    for reveal in reveals:
        parties[0].receive(reveal)
    if not parties[0].rebuilt(lost):
        raise AssertionError("the rebuild did not complete")
    return time.perf_counter() - start, multiplications() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--proof", action="store_true", help="prove and check every pass-1 shuffle")
    parser.add_argument("--repeat", type=int, help="rounds to time, the fastest counts "
                                                   "(default 5, 1 with --proof)")
    parser.add_argument("--sharing", type=int, metavar="T",
                        help="also measure threshold sharing of every seed, threshold T")
    args = parser.parse_args()
    if args.sharing is not None and not 2 <= args.sharing < args.players:
        parser.error(f"--sharing takes a threshold from 2 to {args.players - 1}")
    repeat = args.repeat or (1 if args.proof else 5)
    MentalTable(3, secrets.token_bytes, cards=deck(1, 0)[:4])  # first-use costs (lazy imports)
    mult_ms = one_mult_ms()
    rounds = [deal_round(args.players, args.proof) for _ in range(repeat)]
    seconds, mults, table = min(rounds, key=lambda r: r[0])
    mult_ms = min(mult_ms, one_mult_ms())
    ratio = seconds / (mults * mult_ms / 1000)
    line = (f"deal_seconds={seconds:.4f} mults={mults} one_mult_ms={mult_ms:.4f} "
            f"limit_ratio={ratio:.3f}")
    if args.sharing is not None:
        shared = [deal_round(args.players, args.proof, args.sharing) for _ in range(repeat)]
        shared_seconds, shared_mults, shared_table = min(shared, key=lambda r: r[0])
        rebuild_seconds, rebuild_mults = min(rebuild_once(t) for _, _, t in shared)
        line += (f" deal_bytes={deal_bytes(table)} shared_seconds={shared_seconds:.4f} "
                 f"shared_mults={shared_mults} shared_bytes={deal_bytes(shared_table)} "
                 f"time_ratio={shared_seconds / seconds:.3f} "
                 f"rebuild_seconds={rebuild_seconds:.4f} rebuild_mults={rebuild_mults}")
    print(line)


if __name__ == "__main__":
    main()
