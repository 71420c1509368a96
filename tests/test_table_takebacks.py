"""A seat given back once a game (protocol.md 11.8), in process over the real tables.  A player
who leaves, comes back to its vacant seat (every seat approves: the seat is vacant), and
leaves again at once voided a deal and paid each time, and the game's contract never moved on:
ten returns made twelve deals of a three-contract game without finishing one more contract.
The same with a fresh key each time, arriving late.  Now a ``replace`` gives a seat to anyone
but a stand-in once a game: the host refuses the next, a host that sequences it is named by
every seat (and by clients/simple_bot.py, written from the protocol alone), and the game
finishes within rounds + seats + replacements deals, of which at most one a seat is not a
stand-in."""

from __future__ import annotations

import pytest

from shanghai_net.table.verify import verify
from shanghai_net.wire import messages as wm

from test_table_roster import Roster, newcomer, vote_gone
from test_table_handover import hand_over
from test_table_silence import follow, simple_bot_follower
from test_table_vacancies import THREE_CONTRACTS, assert_finished_alike, lose_at_deal, stand_ins

LEAVER = 2


def leaves_at_once(t):
    """The seat's holder says nothing from here (it left), and the others vote it gone."""
    t.gone.add(LEAVER)
    t.boxes[LEAVER].poll = lambda: None  # (a stand-in that takes the seat has a box of its own)
    vote_gone(t, LEAVER, [s for s in range(t.host.players) if s != LEAVER])
    assert LEAVER in t.host.vacant


def given(t, who, role, name):
    """The host proposes ``who`` for the vacant seat; the others approve by themselves and
    the seat is ``who``'s at once (the deal waited for it); ``who`` says nothing either."""
    t.propose(LEAVER, who, role=role, name=name)
    while t.step(play=False):
        pass
    assert LEAVER not in t.host.vacant and t.host.holders[LEAVER].sign_key == who.sign_public


def comes_back(t):
    given(t, t.ids[LEAVER], "player", f"p{LEAVER}")


def arrives_late(t):
    given(t, newcomer(50 + len(t.host.left)), "player", "late")


def refused_and_named(t, who, role, name):
    """The host refuses to propose ``who`` for the seat, saying why; a host that sequences it
    anyway is named by every seat and by simple_bot.py's replica."""
    body = wm.Replace(seat=LEAVER, name=name, role=role, sign_key=who.sign_public,
                      box_key=who.box_public)
    why = t.host.replace_refused(body)
    assert why is not None and "once already" in why, why
    replica = simple_bot_follower(t.host.start_game)
    follow(replica, t.stream, 0)
    said = t.relay(t.host.chain.sign(t.host_id.sign_key, wm.HOST_AUTHOR, body))
    assert all(f is not None and f.culprit == wm.HOST_AUTHOR and "once already" in f.reason
               for f in said), said
    with pytest.raises(Exception, match="once already"):
        follow(replica, t.stream, len(t.stream) - 1)


@pytest.mark.parametrize("back", [comes_back, arrives_late])
def test_a_seat_is_given_back_once_a_game_and_the_game_finishes_within_its_bound(back):
    t = Roster(3, seed=70, rules=THREE_CONTRACTS, verifiable=True)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    contract = t.host.public.contract_no
    leaves_at_once(t)
    back(t)  # the once a game: its player coming back, or someone new arriving late
    leaves_at_once(t)
    for who, role, name in [(t.ids[LEAVER], "player", "p2"), (newcomer(60), "player", "late"),
                            (t.ids[LEAVER], "bot", "p2's bot")]:
        body = wm.Replace(seat=LEAVER, name=name, role=role, sign_key=who.sign_public,
                          box_key=who.box_public)
        assert "once already" in t.host.replace_refused(body), (name, role)
    assert t.host.public.contract_no == contract, "two deals voided, no contract played"
    stand_ins(t, [LEAVER])  # the host's stand-in: a bot with a key new to the seat
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {LEAVER: 2})
    result = t.host.public.result
    # the bound: deals <= rounds + seats + replacements, one replacement not a stand-in
    deals = len(result.rounds) + len(t.host.left)
    replacements = 2
    assert deals == t.host.rules.rounds + 2 <= t.host.rules.rounds + 3 + replacements
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()
    assert report.left == tuple(t.host.left) and report.totals == result.totals
    replica = simple_bot_follower(t.host.start_game)
    follow(replica, t.stream, 0)
    assert replica.finished and replica.scores == list(result.totals)


@pytest.mark.parametrize("back, again", [(comes_back, "player"), (arrives_late, "player"),
                                         (comes_back, "late")])
def test_a_host_that_gives_a_seat_back_a_second_time_is_named_by_every_seat(back, again):
    t = Roster(3, seed=71, rules=THREE_CONTRACTS)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    leaves_at_once(t)
    back(t)
    leaves_at_once(t)
    who = t.ids[LEAVER] if again == "player" else newcomer(61)
    refused_and_named(t, who, "player", again)


def test_a_stand_in_may_take_a_seat_after_its_one_return_and_the_seat_pays_no_more():
    """After the seat's one return and its second leave, the host's stand-ins take it, and a
    stand-in voted gone in turn (its seat then pays nothing) is followed by another: the
    host's bots are no player's decision, and an honest host's play on."""
    t = Roster(3, seed=72, rules=THREE_CONTRACTS)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    leaves_at_once(t)
    comes_back(t)
    leaves_at_once(t)
    stand_ins(t, [LEAVER])
    t.run_until(lambda: LEAVER not in t.host.vacant)
    lose_at_deal(t, [LEAVER])  # the stand-in plays its round, and is lost at the next deal
    leaves_at_once(t)
    assert t.host.public.scores[LEAVER] >= 2 * t.host.rules.leave_penalty
    stand_ins(t, [LEAVER])
    t.run_until(lambda: t.host.finished)
    assert_finished_alike(t, {LEAVER: 2})
    assert len(t.host.unpaid) == 1


def test_a_key_the_seat_was_handed_over_from_is_a_former_holder_at_every_party():
    """Seat 2's player hands the seat to bea, who leaves at once; the host gives the seat back
    to the player's key as a bot: not a stand-in (its key played the seat), so the seat's one
    return.  When it leaves again, a host that sequences that key's return once more is named
    by every seat, and by simple_bot.py's replica, which counts a key the seat was handed over
    from among its former holders."""
    t = Roster(3, seed=73, rules=THREE_CONTRACTS)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.deliver(hand_over(t, LEAVER, newcomer(73)))
    leaves_at_once(t)
    given(t, t.ids[LEAVER], "bot", "p2's bot")
    leaves_at_once(t)
    refused_and_named(t, t.ids[LEAVER], "bot", "p2's bot")
