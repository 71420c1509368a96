"""Votes split between silent seats (protocol.md 11.5), in process over the real tables: two
or three seats go silent at once and the host times each out; a person at the console votes
against the last of them, the reference seats (`net.voting.Voting.vote_target`) against the
one timed out first.  Each seat votes once a round, so no one silent seat gets more than half
of the seats that can vote, and the table waited for good.  The votes against silent seats
count together: once more than half of the seats that can vote named a silent seat, the one
named most (ties: the one timed out first) is vacant and pays, and the table finishes, every
party alike, clients/simple_bot.py's replica (written from the protocol alone) included."""

from __future__ import annotations

import pytest

from shanghai_net.net.voting import Voting
from shanghai_net.table.fault import Fault
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm

from test_table_roster import Roster, vote_gone
from test_table_silence import follow, simple_bot_follower
from test_table_vacancies import (THREE_CONTRACTS, assert_finished_alike, lose_at_deal, silent,
                                  stand_ins)


class ReferenceVoter(Voting):
    """What a reference seat (`Peer`) reads to choose whom it votes against: its own table,
    and the seats it sees away (the lost seats' links are down)."""

    def __init__(self, table, away):
        self.table, self.seat, self.left, self.stalling = table, table.seat, set(), {}
        self.absent = {seat: 0.0 for seat in away}


def split_votes(t, people, lost):
    """The seats that can vote each vote once against a seat of ``lost`` still silent: those
    of ``people`` (voter -> seat) as they chose, or against the last silent seat once theirs is
    gone; the rest (bots) as the reference seats do.  The votes, voter -> seat named."""
    silent_now = [s for s in lost if s in t.host.silenced]
    live = [s for s in range(t.host.players) if s not in lost]
    votes, left = {}, len(t.host.left)
    for voter in live:
        chose = people.get(voter)
        if voter not in people:
            chose = ReferenceVoter(t.seats[voter], silent_now).vote_target(set(silent_now))
        elif chose not in silent_now:
            chose = silent_now[-1]
        votes[voter] = chose
        vote_gone(t, chose, [voter])
        if len(t.host.left) > left:
            break  # the round is void: the seats that have not voted vote in the next one
    return votes





def named_most(votes, silenced):
    """Of the seats ``votes`` (voter -> seat) named, the one named most; ties: the one timed
    out first (``silenced``: seat -> the seq of its ``silent`` timeout)."""
    named = list(votes.values())
    return max(set(named), key=lambda s: (named.count(s), -silenced[s]))


def agree(replica, t, read):
    """Bring clients/simple_bot.py's replica (if any) the stream from ``read``: it sees the
    same seats vacant and the same scores; where it stands now."""
    if replica is None:
        return read
    read = follow(replica, t.stream, read)
    assert replica.vacant == t.host.vacant and replica.scores == t.host.public.scores
    return read


CASES = [  # seats, the seats lost at once, whom the people at the table vote against
    (4, [2, 3], {0: 3}),
    (5, [2, 3, 4], {0: 4}),
    (6, [4, 5], {0: 5, 1: 5}),
    (7, [4, 5, 6], {0: 6, 1: 5}),
    (8, [5, 6, 7], {0: 7, 1: 7, 2: 6}),
]


@pytest.mark.parametrize("players, lost, people", CASES)
def test_votes_split_between_silent_seats_void_the_round_and_the_table_finishes(players, lost,
                                                                                 people):
    live = [s for s in range(players) if s not in lost]
    preset = "davis" if players <= 6 else "marcelle"  # (simple_bot.py plays davis rules)
    t = Roster(players, preset=preset, seed=60 + players, rules=THREE_CONTRACTS)
    replica = simple_bot_follower(t.host.start_game) if preset == "davis" else None
    lose_at_deal(t, lost)
    for seat in lost:
        silent(t, seat)
    before, silenced = t.host.void_target, dict(t.host.silenced)
    votes = split_votes(t, people, lost)
    named = list(votes.values())
    assert len(set(named)) > 1 and all(2 * named.count(s) <= len(live) for s in lost), \
        "no silent seat has more than half of the seats that can vote"
    # the table does not wait for good: of the seats named most, the one timed out first
    first = named_most(votes, silenced)
    assert t.host.left == [(before, first)] and t.host.vacant == {first: before}
    for table in t.seats:
        assert table.fault is None and table.vacant == t.host.vacant
    read = agree(replica, t, 0)
    # the seats still silent hold up the stand-in's approval, and are voted gone one a round
    while set(lost) - t.host.vacant.keys() - {s for _, s in t.host.left}:
        stand_ins(t, [t.host.left[-1][1]])
        while t.step(play=False):
            pass
        left, silenced = len(t.host.left), dict(t.host.silenced)
        votes = split_votes(t, people, [s for s in lost if s not in {x for _, x in t.host.left}])
        assert t.host.left[left:] == [(t.host.left[-1][0], named_most(votes, silenced))]
        read = agree(replica, t, read)
    stand_ins(t, [t.host.left[-1][1]])
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {seat: 1 for seat in lost})
    assert sorted(s for _, s in t.host.left) == lost and t.host.silenced == {}
    # the bound of protocol.md 11.6: one deal a leave, and a leave a replacement
    deals = len(t.host.public.result.rounds) + len(t.host.left)
    assert deals == t.host.rules.rounds + len(lost) <= t.host.rules.rounds + players + len(lost)
    agree(replica, t, read)
    assert replica is None or replica.finished


def test_no_second_vote_or_timeout_moves_a_split_table_only_the_votes_counted_together():
    """Nothing else could move a split table: each seat has its one vote of the round (a
    second is refused) and each silent seat is timed out (a second timeout names the host).
    Counted together, the votes void the round at the vote that makes them more than half of
    the seats that can vote, and not before."""
    t = Roster(4, preset="marcelle", seed=64, rules=THREE_CONTRACTS)
    lose_at_deal(t, [2, 3])
    silent(t, 2)
    silent(t, 3)
    vote_gone(t, 3, [0])
    assert t.host.vacant == {}, "one vote of two seats that can vote is not more than half"
    with pytest.raises(RemoteProtocolError, match="second vote"):
        t.host.admit(t.sign(0, t.ids[0].sign_key, wm.VoidRound(round=t.host.void_target,
                                                                  seat=2)))
    vote_gone(t, 2, [1])
    assert t.host.vacant == {2: t.host.left[0][0]}, "two votes against silent seats of two"
    assert t.host.silenced.keys() == {3}
    with pytest.raises(Fault, match="silent"):
        t.host_says(wm.Timeout(seat=3, what="silent"))
