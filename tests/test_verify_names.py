"""`verify`'s result names a seat that changed hands by who played it last, as the table shows
it ("bea for ann"), not by its first holder's name alone (issue 39)."""

from __future__ import annotations

from shanghai_net.table.roster import Holder
from shanghai_net.table.verify import Report

ANN = Holder("ann", "player", b"a" * 32, b"A" * 32)
BOB = Holder("bob", "player", b"b" * 32, b"B" * 32)
BEA = Holder("bea", "player", b"c" * 32, b"C" * 32, since=3, before=ANN)


def report(holders: tuple[Holder, ...]) -> Report:
    return Report(game_id=b"\0" * 16, names=("ann", "bob"), preset="davis", messages=9, moves=5,
                  rounds=7, faces=30, totals=(40, 15), ranking=(1, 0), holders=holders, scored=7)


def test_a_seat_handed_over_is_in_the_result_under_its_last_holder():
    lines = report((BEA, BOB)).summary().splitlines()
    assert "result: bob 15, bea for ann 40" in lines
    assert "seat 0 played by bea (player, key" in "\n".join(lines)


def test_a_seat_that_went_back_to_its_first_holder_is_its_name_again():
    back = Holder("ann", "player", b"a" * 32, b"A" * 32, since=5, before=BEA)
    assert "result: bob 15, ann 40" in report((back, BOB)).summary().splitlines()


def test_seats_that_never_changed_hands_keep_their_names():
    assert "result: bob 15, ann 40" in report((ANN, BOB)).summary().splitlines()
    assert report(()).played_by(0) == "ann"
