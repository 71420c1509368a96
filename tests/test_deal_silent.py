"""R2's one function (deal/silent.py): every party, whatever it holds, rebuilds the same seats
silent at their seeds to the same seeds, from the ``seeds`` the stream sequenced alone."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from shanghai_net.deal.silent import rebuild_silent
from dropout_helpers import shared_table


def seeds_shown(table, silent):
    """The round's end with the seats ``silent`` timed out: every other seat's seeds are
    sequenced; a silent seat made its own, which never reached the stream."""
    for participant in table.participants:
        reveals = participant.reveal_seeds()
        if participant.seat not in silent:
            table._broadcast(*reveals)


def as_a_third_party(table, silent):
    """The round's generations as a party with no seat keeps them: the sequenced messages,
    no seed of its own, no share held."""
    seen = next(p for p in table.participants if p.seat not in silent)
    generations = {}
    for number in range(table.generation + 1):
        g = copy.deepcopy(seen.generation(number))
        g.seed, g.sharing.held = None, {}
        generations[number] = g
    return generations


@settings(max_examples=10, deadline=None)
@given(st.data())
def test_every_party_rebuilds_the_same_silent_seats_to_their_own_seeds(data):
    players = data.draw(st.integers(3, 6), label="players")
    t = data.draw(st.integers(players // 2 + 1, players - 1), label="t")
    silent = frozenset(data.draw(st.sets(st.integers(0, players - 1), min_size=1,
                                         max_size=players - 1), label="silent"))
    table = shared_table(players, t)
    seeds_shown(table, silent)
    third = as_a_third_party(table, silent)
    answers = {rebuild_silent(third, silent)}
    rebuilt = {seat: third[0].sharing.rebuilt.get(seat) for seat in silent}
    for participant in table.participants:
        answers.add(participant.rebuild_silent(silent))
        assert {seat: participant.generation(0).sharing.rebuilt.get(seat)
                for seat in silent} == rebuilt
    (absent,) = answers  # one answer at every party
    assert absent == silent if len(silent) > players - t else absent == frozenset()
    for seat in silent - absent:
        assert rebuilt[seat] == table.participants[seat].generation(0).seed


def test_a_silent_seat_s_own_seeds_count_toward_no_rebuild_at_the_seat_itself():
    """4 seats, t = 3, seats 1 and 2 silent: the stream carries 2 shares of seat 2's seed (seats
    0 and 3's), too few.  Seat 1 made its seeds, with its share of seat 2's, but they never
    reached the stream: counting them, seat 1 alone rebuilt seat 2."""
    table = shared_table()
    seeds_shown(table, {1, 2})
    for participant in table.participants:
        assert participant.rebuild_silent({1, 2}) == {1, 2}, participant.seat
        assert not participant.generation(0).sharing.rebuilt
