"""Sharing at the commit: every seat deals its seed to the generation's holders in the
commit it sends anyway; every party checks the commit's shape; each holder checks its share at
once, and a holder with a bad one complains and sends nothing more of that generation."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.deal import CheatDetected, Commitment, MentalTable, seeded
from shanghai_net.deal.errors import GenerationStopped
from shanghai_net.deal.group import is_scalar
from shanghai_net.deal.messages import SharedCommitment
from shanghai_net.deal.sharing import BASE_POINT, SHARE_BOX_BYTES, seed_scalar
from dropout_helpers import CARDS, changing, dealing, shared_table
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def committing(change):
    return changing(SharedCommitment, change)


def test_every_commit_carries_t_commitments_and_one_sealed_share_a_holder():
    table = shared_table()
    for participant in table.participants:
        g = participant.generation(0)
        assert is_scalar(g.seed)
        for dealer, commit in g.commitments.items():
            assert isinstance(commit, SharedCommitment) and len(commit.feldman) == 3
            assert [h for h, _, _ in commit.shares] == [s for s in range(4) if s != dealer]
            assert {len(box) for _, _, box in commit.shares} == {SHARE_BOX_BYTES}
        assert sorted(g.sharing.held) == [s for s in range(4) if s != participant.seat]
    assert table.open_many_to([0, 1, 2], 1) and table.open_public(5)
    assert table.audit().clean


def test_a_seat_that_is_no_holder_deals_its_seed_and_holds_nothing():
    table = shared_table(t=2, holders=(0, 1, 3))
    commits = table.participants[0].generation(0).commitments
    assert [h for h, _, _ in commits[2].shares] == [0, 1, 3]
    assert [h for h, _, _ in commits[0].shares] == [1, 3]
    assert table.participants[2].generation(0).sharing.held == {}
    assert sorted(table.participants[3].generation(0).sharing.held) == [0, 1, 2]


@pytest.mark.parametrize("change, problem", [
    (lambda c: dataclasses.replace(c, feldman=c.feldman[:2]), "2 share commitments, not the"),
    (lambda c: dataclasses.replace(c, shares=c.shares[1:]), "share boxes for seats"),
    (lambda c: dataclasses.replace(c, shares=c.shares[::-1]), "share boxes for seats"),
    (lambda c: dataclasses.replace(c, shares=((c.author, *c.shares[0][1:]), *c.shares[1:])),
     "share boxes for seats"),
    (lambda c: dataclasses.replace(c, shares=((*c.shares[0][:2], c.shares[0][2] + b"x"),
                                              *c.shares[1:])), "a share box that is not"),
    (lambda c: Commitment(c.context, c.author, c.digest), "carries no sharing"),
])
def test_a_commit_of_another_shape_is_refused_by_every_party(change, problem):
    table = shared_table(cheats={2: committing(lambda self, c: change(c))}, deal=False)
    with pytest.raises(ValueError, match=problem):
        table.reshuffle(CARDS)


@pytest.mark.parametrize("bad", [ORDER_8, bytes(32), BASE_POINT[:31] + b"\xff"])
def test_a_commitment_that_is_no_valid_point_names_its_dealer(bad):
    change = committing(lambda self, c: dataclasses.replace(c, feldman=(c.feldman[0], bad,
                                                                       c.feldman[2])))
    table = shared_table(cheats={2: change}, deal=False)
    with pytest.raises(CheatDetected, match="seat 2: share commitment 1 of generation 0 is not"):
        table.reshuffle(CARDS)
    assert {c.culprit for c in table.complaints} == {2} and len(table.complaints) == 3


def test_a_wrong_share_makes_its_holder_complain_and_send_nothing_more_of_the_generation():
    table = shared_table(cheats={3: dealing(wrong_for=1)}, deal=False)
    with pytest.raises(CheatDetected, match="seat 3: seat 3's share for seat 1 is off its") as c:
        table.reshuffle(CARDS)
    assert c.value.culprit == 3 and table.complaints == [c.value]
    complainer = table.participants[1]
    assert complainer.generation(0).sharing.complaints == {1: (3,)}
    assert 3 not in complainer.generation(0).sharing.held
    pass_0 = table.participants[0].make_pass(0)
    complainer.receive(pass_0)
    with pytest.raises(GenerationStopped, match="seat 1 complained of seat 3's share of gener"):
        complainer.make_pass(0)


def test_a_box_that_does_not_open_is_a_complaint_too():
    def garble(self, commit):
        (h, epk, box), *rest = commit.shares
        return dataclasses.replace(commit, shares=((h, epk, bytes(len(box))), *rest))
    table = shared_table(cheats={2: committing(garble)}, deal=False)
    with pytest.raises(CheatDetected, match="seat 2: seat 2's share for seat 0 does not auth"):
        table.reshuffle(CARDS)
    assert table.participants[0].generation(0).sharing.complaints == {0: (2,)}


def test_held_shares_survive_a_save_and_restore():
    table = shared_table()
    before = table.participants[2].generation(0).sharing
    table.restore(2, table.save(2))
    after = table.participants[2]
    assert after.share_threshold == 3 and after.generation(0).sharing == before
    assert table.open_many_to([3, 4], 2) and table.audit().clean


def test_a_table_without_sharing_refuses_a_commit_with_one():
    shared = shared_table(deal=False)
    shared.reshuffle(CARDS)
    plain = MentalTable(4, seeded(b"v9 commit"), cards=CARDS, deal=False)
    plain.participants[0].start_generation(0, CARDS)
    commit = shared.participants[1].generation(0).commitments[1]
    with pytest.raises(ValueError, match="carries a sharing, at a table that shares no seeds"):
        plain.participants[0].receive(dataclasses.replace(commit, context=dataclasses.replace(
            commit.context, game_id=b"shanghai-net game")))
    with pytest.raises(ValueError, match="has holders only when the table shares seeds"):
        plain.participants[1].start_generation(0, CARDS, holders=(0, 1))


def test_a_generation_without_holders_at_a_sharing_table_is_dealt_without_sharing():
    """Too few holders left for ``t`` (a replacement holds none): the table's generation has no
    holders, and its commits carry no sharing, as at a table without."""
    table = shared_table(deal=False)
    commit = table.participants[0].start_generation(0, CARDS, holders=None)
    assert not isinstance(commit, SharedCommitment)
    table.participants[1].start_generation(0, CARDS, holders=None)
    table.participants[1].receive(commit)
    assert table.participants[1].generation(0).sharing is None


def test_the_fixed_base_multiplication_is_the_base_point_s_and_is_counted():
    from shanghai_net.deal.group import multiplications, multiply, multiply_base
    scalars = [seed_scalar(seeded(bytes([i]))) for i in range(3)]
    before = multiplications()
    assert multiply_base(scalars) == [multiply(s, BASE_POINT) for s in scalars]
    assert multiplications() - before == 6
    with pytest.raises(ValueError, match="a bad scalar"):
        multiply_base([bytes(32)])
