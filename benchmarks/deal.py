"""Shuffle and deal one round in one process and compare the time with its multiplication floor.

Usage: ``python benchmarks/deal.py --players N [--proof] [--sharing T]``.  Two decks and four
jokers (108 cards), 11 cards to each player, one card turned up; every seat is simulated here, so
the time is the sum of all seats' work.  The fastest of ``--repeat`` rounds counts, after a
warm-up.  The last line is ``deal_seconds=... mults=... one_mult_ms=... limit_ratio=...`` where
limit_ratio = deal_seconds / (mults × one_mult): 1.0 would mean nothing but scalar
multiplications.

``--sharing T`` adds, on the same line, what dropout-tolerant dealing (docs/dealing.md) would add
to that deal with threshold ``T``: every seat deals a version-8 seed to the others (commitments
and sealed shares) and every holder opens and checks its share (``sharing_seconds``,
``sharing_mults``); ``deal_bytes`` and ``sharing_bytes`` count the deal's points, keys, digests
and boxes and the sharing's commitments and boxes (no framing); ``time_ratio`` is the deal with
the sharing over the deal without; ``rebuild_seconds`` and ``rebuild_mults`` are one party's
rebuild of one lost seat's seed from ``T`` published shares.  The sharing is not wired into the
deal yet, so it runs beside it, on fresh seeds.
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
from shanghai_net.deal.messages import Context  # noqa: E402
from shanghai_net.deal.seeds import commitment_digest  # noqa: E402
from shanghai_net.deal.sharing import deal_seed, open_share, rebuild, seed_scalar  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey  # noqa: E402

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


def deal_round(players: int, proof: bool) -> tuple[float, int, MentalTable]:
    before = multiplications()
    start = time.perf_counter()
    table = MentalTable(players, secrets.token_bytes, cards=deck(2, 4), shuffle_proof=proof)
    for seat in range(players):
        table.open_many_to(range(HAND * seat, HAND * (seat + 1)), seat)
    table.open_public(HAND * players)
    return time.perf_counter() - start, multiplications() - before, table


def deal_bytes(table: MentalTable) -> int:
    """The deal's digests, points, boxes (with their box keys) and revealed keys."""
    g = table.participants[0].generation(0)
    return 32 * (len(g.commitments) + sum(len(p.points) for p in g.passes)
                 + sum(len(r.keys) for r in g.reveals) + len(g.boxes)) \
        + sum(len(b.ciphertext) for b in g.boxes)


def sharing_round(players: int, threshold: int) -> tuple[float, int, int, list]:
    """Every seat deals a fresh version-8 seed to the others; every holder opens and checks its
    share (which checks every commitment).  Also returns each dealer's
    (context, seat, seed, commitments, shares), for the rebuild."""
    box = [X25519PrivateKey.from_private_bytes(secrets.token_bytes(32)) for _ in range(players)]
    context = Context(secrets.token_bytes(16), 1, 0)
    before = multiplications()
    start = time.perf_counter()
    size, dealt = 0, []
    for dealer in range(players):
        seed = seed_scalar(secrets.token_bytes)
        holders = {h: box[h].public_key() for h in range(players) if h != dealer}
        commitments, boxes = deal_seed(context, dealer, seed, threshold, holders)
        shares = {b.holder: open_share(box[b.holder], b, commitments, threshold) for b in boxes}
        size += 32 * len(commitments) + sum(32 + len(b.box) for b in boxes)
        dealt.append((context, dealer, seed, commitments, shares))
    return time.perf_counter() - start, multiplications() - before, size, dealt


def rebuild_once(dealt: tuple, threshold: int) -> tuple[float, int]:
    """One party rebuilds one dealer's seed from the first ``threshold`` of its shares."""
    context, dealer, seed, commitments, shares = dealt
    digest = commitment_digest(context, dealer, seed)
    shares = dict(list(shares.items())[:threshold])
    before = multiplications()
    start = time.perf_counter()
    if rebuild(context, dealer, threshold, commitments, digest, shares) != seed:
        raise AssertionError("the rebuild gave another seed")
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
    if args.sharing is not None and not 1 <= args.sharing < args.players:
        parser.error(f"--sharing takes a threshold from 1 to {args.players - 1}")
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
        sharing_round(args.players, args.sharing)  # warm-up
        shared = [sharing_round(args.players, args.sharing) for _ in range(repeat)]
        share_seconds, share_mults, share_bytes, dealt = min(shared, key=lambda r: r[0])
        rebuild_seconds, rebuild_mults = min(rebuild_once(d, args.sharing) for d in dealt)
        line += (f" deal_bytes={deal_bytes(table)} sharing_seconds={share_seconds:.4f} "
                 f"sharing_mults={share_mults} sharing_bytes={share_bytes} "
                 f"time_ratio={(seconds + share_seconds) / seconds:.3f} "
                 f"rebuild_seconds={rebuild_seconds:.4f} rebuild_mults={rebuild_mults}")
    print(line)


if __name__ == "__main__":
    main()
