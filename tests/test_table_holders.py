"""Who would hold shares of the seeds (docs/dealing.md, "Holders: who is dealt shares"), read
off the stream by every party alike: `Roster.share_holders`, rule by rule, over real games in
process: sharing off (rule 1), the host's own seats (rule 2), hand-overs (rule 3), a seat
voted gone, a stand-in, a hand-over from the stand-in, and a first player taking its seat
back with its own keys or with a new box key (rule 4)."""

from __future__ import annotations

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity

from test_table_handover import hand_over
from test_table_roster import Roster, newcomer, stand_in_plays, vote_gone

T = 2
"""A threshold: any, for it only turns sharing on (rule 1); who holds does not depend on it."""


def holders_everywhere(t, host_run=()):
    """The share holders as the host and every seat reckon them: one answer, or the test fails."""
    said = {table.share_holders(T, host_run) for table in [t.host, *t.seats]}
    assert len(said) == 1, said
    return said.pop()


def voted_gone(t, seat):
    """Every other seat votes ``seat`` gone; its messages are never sent from here."""
    t.gone.add(seat)
    vote_gone(t, seat, [s for s in range(t.host.players) if s != seat])


def taken_by(t, seat, who, yields=False, **role):
    """The host proposes ``who`` for the vacant ``seat``; play on until it plays the seat from
    the next deal, settled."""
    t.follow(seat, who, yields=yields)
    t.propose(seat, who, **role)
    t.gone.discard(seat)
    round_no = t.host.round
    t.run_until(lambda: t.host.round > round_no and t.host.settled)
    assert t.host.holders[seat].sign_key == who.sign_public


def test_with_sharing_off_no_seat_holds_and_the_host_s_own_seats_never_do():
    t = Roster(4, seed=51)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    assert all(table.share_holders(None, ()) == () for table in [t.host, *t.seats])
    assert holders_everywhere(t) == (0, 1, 2, 3)
    assert holders_everywhere(t, host_run={1, 2}) == (0, 3)
    assert holders_everywhere(t, host_run=range(4)) == ()


def test_a_seat_handed_over_holds_on_through_its_successors():
    """Seat 1 hands itself over to bea, and bea to carl: each successor holds the seat's
    abscissa (it was handed the seat's secrets), at once and after the next deal."""
    t = Roster(4, seed=52)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    bea, carl = newcomer(52), newcomer(53)
    t.deliver(hand_over(t, 1, bea))
    assert holders_everywhere(t) == (0, 1, 2, 3)
    t.deliver(hand_over(t, 1, carl, key=bea.sign_key))
    assert t.host.holders[1].sign_key == carl.sign_public
    assert holders_everywhere(t) == (0, 1, 2, 3)
    t.boxes[1].sign_key = carl.sign_key  # carl plays on, from his own secret at the next deal
    t.seats[1].hold(carl.box_key, seeded(b"carl's own"))
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    assert t.host.holders[1].box_key == carl.box_public
    assert holders_everywhere(t) == (0, 1, 2, 3)


def test_a_seat_gone_or_a_stand_in_s_holds_nothing_until_its_first_player_is_back():
    """Seat 2 is voted gone (no holder while vacant), a stand-in plays it (no holder: a
    ``replace`` seated it), and its first player takes it back with both its ``start_game``
    keys: a holder again, at every party."""
    t = Roster(3, seed=14)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    voted_gone(t, 2)
    assert holders_everywhere(t) == (0, 1)
    taken_by(t, 2, newcomer(54), yields=True)
    assert holders_everywhere(t) == (0, 1)
    first = t.ids[2]
    taken_by(t, 2, first, role="player", name="p2")
    assert t.host.holders[2].replaced
    assert holders_everywhere(t) == (0, 1, 2)


def test_a_stand_in_s_successor_holds_nothing():
    """The stand-in hands seat 2 on to another bot: the chain of hand-overs starts at a
    replacement, so its successor holds no share either."""
    t = Roster(3, seed=56)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    bot = newcomer(56)
    stand_in_plays(t, 2, bot)
    t.deliver(hand_over(t, 2, newcomer(57), key=bot.sign_key))
    assert t.host.holders[2].sign_key == newcomer(57).sign_public
    assert holders_everywhere(t) == (0, 1)


def test_a_first_player_back_with_a_new_box_key_is_no_holder():
    """Seat 2's first player comes back with its signing key but a box key of this join: the
    ``replace`` did not give the seat back both of its ``start_game`` keys, so it holds no
    share (a key's new box key is a party the deal at the start never counted)."""
    t = Roster(3, seed=58)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    voted_gone(t, 2)
    again = Identity(t.ids[2].sign_seed, bytes([58]) * 32)
    taken_by(t, 2, again, role="player", name="p2")
    assert t.host.holders[2].box_key == again.box_public
    assert holders_everywhere(t) == (0, 1)
