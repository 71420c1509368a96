"""R1's trigger wired into the table, in process over our real classes (docs/dealing.md, "The
vote's bar, with sharing on"): at a table whose start_game sets ``share_threshold`` (no host
offers it yet), the votes naming a rebuildable seat need the seat majority and ``t`` votes of
holders other than the seat; then the seat is lost and the round goes on (`SeatLost`, not
`RoundVoided`) at every party, the seat vacant and charged once, each holder owing its shares.
With the majority but not ``t`` holders the votes wait, and the host's ``"vote"`` timeout
voids the round as without sharing."""

from __future__ import annotations


from shanghai_net.engine import RoundVoided, SeatLost
from shanghai_net.engine.events import Drew, TookDiscard

from test_table_dropout_silent import parties, shared
from test_table_dropout_lost_wire import refused_timeout
from test_table_roster import vote_gone


def after_some_draws(players=5, t=4, draws=3, kinds=None, turn=None):
    """A shared table ``draws`` draws into its first round (and at ``turn``'s, if given),
    seat 2 gone from here (it sends nothing more); ``kinds``: seat -> the PeerTable class it
    runs."""
    table = shared(players, t, **({"kinds": kinds} if kinds else {}))
    table.run_until(lambda: sum(isinstance(e, (Drew, TookDiscard))
                                for e in table.host.public.log) >= draws and
                    turn in (None, table.host.public.turn))
    table.gone.add(2)
    return table


def test_the_seat_majority_without_t_holders_waits_and_t_holders_lose_the_seat():
    t = after_some_draws()
    round_no, penalty = t.host.round, t.host.rules.leave_penalty
    vote_gone(t, 2, [0, 1, 3])  # 3 of 5 seats: the majority, but t = 4 holders' votes needed
    for party in parties(t):
        assert party.fault is None and party.vacant == {} and party.lost == []
        assert not any(isinstance(e, (RoundVoided, SeatLost)) for e in party.public.log)
    vote_gone(t, 2, [4])
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party.lost == [(round_no, 2)] and party.left == [] and party.vacant == {2: round_no}
        assert not any(isinstance(e, RoundVoided) for e in party.public.log)
        lost = [e for e in party.public.log if isinstance(e, SeatLost)]
        assert [(e.seat, e.penalty) for e in lost] == [(2, penalty)]
        assert party.public.round_no == round_no and party.round == round_no
        assert party.public.scores == [penalty * (s == 2) for s in range(5)]
    for seat in (0, 1, 3, 4):
        table = t.seats[seat]
        assert table.participant.owing(2) == [0, 1, 3, 4]
        assert [e for e in table.events if isinstance(e, SeatLost)][0].seat == 2


def test_the_host_s_vote_timeout_without_t_holders_voids_the_round_as_without_sharing():
    t = after_some_draws()
    round_no, penalty = t.host.round, t.host.rules.leave_penalty
    vote_gone(t, 2, [0, 1, 3])
    t.time_out(2, "vote")
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party.left == [(round_no, 2)] and party.lost == [] and party.vacant == {2: round_no}
        voided = [e for e in party.public.log if isinstance(e, RoundVoided)]
        assert [(e.round_no, e.leaver, e.penalty) for e in voided] == [(round_no, 2, penalty)]


def test_a_vote_timeout_before_the_majority_names_the_host():
    t = after_some_draws()
    vote_gone(t, 2, [0, 1])
    refused_timeout(t, 2, "vote")


def test_a_lapsed_vote_counts_toward_the_holders_bar_no_more():
    """The holders' votes against seat 2 lapse when seat 2 plays on (protocol.md 11.5): a
    fourth vote after that counts alone, toward either bar."""
    t = after_some_draws()
    t.gone.discard(2)
    vote_gone(t, 2, [0, 1, 3])
    t.run_until(lambda: (t.host.round, 2) not in t.host.gone_votes)  # seat 2 sent a move
    vote_gone(t, 2, [4])
    for party in parties(t):
        assert party.fault is None and party.lost == [] and party.vacant == {}
        assert party.holder_votes.get((party.round, 2), set()) <= {4}
