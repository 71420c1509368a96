"""A cheating seat over real sockets (127.0.0.1, port 0): its victim's complaint reaches the whole
table, the round is audited at once, and every honest peer, the host and `shanghai verify` of
the host's record name the cheater, never the victim; no hidden card opens to the cheater; a
cheater that will not open its seeds is named when the table's time for them runs out."""

from __future__ import annotations

import random

import trio

from shanghai_net.deal import PassOutput
from shanghai_net.net.host import Host
from shanghai_net.net.transcript import read_transcript
from shanghai_net.net.player import BotPlayer
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.verify import verify

from test_net_complaints import GarbageBox, changing, marks_every_card, seat_running
from test_net_game import play


def assert_no_hidden_card_opened_to(tables, seat):
    """``seat`` learned no card another seat holds hidden: not in its deal, not in its replica
    (``tables``: each seat's table, by seat)."""
    known = set(tables[seat].participant.hand()) | \
        {tok for tok in tables[seat].game.faces if tok[0] >= 0}
    for other, table in tables.items():
        if other != seat:
            assert not known & set(table.participant.hand()), f"seat {seat} saw seat {other}'s"


def assert_named_everywhere(host, tables, record, culprit, why):
    for party in (host.public, *tables.values()):
        assert party.finished and party.fault is None, party.fault
        assert party.verdict is not None and party.verdict.culprit == culprit, party.verdict
        assert why in party.verdict.reason, party.verdict
    report = verify(read_transcript(record))
    assert report.fault is not None and report.fault.culprit == culprit, report.summary()
    assert why in report.fault.reason
    assert report.voided == 1 and report.totals == (0,) * len(tables)
    assert report.ranking[-1] == culprit  # ranked last, whatever the totals
    assert_no_hidden_card_opened_to(tables, culprit)


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
    """Cheats with a box in round 1, then keeps that round's seeds to itself, so the audit
    cannot name it; plays the rounds after honestly."""

    def _participant(self, round_no):
        if round_no == 1:
            return super()._participant(round_no)
        return PeerTable._participant(self, round_no)

    def _send_seeds(self):
        if self.round != 1:
            super()._send_seeds()


async def test_a_cheat_that_will_not_open_its_seeds_pays_as_a_seat_that_left(tmp_path):
    """Its victim complains; its seeds never come.  The host's seeds timeout names it absent
    (it, or the host that relays it: the table cannot tell which); the round is audited with
    the seeds that came and cannot be decided, so no one is ranked last as a cheat, but the
    silent seat pays the leave penalty as a seat that left (issue 42: before, silence erased
    the round for free), the round is dealt again and the game finishes; the cheat learned no
    other hand."""
    record = tmp_path / "game.bin"
    with trio.fail_after(180):
        host, tables, _ = await play(3, record=record, audit_timeout=2.0,
                                     rules={"contracts": [[2, 0], [2, 0]]},
                                     tables_by_seat={0: SilentAtAudit})
    public = host.public
    assert public.finished and public.fault is None and public.verdict is None
    assert public.left == [(1, 0)] and public.silent == {(1, 0)} and not public.protests
    result = public.public.result
    assert result.totals[0] == sum(r.points[0] for r in result.rounds) + \
        public.rules.leave_penalty
    for table in tables.values():
        assert table.finished and table.left == [(1, 0)] and table.game.result == result
    report = verify(read_transcript(record))
    assert report.ok and report.totals == result.totals, report.summary()
    assert "round 1 voided: seat 0's seeds never arrived (seat 0, or the host that relays it), " \
        "so bot0 left it; not scored, the leaver pays the leave penalty" in report.summary()
    assert_no_hidden_card_opened_to(tables, 0)


async def test_the_console_session_of_the_victim_tells_who_cheated(tmp_path):
    """The person's session (seat 0) is dealt garbage by seat 1: its log says it complained,
    then names seat 1 by its name."""
    import random

    from shanghai_net.deal import seeded
    from shanghai_net.identity import Identity
    from shanghai_net.net.host import Host, HostConfig
    from shanghai_net.net.peer import Peer
    from shanghai_net.net.player import BotPlayer
    from shanghai_net.net.session import NetSession

    from test_net_session import until

    rnd = seeded(b"session victim")
    host = Host(HostConfig(players=3, random=rnd))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)
        session = NetSession(("127.0.0.1", port), Identity(rnd(32), rnd(32)), name="ann",
                             auto_ready=True, random=seeded(b"ann"))
        await nursery.start(session.run)
        await until(session, lambda: session.lobby is not None and session.lobby.seats)
        for seat, kind in ((1, seat_running(GarbageBox)), (2, None)):
            peer_type = type("P", (Peer,), {"table_type": kind}) if kind else Peer
            nursery.start_soon(peer_type(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                                         BotPlayer("basic", random.Random(seat)),
                                         name=f"bot{seat}", random=seeded(b"%d" % seat)).run)
            await until(session, lambda: len(session.lobby.seats) == seat + 1)
        await until(session, lambda: session.table is not None and
                    session.table.verdict is not None, timeout=60)
        texts = [e.text for e in session.log]
        assert any(t.startswith("the deal went wrong for you") for t in texts), texts
        assert any(t.startswith("seat 1 (bot1) cheated in the deal: ") for t in texts), texts
        result = session.result
        assert result.ranking[-1] == 1 and 1 not in result.winners
        nursery.cancel_scope.cancel()


class EarlyTimeouts(Host):
    """Tells the table claim windows wait 10 s, then times seats out at once."""

    def _begin(self, start):
        super()._begin(start)
        self.sequencer.public.claim_timeout = 0.01  # its own clock, not the agreed one


async def test_a_seat_timed_out_early_protests_and_every_party_records_it(tmp_path):
    record = tmp_path / "game.bin"
    with trio.fail_after(120):
        host, tables, _ = await play(
            3, record=record, rounds=1, claim_timeout=10.0, host_type=EarlyTimeouts,
            player={1: BotPlayer("basic", random.Random(5), claims=False)})
    protests = host.public.protests  # seat 1 never answers; the others may be late too
    assert any(p.seat == 1 and "agreed on 10 s" in p.reason for p in protests), protests
    for table in tables.values():
        assert [(p.seat, p.seq) for p in table.protests][:len(protests)] == \
            [(p.seat, p.seq) for p in protests]
    assert host.public.verdict is None and host.public.fault is None
    report = verify(read_transcript(record))
    assert report.protests[:len(protests)] == tuple(protests)
    assert "bot1 protests the host's timeout" in report.summary()


class Stalling(PeerTable):
    """Stays connected and answers the deal until the first move; then it never sends a key
    share again, as a seat would that froze the table on purpose."""

    def _flush(self) -> None:
        if self.version > 0:
            self._shares = {}
        super()._flush()


async def test_a_seat_that_stalls_the_deal_while_connected_is_voted_out_of_the_round():
    """Seat 2 stays connected and sends nothing of the deal: the others vote it gone, its
    round is void, and the host's stand-in takes the seat from its live connection (the seat
    is vacant); the staller stops, told why, and the game goes on to its end without it."""
    with trio.fail_after(180):
        host, tables, results = await play(4, tables_by_seat={2: Stalling}, void_after=3.0,
                                           rules={"contracts": [[2, 0]]})
    for party in (host.public, *(tables[s] for s in (0, 1, 3))):
        assert party.finished and party.left == [(1, 2)] and party.fault is None, party.fault
        assert party.verdict is None  # a stall is not a cheat the deal's audit could name
        assert 1 not in party.void_votes  # the votes that carried are spent with the void
        assert party.holders[2].kind == "bot"
    assert "the table voted us gone: seat 2 is played by bot" in results[2].unseated
    stalled = tables[2]
    assert stalled.holders[2].kind == "bot" and stalled.left == [(1, 2)]
    known = set(stalled.participant.hand()) | {t for t in stalled.game.faces if t[0] >= 0}
    for seat in (0, 1, 3):
        assert not known & set(tables[seat].participant.hand())
