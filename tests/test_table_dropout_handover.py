"""A hand-over mid-round with sharing on (docs/dealing-review.md, review of the code #13): the
round's deal seals every share box to the box keys it began with, so a seat handed over since
holds no share of a generation dealt later in the round (a reshuffle), and no share box goes to
its old player, who left; from the next round's deal the successor holds the seat's shares,
sealed to its own box key."""

from __future__ import annotations

from shanghai_net.cards import deck
from shanghai_net.deal.messages import SharedCommitment

from test_table_dropout_silent import parties, shared
from test_table_handover import hand_over
from test_table_roster import newcomer


def test_a_seat_handed_over_mid_round_is_dealt_no_share_of_a_later_generation_of_the_round():
    t = shared(players=5, t=3)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    assert all(party._generation_holders() == (0, 1, 2, 3, 4) for party in parties(t))
    bea = newcomer(13)
    t.deliver(hand_over(t, 1, bea))
    for party in parties(t):
        assert party.handovers[1].box_key == bea.box_public
        assert party._generation_holders() == (0, 2, 3, 4)
    dealer = t.seats[0].participant  # a reshuffle now: seat 0's commit of it
    commit = dealer.start_generation(1, deck(1, 0)[:16], t.seats[0]._generation_holders())
    assert [to for to, _, _ in commit.shares] == [2, 3, 4]  # nothing for the old player


def test_with_too_few_holders_left_a_later_generation_s_commits_carry_no_sharing_but_its():
    """A commit whose holders are fewer than ``t`` carries no sharing (docs/dealing.md,
    "Holders: who is dealt shares"), commit by commit: at 4 seats, ``t = 3``, seat 1 handed
    over mid-round, a later generation's commit of a holder deals to 2 holders (none), seat
    1's to the 3 holders left."""
    t = shared(players=4, t=3)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.deliver(hand_over(t, 1, newcomer(14)))
    assert all(party._generation_holders() == (0, 2, 3) for party in parties(t))
    dealer = t.seats[0].participant  # a reshuffle now: seat 0's commit of it
    commit = dealer.start_generation(1, deck(1, 0)[:16], t.seats[0]._generation_holders())
    assert not isinstance(commit, SharedCommitment)
    sharing = dealer.generation(1).sharing
    assert {seat: sharing.commit_holders(seat) for seat in range(4)} == \
        {0: (), 1: (0, 2, 3), 2: (), 3: ()}
