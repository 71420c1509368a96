"""R1, the lost player's own table (docs/dealing.md), in process over our real classes: 6 seats,
``t = 4``; seats 2 and 3 are voted gone in one round, then a newcomer takes seat 2 and plays on
to seat 3's turn, where a newcomer takes seat 3 too.  Seat 3's old table is alive (a link down,
not a crash): it takes the stream quietly, sends nothing, and follows the other seat's
replacement, whose messages it takes as the newcomer's.  Before (session 21), it skipped seat
2's seating (its own seat vacant), still held seat 2 vacant, and faulted the honest newcomer at
its first reveal: "seat 2 is vacant (lost this round, not yet replaced), and sends nothing"."""

from __future__ import annotations

from shanghai_net.engine import RoundVoided

from test_table_dropout_lost_rebuild import published
from test_table_dropout_lost_vote import after_some_draws
from test_table_dropout_silent import parties
from test_table_roster import vote_gone

REPLACED, VACANT = 2, 3
KEEPERS = (0, 1, 4, 5)


def made_by(table) -> list:
    """Every message ``table`` makes from here (none reaches the host)."""
    made, plain = [], table.receive

    def receive(msg):
        made.extend(plain(msg))
        return []

    table.receive = receive
    return made


def test_a_lost_seat_s_own_table_follows_another_lost_seat_s_replacement_and_sends_nothing():
    t = after_some_draws(6, 4)  # seat 2 gone from here
    t.gone.add(VACANT)
    for seat in (REPLACED, VACANT):
        vote_gone(t, seat, list(KEEPERS))
        published(t)
    assert t.host.vacant.keys() == {REPLACED, VACANT}
    lost_table = t.seats[VACANT]
    made = made_by(lost_table)
    t.seat_newcomer(REPLACED)
    seated = len(t.stream)
    t.run_until(lambda: t.host.public.turn == VACANT)
    assert {"reveal", "DrawStock", "Discard"} <= {
        getattr(msg.body, "step", type(msg.body).__name__)
        for msg in t.stream[seated:] if msg.author == REPLACED}, "the newcomer played a turn"
    assert lost_table.fault is None and lost_table.verdict is None, lost_table.fault
    assert VACANT in lost_table.vacant and REPLACED not in lost_table.vacant
    assert made == [], "the lost player's own table sent nothing"
    t.seat_newcomer(VACANT)  # (its old table is out of the game from here)
    t.run_until(lambda: t.host.audited >= 1)
    result = t.host.public.results[0]
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.audited == 1 and party.lost == [(1, REPLACED), (1, VACANT)]
        assert not any(isinstance(e, RoundVoided) for e in party.public.log), "no void"
        assert party.public.results[0] == result
