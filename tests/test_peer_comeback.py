"""Our first player back mid-round to its seat lost this round (sharing on, R1; protocol.md
11.10), in process: the table its program kept through the loss."""

from __future__ import annotations

from test_table_dropout_lost_rebuild import lost, published

BACK = 2
"""The seat lost and played again by its first player (`lost`'s)."""


def test_a_seat_voted_gone_at_its_turn_makes_no_move_on_the_table_it_kept():
    """Seat 2 is voted gone at its turn (its player's program alive, or started again and
    replaying): its replica shows its turn still, which waits for the seat's next holder, but
    the table offers its player no move.  Before, its bot moved on the table that lost the
    seat, and the host, which had seated the seat again meanwhile, sequenced that move."""
    t = lost(turn=BACK)
    published(t)
    table = t.seats[BACK]
    assert BACK in t.host.vacant and BACK in table.game.to_move() and table.settled
    assert not table.can_move()
