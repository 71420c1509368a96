"""Sharing on, R2: a seat silent at its seeds is rebuilt from the shares the others' seeds carry,
and the audit runs in full with it; the audit with sharing on checks every dealer's sharing
against its seed."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.deal import CheatDetected, MentalTable, PassOutput, SeedReveal, seeded
from shanghai_net.deal.group import multiply
from shanghai_net.deal.messages import SharedSeedReveal
from shanghai_net.deal.sharing import seed_scalar
from dropout_helpers import CARDS, changing, dealing, shared_table

TWO = (2).to_bytes(32, "little")


def marking(self, message):
    """A planted deal cheat (tests/test_deal_cheats.py's 2C marking): pass 1 doubles a point."""
    if message.phase != 1:
        return message
    points = list(message.points)
    points[5] = multiply(TWO, points[5])
    return dataclasses.replace(message, points=tuple(points))


def deal_some(table):
    """Three cards to each seat and one turned up; a card that opens to nothing (a planted
    cheat) is the audit's to decide."""
    for seat in range(table.players):
        try:
            table.open_many_to(range(3 * seat, 3 * seat + 3), seat)
        except CheatDetected as cheat:
            assert cheat.culprit is None
    table.open_public(15)


def test_a_seat_silent_at_its_seeds_is_rebuilt_and_the_audit_completes():
    table = shared_table()
    deal_some(table)
    verdict = table.audit(silent={2})
    assert verdict.clean, verdict
    seed = table.participants[2].generation(0).seed
    assert {p.generation(0).sharing.rebuilt.get(2) for p in table.participants if p.seat != 2} \
        == {seed}


def test_a_planted_cheat_of_a_silent_seat_is_named_by_every_party():
    cheat = {2: changing(PassOutput, marking)}
    table = shared_table(cheats=cheat)
    deal_some(table)
    verdict = table.audit(silent={2})
    assert verdict.culprit == 2
    assert "seat 2: pass 1 output is not its key times the permuted input" in verdict.reason
    plain = MentalTable(4, seeded(b"v9"), cards=CARDS, participant_types=cheat)
    deal_some(plain)
    assert plain.audit(silent={2}).clean  # sharing off: the silent cheat escapes, absent


def test_below_t_shares_the_silent_seat_stays_absent():
    table = shared_table()
    deal_some(table)
    assert table.audit(silent={1, 2}).clean  # only 2 holders' shares of each: not rebuilt
    assert all(p.rebuild_silent({1, 2}) == {1, 2} for p in table.participants[::3])
    assert not table.participants[0].generation(0).sharing.rebuilt


def test_one_silent_holder_more_is_survived_below_the_largest_threshold():
    table = shared_table(players=5, t=3, cheats={1: changing(PassOutput, marking)})
    deal_some(table)
    assert table.audit(silent={1, 4}).culprit == 1


@pytest.mark.parametrize("change, problem", [
    (lambda r: SeedReveal(r.context, r.author, r.seed), "they carry shares of seats"),
    (lambda r: dataclasses.replace(r, shares=r.shares[1:]), "they carry shares of seats"),
    (lambda r: dataclasses.replace(r, shares=((r.shares[0][0], None), *r.shares[1:])),
     "nil for seat 0's share, not complained of"),
    (lambda r: dataclasses.replace(r, shares=((r.shares[0][0], b"short"), *r.shares[1:])),
     "seat 0's share is not 32 bytes"),
])
def test_seeds_without_the_shares_they_owe_are_refused(change, problem):
    table = shared_table(cheats={1: changing(SharedSeedReveal, lambda self, r: change(r))})
    deal_some(table)
    with pytest.raises(ValueError, match=f"seat 1's seeds of generation 0 refused: {problem}"):
        table.audit()


def test_a_wrong_share_in_seeds_names_its_author_when_it_rebuilds():
    def wrong(self, reveal):
        shares = tuple((d, (int.from_bytes(y, "little") + 1).to_bytes(32, "little") if d == 2
                        else y) for d, y in reveal.shares)
        return dataclasses.replace(reveal, shares=shares)
    table = shared_table(players=5, t=3, cheats={3: changing(SharedSeedReveal, wrong)})
    deal_some(table)
    assert table.audit().clean  # shares are checked only when a seat is rebuilt
    table = shared_table(players=5, t=3, cheats={3: changing(SharedSeedReveal, wrong)})
    deal_some(table)
    verdict = table.audit(silent={2})
    assert verdict.culprit == 3 and "published a share of seat 2's seed" in verdict.reason


def test_the_dealer_of_a_wrong_share_is_named_at_the_audit_its_complaint_opens():
    table = shared_table(cheats={3: dealing(wrong_for=1)}, deal=False)
    with pytest.raises(CheatDetected) as complaint:
        table.reshuffle(CARDS)
    assert complaint.value.culprit == 3
    for participant in table.participants[:1] + table.participants[2:]:
        participant.record_complaint(1, 3, 0)
    assert table.participants[1].reveal_seeds()[0].shares == (
        (0, table.participants[1].generation(0).sharing.held[0]),
        (2, table.participants[1].generation(0).sharing.held[2]), (3, None))
    table.participants[1].generation(0).seed_reveals.clear()
    verdict = table.audit()
    assert verdict.culprit == 3 and "seat 3's share for seat 1 is off its commitments" in \
        verdict.reason


def test_a_dealer_silent_after_a_complaint_of_it_cannot_be_rebuilt_at_4_holders():
    table = shared_table(cheats={3: dealing(wrong_for=1)}, deal=False)
    with pytest.raises(CheatDetected):
        table.reshuffle(CARDS)
    for participant in table.participants[:1] + table.participants[2:]:
        participant.record_complaint(1, 3, 0)
    assert table.audit(silent={3}).clean  # 2 shares of 3's seed, the complainer's nil: absent
    assert table.participants[0].rebuild_silent({3}) == {3}


def test_a_dealer_whose_sharing_is_not_its_seed_s_is_named_at_the_audit():
    other = dealing(coefficients=seeded(b"not the seed's stream"))
    table = shared_table(cheats={2: other})
    deal_some(table)
    verdict = table.audit()
    assert verdict.culprit == 2
    assert "its share commitments of generation 0 are not its seed's" in verdict.reason


def test_a_silent_seat_that_shared_another_secret_than_its_seed_is_named_at_its_rebuild():
    table = shared_table(cheats={2: dealing(secret=lambda self, g: seed_scalar(seeded(b"x")))})
    deal_some(table)
    assert table.audit().culprit == 2  # its revealed seed: check_seed, then its commitments
    table = shared_table(cheats={2: dealing(secret=lambda self, g: seed_scalar(seeded(b"x")))})
    deal_some(table)
    verdict = table.audit(silent={2})
    assert verdict.culprit == 2
    assert "not a canonical nonzero scalar on its commitment" in verdict.reason
