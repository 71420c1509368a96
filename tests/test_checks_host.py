"""Checks of the host (its sequencing checks, budgets and lobby) that no test made fail before
docs/checks.md listed them, each played by the party that would exploit the missing check;
without sockets."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest
import trio
import trio.testing

from shanghai_net.deal import seeded
from shanghai_net.engine.moves import PassClaim
from shanghai_net.net.budget import Budget, Verdict
from shanghai_net.net.config import HostConfig
from shanghai_net.net.history import History
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.sequencer import Sequencer
from shanghai_net.net.transcript import Transcript
from shanghai_net.table.bodies import shares_body
from shanghai_net.table.outbox import Outbox
from shanghai_net.table.public import PublicTable
from shanghai_net.table.seat import PeerTable
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire.messages import Placed, Refused
from shanghai_net.wire.signing import sign_proof

from test_checks_table import deliver_one_at_a_time, sequenced_anyway
from test_net_flood import LIMITS
from test_net_host_parts import a_game_of_three, hello, sent
from test_net_table import Table, open_window, signed


def test_a_flood_of_small_messages_is_read_no_faster_than_its_message_rate():
    """Bytes within their budget do not let a connection's reader run ahead of its message
    rate: once the messages' burst is spent, the next read waits for a message token."""
    budget = Budget(LIMITS)
    assert all(budget.message(0.0) is Verdict.PASS for _ in range(20))
    assert budget.read(0.0, 10) == pytest.approx(0.1)  # 10 messages a second


@pytest.mark.parametrize("smuggled", ["in a second box", "beside the owed position"])
def test_a_key_share_no_one_owes_smuggled_beside_an_owed_one_is_refused_and_named(smuggled):
    """A seat owes seat R its key of a card being dealt to R, and adds its key of a card still in
    the stock for R (colluding with R to read the stock).  The host refuses the whole body; a
    host that sequences it anyway is named by no one but the sender, whom every seat names,
    before R could open anything from it."""
    t = Table(3, seed=23)
    deliver_one_at_a_time(t, lambda: t.host.round == 1 and t.host.outstanding)
    (generation, position), owed = min(t.host.outstanding.items())
    sender, recipient = min(owed.owing), owed.to
    dealer = t.seats[sender].participant
    g = dealer.generation(generation)
    stock = max(p for p in range(g.size) if (generation, p) not in t.host.outstanding
                and p not in g.given and p not in g.mine)
    if smuggled == "in a second box":
        sealed = [dealer.share_keys(generation, recipient, [position]),
                  dealer.share_keys(generation, recipient, [stock])]
    else:
        sealed = [dealer.share_keys(generation, recipient, [position, stock])]
    msg = t.seats[sender].chain.sign(t.ids[sender].sign_key, sender,
                                     shares_body(1, generation, sealed))
    with pytest.raises(RemoteProtocolError, match=f"no key share for position {stock} is owed"):
        t.host.admit(msg)
    for fault in sequenced_anyway(t, msg):
        assert fault.culprit == sender and f"a key share for position {stock}" in fault.reason
    assert stock not in t.seats[recipient].participant.generation(generation).mine


def test_a_seat_closed_for_abuse_cannot_come_back_on_a_challenge_it_was_given_before():
    """Seat 1 asks to rejoin on a second connection (and is challenged), then floods on its
    first and is closed for abuse: the proof it sends on the second is refused, code abuse."""
    parts, people, clients = a_game_of_three()
    second = parts.connect()
    parts.lobby.on_hello(second, hello(people[1], "p1 again"))
    seat, challenge = second.rejoining
    clients[1].abuse("a flood")
    parts.lobby.on_proof(second, sign_proof(people[1].sign_key, parts.lobby.start.game_id,
                                            challenge))
    assert [r.code for r in sent(second, Refused)] == ["abuse"]
    assert second.seat is None and parts.lobby.seats[1] is clients[1]


# -- the sequencer (net/sequencer.py), in process: no sockets, no clock ---------------------------

def sequencer(config, history, clients, public, host_key=None):
    return Sequencer(config, host_key, history, clients, Transcript(None), public)


async def test_a_connection_may_not_pass_off_another_seat_s_message_as_its_own():
    """Seat 1's connection submits a message seat 2 signed (a copy it got hold of, sent to be
    sequenced on seat 1's budget and answered to seat 1).  The host strikes seat 1's connection
    (bad_signature, naming both seats) and sequences nothing; the same message from seat 2's own
    connection is sequenced, and seat 2 told where it went."""
    parts, people, clients = a_game_of_three()
    start = parts.lobby.start
    seq = sequencer(parts.config, parts.history, parts.connections.clients, PublicTable(start))
    table = PeerTable(start, 2, people[2].box_key, seeded(b"seat 2"))
    box = Outbox(table, people[2].sign_key)
    box.push(table.start())
    msg = box.poll()
    await seq._sequence(clients[1], msg)
    assert [(e.code, e.reason) for e in clients[1].errors_sent] == \
        [("bad_signature", "author 2 is not your seat 1")] and clients[1].strikes == 1
    assert parts.history.frames == [] and seq.public.chain.next_seq == 0
    await seq._sequence(clients[2], msg)
    assert len(parts.history.frames) == 1 and clients[2].errors_sent == []
    told = {seat: [m for m, _ in iter(clients[seat].next_message, (None, None))] for seat in (1, 2)}
    assert Placed(seq=0, counter=msg.counter) in told[2]
    assert not [m for m in told[1] if isinstance(m, Placed)]


async def test_a_message_of_a_key_that_plays_its_seat_no_more_is_refused_saying_so():
    """Seat 1 hands its seat over to bea; a message its old key signed before it heard so (a
    second hand-over) reaches the host on its old connection.  The host refuses it saying the
    seat is played with another key now (not ``bad_signature``: it is no forgery) and
    sequences nothing of it; the same hand-over signed with bea's key, on bea's connection, is
    sequenced."""
    from test_table_handover import hand_over
    from test_table_roster import newcomer

    parts, people, clients = a_game_of_three()
    seq = sequencer(parts.config, parts.history, parts.connections.clients,
                    PublicTable(parts.lobby.start))
    bea, cy = newcomer(5), newcomer(6)
    table = SimpleNamespace(host=seq.public, ids=people,
                            sign=lambda seat, key, body: seq.public.chain.sign(key, seat, body))
    await seq._sequence(clients[1], hand_over(table, 1, bea))
    assert seq.public.holders[1].sign_key == bea.sign_public and not clients[1].errors_sent
    await seq._sequence(clients[1], hand_over(table, 1, cy))
    assert [(e.code, e.reason) for e in clients[1].errors_sent] == \
        [("wrong_state", "seat 1 is played with another key now (bea for p1), not with this "
                         "connection's")]
    assert seq.public.chain.next_seq == 1
    clients[1].hello = dataclasses.replace(clients[1].hello, sign_key=bea.sign_public)  # bea's
    await seq._sequence(clients[1], hand_over(table, 1, cy, key=bea.sign_key))
    assert seq.public.holders[1].sign_key == cy.sign_public and len(clients[1].errors_sent) == 1


async def test_the_host_times_out_every_silent_seat_of_a_claim_window_not_the_first_only():
    """A claim window's time runs out with several seats silent: the host signs a timeout for
    each of them, in one go, and the window closes (a host that stopped after the first would
    leave the table waiting for seats it never times out)."""
    t = Table(4, seed=6)
    open_window(t)
    window, silent = t.host.open_window()
    assert len(silent) >= 2
    seq = sequencer(HostConfig(players=4, random=seeded(b"timeouts")), History(1 << 20), set(),
                    t.host, t.host_id.sign_key)
    await seq._timeout(("claim", t.host.moment_seq))
    assert seq.timeouts == len(silent), f"{seq.timeouts} of the {len(silent)} silent seats timed out"
    assert t.host.open_window() is None or t.host.open_window()[0] is not window


# -- the peer (net/peer.py) ---------------------------------------------------------------------

async def test_a_seat_rejoined_to_another_game_names_the_host_at_once():
    """Seat 0 drops and comes back mid-game; the host sends it the ``start_game`` of another
    game (another id: another chain, other seeds).  The peer refuses it at once, naming the
    host, and keeps its own table; it does not sit on waiting for a stream that cannot fit."""
    t = Table(3, seed=29)
    deliver_one_at_a_time(t, lambda: t.host.round == 1)
    peer = Peer(("127.0.0.1", 9), t.ids[0], BotPlayer())
    peer.start, peer.table = t.host.start_game, t.seats[0]
    other = dataclasses.replace(t.host.start_game, game_id=bytes(reversed(t.host.game_id)))
    with pytest.raises(PeerError, match="the host rejoined us to another game"):
        await peer._on_message(None, other)
    assert peer.table is t.seats[0] and peer.start is t.host.start_game


async def test_the_claim_timer_runs_for_every_window_not_the_first_only(autojump_clock):
    """The host's one timer: each claim window gets its ``claim_timeout`` from when it opened,
    the second as the first (a timer that ended after its first window would leave every later
    window open for ever, the table waiting on a silent seat)."""
    public = SimpleNamespace(waiting_audit=False, claim_timeout=7.0, audit_timeout=60.0,
                             moment_seq=None, open_window=lambda: (object(), [1]))
    seq = sequencer(HostConfig(players=3, random=seeded(b"timer")), History(1 << 20), set(),
                    public)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(seq._claim_timer)
        for window, opened_at in (("first window", 10), ("second window", 14)):
            public.moment_seq = opened_at
            seq._track_window()
            opened, client, timed_out = trio.current_time(), None, None
            with trio.move_on_after(60):
                client, timed_out = await seq._inbox.receive()
            assert client is None and timed_out == ("claim", opened_at), \
                f"the {window} was never timed out"
            assert trio.current_time() - opened == pytest.approx(7.0)
        nursery.cancel_scope.cancel()


async def test_a_claim_window_s_clock_runs_from_when_it_opened_whatever_comes_in_it(mock_clock):
    """A claim window's ``claim_timeout`` runs from when it opened: a seat's pass sequenced in
    it, which changes the window (a seat fewer to wait on), starts no clock again; at the time
    the host times out the seats still silent in it, and nothing before (else a table whose
    seats each pass just before the time runs out would wait a ``claim_timeout`` a seat)."""
    t = Table(4, seed=6)
    open_window(t)
    opened = ("claim", t.host.moment_seq)
    window, silent = t.host.open_window()
    seq = sequencer(HostConfig(players=4, random=seeded(b"claim clock")), History(1 << 20),
                    set(), t.host, t.host_id.sign_key)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(seq._claim_timer)
        await trio.testing.wait_all_tasks_blocked()
        seq._track_window(sequenced=True)  # as after the discard that opened it
        await run_for(mock_clock, t.host.claim_timeout - 1)
        t.deliver(signed(t, silent[0], PassClaim(silent[0]), t.host.chain.basis))
        assert t.host.open_window()[0] is window and t.host.open_window()[1] == silent[1:]
        seq._track_window(sequenced=True)
        await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(trio.WouldBlock):
            seq._inbox.receive_nowait()
        await run_for(mock_clock, 1)
        assert seq._inbox.receive_nowait() == (None, opened), "the pass started the clock again"
        nursery.cancel_scope.cancel()


def a_table_waiting_on_a_dark_seat():
    """Three seats; seat 2 sends nothing: the first-dealer pick waits for its commitment, and
    the host's silence clock is the timer it runs.  The host's sequencer over that table, its
    three seats connected (the connection objects the sequencer reads), and seat 2's."""
    t = Table(3, seed=5)
    for _ in range(100):
        msg = next((m for m in (t.boxes[i].poll() for i in (0, 1)) if m is not None), None)
        if msg is None:
            break
        t.deliver(msg)
    assert t.host.waiting_for() == {2} and t.host.open_window() is None
    links = [SimpleNamespace(seat=seat, connected=True) for seat in range(3)]
    seq = sequencer(HostConfig(players=3, random=seeded(b"silence")), History(1 << 20), links,
                    t.host)
    return t, seq, links[2]


async def run_for(clock, seconds: float) -> None:
    clock.jump(seconds)
    await trio.testing.wait_all_tasks_blocked()


async def test_a_seat_that_owes_a_step_cannot_hold_the_silence_clock_by_reconnecting(mock_clock):
    """Seat 2 owes the table a step and its link drops and comes back every 20 s.  The host's
    silence clock runs from the last message sequenced (protocol.md 11.5), so its ``silent``
    window falls due ``audit_timeout`` (60 s) after it, and again 60 s after the next message,
    whatever the link does.  Before the fix each change of a connection started the clock again:
    a seat that owes a step, reconnecting within each ``audit_timeout``, held the table for
    good (a move of its own choosing)."""
    t, seq, link = a_table_waiting_on_a_dark_seat()
    wait = t.host.audit_timeout

    async def flapping(seconds: float) -> None:
        for _ in range(int(seconds // 20)):
            await run_for(mock_clock, 20)
            link.connected = not link.connected
            seq.seats_changed()
            await trio.testing.wait_all_tasks_blocked()
            with pytest.raises(trio.WouldBlock):
                seq._inbox.receive_nowait()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(seq._claim_timer)
        await trio.testing.wait_all_tasks_blocked()
        seq._track_window(sequenced=True)  # as after the last message sequenced
        await flapping(wait - 20)
        await run_for(mock_clock, 20)
        assert seq._inbox.receive_nowait() == (None, ("silent", 0)), "seat 2 held the clock"
        seq._track_window(sequenced=True)  # a message (the host's timeout, say) starts it again
        await flapping(wait - 20)
        await run_for(mock_clock, 20)
        assert seq._inbox.receive_nowait() == (None, ("silent", 0))
        nursery.cancel_scope.cancel()


async def test_a_silence_clock_that_ran_out_with_no_timeout_starts_again_at_the_next_change(
        mock_clock):
    """The silence clock ran out and the host signed nothing (the seat to be timed out came
    back meanwhile): the next change of a connection starts it again, a full ``audit_timeout``
    (else the clock stayed stopped until a message, and a table that waits on a seat whose
    link is down again could wait for good)."""
    t, seq, link = a_table_waiting_on_a_dark_seat()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(seq._claim_timer)
        await trio.testing.wait_all_tasks_blocked()
        seq._track_window(sequenced=True)
        await run_for(mock_clock, t.host.audit_timeout)
        assert seq._inbox.receive_nowait() == (None, ("silent", 0))  # (not answered)
        link.connected = False
        seq.seats_changed()
        await run_for(mock_clock, t.host.audit_timeout - 1)
        with pytest.raises(trio.WouldBlock):
            seq._inbox.receive_nowait()
        await run_for(mock_clock, 1)
        assert seq._inbox.receive_nowait() == (None, ("silent", 0)), "the clock stayed stopped"
        nursery.cancel_scope.cancel()
