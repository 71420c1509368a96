"""A cheating seat over real sockets (127.0.0.1, port 0): its victim's complaint reaches the whole
table, the round is audited at once, and every honest peer, the host and `shanghai verify` of
the host's record name the cheater, never the victim; no hidden card opens to the cheater; a
cheater that will not open its seeds is named when the table's time for them runs out."""

from __future__ import annotations

import trio

from shanghai_net.deal import PassOutput
from shanghai_net.net.host import read_transcript
from shanghai_net.net.verify import verify

from test_net_complaints import GarbageBox, changing, marks_every_card, seat_running
from test_net_game import play


def assert_named_everywhere(host, tables, record, culprit, why):
    for party in (host.public, *tables.values()):
        assert party.finished and party.fault is None, party.fault
        assert party.verdict is not None and party.verdict.culprit == culprit, party.verdict
        assert why in party.verdict.reason, party.verdict
    report = verify(read_transcript(record))
    assert report.fault is not None and report.fault.culprit == culprit, report.summary()
    assert why in report.fault.reason
    assert report.voided == 1 and report.totals == (0,) * len(tables)
    cheater = tables[culprit]
    known = set(cheater.participant.hand()) | {t for t in cheater.game.faces if t[0] >= 0}
    for seat, table in tables.items():
        if seat != culprit:
            assert not known & set(table.participant.hand()), f"seat {culprit} saw seat {seat}'s"


async def test_a_box_that_does_not_open_is_complained_of_and_its_sender_named(tmp_path):
    record = tmp_path / "game.bin"
    with trio.fail_after(120):
        host, tables, results = await play(3, record=record,
                                           tables_by_seat={2: seat_running(GarbageBox)})
    assert_named_everywhere(host, tables, record, 2, "the box of positions")
    assert any(t.complaint for s, t in tables.items() if s != 2)
    assert all(r.table is not None for r in results.values())  # every peer ended normally


async def test_a_marked_deck_is_named_as_the_card_turned_up_does_not_open(tmp_path):
    record = tmp_path / "game.bin"
    with trio.fail_after(120):
        host, tables, _ = await play(
            3, record=record,
            tables_by_seat={1: seat_running(changing(PassOutput, marks_every_card))})
    assert_named_everywhere(host, tables, record, 1, "pass 1 output is not its key times")


class SilentAtAudit(seat_running(GarbageBox)):
    """Cheats with a box, then keeps its seeds to itself, so the audit cannot name it."""

    def _send_seeds(self):
        pass


async def test_a_seat_that_will_not_open_its_seeds_is_named_when_their_time_runs_out(tmp_path):
    record = tmp_path / "game.bin"
    with trio.fail_after(120):  # seat 0: the first silent seat is named, however slow the rest
        host, tables, _ = await play(3, record=record, audit_timeout=2.0,
                                     tables_by_seat={0: SilentAtAudit})
    assert_named_everywhere(host, tables, record, 0, "did not open its seeds in time")
