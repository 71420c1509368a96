"""Version 10's dropout-tolerant deal as simple_bot plays it (docs/dealing.md, "The scheme"
through "Version 10 messages"): with ``start_game.share_threshold`` ``t`` not nil, each seed is a
scalar that its dealer shares among the generation's holders, Shamir over the scalar field of
Ed25519's prime-order subgroup with Feldman commitments, one sealed share a holder in its
``commit``.  Part of clients/simple_bot.py (see its docstring); like it, it imports nothing from
``shanghai_net``.

Notation as in the design: ``L`` the group's order, ``B`` its base point, holder seat ``j`` at
the abscissa ``j + 1``, scalars 32 bytes little-endian."""

from __future__ import annotations

import hashlib
import struct

from nacl import bindings as sodium

from simple_bot_deal import (box_cipher, context, derive_scalar, pick_digest,
                             seed_commitment)
from simple_bot_wire import BotStopped, Named

L = 2**252 + 27742317777372353535851937790883648493
"""The order of Ed25519's prime-order subgroup."""
SHARE_DOMAIN = b"shanghai-net v8 seed share"
"""The tag of a share box (a name: "v8" is the design's first number, not a version)."""
KEY_DOMAIN = b"shanghai-net v1 key"


def derive(ctx: bytes, seat: int, label: bytes, inputs: bytes, seed: bytes):
    """SHAKE-256 of ``seat``'s ``seed`` read under ``label`` ("One registry of labels")."""
    return hashlib.shake_256(KEY_DOMAIN + ctx + bytes([seat, len(label)]) + label + inputs + seed)


def scalar(value: int) -> bytes:
    return (value % L).to_bytes(32, "little")


def is_scalar(value) -> bool:
    """A canonical nonzero scalar (what a seed and a share must be)."""
    return isinstance(value, bytes) and len(value) == 32 and 0 < int.from_bytes(value, "little") < L


def seed_scalar(random) -> bytes:
    """A seed with sharing on: 64 random bytes reduced mod L, drawn again if zero ("The seed
    becomes a scalar")."""
    while True:
        seed = sodium.crypto_core_ed25519_scalar_reduce(random(64))
        if any(seed):
            return seed


def polynomial(ctx: bytes, dealer: int, t: int, seed: bytes, holders: list[int]) -> list[int]:
    """``a_0 = s`` and ``a_1 .. a_{t-1}`` from the seed's share stream, 64-byte chunks reduced
    mod L, a zero skipped; all drawn again from the next chunks if some holder's share is 0
    ("Sharing at the commit", 1)."""
    stream = derive(ctx, dealer, b"share coefficient", bytes([t]), seed)
    taken = 0

    def chunk() -> int:
        nonlocal taken
        taken += 64
        return int.from_bytes(sodium.crypto_core_ed25519_scalar_reduce(
            stream.digest(taken)[taken - 64:]), "little")

    while True:
        coefficients = [int.from_bytes(seed, "little")]
        while len(coefficients) < t:
            value = chunk()
            if value:
                coefficients.append(value)
        if all(evaluate(coefficients, j + 1) for j in holders):
            return coefficients


def evaluate(coefficients: list[int], x: int) -> int:
    value = 0
    for a in reversed(coefficients):
        value = (value * x + a) % L
    return value


def feldman(coefficients: list[int]) -> list[bytes]:
    """``C_k = a_k·B``, unclamped."""
    return [sodium.crypto_scalarmult_ed25519_base_noclamp(scalar(a)) for a in coefficients]


def share_fits(commitments: list[bytes], holder: int, share: bytes) -> bool:
    """``y·B == Σ x^k·C_k`` at the holder's abscissa ("The holder's check, at once"); every
    commitment must be a point of the group (libsodium refuses one that is not)."""
    if not commitments or not is_scalar(share) or not all(
            isinstance(c, bytes) and len(c) == 32 for c in commitments) \
            or not sodium.crypto_core_ed25519_is_valid_point(commitments[0]):
        return False
    x, expected = holder + 1, commitments[0]
    try:
        for k, point in enumerate(commitments[1:], start=1):
            term = sodium.crypto_scalarmult_ed25519_noclamp(scalar(x**k), point)
            expected = sodium.crypto_core_ed25519_add(expected, term)
    except Exception:  # a point outside the group (or a product of one)
        return False
    return sodium.crypto_scalarmult_ed25519_base_noclamp(share) == expected


def share_associated_data(ctx: bytes, dealer: int, holder: int, t: int) -> bytes:
    return SHARE_DOMAIN + ctx + bytes([dealer, holder, t])


def seal_share(ctx: bytes, dealer: int, holder: int, t: int, seed: bytes, share: int,
               holder_key: bytes) -> dict:
    """Holder ``holder``'s box of the dealer's commit: its secret read from the seed, the share
    sealed to the holder's box key ("Sharing at the commit", 4)."""
    secret = derive(ctx, dealer, b"share box", bytes([holder]), seed).digest(32)
    epk = sodium.crypto_scalarmult_base(secret)
    cipher = box_cipher(secret, holder_key, epk, holder_key, SHARE_DOMAIN)
    box = cipher.encrypt(bytes(12), scalar(share), share_associated_data(ctx, dealer, holder, t))
    return {"to": holder, "epk": epk, "box": box}


def commit_sharing(ctx: bytes, dealer: int, t: int, seed: bytes,
                   holder_keys: dict[int, bytes]) -> dict:
    """What a commit carries with sharing on, beside its digest: ``feldman`` and one share box
    for each of the commit's holders (seat -> box key), ascending."""
    holders = sorted(holder_keys)
    coefficients = polynomial(ctx, dealer, t, seed, holders)
    return {"feldman": feldman(coefficients),
            "shares": [seal_share(ctx, dealer, j, t, seed, evaluate(coefficients, j + 1),
                                  holder_keys[j]) for j in holders]}


def open_share(ctx: bytes, dealer: int, holder: int, t: int, entry: dict, commitments: list,
               own_secret: bytes, own_public: bytes) -> bytes | None:
    """The holder's share from its box, if the box opens and the share is on the dealer's
    ``t`` commitments; None else (the holder then complains of it)."""
    if len(commitments) != t or not isinstance(entry.get("epk"), bytes) \
            or not isinstance(entry.get("box"), bytes):
        return None
    try:
        cipher = box_cipher(own_secret, entry["epk"], entry["epk"], own_public, SHARE_DOMAIN)
        share = cipher.decrypt(bytes(12), entry["box"],
                               share_associated_data(ctx, dealer, holder, t))
    except Exception:  # InvalidTag; or no key agreement with a low-order epk (libsodium)
        return None
    return share if share_fits(commitments, holder, share) else None


def seed_from_shares(shares: dict[int, bytes]) -> bytes:
    """The secret at 0 of the polynomial through ``t`` shares (holder seat -> share): Lagrange,
    ``s = Σ λ_j y_j`` with ``λ_j = Π x_m / (x_m - x_j)`` ("The rebuild")."""
    total = 0
    for j, y in shares.items():
        weight = 1
        for m in shares:
            if m != j:
                weight = weight * (m + 1) * pow(m - j, -1, L) % L
        total = (total + weight * int.from_bytes(y, "little")) % L
    return scalar(total)


def pick_nonce(ctx: bytes, seat: int, pick: int, seed: bytes) -> bytes:
    """A pick's nonce read from the seat's seed of the pick's nonce generation ("Picks are
    decided at the commit"): rebuilt with the seed, so no one chooses a pick by leaving."""
    return derive(ctx, seat, b"pick nonce", struct.pack(">I", pick), seed).digest(32)


class Rebuild:
    """A seat lost mid-round (R1) as the stream rebuilds it: the generations each holder owes
    its shares of, and the shares published (generation -> holder -> share, stream order)."""

    def __init__(self, owed: dict[int, list[int]]) -> None:
        self.owed = owed
        self.published: dict[int, dict[int, bytes]] = {}
        self.timed_out: set[int] = set()
        self.seeds: dict[int, bytes] | None = None
        """generation -> the rebuilt seed, once ``t`` shares of each are in."""

    def owing(self) -> list[int]:
        done = {h for shares in self.published.values() for h in shares}
        return sorted(set(self.owed) - done - self.timed_out)

    def count(self, generation: int, holders) -> int:
        return sum(generation in self.owed[h] for h in holders)

    def generations(self) -> set[int]:
        return {g for gs in self.owed.values() for g in gs}

    def short(self, t: int) -> bool:
        """Some rebuilt generation can no longer reach ``t`` shares."""
        can = set(self.owed) - self.timed_out
        return any(self.count(g, can) < t for g in self.generations())


class LostSeats:
    """R1, a seat lost mid-round at a table sharing seeds (docs/dealing.md "When a seat is
    rebuilt"; protocol.md 11.10), as simple_bot's ``Table`` follows it: the vote's bar with
    sharing on, the loss (the round goes on), the ``share_reveal``s (ours when we owe one, and
    each sequenced one checked), the rebuild, and the host's ``"shares"`` and ``"vote"``
    timeouts; the rebuilt seat's passes not yet made, and its keys of every card, from its
    seed; the replacement seated mid-round is sent its handed boxes, and no move is made
    until every one is in; and playing as that replacement, its hand opened from the rebuilt
    seeds and the handed boxes."""

    rebuilds_lost = True
    """R1 on, as it is in the reference (protocol.md 11.10, "What is on in the reference
    implementation"); off, a vote at a table sharing seeds voids the round as without sharing."""

    def voted(self, author: int, round_no: int, seat: int) -> None:
        """A vote that ``seat`` left; with sharing on, whether its voter is a holder as it
        votes (the rebuild's bar counts those votes)."""
        if author in self.share_holders():
            self.holder_votes.setdefault((round_no, seat), set()).add(author)
        super().voted(author, round_no, seat)

    def lapse(self, seat: int) -> None:
        super().lapse(seat)
        self.holder_votes.pop((self.round_no, seat), None)

    def spend_votes(self, round_no: int) -> None:
        super().spend_votes(round_no)
        for ballot in [key for key in self.holder_votes if key[0] == round_no]:
            del self.holder_votes[ballot]

    def rebuildable(self, seat: int) -> bool:
        """For every generation of the round ``seat`` committed to and whose passes have begun,
        ``t`` of that commit's holders other than it are holders still; never in round 0 (the
        first-dealer pick draws its nonces: a seat voted gone there voids it, 11.3)."""
        if self.round_no == 0:
            return False
        holders = set(self.share_holders()) - {seat}
        return all(seat in gen.feldman and len(set(gen.holders) & holders) >= self.share_threshold
                   for gen in self.gens.values() if seat in gen.commits and gen.outputs)

    def lost_or_waiting(self, seat: int, round_no: int) -> bool:
        """Sharing on: a rebuildable ``seat`` is lost, the round going on, once ``t`` of the
        votes naming it are holders' other than its own; until then the votes wait.  A seat
        not rebuildable: the round is void, as without sharing."""
        if not self.rebuilds_lost or self.share_threshold is None or not self.rebuildable(seat):
            return False
        if len(self.holder_votes.get((round_no, seat), set()) - {seat}) >= self.share_threshold:
            self.lose(seat, round_no)
        return True

    def lose(self, seat: int, round_no: int) -> None:
        """R1: ``seat`` is vacant from here and pays ``leave_penalty``; the round goes on.  Its
        commits of generations whose passes have not begun are dropped (its replacement commits
        afresh); each other generation it committed to is rebuilt from the shares its holders
        (holders now) publish.  The votes that lost it are spent: each voter may vote again in
        the round (protocol.md 11.10, "The votes are spent")."""
        holders = set(self.share_holders()) - {seat}
        self.lapse(seat)
        self.silent.pop(seat, None)
        self.vacant[seat] = round_no
        self.charge(seat)
        self.vote, self.changes = None, self.changes + 1
        owed: dict[int, list[int]] = {}
        for gen in sorted(self.gens.values(), key=lambda g: g.number):
            if seat in gen.commits and not gen.outputs:
                del gen.commits[seat]
            elif seat in gen.commits:
                for holder in sorted(set(gen.holders) & holders):
                    owed.setdefault(holder, []).append(gen.number)
        self.rebuilds[seat] = Rebuild(owed)
        if self.window is not None and seat not in self.window.decided:
            self.claim_answer(seat, "pass")  # claim windows leave it out
        if self.over:  # lost while the hands were shown
            self.show_vacant_hands()

    def show_vacant_hands(self) -> None:
        """The round's end with a seat lost this round still vacant (or lost while the hands
        were shown): each hidden card of its hand is shown without it, as the upturned card
        is, every seat's own key but a lost seat's, which comes from its seed (protocol.md
        11.10, "The round's end with the seat vacant"); so for the round, its replacement
        seated later showing none of them."""
        for seat in sorted(self.rebuilds.keys() & self.vacant.keys()) if self.over else ():
            for token in self.hidden(seat):
                if token not in self.public_owed:
                    self.public_owed[token] = self.keys_owed(token, set(range(self.n)))

    def share_reveal(self) -> dict | None:
        """Our ``share_reveal`` of the first lost seat whose rebuild waits for it."""
        for seat, rebuild in sorted(self.rebuilds.items()):
            if self.seat in rebuild.owing():
                return self.deal("share_reveal", seat=seat, shares=[
                    {"generation": g, "share": self.gens[g].held[seat]}
                    for g in rebuild.owed[self.seat]])
        return None

    def deal_share_reveal(self, author: int, data: dict) -> None:
        """A holder's shares of a lost seat's seeds: each checked against the seat's
        commitments (one off names its author); at ``t`` of every rebuilt generation the seat
        is rebuilt, each seed checked against its digest (off names the seat)."""
        seat, rebuild = data.get("seat"), self.rebuilds.get(data.get("seat"))
        shares = data.get("shares")
        if rebuild is None or self.stopped or author not in rebuild.owing() \
                or not isinstance(shares, list) \
                or [e.get("generation") for e in shares if isinstance(e, dict)] \
                != rebuild.owed[author]:
            raise BotStopped(f"the host sequenced seat {author}'s share_reveal for seat {seat}, "
                             "which it does not owe")
        for entry in shares:
            gen = self.gens[entry["generation"]]
            if not share_fits(gen.feldman[seat], author, entry.get("share")):
                raise Named(author, f"it published a share of seat {seat}'s seed of generation "
                                    f"{gen.number} that is off its commitments")
            rebuild.published.setdefault(gen.number, {})[author] = entry["share"]
        t = self.share_threshold
        if rebuild.seeds is None and all(len(rebuild.published.get(g, {})) >= t
                                         for g in rebuild.generations()):
            self.rebuilt(seat, rebuild)

    def rebuilt(self, seat: int, rebuild: Rebuild) -> None:
        """Every rebuilt generation of ``seat`` has ``t`` shares: its seeds are public, so its
        keys of every card come from them and nobody waits for its key shares."""
        rebuild.seeds = {}
        for number in sorted(rebuild.generations()):
            gen = self.gens[number]
            seed = seed_from_shares(dict(list(rebuild.published[number].items())
                                         [:self.share_threshold]))
            if seed_commitment(gen.ctx, seat, seed) != gen.commits[seat]:
                raise Named(seat, f"its seed of generation {number}, rebuilt from its shares, "
                                  "is not on its commitment")
            rebuild.seeds[number] = seed
        for (recipient, number, position), owers in list(self.owed.items()):
            if not self.keys_owed((number, position), owers):
                del self.owed[(recipient, number, position)]
        for token, owers in list(self.public_owed.items()):
            if seat in owers and not self.keys_owed(token, {seat}):
                self.upturned_key(token, seat, self.gens[token[0]].keys[token[1]][seat])
        if self.shuffling is not None:
            self.passes_made(self.gens[self.shuffling])
        if seat == self.seat:
            self.own_rebuilt_seeds()
        self.rebuilt_nonce(seat)
        self.open_hand()

    def rebuilt_nonce(self, seat: int) -> None:
        """A party lost after its ``pick_commit`` and before its ``pick_reveal`` is rebuilt with
        its nonce, read from its seed of the pick's nonce generation: checked against its
        commit (off names it), the pick decided over every nonce."""
        pick = self.pick
        if pick is None or pick.generation is None or seat in pick.public \
                or seat not in pick.commits or seat in pick.nonces:
            return
        seed = self.public_seed(seat, pick.generation)
        if seed is None:
            return  # a generation restarted, not rebuilt: the rule with sharing off
        nonce = pick_nonce(self.gens[pick.generation].ctx, seat, pick.number, seed)
        if pick_digest(context(self.game_id, pick.round_no, 0), pick.number, pick.n,
                       pick.parties, seat, nonce) != pick.commits[seat]:
            raise Named(seat, f"its nonce for pick {pick.number}, read from its rebuilt seed, "
                              "is not the one it committed to")
        self.news.append(f"pick {pick.number}: seat {seat}'s nonce read from its rebuilt seed")
        self.take_nonce(seat, nonce)

    def public_seed(self, seat: int, number: int) -> bytes | None:
        """``seat``'s seed of generation ``number`` if it is public: the seat was lost this
        round and that seed rebuilt (R1)."""
        rebuild = self.rebuilds.get(seat)
        return rebuild.seeds.get(number) if rebuild is not None and rebuild.seeds else None

    def keys_owed(self, token: tuple[int, int], seats: set[int]) -> set[int]:
        """Of ``seats``, those that owe their key of ``token``: a seat whose seed of its
        generation is public owes none, for any card, turned up or drawn, before its rebuild or
        after (everyone takes its key from the seed).  ``seats`` loses the others, whose keys
        are kept."""
        number, position = token
        for seat in sorted(seats):
            seed = self.public_seed(seat, number)
            if seed is not None:
                seats.discard(seat)
                self.gens[number].keys.setdefault(position, {})[seat] = derive_scalar(
                    self.gens[number].ctx, seat, b"card key", position, seed)
        return seats

    def approved(self, author: int, seq: int) -> None:
        """An approval; one that completes a ``replace`` of a seat lost this round seats the
        replacement mid-round (`seat_approved`)."""
        super().approved(author, seq)
        self.seat_approved(seq)

    def seat_approved(self, seq: int) -> None:
        """The ``replace`` at ``seq`` of a seat lost this round, every approval in, seats the
        replacement at this message, once no draw's key share to the seat is owed (each was
        sealed to the seat's box key when the card was drawn: the ``shares`` body that pays
        the last one seats it); every other seat not vacant whose seed of a generation of the
        seat's hidden cards is not public then owes it one handed box of them (protocol.md
        11.10, "The replacement"; docs/dealing.md, "The replacement takes the hand from that
        turn")."""
        proposal = self.proposals[seq]
        seat = proposal.body["seat"]
        if self.rebuilds_lost and seat in self.rebuilds and seat in self.vacant \
                and not self.needed(proposal) and not self.auditing() \
                and not any(recipient == seat for recipient, _, _ in self.owed):
            self.take_seat(seq)
            self.changes += 1  # no move until its hand is handed on: one in flight is refused
            for number in {g for g, _ in self.hidden(seat)}:
                self.handing[(seat, number)] = {
                    s for s in range(self.n) if s != seat and s not in self.vacant
                    and self.public_seed(s, number) is None}
            if seat == self.seat:  # ours: the lost seat's keys are its rebuilt seeds
                for gen in self.gens.values():
                    gen.seat = seat
                self.own_rebuilt_seeds()

    def own_rebuilt_seeds(self) -> None:
        """Playing a seat lost this round: its rebuilt seeds are our seeds of those
        generations (a restarted one, or a later one, is ours)."""
        rebuild = self.rebuilds.get(self.seat)
        for number, seed in (rebuild.seeds or {}).items() if rebuild is not None else ():
            self.gens[number].seed = seed

    def handed_due(self, seat: int, number: int) -> set[int]:
        """The seats that still owe ``seat``'s replacement a handed box of generation
        ``number`` (none vacant: a seat lost in turn owes nothing more)."""
        return self.handing.get((seat, number), set()) - set(self.vacant)

    def handed_all(self) -> bool:
        """Every handed box is in, and every seat lost and seated again is rebuilt: until then
        no move is valid (protocol.md 11.10, "The replacement")."""
        return not any(self.handed_due(seat, number) for seat, number in self.handing) and all(
            rebuild.seeds is not None for seat, rebuild in self.rebuilds.items()
            if seat not in self.vacant)

    def handed_shares(self) -> dict | None:
        """Our ``shares`` body handing a replaced seat's hidden cards of one generation to its
        replacement (all of them: its seating waited for every draw's key share): each box
        secret read under ``"handed box"``, so that no box secret serves two recipient keys."""
        for seat, number in sorted(k for k, owers in self.handing.items() if self.seat in owers):
            gen, key = self.gens[number], self.box_keys[seat]
            positions = sorted(p for g, p in self.hidden(seat) if g == number)
            secret = derive(gen.ctx, self.seat, b"handed box", bytes([seat]) + key
                            + struct.pack(">H", len(positions))
                            + b"".join(struct.pack(">H", p) for p in positions),
                            gen.seed).digest(32)
            return self.deal("shares", generation=number,
                             boxes=[gen.sealed_keys(seat, positions, key, secret)])
        return None

    def handed_sent(self, author: int, data: dict) -> None:
        """A ``shares`` body handing a seat's hand on: its sender owes it no more.  One that
        pays the last key share owed to a lost seat seats the replacement its approvals wait
        with."""
        for box in data["boxes"]:
            self.handing.get((box["to"], data["generation"]), set()).discard(author)
        for seq in sorted(self.proposals):
            if self.proposals[seq].body["seat"] in self.rebuilds:
                self.seat_approved(seq)

    def shares_timed_out(self, seq: int, holder: int) -> None:
        """The host's ``"shares"`` timeout: of the lowest lost seat whose rebuild waits for
        ``holder``, which must be the lowest holder it waits for; below ``t`` the round is void
        there, as without sharing (the seat paid when it was lost)."""
        lost = next((s for s, r in sorted(self.rebuilds.items()) if holder in r.owing()), None)
        if not self.rebuilds_lost or self.stopped or lost is None \
                or self.rebuilds[lost].owing()[0] != holder:
            raise BotStopped(f"seq {seq}: the host timed out seat {holder}'s shares, which no "
                             "lost seat's rebuild waited for")
        rebuild = self.rebuilds[lost]
        rebuild.timed_out.add(holder)
        if rebuild.short(self.share_threshold):
            self.voided_gone(lost, self.round_no, pays=False)

    def vote_timed_out(self, seq: int, seat: int) -> None:
        """The host's ``"vote"`` timeout: the votes naming ``seat`` reached 11.5's bar, not
        ``t`` holders', and none came since: the round is void, as without sharing."""
        if not self.rebuilds_lost or self.share_threshold is None or self.auditing() \
                or seat in self.vacant or not self.carried(self.round_no, seat) \
                or not self.rebuildable(seat):
            raise BotStopped(f"seq {seq}: the host timed out the vote on seat {seat}, which "
                             "had no place")
        self.voided_gone(seat, self.round_no)
