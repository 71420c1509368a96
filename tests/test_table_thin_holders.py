"""A commit with fewer than ``t`` holders carries no sharing (docs/dealing.md, "Holders: who
is dealt shares"; protocol.md 11.10): a game's holders only decrease, so at 4 seats (``t`` = 3)
the first replaced seat leaves each holder-dealer 2 holders at the next deal.  In process over
our real classes: the round is dealt and audited clean at every party, the host's public table
and ``verify``; a dealer whose commit has the wrong shape is refused and named.  And R1's
holders' bar counts no vote of the host's bots (start_game's ``host_run``)."""

from __future__ import annotations

import dataclasses
import re

import pytest

import test_net_table
from shanghai_net.engine.events import Drew, TookDiscard

from shanghai_net.deal.messages import Commitment, SharedCommitment
from shanghai_net.deal.shares import shared_commit
from shanghai_net.table.verify import verify
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

from dropout_helpers import changing
from test_table_dropout_lost_rebuild import published
from test_table_dropout_silent import parties, seat_playing, shared, silent_at_first_audit
from test_table_roster import vote_gone


def replaced(t, *seats):
    """Round 1 settled, each of ``seats`` is voted gone by every other seat (R1: its commit
    shares, so it is lost and rebuilt, the round going on), and a newcomer is seated in it at
    the approval that completes the host's ``replace``, mid-round (rule 4: it holds no share
    of round 1's deal; the others hand it their keys of the lost hand)."""
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone.update(seats)
    voters = [s for s in range(len(t.seats)) if s not in seats]
    for seat in sorted(seats, reverse=True):
        for voter in voters:  # until the holders' bar is reached
            if (1, seat) not in t.host.lost:
                vote_gone(t, seat, [voter])
    published(t)
    for seat in seats:
        t.seat_newcomer(seat)


def commits_of(t, round_no):
    """dealer -> the seats its commit of generation 0 of ``round_no`` seals a share to, or None
    for a commit without sharing."""
    return {m.author: (None if "shares" not in m.body.data else
                       [box["to"] for box in m.body.data["shares"]])
            for m in t.stream if isinstance(m.body, Deal) and m.body.step == "commit"
            and m.body.data["round"] == round_no and m.body.data["generation"] == 0}


@pytest.mark.parametrize("players, t, seats, commits", [
    # holders 0, 1, 2: each of them deals to 2 < t = 3 (no sharing); the replacement to 3
    (4, 3, (3,), {0: None, 1: None, 2: None, 3: [0, 1, 2]}),
    # holders 0 to 3: each deals to 3 = t, the replacement to 4: every commit shares
    (5, 3, (4,), {0: [1, 2, 3], 1: [0, 2, 3], 2: [0, 1, 3], 3: [0, 1, 2], 4: [0, 1, 2, 3]}),
    # the same holders at t = 4: only the replacement's commit reaches t
    (5, 4, (4,), {0: None, 1: None, 2: None, 3: None, 4: [0, 1, 2, 3]}),
    # two replaced at t = 3 (both lost in round 1, seat 3's rebuilt from 0, 1 and 2): holders
    # 0, 1, 2 deal to 2 each, each replacement to 3
    (5, 3, (3, 4), {0: None, 1: None, 2: None, 3: [0, 1, 2], 4: [0, 1, 2]}),
])
def test_after_replacements_each_commit_shares_iff_t_hold_it_and_the_game_ends_clean(
        players, t, seats, commits):
    t = shared(players=players, t=t)
    replaced(t, *seats)
    t.run_until(lambda: t.host.round > 1 and t.host._all_committed(0))
    round_no = t.host.round  # the first deal the newcomers play from its start
    assert round_no == 2
    for party in parties(t):
        assert party.fault is None, party.fault
    assert commits_of(t, round_no) == commits
    t.run_until(lambda: t.host.finished)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, party.fault
        assert party.left == [] and party.lost == [(1, s) for s in sorted(seats, reverse=True)]
    assert all(seat.verdicts[1].clean and seat.verdicts[2].clean for seat in t.seats)
    assert len(t.host.public.results) == 2 and t.host.rounds_audited == 2
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()


def commit_held(t, seat, round_no):
    """Play on until ``seat``'s commit of generation 0 of ``round_no`` is made; it is held here,
    to be offered to the host by hand."""
    held = []
    t.deliver = lambda msg, deliver=t.deliver: held.append(msg) if (
        msg.author == seat and isinstance(msg.body, Deal) and msg.body.step == "commit"
        and msg.body.data["round"] == round_no) else deliver(msg)
    t.run_until(lambda: held)
    return held[0]


def assert_refused_and_named(t, commit, why):
    """The host refuses ``commit``; a lying host that sequences it anyway is named by no one
    but its dealer at every other seat, and by verify."""
    with pytest.raises(RemoteProtocolError, match="bad_message.*" + re.escape(why)):
        t.host.admit(commit)
    said = t.relay(commit)
    assert [fault.culprit for seat, fault in enumerate(said) if seat != commit.author] == \
        [commit.author] * (len(t.seats) - 1)
    assert all(why in fault.reason for seat, fault in enumerate(said) if seat != commit.author)
    report = verify([t.host.start_game, *t.stream])
    assert report.fault.culprit == commit.author and why in report.fault.reason


def sharing_anyway(self, commit):
    """A holder-dealer with 2 holders at t = 3 shares its seed among them, at t = 2."""
    if isinstance(commit, SharedCommitment):
        return commit
    g = self.generation(commit.context.generation)
    holders = [h for h in g.sharing.holders if h != self.seat]
    return shared_commit(g.context, self.seat, g.seed, 2, {h: self._roster[h] for h in holders})


def test_a_commit_carrying_a_sharing_where_none_is_due_is_refused_naming_its_dealer():
    t = shared(players=4, kinds={1: seat_playing(changing(Commitment, sharing_anyway))})
    replaced(t, 3)
    commit = commit_held(t, 1, 2)
    assert "shares" in commit.body.data
    assert_refused_and_named(t, commit, "seat 1's commit of generation 0 refused: it carries a "
                                        "sharing, with fewer holders than the table's t = 3")


def test_a_commit_without_sharing_where_it_is_due_is_refused_naming_its_dealer():
    keeping = changing(SharedCommitment, lambda self, c: Commitment(c.context, c.author, c.digest))
    t = shared(players=4, kinds={1: seat_playing(keeping)})
    commit = commit_held(t, 1, 1)
    assert "shares" not in commit.body.data
    assert_refused_and_named(t, commit, "seat 1's commit of generation 0 refused: it carries no "
                                        "sharing, with 3 holders (the table's t = 3)")


def silent_in_round_2(seat):
    """The 4-seat game, seat 3 replaced; ``seat``'s seeds of round 2 are timed out: every
    party audits, none faulted and nobody named."""
    t = shared(players=4)
    replaced(t, 3)
    t.run_until(lambda: t.host.round == 2)
    silent_at_first_audit(t, seat)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, party.fault
    return t


def test_a_holder_silent_at_its_seeds_whose_commit_carried_none_stays_absent_and_pays():
    """R2: seat 0's commit of round 2 carried no sharing, so its seed is not rebuilt: the
    round is void as without sharing (seat 0 pays and the round is dealt again), nobody named."""
    t = silent_in_round_2(0)
    for party in parties(t):
        assert party.left == [(2, 0)] and party.lost == [(1, 3)]
        assert [r.round_no for r in party.public.results] == [1]


def test_the_replacement_silent_at_its_seeds_is_rebuilt_from_the_holders_shares():
    t = silent_in_round_2(3)
    for party in parties(t):
        assert party.left == [] and party.lost == [(1, 3)] and party.audited == 2  # rebuilt
    t.run_until(lambda: t.host.finished)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok and report.rounds == 2, report.summary()


def test_the_host_s_bots_votes_do_not_reach_the_holders_bar(monkeypatch):
    """R1's bar counts holders' votes only (docs/dealing.md, "The vote's bar, with sharing
    on"): at 5 seats with the host running seat 4 (4 holders, t = 3), seat 2 gone, the votes of
    0, 1 and the host's bot 4 are the seat majority but 2 holders' votes: they wait; seat 3's
    is the third holder's, and seat 2 is lost, the round going on."""
    plain = test_net_table.StartGame

    def host_runs_seat_4(**fields):
        seats = tuple(dataclasses.replace(p, host_run=p.seat == 4) for p in fields.pop("seats"))
        return plain(**fields, seats=seats)

    monkeypatch.setattr(test_net_table, "StartGame", host_runs_seat_4)
    t = shared(players=5)
    t.run_until(lambda: sum(isinstance(e, (Drew, TookDiscard)) for e in t.host.public.log) >= 3)
    t.gone.add(2)
    vote_gone(t, 2, [0, 1, 4])
    for party in parties(t):
        assert party.fault is None and party.lost == [] and party.vacant == {}, party.fault
        assert party.holder_votes[(party.round, 2)] == {0, 1}
    vote_gone(t, 2, [3])
    for party in parties(t):
        assert party.fault is None and party.lost == [(party.round, 2)], party.fault
        assert party.rebuilds[2].owing() == [0, 1, 3]  # the host's bot owes no share


@pytest.mark.parametrize("gone", [0, 3])
def test_r1_in_the_round_after_a_replacement_rebuilds_only_a_seat_whose_commit_shares(
        gone):
    """At 4 seats after seat 3's replacement, seat 0's commit carries no sharing: voted gone
    mid-round it is not rebuildable and the round is void as without sharing; the
    replacement's commit shares among 0, 1 and 2: voted gone, it is lost and rebuilt, the
    round going on."""
    t = shared(players=4)
    replaced(t, 3)  # lost in round 1 and rebuilt, its replacement seated mid-round
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    t.run_until(lambda: sum(isinstance(e, (Drew, TookDiscard)) for e in t.host.public.log) >= 3)
    assert all(party.rebuildable(s) == (s == 3) for party in parties(t) for s in range(4))
    t.gone.add(gone)
    for voter in (s for s in range(4) if s != gone):  # each with the key that plays its seat
        t.deliver(t.sign(voter, t.boxes[voter].sign_key, wm.VoidRound(round=2, seat=gone)))
    for party in parties(t):
        assert party.fault is None, party.fault
        if gone == 0:
            assert party.left == [(2, 0)] and party.lost == [(1, 3)]
        else:
            assert party.left == [] and party.lost == [(1, 3), (2, 3)]
    t.run_until(lambda: all(party.rebuilt_lost() == ({3} if gone == 3 else set())
                            for party in parties(t)), play=False)  # the shares: no move
