"""Two or more seats lost at once (protocol.md 11.5, 11.8), in process over the real tables:
whatever the table size, the table finishes, names who left, charges each leaver once, and
opens no card."""

from __future__ import annotations

from shanghai_net.wire import messages as wm

from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_roster import Roster, newcomer, vote_gone

THREE_CONTRACTS = {"contracts": [[2, 0], [1, 1], [0, 2]]}


def assert_finished_alike(t, leavers):
    """Every party ends the game with the same result; each of ``leavers`` (seat -> times)
    paid the leave penalty that many times and no other seat paid it; no card opened."""
    result = t.host.public.result
    penalty = t.host.rules.leave_penalty
    assert t.host.finished and t.host.fault is None and result is not None
    for seat, table in enumerate(t.seats):
        assert table.fault is None and table.finished and table.game.result == result, seat
    for seat in range(t.host.players):
        played = sum(r.points[seat] for r in result.rounds)
        assert result.totals[seat] == played + penalty * leavers.get(seat, 0), seat
        assert_no_hidden_card_opened_to(t, seat)


def test_a_replacement_seated_while_another_seat_is_still_vacant_waits_for_the_deal():
    """Five seats; seat 3 leaves in round 2 and is voted gone; its stand-in's approval waits
    for seat 2, which leaves too and is voted gone while the table waits.  Seat 3's stand-in
    is then seated at once (every seat not vacant approved it), while seat 2 is still vacant:
    its table must not send the last deal's commitment (the host refused it as a second one,
    and the stand-in stalled the table); it commits when the deal begins."""
    t = Roster(5, seed=8, rules=THREE_CONTRACTS)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    t.gone.update({2, 3})
    vote_gone(t, 3, (0, 1, 4))
    first = newcomer(3)
    t.follow(3, first)
    t.propose(3, first)
    while t.step(play=False):
        pass
    assert [t.host.needed(p) for p in t.host.proposals.values()] == [{2}]
    vote_gone(t, 2, (0, 1, 4))
    assert t.host.vacant == {2: 3} and t.host.holders[3].sign_key == first.sign_public
    second = newcomer(2)
    t.follow(2, second)
    t.propose(2, second)
    t.gone.clear()
    t.run_until(lambda: t.host.finished)
    assert t.host.left == [(2, 3), (3, 2)]
    assert_finished_alike(t, {2: 1, 3: 1})
