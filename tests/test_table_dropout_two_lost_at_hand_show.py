"""R1, two seats lost in one round, one of them replaced, at the round's end (docs/dealing.md,
"The round's end"), in process over our real classes: 6 seats, ``t = 4``; seat 2 is voted gone
mid-round, rebuilt and played by a newcomer; seat 3 dies at its own reveal of its hand and is
voted gone, with no one to seat in it.  Its hand is shown without it: each seat not lost this
round shows its own key of each hidden card, and nobody else, seat 2's newcomer included: seat
2's keys of the round's deal are public from its rebuilt seed (`StreamTable.rebuilding`).  What
every party says is owed (`Owing.owed_steps`: the host's ``owed`` notice, the seats the table
waits on and may time out as silent) says the same: without the lost seats' keys counted as
public there, it would name the newcomer too, a key a client without a replica would be told to
send and a seat the table would wait on.  The round is scored with the lost hand and stands:
no void."""

from __future__ import annotations

from shanghai_net.engine import Phase, RoundVoided, SeatLost
from shanghai_net.wire.messages import Deal

from dropout_helpers import dies_at
from test_table_dropout_lost_at_hand_show import hand_of, play_without_stand_in, reveals_of
from test_table_dropout_lost_rebuild import published
from test_table_dropout_lost_vote import after_some_draws
from test_table_dropout_silent import parties
from test_table_roster import vote_gone

REPLACED, VACANT = 2, 3
KEEPERS = (0, 1, 4, 5)
"""The seats not lost in the round: they show the vacant seat's hand."""


def test_a_vacant_hand_is_owed_by_the_seats_not_lost_not_by_a_lost_seat_s_newcomer():
    t = after_some_draws(6, 4)  # seat 2 gone from here
    vote_gone(t, REPLACED, list(KEEPERS))
    published(t)
    round_no = t.host.round
    t.seat_newcomer(REPLACED)
    assert dies_at(t, lambda msg: msg.author == VACANT and isinstance(msg.body, Deal) and
                   msg.body.step == "reveal" and t.host.round == round_no and
                   t.host.public.phase is Phase.SCORING) == VACANT
    died = len(t.stream)
    while t.step(play=False):  # the others show their hands: the table waits on seat 3
        pass
    hand, hidden = hand_of(t, VACANT)
    assert hidden, "the seat dies holding hidden cards"
    vote_gone(t, VACANT, list(KEEPERS))
    assert t.host.rebuilds.keys() == {REPLACED, VACANT}
    owed: dict = {}  # token of the vacant hand -> the seats ever owed its reveal

    def ended() -> bool:
        if t.host.public.phase is Phase.SCORING and t.host.round == round_no:
            for step in t.host.owed_steps():
                token = (step.generation, step.position)
                if step.step == "reveal" and token in hidden:
                    owed.setdefault(token, set()).add(step.seat)
        return t.host.audited >= round_no

    play_without_stand_in(t, VACANT, ended)
    assert owed == {token: set(KEEPERS) for token in hidden}, "owed by the keepers alone"
    assert t.host._shown_without_holder == set(hidden)
    assert {token: sorted(shown) for token, shown in reveals_of(t, hidden, died).items()} == \
        {token: [(seat, (seat,)) for seat in KEEPERS] for token in hidden}, \
        "each hidden card once by each keeper, its own key only"
    result = t.host.public.results[round_no - 1]
    assert result.hands[VACANT] == tuple(hand.values()), "the vacant hand was scored"
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.lost == [(round_no, REPLACED), (round_no, VACANT)] and party.left == []
        assert not any(isinstance(e, RoundVoided) for e in party.public.log), "no void"
        assert [e.seat for e in party.public.log if isinstance(e, SeatLost)] == \
            [REPLACED, VACANT]
        assert party.public.results[round_no - 1] == result
    for seat in set(range(6)) - {VACANT}:
        assert t.seats[seat].verdicts[round_no].clean
