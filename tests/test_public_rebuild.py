"""R2 at the table (docs/dealing.md, "R2, silent at its seeds"): every party, the host's public
table and each seat, rebuilds the seats silent at their seeds with the deal's one function
(deal/silent.py), once an audit."""

from __future__ import annotations

from collections import Counter

import shanghai_net.deal.silent as silent

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
