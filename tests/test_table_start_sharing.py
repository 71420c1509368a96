"""What every party checks of version 10's start_game (docs/dealing.md, "Version 10
messages"; table/start.py `check_sharing`): a ``share_threshold`` the holders can bear, our
own seat ``host_run`` only if the host started us, and the flags and threshold the lobby
showed.  Each refusal names what was wrong."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.table.start import check_sharing
from shanghai_net.wire import LobbyState, SeatInfo

from test_table_dropout_wire import start_game


def start(t=None, host_run=()):
    """A 4-seat start_game whose seats ``host_run`` the host runs, with threshold ``t``."""
    plain = start_game(share_threshold=t)
    return dataclasses.replace(plain, seats=tuple(
        dataclasses.replace(p, host_run=p.seat in host_run) for p in plain.seats))


def lobby(t=None, host_run=()):
    """The lobby_state a seat saw last before the game: the same 4 seats."""
    return LobbyState(seats=tuple(
        SeatInfo(seat=s, name=f"p{s}", fingerprint="f" * 19, ready=True, connected=True,
                 kind="bot" if s in host_run else "player", host_run=s in host_run)
        for s in range(4)), preset="davis", rules={}, join_code="", share_threshold=t)


@pytest.mark.parametrize("t, host_run, words", [
    (2, (), "share_threshold 2 is outside 3..3, what 4 share holders allow"),
    (3, (3,), "share_threshold 3 is outside 2..2, what 3 share holders allow"),
    (2, (2, 3), "share_threshold 2 at a table of 2 share holders (sharing needs 3)"),
    (3, (1, 2, 3), "share_threshold 3 at a table of 1 share holder (sharing needs 3)"),
])
def test_a_threshold_the_holders_cannot_bear_is_refused(t, host_run, words):
    with pytest.raises(ValueError) as refused:
        check_sharing(start(t, host_run), 0, False, None)
    assert str(refused.value) == f"its {words}"


@pytest.mark.parametrize("t, host_run", [(None, ()), (3, ()), (2, (3,)), (None, (1, 2, 3))])
def test_a_threshold_the_holders_bear_is_taken(t, host_run):
    check_sharing(start(t, host_run), 0, False, lobby(t, host_run))


def test_our_seat_marked_host_run_is_refused_unless_the_host_started_us():
    """A host that marked an honest seat its own would lower the holders, and the ``t`` a
    coalition needs: the seat knows better."""
    marked = start(2, host_run=(1,))
    with pytest.raises(ValueError, match="it marks our seat 1 host_run, but the host did not "
                                         "start us"):
        check_sharing(marked, 1, False, lobby(2, (1,)))
    check_sharing(marked, 1, True, lobby(2, (1,)))  # the host's own bot
    check_sharing(marked, 0, False, lobby(2, (1,)))  # another seat's flag no client can check
    check_sharing(marked, None, False, None)  # a spectator has no seat of its own


def test_flags_or_a_threshold_other_than_the_lobby_showed_are_refused():
    with pytest.raises(ValueError, match="its host_run flags of seats 1, 2 are not those the "
                                         "lobby showed"):
        check_sharing(start(None, (1, 2)), 0, False, lobby(None, ()))
    with pytest.raises(ValueError, match="its host_run flags of seat 3 are not those the lobby "
                                         "showed"):
        check_sharing(start(3, ()), 0, False, lobby(3, (3,)))
    with pytest.raises(ValueError, match=r"its share_threshold 3 is not the lobby's nil "
                                         r"\(sharing off\)"):
        check_sharing(start(3), 0, False, lobby(None))
    with pytest.raises(ValueError, match=r"its share_threshold nil \(sharing off\) is not the "
                                         "lobby's 3"):
        check_sharing(start(None), 0, False, lobby(3))
    check_sharing(start(3), 0, False, None)  # a seat that did not see the lobby: nothing to hold

