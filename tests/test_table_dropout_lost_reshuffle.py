"""R1, a replacement seated mid-round, then the stock runs out and the discard pile is shuffled
as a new generation of the same round: every party seals its key shares to the seat at the
replacement's box key, and must audit them with it.  Found over real processes (the acceptance
game `lost_seat_game`, sharing on, the kill landing after a discard; /work/notes/s18/own-late1):
the host's public table (and `shanghai verify`) opened generation 1's boxes to the seat with the
lost player's box key, and its audit named seat 0, "the box of positions [3] for seat 3 is bad",
while every seat's own audit was clean: the host ended the game on a verdict no seat shared."""

from __future__ import annotations

import test_net_table
from shanghai_net.table.verify import verify
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire.messages import Deal

from test_table_dropout_lost_rebuild import published
from test_table_dropout_silent import parties
from test_table_roster import vote_gone
from test_table_silence import Muted

SMALL_STOCK = {"contracts": [[2, 0], [1, 1]], "decks": 1}
"""One deck: 4 hands of 11 and the card turned up leave a stock of 11, which runs out in the
round."""


def small_stock_table():
    plain = test_net_table.StartGame
    test_net_table.StartGame = lambda **fields: plain(**fields, share_threshold=3)
    try:
        return Muted(4, verifiable=True, rules=SMALL_STOCK)
    finally:
        test_net_table.StartGame = plain


def test_a_generation_begun_after_a_mid_round_seating_is_audited_with_the_replacement_s_key():
    t = small_stock_table()
    t.run_until(lambda: t.host.round == 1 and t.host.settled and t.host.public.turn == 2)
    round_no = t.host.round
    t.gone.add(2)
    vote_gone(t, 2, [0, 1, 3])
    published(t)
    t.seat_newcomer(2)
    assert t.host.generations == {0}
    try:
        t.run_until(lambda: t.host.audited >= round_no)
    except RemoteProtocolError as refused:  # the host ended the game; a seat whose audit was
        assert t.host.verdict is None, (t.host.verdict, refused)  # clean went on
    assert any(isinstance(m.body, Deal) and m.body.step == "commit" and
               (m.body.data["round"], m.body.data["generation"]) == (round_no, 1)
               for m in t.stream), "the stock ran out: generation 1 in the same round"
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.lost == [(round_no, 2)]
    assert all(seat.verdicts[round_no].clean for seat in t.seats)
    t.run_until(lambda: t.host.finished)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()
    assert report.voided is None and report.left == ()
