"""R2 at the table (docs/dealing.md, "R2, silent at its seeds"): every party, the host's public
table and each seat, rebuilds the seats silent at their seeds with the deal's one function
(deal/silent.py), once an audit."""

from __future__ import annotations

from collections import Counter

import shanghai_net.deal.silent as silent
from shanghai_net.table.verify import verify
from shanghai_net.wire import messages as wm

from test_table_dropout_lost_rebuild import lost, published
from test_table_dropout_silent import parties, shared, silent_at_first_audit


def test_each_party_tries_each_silent_seat_once_an_audit(monkeypatch):
    """Seats 1 and 2 silent, 4 seats at t = 3: too few shares of either.  Each of the five
    parties tries each silent seat's one generation once (the seat's audit used to try again
    after the table's own call, checking every share a second time)."""
    tried = []

    def counted(context, dealer, *args, rebuild=silent.rebuild):
        tried.append((context.round, context.generation, dealer))
        return rebuild(context, dealer, *args)

    monkeypatch.setattr(silent, "rebuild", counted)
    t = shared()
    silent_at_first_audit(t, 1, 2)
    assert Counter(tried) == {(1, 0, 1): 5, (1, 0, 2): 5}
    for party in parties(t):
        assert {seat for _, seat in party.left} == {1, 2}


def test_a_lost_seat_whose_rebuild_a_complaint_cut_short_is_rebuilt_alike_by_every_party():
    """R1: seat 2 lost, holder 3's share_reveal kept back by the host, so 2
    of the 3 shares are in when seat 0's complaint stops the round.  The seeds then carry
    seat 3's share too: every party, the host's table as every seat, rebuilds seat 2 from them
    and audits it (the host's table named the lost seat, "revealed no seed", where the seats
    rebuilt it), so every party names the complainer alike."""
    t = lost(held=(3,))
    published(t)
    assert t.host.rebuilds[2].owing() == [3] and not t.host.rebuilds[2].rebuilt
    t.deliver(t.sign(0, t.ids[0].sign_key, wm.Complaint(round=t.host.round, reason="no card")))
    t.run_until(lambda: t.host.verdict is not None)
    for party in parties(t):
        assert party.verdict.culprit == 0, party.verdict
        assert "complained (no card), but every step of the deal matches" in party.verdict.reason
    assert t.host.records[0].sharing.rebuilt[2] == \
        t.seats[0].participant.generation(0).sharing.rebuilt[2]
    assert verify([t.host.start_game, *t.stream]).fault.culprit == 0
