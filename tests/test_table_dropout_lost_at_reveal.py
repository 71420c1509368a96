"""R1, a seat lost while it owes its own key of a card turned up (the discard pile's first
card, at the deal's end), in process over our real classes: the lost seat's key of it is
public once the seat is rebuilt, so at the rebuild the card opens at every party, nobody owes
that key (its stand-in neither), and the round goes on.  Found over real processes (the
acceptance game `lost_seat_game` with ``--sharing default``, /work/notes/s17/stall-findings.md
"acc4"): a `shanghai bot` killed before its key of the first card turned up; after the rebuild
the table still waited for that key from the stand-in, the bots voted the stand-in gone, and the
second loss of the seat in the round stopped the game."""

from __future__ import annotations

import pytest

from shanghai_net.engine import Drew, RoundVoided, SeatLost
from shanghai_net.table.verify import verify
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_silent import parties, shared
from test_table_roster import newcomer, vote_gone

TURNED_UP = "its key of a card turned up"


@pytest.mark.parametrize("lost", [0, 3])
def test_a_seat_lost_owing_its_key_of_the_card_turned_up_is_rebuilt_and_the_card_opens(lost):
    """4 seats, t = 3: seat ``lost`` dies at its key of round 1's first card turned up (seat 3:
    after the others sent theirs; seat 0: before); it is voted gone and rebuilt, and at the
    rebuild every party opens the card; its stand-in, seated mid-round, is owed the lost hand
    and holds exactly it; the round stands, audited clean at every party and by `verify`."""
    t = shared(4, 3)
    plain = t.deliver

    def dying(msg):  # the seat dies at its key of the card turned up: the host never sees it
        if msg.author == lost and isinstance(msg.body, Deal) and msg.body.step == "reveal" and \
                t.host.round == 1 and t.host._publics:
            t.gone.add(lost)
            return msg
        return plain(msg)

    t.deliver = dying
    t.run_until(lambda: lost in t.gone, play=False)
    while t.step(play=False):  # the others send all they can: the table waits on the lost seat
        pass
    t.deliver = plain
    assert set(t.host.owed()) == {lost}
    assert any(step.why == TURNED_UP for step in t.host.owed_steps() if step.seat == lost)
    (token,) = t.host._publics
    hand, old = dict(t.seats[lost].participant.hand()), t.seats[lost]
    round_no, who, penalty = t.host.round, newcomer(lost), t.host.rules.leave_penalty
    vote_gone(t, lost, sorted({0, 1, 2, 3} - {lost}))
    t.run_until(lambda: t.host.rebuilt_lost() == {lost}, play=False)
    for party in parties(t):  # the card opened at the rebuild: nobody owes its key
        assert party.fault is None, party.fault
        assert token not in party._publics and token in party.public.faces
        assert TURNED_UP not in party.owed().values()
    face = t.host.public.faces[token]
    assert all(party.public.faces[token] == face for party in parties(t))
    t.follow(lost, who, yields=True)
    t.propose(lost, who)
    t.run_until(lambda: t.seats[lost] is not old, play=False)
    t.gone.discard(lost)
    assert TURNED_UP not in t.host.owed().values(), "nor from its stand-in"
    t.run_until(lambda: t.host.settled)
    assert t.seats[lost].participant.hand() == hand  # exactly the lost hand
    t.run_until(lambda: t.host.audited >= round_no)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.lost == [(round_no, lost)]
        assert not any(isinstance(e, RoundVoided) for e in party.public.log)
        assert [(e.seat, e.penalty) for e in party.public.log if isinstance(e, SeatLost)] == \
            [(lost, penalty)]
    assert all(seat.verdicts[round_no].clean for seat in t.seats)
    assert t.host.public.results[-1].round_no == round_no
    assert_no_hidden_card_opened_to(t, lost)
    t.run_until(lambda: t.host.finished)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()
    assert report.voided is None and report.left == ()


def test_a_seat_lost_between_its_reveal_and_its_move_hands_on_only_its_hidden_cards():
    """4 seats, t = 3: seat 2 reveals the card it discards (every key of it, as a move that shows
    a hidden card is preceded) and dies before its discard.  That card is public and still in
    its hand: the others hand its replacement only the hidden rest, and the replacement learns
    the shown card from the reveal, holds exactly the lost hand, and plays on.  Found over real
    processes (acceptance lost_seat_game, sharing on, /work/notes/s18/own-late2): the table asked
    each seat for a handed box with the shown card in it, the seats' deals left it out (it is
    turned up), the host refused every box ("not the positions it owes"), and the bots voted a
    live seat gone, voiding the round."""
    lost = 2
    t = shared(4, 3)
    plain = t.deliver

    def dying(msg):  # the seat dies between its reveal and its discard
        if msg.author == lost and isinstance(msg.body, wm.Discard) and t.host.round == 1 and \
                sum(isinstance(e, Drew) for e in t.host.public.log) >= 3:
            t.gone.add(lost)
            return msg
        return plain(msg)

    t.deliver = dying
    t.run_until(lambda: lost in t.gone)
    t.deliver = plain
    old, round_no, who = t.seats[lost], t.host.round, newcomer(lost)
    shown = [token for token in t.host.public.hands[lost] if token in t.host._revealed]
    assert len(shown) == 1 and t.host.moving() == {lost}
    hand = {**old.participant.hand(), shown[0]: old.participant.public_card(*shown[0])}
    vote_gone(t, lost, [0, 1, 3])
    t.run_until(lambda: t.host.rebuilt_lost() == {lost}, play=False)
    t.follow(lost, who, yields=True)
    t.propose(lost, who)
    t.gone.discard(lost)
    t.run_until(lambda: t.seats[lost] is not old, play=False)
    assert all(shown[0] not in {(generation, p) for p in positions}
               for (_, generation), senders in t.host.handed_owed.items()
               for positions in senders.values()), "the shown card is handed to no one"
    t.run_until(lambda: t.host.settled)
    replacement = t.seats[lost]
    assert {token: replacement.game.faces[token] for token in replacement.game.hands[lost]} == \
        hand
    t.run_until(lambda: t.host.audited >= round_no)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.lost == [(round_no, lost)] and party.left == []
    assert all(seat.verdicts[round_no].clean for seat in t.seats)
    assert_no_hidden_card_opened_to(t, lost)
