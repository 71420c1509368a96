"""A commit with fewer than ``t`` holders carries no sharing (docs/dealing.md, "Holders: who
is dealt shares"), in the deal layer: at 4 seats, ``t`` = 3, with seat 3 no holder (a
replacement of an earlier round), the holders' commits carry none and seat 3's shares its seed
among the three; a seat whose commit carries none is not rebuildable, and a restarted
generation's fresh commit follows the same rule at the message that seats the replacement."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from shanghai_net.deal.lost import NotRebuildable
from shanghai_net.deal.messages import SharedCommitment
from shanghai_net.deal.shares import GenerationShares
from dropout_helpers import CARDS, shared_table


def thin(deal=True):
    """4 seats, t = 3, holders 0, 1, 2."""
    return shared_table(holders=(0, 1, 2), deal=deal)


def sharing_dealers(table, generation=0):
    commitments = table.participants[0].generation(generation).commitments
    return {d: [h for h, _, _ in c.shares] for d, c in commitments.items()
            if isinstance(c, SharedCommitment)}


def test_below_t_holders_a_commit_carries_no_sharing_and_no_share_of_it_is_owed():
    table = thin()
    assert sharing_dealers(table) == {3: [0, 1, 2]}
    for participant in table.participants:
        assert set(participant.generation(0).sharing.held) == ({3} if participant.seat < 3
                                                               else set())
    assert table.open_many_to([0, 4], 1) and table.audit().clean
    seeds = {p.seat: p.generation(0).seed_reveals for p in table.participants}
    assert {seat: [d for d, _ in seeds[0][seat].shares] for seat in range(4)} == \
        {0: [3], 1: [3], 2: [3], 3: []}


def test_a_seat_whose_commit_carries_no_sharing_is_not_rebuildable_one_whose_does_is():
    table = thin()
    table.open_many_to([0, 4], 1)
    with pytest.raises(NotRebuildable, match="seat 2 is not rebuildable: 0 holders of its "
                                             "generation 0 left, 3 needed"):
        table.participants[0].lose(2, (0, 1))
    table.lose(3)
    assert {p.generation(0).sharing.rebuilt.get(3) for p in table._live()} == \
        {table.participants[3].generation(0).seed}
    assert table.audit().clean


def test_a_restarted_generation_s_fresh_commit_with_fewer_than_t_holders_carries_none():
    table = thin(deal=False)
    table.commit(CARDS)
    table.lose(2)  # its passes had not begun: restarted; holders 0 and 1 at the seating
    replacement = table.replace(2, X25519PrivateKey.from_private_bytes(bytes(range(32))))
    assert sharing_dealers(table) == {3: [0, 1, 2]}  # seat 3's commit, before the loss
    assert not isinstance(table.participants[0].generation(0).commitments[2], SharedCommitment)
    table.passes()
    assert len(table.open_many_to([0, 1, 2], 2)) == 3 and replacement.hand()
    assert table.audit().clean


def test_a_generation_s_sharing_gives_no_holder_to_a_commit_below_t():
    sharing = GenerationShares.at(3, (0, 1, 2), 4)
    assert [sharing.commit_holders(d) for d in range(4)] == [(), (), (), (0, 1, 2)]
    sharing.recommitted[2] = (0, 1)
    assert sharing.commit_holders(2) == () and sharing.dealers_held_by(0, dict.fromkeys(range(4)))\
        == [3]
