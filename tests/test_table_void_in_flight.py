"""A move on its way when a vote voids its round is never sent in the next round (in process,
over the real tables): the cause of tests/test_net_replay_vote.py's failure under load.  The
host refuses the move ``stale`` (the void moved the game on); the seat signed it again once the
next round's deal had settled, for it checked a move again only when another move had been
applied since (``version``), and a void applies none: the host refused it ``illegal_move``
("not now: the game is in its draw phase"), or, had it been legal in the new deal, sequenced a
decision nobody made for that deal.  Now a move chosen in a round that is over is dropped and
the seat chooses again."""

from __future__ import annotations

import pytest

from shanghai_net.engine import Phase
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm

from test_table_roster import Roster
from test_table_vacancies import THREE_CONTRACTS, stand_ins

MOVER, VOTER, LOST = 0, 1, 2


def vote_while_a_move_is_on_its_way(t):
    """`MOVER` chooses its move and signs it; before the host takes it, `MOVER` and `VOTER`
    vote `LOST` gone, which voids the round; then the host refuses the move ``stale`` and the
    seat hears so.  The move, and the round voided."""
    t.run_until(lambda: t.host.settled and t.host.public.turn == MOVER and
                t.seats[MOVER].can_move() and t.host.public.phase is Phase.DRAW and
                not any(box.deal or box.flying for box in t.boxes))
    box, table = t.boxes[MOVER], t.seats[MOVER]
    move = t.move_for(MOVER)
    box.push(table.submit(move), move)
    sent = box.poll()
    assert sent is not None and sent.basis_seq is not None
    voided = t.host.void_target
    for voter in (MOVER, VOTER):
        t.boxes[voter].push([wm.VoidRound(round=voided, seat=LOST)])
        t.deliver(t.boxes[voter].poll())
    assert t.host.left == [(voided, LOST)], "the round is void"
    with pytest.raises(RemoteProtocolError) as refused:
        t.host.admit(sent)
    error = refused.value
    assert error.code == "stale", error
    box.error(wm.Error(code=error.code, reason=error.reason, ref_seq=error.ref_seq,
                       ref_counter=error.ref_counter))
    return move, voided


@pytest.mark.parametrize("seed", [3, 5, 8])
def test_a_move_on_its_way_when_its_round_is_voided_is_dropped_not_sent_in_the_next(seed):
    t = Roster(3, preset="davis", seed=seed, rules=THREE_CONTRACTS)
    move, voided = vote_while_a_move_is_on_its_way(t)
    t.gone.add(LOST)
    stand_ins(t, [LOST])
    played = t.host.version
    t.run_until(lambda: t.host.round > voided and t.host.version >= played + 12)
    assert (move, "the round it was chosen in is over: choose again") in \
        t.boxes[MOVER].take_outcomes()
    assert all(table.fault is None for table in t.seats) and t.host.fault is None
