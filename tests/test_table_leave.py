"""The signed ``leave`` (version 10, docs/dealing.md, "Version 10 messages"), in process over
our own classes: a seat whose player quits signs it into the chain before its ``bye``; it is
the seat's last message: every later message of its key is refused (``wrong_state``, naming
why), and a host that relays one is named by every seat.  A leave is no sign of life: a vote
against the seat stands, and a seat the host timed out as silent stays so.  The seat's first
player, seated again by a ``replace``, plays again."""

from __future__ import annotations

import pytest

from shanghai_net.engine.events import RoundVoided
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import HOST_AUTHOR

from test_table_roster import Roster, newcomer, vote_gone


def quits(t, seat):
    """``seat``'s player quits: its ``leave``, sequenced and taken by every seat."""
    return t.deliver(t.sign(seat, t.ids[seat].sign_key, wm.Leave()))


def refused(t, seat, body, why="seat 1's player quit"):
    msg = t.sign(seat, t.ids[seat].sign_key, body)
    with pytest.raises(RemoteProtocolError, match=why) as info:
        t.host.admit(msg)
    assert info.value.code == "wrong_state" and info.value.ref_counter == msg.counter
    return msg


def test_a_leave_is_the_seat_s_last_message_a_second_or_any_later_one_is_refused():
    t = Roster(3, seed=21)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    quits(t, 1)
    for party in (t.host, *t.seats):
        assert party.quitters() == {1} and party.fault is None
    refused(t, 1, wm.Leave())  # a second leave
    refused(t, 1, wm.VoidRound(round=t.host.void_target, seat=0))
    refused(t, 1, wm.Protest(seq=3, reason="not even this"))
    said = t.relay(t.sign(1, t.ids[1].sign_key, wm.Complaint(round=1, reason="late")))
    assert [f.culprit for f in said] == [HOST_AUTHOR] * 3
    assert all("seat 1's player quit" in f.reason for f in said)


def test_a_leave_makes_no_vote_against_the_seat_lapse_and_it_is_voted_gone():
    t = Roster(4, seed=22)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone.add(1)
    while t.step():  # until the table waits for seat 1
        pass
    assert 1 in t.host.stalled_by()
    t.host_says(wm.Timeout(seat=1, what="silent"))
    vote_gone(t, 1, [0])
    quits(t, 1)
    assert t.host.gone_votes[(t.host.void_target, 1)] == {0}, "the vote stands"
    assert 1 in t.host.silenced and 1 in t.seats[0].silenced, "and the seat stays silent"
    vote_gone(t, 1, [2])  # 2 of the 3 seats that can vote, against a silent seat
    for party in (t.host, *t.seats):
        assert party.vacant == {1: 1} and party.quitters() == set()
        voided = [e for e in party.public.log if isinstance(e, RoundVoided)]
        assert [e.leaver for e in voided] == [1]


@pytest.mark.parametrize("comes", ["its first player", "a newcomer"])
def test_a_seat_a_replace_gave_a_player_again_is_not_held_to_its_leave(comes):
    """Its first player coming back with the same keys, or a newcomer, plays the seat again."""
    t = Roster(3, seed=23)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone.add(1)
    quits(t, 1)
    vote_gone(t, 1, [0, 2])
    who = t.ids[1] if comes == "its first player" else newcomer(24)
    t.follow(1, who)
    t.propose(1, who, role="player", name="bot1")
    t.gone.discard(1)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    assert t.host.holders[1].sign_key == who.sign_public
    assert t.host.quitters() == set() and t.host._quit_refused(1) is None
    t.run_until(lambda: t.host.finished)
    assert t.host.fault is None and all(seat.fault is None for seat in t.seats)


def test_a_leave_forged_for_another_seat_is_refused_and_a_host_relaying_it_is_named():
    t = Roster(3, seed=25)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    forged = t.sign(1, t.ids[0].sign_key, wm.Leave())  # seat 0 signs seat 1's leave
    with pytest.raises(RemoteProtocolError, match="does not verify with seat 1's key") as info:
        t.host.admit(forged)
    assert info.value.code == "bad_signature" and t.host.quitters() == set()
    said = t.relay(forged)
    assert [f.culprit for f in said] == [HOST_AUTHOR] * 3
    assert all(seat.quitters() == set() for seat in t.seats)
