"""A seat's ``hand_over`` (protocol.md 11.9), in process: only the seat's current key hands it
over, to a key new to the table; from the next message every party checks the seat with the
successor's key, and a host that relays the old key's message, or a forged hand-over, is
named."""

from __future__ import annotations

import pytest

from shanghai_net.deal import seeded
from shanghai_net.deal.box import raw_public
from shanghai_net.table.secret import MAX_SECRETS, SeatSecret, open_secrets, seal_secrets
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import HOST_AUTHOR, SEALED_MAX

from test_table_roster import Roster, newcomer

MINE = SeatSecret(bytes([3]) * 32)


def hand_over(t, seat, who, key=None):
    """Seat ``seat``'s hand-over to ``who``, signed with ``key`` (by default its own)."""
    body = wm.HandOver(name="bea", role="player", sign_key=who.sign_public,
                       box_key=who.box_public,
                       sealed=seal_secrets([MINE], who.box_public, t.host.game_id, seat,
                                           who.sign_public, bytes([9]) * 32))
    return t.sign(seat, key or t.ids[seat].sign_key, body)


def test_only_the_seat_s_own_key_hands_it_over():
    """Seat 2 signs a hand-over of seat 1 to its colluder: the host refuses it, and a host that
    relays it anyway is named by every seat; seat 1 is still its player's."""
    t = Roster(3, seed=21)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    forged = hand_over(t, 1, newcomer(21), key=t.ids[2].sign_key)
    with pytest.raises(RemoteProtocolError, match="does not verify"):
        t.host.admit(forged)
    said = t.relay(forged)
    assert all(f is not None and f.culprit == HOST_AUTHOR for f in said)
    assert all(table.holders[1].sign_key == t.ids[1].sign_public for table in t.seats)


def test_after_a_hand_over_the_old_key_is_refused_and_the_successor_s_taken():
    t = Roster(3, seed=22)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    bea = newcomer(22)
    handed = t.deliver(hand_over(t, 1, bea))
    for table in [t.host, *t.seats]:
        holder = table.holders[1]
        assert holder.sign_key == bea.sign_public and holder.before.sign_key == \
            t.ids[1].sign_public
        assert holder.box_key == t.ids[1].box_public, "this round's shares: the old box key"
        assert table.handovers[1] == handed.body
    old = t.sign(1, t.ids[1].sign_key, wm.Complaint(round=1, reason="still here"))
    with pytest.raises(RemoteProtocolError, match="does not verify"):
        t.host.admit(old)
    said = t.relay(old)
    assert said[0].culprit == HOST_AUTHOR and "does not verify with seat 1's key" in said[0].reason
    assert open_secrets(handed.body.sealed, bea.box_key, t.host.game_id, 1,
                        bea.sign_public) == [MINE]
    for wrong in ((bea.box_key, 2, bea.sign_public), (bea.box_key, 1, t.ids[0].sign_public),
                  (t.ids[1].box_key, 1, bea.sign_public)):  # another seat, successor or box
        box, seat, sign = wrong
        with pytest.raises(ValueError, match="does not open with our box key"):
            open_secrets(handed.body.sealed, box, t.host.game_id, seat, sign)


def test_a_seat_cannot_be_handed_to_a_key_already_at_the_table():
    """To the key another seat plays with, or the host's: refused by the host's checks, and a
    host that sequences it anyway has every seat name the seat that signed it."""
    t = Roster(3, seed=23)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    for who, why in ((t.ids[2], "one key, one seat"), (t.host_id, "the host's key")):
        grab = hand_over(t, 1, who)
        with pytest.raises(RemoteProtocolError, match=why) as info:
            t.host.admit(grab)
        assert info.value.code == "out_of_turn"
    t2 = Roster(3, seed=23)
    t2.run_until(lambda: t2.host.round == 1 and t2.host.settled)
    said = t2.relay(hand_over(t2, 1, t2.ids[2]))
    assert all(f is not None and f.culprit == 1 and "one key, one seat" in f.reason for f in said)


def test_the_successor_s_box_key_seals_the_seat_s_shares_from_the_next_deal():
    t = Roster(3, seed=24)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    bea = newcomer(24)
    t.deliver(hand_over(t, 1, bea))
    seat = t.seats[1]  # played on by the successor: its keys from here, its own box next deal
    t.boxes[1].sign_key = bea.sign_key
    seat.hold(bea.box_key, seeded(b"bea's own"))
    start = t.host.round
    t.run_until(lambda: t.host.round > start and t.host.settled)
    for table in [t.host, *t.seats]:
        assert table.holders[1].box_key == bea.box_public and not table.handovers
    assert raw_public(seat._box_key.public_key()) == bea.box_public
    assert seat.participant.hand() and seat.complaint is None, "bea opened its new cards"
    t.run_until(lambda: t.host.finished)
    assert all(table.fault is None and table.finished for table in t.seats)


def test_sealed_secrets_hold_between_one_and_thirty():
    """Thirty secrets (a seat handed on thirty times in one game) still fit one hand-over's
    field and open; none, or a thirty-first, are refused."""
    rnd = seeded(b"thirty")
    secrets = [SeatSecret(rnd(32)) for _ in range(MAX_SECRETS + 1)]
    game_id, sign_key = rnd(16), rnd(32)

    def sealed(n):
        return seal_secrets(secrets[:n], MINE.box_public, game_id, 1, sign_key, rnd(32))

    assert MAX_SECRETS == 30
    full = sealed(MAX_SECRETS)
    assert len(full) <= SEALED_MAX
    assert open_secrets(full, MINE.box_key, game_id, 1, sign_key) == secrets[:MAX_SECRETS]
    for n in (0, MAX_SECRETS + 1):
        with pytest.raises(ValueError, match=f"between 1 and 30 secrets are handed over, not {n}"):
            sealed(n)


def test_a_seat_cannot_be_handed_to_a_key_the_host_proposed_for_another():
    t = Roster(3, seed=25)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone.add(2)
    for voter in (0, 1):
        t.deliver(t.sign(voter, t.ids[voter].sign_key,
                         wm.VoidRound(round=t.host.void_target, seat=2)))
    proposed = newcomer(25)
    t.propose(2, proposed)
    with pytest.raises(RemoteProtocolError, match="a key the host proposed"):
        t.host.admit(hand_over(t, 1, proposed))
