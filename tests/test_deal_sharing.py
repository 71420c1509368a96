"""Threshold sharing of a seat's seed (deal/sharing.py, docs/dealing.md): any t shares rebuild
it, t-1 say nothing of it, and every lie (a dealer's share, a holder's published share, a dealer
that shared another secret than its seed) is refused naming its author."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from hypothesis import given
from hypothesis import strategies as st
from nacl.bindings import crypto_core_ed25519_add, crypto_scalarmult_ed25519_base_noclamp

from shanghai_net.deal import CheatDetected, Context, seeded
from shanghai_net.deal.group import ORDER, multiplications
from shanghai_net.deal.group import reduce_scalar
from shanghai_net.deal.seeds import SeedKeys, commitment_digest
from shanghai_net.deal.sharing import (DERIVATION_LABELS, SHARE_BOX_BYTES, abscissa,
                                       audit_dealing, check_commitments, deal_seed, interpolate,
                                       open_share, rebuild, seal_share, seed_scalar,
                                       seed_stream, share_box_secret, share_fits, split)

CONTEXT = Context(b"game", 2, 1)
DEALER = 1
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def scalar(value: int) -> bytes:
    return (value % ORDER).to_bytes(32, "little")


def number(share: bytes) -> int:
    return int.from_bytes(share, "little")


class Table:
    """Four seats; seat 1 deals its seed to seats 0, 2 and 3 with threshold 3 (the default at
    four seats)."""

    def __init__(self, threshold: int = 3, seats: int = 4) -> None:
        random = seeded(b"sharing table")
        self.threshold = threshold
        self.box = {s: X25519PrivateKey.from_private_bytes(random(32)) for s in range(seats)}
        self.holder_keys = {s: k.public_key() for s, k in self.box.items() if s != DEALER}
        self.seed = seed_scalar(random)
        self.digest = commitment_digest(CONTEXT, DEALER, self.seed)
        self.commitments, self.boxes = deal_seed(CONTEXT, DEALER, self.seed, threshold,
                                                 self.holder_keys)

    def opened(self) -> dict[int, bytes]:
        """Each holder's share, checked at once as a holder does."""
        return {b.holder: open_share(self.box[b.holder], b, self.commitments, self.threshold)
                for b in self.boxes}

    def audit(self, commitments=None, boxes=None, seed=None) -> None:
        """The audit of seat 1's sharing at this table, with its seed revealed."""
        audit_dealing(CONTEXT, DEALER, self.threshold, seed or self.seed, self.digest,
                      commitments or self.commitments, boxes or self.boxes, self.holder_keys)

    def rebuild(self, published, commitments=None) -> bytes:
        return rebuild(CONTEXT, DEALER, self.threshold, commitments or self.commitments,
                       self.digest, published)


# -- the arithmetic ----------------------------------------------------------------------------

@st.composite
def dealt(draw):
    holders = draw(st.lists(st.integers(0, 7), min_size=1, max_size=7, unique=True))
    threshold = draw(st.integers(1, len(holders)))
    secret = seed_scalar(seeded(draw(st.binary(min_size=1, max_size=8))))
    sharing = split(secret, threshold, holders, seeded(draw(st.binary(min_size=1, max_size=8))))
    return secret, sharing


@given(dealt(), st.randoms(use_true_random=False))
def test_any_t_of_the_shares_rebuild_the_secret(dealt, rng):
    secret, sharing = dealt
    holders = rng.sample(sorted(sharing.shares), sharing.threshold)
    points = {abscissa(h): number(sharing.shares[h]) for h in holders}
    assert scalar(interpolate(points, 0)) == secret
    assert all(share_fits(sharing.commitments, h, y) for h, y in sharing.shares.items())


def polynomial_through(points: dict[int, int]) -> list[int]:
    """The coefficients (constant first) of the polynomial of degree < len(points) through
    ``points``, mod L: the sum of each point's Lagrange basis polynomial times its value."""
    coefficients = [0] * len(points)
    for xj, yj in points.items():
        basis, denominator = [1], 1
        for xm in points:
            if xm != xj:
                basis = [(shifted - xm * b) % ORDER  # (x - xm)·basis
                         for shifted, b in zip([0] + basis, basis + [0])]
                denominator = denominator * (xj - xm) % ORDER
        weight = yj * pow(denominator, -1, ORDER) % ORDER
        coefficients = [(c + weight * b) % ORDER for c, b in zip(coefficients, basis)]
    return coefficients


def test_polynomial_through_is_the_polynomial():
    coefficients = [5, 7, 11]
    points = {x: (5 + 7 * x + 11 * x * x) % ORDER for x in (1, 3, 4)}
    assert polynomial_through(points) == coefficients


@given(dealt(), st.randoms(use_true_random=False), st.integers(1, ORDER - 1))
def test_any_t_minus_1_shares_fit_every_secret(dealt, rng, other):
    """For any other secret there is a polynomial of the same degree through the t-1 shares a
    coalition holds: dealt with it (the same shares, another secret), those holders would have
    seen exactly the same.  So t-1 shares say nothing of the secret."""
    _, sharing = dealt
    coalition = rng.sample(sorted(sharing.shares), sharing.threshold - 1)
    points = {0: other, **{abscissa(h): number(sharing.shares[h]) for h in coalition}}
    coefficients = polynomial_through(points)
    chunks = iter(c.to_bytes(64, "little") for c in coefficients[1:])
    other_sharing = split(scalar(other), sharing.threshold, sorted(sharing.shares),
                          lambda n: next(chunks))
    assert {h: other_sharing.shares[h] for h in coalition} == \
           {h: sharing.shares[h] for h in coalition}


def test_split_refuses_what_it_cannot_share():
    random = seeded(b"refusals")
    with pytest.raises(ValueError, match="canonical nonzero scalar"):
        split(bytes(32), 2, [0, 2], random)
    with pytest.raises(ValueError, match="threshold of 3 among 2"):
        split(seed_scalar(random), 3, [0, 2], random)
    with pytest.raises(ValueError, match="not distinct seats"):
        split(seed_scalar(random), 2, [0, 0], random)


def test_a_coefficient_that_reduces_to_zero_is_drawn_again():
    chunks = iter([ORDER.to_bytes(64, "little"), (5).to_bytes(64, "little")])
    sharing = split(scalar(3), 2, [0, 2], lambda n: next(chunks))
    assert sharing.shares[0] == scalar(3 + 5 * abscissa(0))


def test_a_zero_share_makes_the_dealer_draw_every_coefficient_again():
    # f(x) = 3 + a·x with a = -3 gives holder 0 (x = 1) a zero share
    chunks = iter([(ORDER - 3).to_bytes(64, "little"), (5).to_bytes(64, "little")])
    sharing = split(scalar(3), 2, [0, 2], lambda n: next(chunks))
    assert sharing.shares[0] == scalar(8)


def test_sharing_costs_t_multiplications_to_deal_and_t_to_check_a_share():
    before = multiplications()
    sharing = split(seed_scalar(seeded(b"cost")), 3, [0, 2, 3], seeded(b"coefficients"))
    assert multiplications() - before == 3
    before = multiplications()
    assert share_fits(sharing.commitments, 2, sharing.shares[2])
    assert multiplications() - before == 3


# -- the dealer's side, the holder's check, the audit ----------------------------------------

def test_the_dealer_s_commit_is_a_function_of_its_seed():
    """A crashed dealer sends the same bytes again; each box is 48 bytes."""
    table = Table()
    again = Table()
    assert (table.commitments, table.boxes) == (again.commitments, again.boxes)
    assert [len(b.box) for b in table.boxes] == [SHARE_BOX_BYTES] * 3
    assert len(table.commitments) == 3
    table.audit()


def test_every_holder_opens_a_share_on_the_commitments_and_three_rebuild_the_seed():
    table = Table()
    shares = table.opened()
    assert table.rebuild({3: shares[3], 0: shares[0], 2: shares[2]}) == table.seed


def test_the_byte_layouts_are_the_documented_ones():
    """docs/dealing.md's coefficient stream, shares, commitments and share box, computed here
    with nothing but SHAKE-256, libsodium's base multiplication, X25519, HKDF and
    ChaCha20-Poly1305: what a client written from the page alone must send."""
    table = Table()
    stream = hashlib.shake_256(b"shanghai-net v1 key" + CONTEXT.encode() + bytes([DEALER, 17])
                               + b"share coefficient" + bytes([3]) + table.seed).digest(128)
    coefficients = [number(table.seed), int.from_bytes(stream[:64], "little") % ORDER,
                    int.from_bytes(stream[64:], "little") % ORDER]
    assert list(table.commitments) == [crypto_scalarmult_ed25519_base_noclamp(scalar(a))
                                       for a in coefficients]
    holder, x = 2, 3
    share = scalar(sum(a * x**k for k, a in enumerate(coefficients)))
    secret = hashlib.shake_256(b"shanghai-net v1 key" + CONTEXT.encode() + bytes([DEALER, 9])
                               + b"share box" + bytes([holder]) + table.seed).digest(32)
    ephemeral = X25519PrivateKey.from_private_bytes(secret)
    epk = ephemeral.public_key().public_bytes_raw()
    holder_key = table.holder_keys[holder]
    tag = b"shanghai-net v8 seed share"
    key = HKDF(hashes.SHA256(), 32, salt=b"", info=tag + epk + holder_key.public_bytes_raw()
               ).derive(ephemeral.exchange(holder_key))
    box = ChaCha20Poly1305(key).encrypt(bytes(12), share,
                                        tag + CONTEXT.encode() + bytes([DEALER, holder, 3]))
    sealed = table.boxes[1]
    assert (sealed.holder, sealed.epk, sealed.box) == (holder, epk, box)
    assert table.opened()[holder] == share


@given(st.sampled_from([0, 2, 3]), st.integers(1, ORDER - 1))
def test_a_share_moved_by_anything_is_off_the_commitments_and_names_whoever_showed_it(holder,
                                                                                      delta):
    """To its holder, in its box: the dealer is named.  Published at a rebuild: the holder."""
    table = Table()
    shares = table.opened()
    wrong = scalar(number(shares[holder]) + delta)
    assert not share_fits(table.commitments, holder, wrong)
    index = sorted(shares).index(holder)
    table.boxes[index] = seal_share(share_box_secret(CONTEXT, DEALER, holder, table.seed),
                                    table.holder_keys[holder], CONTEXT, DEALER, holder, 3, wrong)
    with pytest.raises(CheatDetected) as by_the_holder:
        table.opened()
    with pytest.raises(CheatDetected) as at_the_rebuild:
        table.rebuild({**shares, holder: wrong})
    assert (by_the_holder.value.culprit, at_the_rebuild.value.culprit) == (DEALER, holder)


def test_a_holder_cannot_open_another_holder_s_share():
    table = Table()
    with pytest.raises(CheatDetected) as caught:
        open_share(table.box[0], table.boxes[1], table.commitments, 3)
    assert caught.value.culprit == DEALER  # the box is in the dealer's signed commit


def wrong_share_table(change) -> Table:
    """Seat 1 seals for seat 2 a box ``change`` makes from the good one."""
    table = Table()
    table.boxes[1] = change(table, table.boxes[1])
    return table


def sealed_share_off_the_polynomial(table, sealed):
    share = scalar(number(open_share(table.box[2], sealed, table.commitments, 3)) + 1)
    return seal_share(share_box_secret(CONTEXT, DEALER, 2, table.seed), table.holder_keys[2],
                      CONTEXT, DEALER, 2, 3, share)


@pytest.mark.parametrize("change, why", [
    (sealed_share_off_the_polynomial, "off its commitments"),
    (lambda t, s: dataclasses.replace(s, box=bytes(SHARE_BOX_BYTES)), "does not authenticate"),
    (lambda t, s: seal_share(share_box_secret(CONTEXT, DEALER, 2, t.seed), t.holder_keys[2],
                             CONTEXT, DEALER, 2, 2, t.opened()[2]), "does not authenticate"),
    (lambda t, s: dataclasses.replace(s, epk=bytes(32)), "does not authenticate"),
], ids=["share-off-the-polynomial", "garbage", "relabelled-threshold", "low-order-box-key"])
def test_a_wrong_share_is_refused_at_once_by_its_holder_naming_the_dealer(change, why):
    table = wrong_share_table(change)
    with pytest.raises(CheatDetected, match=why) as caught:
        table.opened()
    assert caught.value.culprit == DEALER
    assert "seat 1's share for seat 2" in caught.value.reason


@pytest.mark.parametrize("change", [sealed_share_off_the_polynomial,
                                    lambda t, s: dataclasses.replace(s, box=bytes(48))],
                         ids=["share-off-the-polynomial", "garbage"])
def test_the_audit_bears_the_holder_s_complaint_out_and_names_the_dealer(change):
    table = wrong_share_table(change)
    with pytest.raises(CheatDetected) as caught:
        table.audit()
    assert caught.value.culprit == DEALER


def test_a_box_sealed_under_a_secret_not_from_the_seed_is_named_by_the_audit():
    """The share in it is good and its holder takes it, but no one could open the box to decide
    a complaint: the audit, which opens every box with the secret the seed gives, names it."""
    table = Table()
    share = table.opened()[2]
    table.boxes[1] = seal_share(seeded(b"a secret of its own")(32), table.holder_keys[2],
                                CONTEXT, DEALER, 2, 3, share)
    assert table.opened()[2] == share
    with pytest.raises(CheatDetected, match="box key its seed does not give") as caught:
        table.audit()
    assert caught.value.culprit == DEALER


def test_a_false_complaint_finds_every_share_good():
    """A holder that complains of a good share: the audit finds nothing, so it names the
    complainer (audit_dealing returns without naming the dealer)."""
    table = Table()
    assert table.audit() is None


def test_coefficients_not_from_the_seed_are_named_by_the_audit():
    """A dealer whose sharing is consistent but not its seed's (to bias shares, or to make its
    own rebuild fail) is named once its seed is known."""
    table = Table()
    own = split(table.seed, 3, [0, 2, 3], seeded(b"not from the seed"))
    with pytest.raises(CheatDetected, match="commitments of generation 1 are not its seed's") \
            as caught:
        table.audit(commitments=own.commitments)
    assert caught.value.culprit == DEALER


def test_a_box_missing_or_to_the_dealer_itself_is_named_by_the_audit():
    table = Table()
    with pytest.raises(CheatDetected, match="not one for each other seat") as caught:
        table.audit(boxes=table.boxes[:2])
    assert caught.value.culprit == DEALER


@pytest.mark.parametrize("bad, index", [("identity", 1), ("torsion", 1), ("torsion", 0),
                                        ("off the curve", 0), ("count", 2)])
def test_commitments_that_are_no_points_of_the_group_name_the_dealer(bad, index):
    """Every commitment is checked, ``C_0`` too, which a holder adds but never multiplies."""
    table = Table()
    commitments = list(table.commitments)
    if bad == "count":
        commitments.pop()
    else:
        commitments[index] = {"identity": (1).to_bytes(32, "little"),
                              "off the curve": (2).to_bytes(32, "little"),
                              "torsion": crypto_core_ed25519_add(commitments[index], ORDER_8)}[bad]
    with pytest.raises(CheatDetected) as caught:
        check_commitments(commitments, DEALER, 3)
    assert caught.value.culprit == DEALER
    assert bad == "count" or not share_fits(commitments, 2, table.opened()[2])


# -- the rebuild -------------------------------------------------------------------------------

def test_a_published_share_off_the_commitments_names_its_holder():
    table = Table()
    shares = table.opened()
    shares[2] = scalar(number(shares[2]) + 1)
    with pytest.raises(CheatDetected, match="seat 2: published a share of seat 1's seed") \
            as caught:
        table.rebuild(shares)
    assert caught.value.culprit == 2


def test_a_share_published_as_another_holder_s_names_its_publisher():
    """Holder 0 publishes holder 3's share under its own seat: off its own abscissa."""
    table = Table()
    shares = table.opened()
    with pytest.raises(CheatDetected) as caught:
        table.rebuild({0: shares[3], 2: shares[2], 3: shares[3]})
    assert caught.value.culprit == 0


def test_the_dealer_cannot_publish_a_share_of_its_own_seed():
    """A point of the polynomial at the dealer's own abscissa fits the commitments, but no seat
    holds it: only holders count towards t."""
    table = Table()
    shares = table.opened()
    own = interpolate({abscissa(h): number(y) for h, y in shares.items()}, abscissa(DEALER))
    assert share_fits(table.commitments, DEALER, scalar(own))
    with pytest.raises(CheatDetected) as caught:
        table.rebuild({DEALER: scalar(own), 0: shares[0], 2: shares[2]})
    assert caught.value.culprit == DEALER


def test_fewer_than_t_shares_rebuild_nothing_and_name_no_one():
    table = Table()
    shares = table.opened()
    with pytest.raises(ValueError, match="2 shares of seat 1's seed for generation 1, 3 needed"):
        table.rebuild({0: shares[0], 3: shares[3]})


def test_a_rebuilt_seed_off_the_dealer_s_commitment_names_the_dealer():
    """Seat 1 committed to one seed and shared another (its shares and commitments agree with
    each other): the rebuild finds the secret off its digest."""
    table = Table()
    other = seed_scalar(seeded(b"another seed"))
    commitments, boxes = deal_seed(CONTEXT, DEALER, other, 3, table.holder_keys)
    shares = {b.holder: open_share(table.box[b.holder], b, commitments, 3) for b in boxes}
    with pytest.raises(CheatDetected, match="seed of generation 1 is not a canonical nonzero "
                                            "scalar on its commitment") as caught:
        table.rebuild(shares, commitments=commitments)
    assert caught.value.culprit == DEALER


def test_a_six_seat_table_with_threshold_4_rebuilds_from_any_4_of_the_5_holders():
    table = Table(threshold=4, seats=6)
    shares = table.opened()
    for silent in sorted(shares):
        published = {h: y for h, y in shares.items() if h != silent}
        assert table.rebuild(published) == table.seed


# -- the table's threshold, the seed's form, the labels (docs/dealing.md, review #5 and #12) ---

def test_a_dealer_that_deals_with_another_threshold_than_the_table_s_is_named_everywhere():
    """At a table of t = 3, seat 1 deals with t = 2 (two commitments, boxes sealed for t = 2),
    so that two shares would rebuild its seed: its holder, the rebuild and the audit all take t
    from the table, never from the dealer's own list, and name seat 1."""
    table = Table()
    commitments, boxes = deal_seed(CONTEXT, DEALER, table.seed, 2, table.holder_keys)
    with pytest.raises(CheatDetected, match="2 share commitments, not the table's 3") as holder:
        open_share(table.box[0], boxes[0], commitments, 3)
    shares = {b.holder: open_share(table.box[b.holder], b, commitments, 2) for b in boxes}
    with pytest.raises(CheatDetected, match="not the table's 3") as rebuilt:
        table.rebuild({0: shares[0], 2: shares[2]}, commitments=commitments)
    with pytest.raises(CheatDetected, match="not the table's 3") as audited:
        table.audit(commitments=commitments, boxes=boxes)
    assert {holder.value.culprit, rebuilt.value.culprit, audited.value.culprit} == {DEALER}


def test_a_box_sealed_for_another_threshold_does_not_open_at_the_table_s():
    """The associated data is built with the table's t: a box whose dealer sealed it for
    t = 2 beside commitments of the table's count does not authenticate."""
    table = Table()
    table.boxes[0] = seal_share(share_box_secret(CONTEXT, DEALER, 0, table.seed),
                                table.holder_keys[0], CONTEXT, DEALER, 0, 2, table.opened()[0])
    with pytest.raises(CheatDetected, match="does not authenticate") as caught:
        open_share(table.box[0], table.boxes[0], table.commitments, 3)
    assert caught.value.culprit == DEALER


def test_a_seed_that_is_no_canonical_scalar_names_its_dealer_the_same_way_on_every_path():
    """Seat 1 commits to 32 bytes that are s + L (a version-7 style seed) and shares s: its
    holders' checks pass.  Revealed at the audit, or rebuilt from its shares, its seed names
    it with the same verdict (not a ValueError that crashes the audit)."""
    table = Table()
    wide = (number(table.seed) + ORDER).to_bytes(32, "little")
    table.digest = commitment_digest(CONTEXT, DEALER, wide)
    with pytest.raises(CheatDetected) as audited:
        table.audit(seed=wide)
    with pytest.raises(CheatDetected) as rebuilt:
        table.rebuild(table.opened())
    assert (audited.value.culprit, audited.value.reason) == \
           (rebuilt.value.culprit, rebuilt.value.reason) == \
           (DEALER, "seat 1: its seed of generation 1 is not a canonical nonzero scalar on its "
                    "commitment, so not the secret it shared")


def test_the_coefficients_of_one_threshold_are_no_prefix_of_another_s():
    """``u8 t`` is in the coefficient stream's input: the same seed dealt at t = 3 and at
    t = 4 has unrelated coefficients, not the first ones in common."""
    table = Table(threshold=4, seats=6)
    at_3, _ = deal_seed(CONTEXT, DEALER, table.seed, 3, table.holder_keys)
    assert at_3[0] == table.commitments[0]
    assert at_3[1] != table.commitments[1] and at_3[2] != table.commitments[2]


def test_every_derivation_label_is_registered_once_and_is_the_one_its_derivation_reads():
    """The derivations from a seed are told apart by their label alone: one registry, no label
    twice, none read that is not in it, and deal/seeds.py's keys are read under its entries."""
    labels = [label for label, _ in DERIVATION_LABELS]
    assert len(labels) == len(set(labels))
    with pytest.raises(ValueError, match="no registered derivation label"):
        seed_stream(CONTEXT, DEALER, b"share coefficients", b"", bytes(32))
    seed, seat = seed_scalar(seeded(b"labels")), 2
    keys = SeedKeys(CONTEXT, seat, seed, 4)

    def scalar_read(label: bytes, index: int) -> bytes:
        return reduce_scalar(seed_stream(CONTEXT, seat, label, index.to_bytes(2, "big") + b"\0",
                                         seed).digest(64))

    assert keys.pass_key == scalar_read(b"pass key", 0)
    assert keys.card_keys[3] == scalar_read(b"card key", 3)
    assert keys.box_secret(0, (1, 3)) == seed_stream(CONTEXT, seat, b"box",
                                                     bytes([0, 0, 2, 0, 1, 0, 3]),
                                                     seed).digest(32)
