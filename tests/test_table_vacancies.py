"""Two or more seats lost at once (protocol.md 11.5, 11.8), in process over the real tables:
whatever the table size, the table finishes, names who left, charges each leaver once, and
opens no card."""

from __future__ import annotations

import pytest

from shanghai_net.engine import Phase
from shanghai_net.engine.events import RoundVoided
from shanghai_net.wire import messages as wm

from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_roster import Roster, newcomer, vote_gone

THREE_CONTRACTS = {"contracts": [[2, 0], [1, 1], [0, 2]]}


def assert_finished_alike(t, leavers):
    """Every party ends the game with the same result; each of ``leavers`` (seat -> times)
    paid the leave penalty that many times and no other seat paid it; no card opened."""
    result = t.host.public.result
    assert t.host.finished and t.host.fault is None and result is not None
    for seat, table in enumerate(t.seats):
        assert table.fault is None and table.finished and table.game.result == result, seat
    paid = [e.leaver for e in t.host.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert t.host.rules.leave_penalty > 0
    assert {seat: paid.count(seat) for seat in set(paid)} == leavers
    for seat in range(t.host.players):
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


def silent(t, seat):
    """The host times ``seat`` out as silent (protocol.md 11.5); the message."""
    return t.host_says(wm.Timeout(seat=seat, what="silent"))


def stand_ins(t, seats):
    """The host proposes a stand-in bot for each of ``seats`` (vacant), with keys new to the
    table; each follows the game to take its seat at the next deal."""
    for seat in seats:
        who = newcomer(10 + seat + 10 * len(t.host.left))
        t.follow(seat, who, yields=True)
        t.propose(seat, who)
        if seat in t.gone:  # its old key's table, voted gone, sends nothing from here
            t.boxes[seat].deal.clear()
            t.gone.discard(seat)


def lose_at_deal(t, lost):
    """``lost`` go silent as the next round's deal begins, before their commitment (at the
    message that begins it); play on until the table waits for them alone."""
    deal, deliver = t.host.round, t.deliver

    def deliver_then_lose(msg):
        msg = deliver(msg)
        if t.host.round > deal and not t.gone >= set(lost):
            t.gone.update(lost)
            for seat in lost:
                t.boxes[seat].deal.clear()
        return msg

    t.deliver = deliver_then_lose
    t.run_until(lambda: t.host.round > deal and set(t.host.owed()) == set(lost))
    t.deliver = deliver


@pytest.mark.parametrize("players", range(3, 9))
def test_half_the_seats_silent_at_once_are_voted_gone_one_by_one_and_each_pays_once(players):
    """The top half of the seats (rounded up: 2 of 3 or 4, 3 of 5 or 6, 4 of 7 or 8) go silent
    at once as a deal begins: the seats left are no more than half, so no vote of theirs
    could carry, and the table waited for good.  The host times each silent seat out; the
    votes of the seats left carry (more than half of the seats that can vote), one silent
    seat a round; each replacement's approval waits for no silent seat (it is voted gone in
    turn), the stand-ins take the seats, and the game ends with each silent seat charged
    once and no card opened."""
    lost = list(range(players - (players + 1) // 2, players))
    live = [s for s in range(players) if s not in lost]
    t = Roster(players, preset="marcelle", seed=20 + players, rules=THREE_CONTRACTS)
    lose_at_deal(t, lost)
    for seat in lost:
        vote_gone(t, seat, live)
        if seat == lost[0]:  # (the others are timed out already: their votes carry at once)
            assert seat not in t.host.vacant, "the seats left are no majority of the table"
        for other in lost:
            if seat in t.host.vacant:
                break
            if other not in t.host.silenced and other not in t.host.vacant:
                silent(t, other)
        assert seat in t.host.vacant
        stand_ins(t, [seat])  # the host proposes one at once: its approval waits for the rest
        while t.step(play=False):
            pass
    assert [s for _, s in t.host.left] == lost
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {seat: 1 for seat in lost})
    assert t.host.silenced == {}


@pytest.mark.parametrize("players", [3, 4])
def test_a_silent_seat_whose_approval_a_replacement_waits_for_is_voted_gone(players):
    """The last seat leaves and is voted gone; the seat before it goes silent and never
    approves the stand-in the host proposes: the next deal waited for its approval for good,
    since the seats left were no majority (2 of 4, 1 of 3).  Timed out as silent, it is voted
    gone by the seats that can vote; its own stand-in and the first one take the seats."""
    leaver, quiet = players - 1, players - 2
    live = list(range(quiet))
    t = Roster(players, seed=40 + players, rules=THREE_CONTRACTS)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    t.gone.add(leaver)
    vote_gone(t, leaver, [s for s in range(players) if s != leaver])
    t.gone.add(quiet)
    first = newcomer(30)
    t.follow(leaver, first, yields=True)
    t.propose(leaver, first)
    while t.step(play=False):
        pass
    assert t.host.waiting_for() == {quiet} and t.host.vacant == {leaver: 2}
    vote_gone(t, quiet, live)
    assert quiet not in t.host.vacant
    silent(t, quiet)
    assert t.host.vacant == {quiet: 3}, "the first stand-in is seated: its approvals are in"
    assert t.host.holders[leaver].sign_key == first.sign_public
    t.gone.discard(leaver)
    stand_ins(t, [quiet])
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {leaver: 1, quiet: 1})


def test_a_seat_only_slow_is_counted_again_once_it_speaks_and_pays_nothing():
    """Four seats, one vacant: the seat the stand-in's approval waits for is slow past the
    host's timeout, then approves.  From its message it counts as a voter again, so the two
    seats left cannot vote it gone (2 of 4, as before the rule); it plays on and pays
    nothing."""
    t = Roster(4, seed=44, rules=THREE_CONTRACTS)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    t.gone.add(3)
    vote_gone(t, 3, (0, 1, 2))
    slow = t.boxes[2]
    held, slow.poll = slow.poll, lambda: None
    stand_ins(t, [3])
    while t.step(play=False):
        pass
    assert t.host.waiting_for() == {2}
    silent(t, 2)
    assert t.host.still_silent() == {2}
    slow.poll = held
    t.step(play=False)  # its approval
    assert t.host.silenced == {}
    vote_gone(t, 2, (0, 1))
    assert t.host.vacant == {} and t.host.left == [(2, 3)]
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {3: 1})


def test_the_host_s_stand_in_and_a_seat_silent_at_once_leave_and_the_stand_in_costs_nothing():
    """Four seats: seat 3 leaves (it pays), its stand-in plays on; then the stand-in and seat
    2 go silent at once as a deal begins.  Both are voted gone by the two seats left once the
    host timed them out; the stand-in's leaving costs the seat nothing (its player paid
    once), seat 2 pays once."""
    t = Roster(4, seed=45, rules={"contracts": [[2, 0], [1, 1], [0, 2], [3, 0]]})
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    t.gone.add(3)
    vote_gone(t, 3, (0, 1, 2))
    stand_ins(t, [3])
    t.run_until(lambda: t.host.round == 3)
    lose_at_deal(t, [2, 3])
    vote_gone(t, 3, (0, 1))
    assert 3 not in t.host.vacant, "two of four are no majority of the table"
    silent(t, 3)
    assert 3 in t.host.vacant, "two of the three seats that can vote are"
    stand_ins(t, [3])  # its approval waits for seat 2
    silent(t, 2)
    vote_gone(t, 2, (0, 1))
    assert 2 in t.host.vacant and [s for _, s in t.host.left] == [3, 3, 2]
    stand_ins(t, [2])
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {3: 1, 2: 1})


def test_a_silent_timeout_of_a_seat_the_table_does_not_wait_for_names_the_host():
    t = Roster(4, seed=46)
    t.run_until(lambda: t.host.settled and t.host.public.phase is Phase.PLAY)
    assert t.host.stalled_by() == {t.host.public.turn}
    idle = (t.host.public.turn + 1) % 4
    msg = t.host.chain.sign(t.host_id.sign_key, 8, wm.Timeout(seat=idle, what="silent"))
    said = t.relay(msg)
    assert all(f is not None and f.culprit == 8 and "silent" in f.reason for f in said)


def test_votes_cast_before_the_replacement_is_proposed_carry_once_it_waits_for_the_silent_seat():
    """Four seats, two silent at once, both timed out: the first is voted gone; the two seats
    left vote the second gone in the next round before the host proposes anyone (the table
    then waits for the host, not for it: the votes do not carry).  The proposal makes the
    table wait for the silent seat's approval, and at that message the votes already cast
    carry (each seat votes once a round)."""
    t = Roster(4, seed=47, rules=THREE_CONTRACTS)
    lose_at_deal(t, [2, 3])
    vote_gone(t, 2, (0, 1))
    silent(t, 3)
    assert 2 not in t.host.vacant, "seat 2 is not timed out: the bar is the table's"
    silent(t, 2)
    assert 2 in t.host.vacant and 3 in t.host.silenced
    assert t.host.owed() == {}, "seat 3 owes the voided round's commitment no more"
    vote_gone(t, 3, (0, 1))
    assert 3 not in t.host.vacant and t.host.silenced == {3: t.host.silenced[3]}
    stand_ins(t, [2])
    assert 3 in t.host.vacant
    stand_ins(t, [3])
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {2: 1, 3: 1})
