"""R1 at the round's end, in process over our real classes: the round shows every hand (each
holder reveals every key of each hidden card of its hand), and a seat whose hand is still to be
shown is lost.  Its stand-in, seated after those reveals were asked, owes them as its seat did:
it opens the hand the others hand it and shows it, and the round is scored and audited.  Found
by the sweep (tests/test_table_dropout_sweep.py, REVEAL_ASKED: ``r1-reveal_all-other``,
``r2-pass_1.2-1``): the stand-in's table copied the public table without the reveals it had
been asked (`PeerTable.taking_over`), never made them, and the table waited on it for ever."""

from __future__ import annotations

import pytest

from shanghai_net.engine import Phase, RoundVoided, SeatLost
from shanghai_net.table.bodies import parse_deal
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Deal

from dropout_helpers import dies_at, kind_of
from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_silent import parties, shared
from test_table_roster import newcomer, vote_gone


def hand_of(t, seat) -> tuple[dict, set]:
    """The cards of ``seat``'s hand as its player knows them (hidden, or shown to all), and
    the tokens of those still hidden from the table."""
    participant, hand = t.seats[seat].participant, t.host.public.hands[seat]
    return ({token: t.host.public.faces[token] if token[0] < 0 else
             participant.generation(token[0]).mine.get(token[1]) or
             participant.public_card(*token) for token in hand},
            {token for token in hand if token[0] >= 0 and token not in t.host._revealed})


def assert_hand_shown_and_round_stood(t, lost, hand, hidden, round_no, died) -> None:
    """The host's stand-in takes seat ``lost`` (its player dead at message ``died`` of the
    stream) and shows the lost hand's ``hidden`` cards, each once (every key of it); the round
    is scored with exactly the lost hand and stands at every party, audited clean there and by
    `verify`, the seat charged once, and no card opened to the stand-in that another seat
    holds."""
    t.seat_newcomer(lost)
    t.run_until(lambda: t.host.audited >= round_no)
    shown = [(reveal.context.generation, reveal.position) for msg in t.stream[died:]
             if msg.author == lost and kind_of(msg) == "deal reveal"
             for reveal in parse_deal(msg.body, t.host.game_id, lost).messages]
    assert sorted(shown) == sorted(hidden), "the stand-in showed each hidden card once"
    assert t.host.public.results[round_no - 1].hands[lost] == tuple(hand.values())
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.lost == [(round_no, lost)] and party.left == []
        assert not any(isinstance(e, RoundVoided) for e in party.public.log)
        assert [e.seat for e in party.public.log if isinstance(e, SeatLost)] == [lost]
    assert all(seat.verdicts[round_no].clean for seat in t.seats)
    assert_no_hidden_card_opened_to(t, lost)
    t.run_until(lambda: t.host.finished)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()


@pytest.mark.parametrize("round_no", [1, 2], ids=["round 1", "the last round"])
def test_a_seat_lost_before_it_shows_its_hand_at_the_round_s_end_is_shown_by_its_stand_in(
        round_no):
    """4 seats, t = 3: round ``round_no`` ends and the first seat to show its hand dies at it
    (the host never sees its reveal); the others show theirs, and the table waits on it alone.
    It is voted gone and rebuilt, its stand-in seated (after the round asked the reveal), and
    the stand-in shows the lost hand.  The lost player's own table, alive (a link down, not a
    crash), takes the stream quietly up to the seating, which tells its player it is out: its
    replica, which knows every card, has scored the round already (at the last round, the
    game: before, losing the seat there raised IllegalMoveError); and every party's replay of
    the round at its audit, which scored it at its last move (it knows every face), replays no
    loss after that (before, at the last round, it raised IllegalMoveError, the host's too)."""
    t = shared(4, 3)
    lost = dies_at(t, lambda msg: isinstance(msg.body, Deal) and msg.body.step == "reveal" and
                   t.host.round == round_no and t.host.public.phase is Phase.SCORING)
    died = len(t.stream)
    while t.step(play=False):  # the others show their hands: the table waits on the lost seat
        pass
    assert set(t.host.owed()) == {lost} and t.host.public.phase is Phase.SCORING
    assert "every key of its card" in t.host.owed()[lost]
    (hand, hidden), old = hand_of(t, lost), t.seats[lost]
    vote_gone(t, lost, sorted({0, 1, 2, 3} - {lost}))
    t.run_until(lambda: t.host.rebuilt_lost() == {lost}, play=False)
    assert_hand_shown_and_round_stood(t, lost, hand, hidden, round_no, died)
    assert old.fault is None and old.holders[lost].sign_key == newcomer(lost).sign_public, \
        "the old player's table took the stream to its stand-in's seating (its player is out)"


def going_out():
    """The honest game's round 1: (the seat after the one that goes out, which moves no more
    in the round; the index in the stream of its key shares of the last card the one going out
    drew)."""
    t = shared(4, 3)
    while t.host.public.phase is not Phase.SCORING:
        assert t.step()
    winner = t.stream[-1].author
    lost = (winner + 1) % 4
    shares = [k for k, msg in enumerate(t.stream) if msg.author == lost and
              kind_of(msg) == "deal shares"]
    draws = [k for k, msg in enumerate(t.stream) if msg.author == winner and
             kind_of(msg) == "DrawStock"]
    assert shares[-1] > draws[-1], "the one going out drew from the stock at its last turn"
    return lost, shares[-1]


def test_a_round_that_ends_while_a_lost_seat_is_vacant_waits_for_its_stand_in_to_show_it():
    """4 seats, t = 3: a seat dies owing its key share of the last card drawn by the seat that
    then goes out; it is voted gone and rebuilt, the drawer opens the card with its rebuilt key
    and goes out, and the round ends with the seat vacant.  No party sends the keys of its hand
    then (nobody owes them: its keys are its holder's to show), and the table waits for its
    stand-in, seated after the reveals were asked: the stand-in shows the lost hand."""
    lost, k = going_out()
    t = shared(4, 3)
    assert dies_at(t, lambda msg: msg.author == lost and len(t.stream) == k) == lost
    died = len(t.stream)
    round_no = t.host.round
    vote_gone(t, lost, sorted({0, 1, 2, 3} - {lost}))
    while t.step():  # the others play on, one goes out and the others show their hands
        pass
    assert t.host.public.phase is Phase.SCORING and lost in t.host.vacant
    assert t.host.owed() == {} and t.host.rebuilt_lost() == {lost}
    assert {t.host.holder_of(token) for token in t.host._publics} == {lost}
    hand, hidden = hand_of(t, lost)
    assert_hand_shown_and_round_stood(t, lost, hand, hidden, round_no, died)
