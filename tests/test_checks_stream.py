"""Checks of the stream's phase (issue 40) that the suite let through when broken by hand: a
deal step must belong to the phase the stream is in, not only come from the seat whose turn it
is; and the host's clock on a round's seeds runs only for the seats whose seeds are still due.
In process (the `Table` harness of test_net_table), asserting who is named."""

from __future__ import annotations

import pytest

from shanghai_net.deal.group import multiply_all
from shanghai_net.deal.messages import PassOutput
from shanghai_net.table.bodies import deal_body
from shanghai_net.table.fault import Fault
from shanghai_net.wire import messages as wm

from test_checks_table import (assert_named_by, deliver_one_at_a_time, refused_then_relayed,
                               stop_round_1)
from test_net_table import Table


@pytest.mark.parametrize("due", [1, 2])
def test_a_pass_labelled_with_the_other_phase_by_the_seat_whose_turn_it_is_is_named(due):
    """Seat 0's pass ``due`` of round 1 is next; seat 0 sends its pass labelled as the other
    phase's (in phase 1 it would skip ahead to pass 2; in phase 2 repeat pass 1 as if the
    stream were still there).  The host refuses it though the turn is seat 0's; sequenced
    anyway, every party names seat 0."""
    t = Table(3, seed=33)
    passer, other = 0, 3 - due
    deliver_one_at_a_time(t, lambda: t.host.round == 1 and 0 in t.host.records
                          and len(t.host.records[0].commitments) == 3
                          and len(t.host.records[0].passes) == 3 * (due - 1))
    g = t.seats[passer].participant.generation(0)
    given = g.step_input(3 * (due - 1))
    points = multiply_all(g.keys.pass_key, [given[i] for i in g.keys.permutation])
    body = deal_body(PassOutput(g.context, passer, other, tuple(points)))
    why = f"pass {other} of seat {passer} out of turn"
    named = refused_then_relayed(t, passer, body, why)
    assert_named_by(named, ["host"], passer, why)
    assert_named_by(named, [1, 2], passer, f"seat {passer}")


def test_the_host_timing_out_the_seeds_of_a_seat_whose_seeds_came_is_named_by_every_seat():
    """Round 1 stops for its audit; seat 1's seeds are sequenced.  The host then says seat 1's
    seeds did not come in time (its clock ran on for a seat no longer owing them): every seat
    names the host, and seat 1 is not taken as absent; the timeout of a seat still owing its
    seeds is taken."""
    t = Table(3, seed=31)
    stop_round_1(t)
    seeds = next(m for m in iter(t.boxes[1].poll, None) if isinstance(m.body, wm.Deal)
                 and m.body.step == "seeds")
    t.deliver(seeds)
    assert 1 in t.host.seeds_from and t.host.waiting_audit
    late = t.host.chain.sign(t.host_id.sign_key, wm.HOST_AUTHOR, wm.Timeout(seat=1, what="seeds"))
    why = "the host timed out seat 1's seeds, which were not due or had come"
    for party in (t.host, *t.seats):
        with pytest.raises(Fault) as info:
            party.receive(late) if party is not t.host else party.take_host(late)
        assert info.value.culprit == wm.HOST_AUTHOR and why in info.value.reason
        assert 1 not in party.missing_seeds
    t = Table(3, seed=31)
    stop_round_1(t)
    t.time_out(2, "seeds")
    assert all(party.missing_seeds == {2} for party in (t.host, *t.seats))


def test_a_seat_s_seeds_sent_again_while_others_are_due_are_refused_and_name_the_host():
    """Round 1 stops for its audit; seat 1's seeds are sequenced, and seat 1's outbox signs the
    same seeds body again (as it does after a reconnection) while seats 0 and 2 still owe
    theirs.  The host refuses it; sequenced anyway, every party names the host, which placed
    the same body twice, not seat 1 (dealing-review s18 #5)."""
    t = Table(3, seed=31)
    stop_round_1(t)
    seeds = next(m for m in iter(t.boxes[1].poll, None) if isinstance(m.body, wm.Deal)
                 and m.body.step == "seeds")
    t.deliver(seeds)
    assert t.host.waiting_audit and t.host.seeds_from == {1}
    named = refused_then_relayed(t, 1, seeds.body, "seeds a second time: the same body")
    assert_named_by(named, ["host", 0, 1, 2], wm.HOST_AUTHOR,
                    "the host sequenced seat 1's seeds a second time")
