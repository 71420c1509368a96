"""R1, a seat lost at its pass of the round's shuffle (docs/dealing.md: a rebuilt seat's
remaining passes are public, every party makes them at their turn and nobody sends them),
in process over our real classes: the table must not wait for the lost seat's pass, nor its
replacement's, and the public table records the pass it makes, so that its audit reads every
pass at its turn.  Found over real processes (the acceptance game `lost_seat_game` with
``--sharing default``, a `shanghai bot` killed while it owed its pass): the table listed the
replacement as owing the lost seat's pass, the bots voted the replacement gone, and the
second loss of the seat in the round stopped the game."""

from __future__ import annotations

import pytest

from shanghai_net.wire.messages import Deal

from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_silent import parties, shared
from test_table_roster import newcomer, vote_gone


def dead_at_pass(turn):
    """4 seats, t = 3: the seat whose pass is step ``turn`` of round 1's shuffle dies at it
    (the host never sees it); the table, the others' steps delivered up to there."""
    lost, t = turn % 4, shared(4, 3)
    plain = t.deliver

    def dying(msg):
        if msg.author == lost and isinstance(msg.body, Deal) and msg.body.step == "pass" and \
                t.host._passes.get(0) == turn:
            t.gone.add(lost)
            return msg
        return plain(msg)

    t.deliver = dying
    t.run_until(lambda: t.host.round == 1 and t.host._passes.get(0) == turn and
                lost in t.gone, play=False)
    t.deliver = plain
    return t


@pytest.mark.parametrize("turn", [2, 4, 7])
def test_a_seat_lost_at_its_pass_is_rebuilt_and_the_shuffle_goes_on_without_its_pass(turn):
    """4 seats, t = 3: the seat whose pass is step ``turn`` of the shuffle (in pass 1, in pass
    2, the last pass) dies at it, is voted gone and rebuilt; its stand-in is seated mid-round,
    nobody owes the pass, and the round is audited clean at every party.  At the last pass the
    deal is dealt after the rebuild: nobody owes the seat's key of the card turned up (its key
    is public), and the round's replay loses the seat after round 1's first-dealer pick, as
    every replica did (before, the replay lost it in the pick, the round's start forgot it, and
    the replay named seat 2's first discard 'not now: the game is in its draw phase')."""
    lost = turn % 4
    t = dead_at_pass(turn)
    assert t.host.owed() == {lost: "its pass of shuffle 0"}
    round_no, old, who = t.host.round, t.seats[lost], newcomer(lost)
    vote_gone(t, lost, sorted({0, 1, 2, 3} - {lost}))
    t.run_until(lambda: t.host.rebuilt_lost() == {lost}, play=False)
    assert lost not in t.host.owed(), "the rebuilt seat's pass is public: nobody owes it"
    t.follow(lost, who, yields=True)
    t.propose(lost, who)
    t.run_until(lambda: t.seats[lost] is not old, play=False)
    t.gone.discard(lost)
    assert t.host.owed().get(lost) != "its pass of shuffle 0", "nor its replacement"
    t.run_until(lambda: t.host.audited >= round_no)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.lost == [(round_no, lost)]
    assert all(seat.verdicts[round_no].clean for seat in t.seats)
    assert_no_hidden_card_opened_to(t, lost)


def test_key_shares_to_a_seat_lost_at_the_last_pass_reach_its_replacement_at_its_key():
    """Seat 3 dies at the last pass and the host proposes its stand-in at once, as the
    reference host does: every seat approves before the rebuild completes the shuffle, so the
    deal asks for key shares of seat 3's hand while it is vacant, and the stand-in is seated
    before they are sequenced.  A box to seat 3 sequenced after the seating is sealed to the
    replacement's box key, so no seat seals one to the vacant seat's old key: each waits for
    the seating.  Found over real processes (acceptance lost_seat_game, sharing on,
    /work/notes/s18/own-13): the seats sealed their boxes to the old key at the deal, the host
    sequenced them after the seating, the replacement could not open them and complained,
    and the audit named seat 2, an honest seat."""
    lost = 3
    t = dead_at_pass(7)
    round_no, old, who = t.host.round, t.seats[lost], newcomer(lost)
    vote_gone(t, lost, [0, 1, 2])
    t.follow(lost, who, yields=True)
    t.propose(lost, who)
    t.gone.discard(lost)
    t.run_until(lambda: t.seats[lost] is not old, play=False)
    seated = len(t.stream)
    t.run_until(lambda: t.host.audited >= round_no)
    boxes = [m for m in t.stream[seated:] if isinstance(m.body, Deal) and
             m.body.step == "shares"]
    assert boxes, "the key shares of seat 3's hand came after the seating"
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.lost == [(round_no, lost)]
    assert t.seats[lost].complaint is None
    assert all(seat.verdicts[round_no].clean for seat in t.seats)
