"""What a seat sends, in what order, and which of its messages the host's `placed` names
(issue 40): a complaint goes before everything else waiting in the seat's outbox, and `placed`
names its message by counter when two are on their way.  Each broken by hand passed the suite.
In process (the `Table` harness of test_net_table)."""

from __future__ import annotations

import pytest

from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer
from shanghai_net.net.sequencer import check_body
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Placed

from test_adversary_r1 import kept_by_host
from test_net_table import Table


def waiting(t, least: int):
    """Play the deal until some seat has ``least`` deal bodies waiting in its outbox: that
    seat."""
    found = []

    def due():
        found[:] = [s for s, box in enumerate(t.boxes) if len(box.deal) >= least]
        return bool(found)

    t.run_until(due, play=False)
    return found[0]


def test_a_complaint_goes_out_before_the_deal_steps_waiting_in_the_outbox():
    """A seat with deal steps waiting finds a fault only it can see: its complaint is the next
    message it sends (the round must stop before anything more is built on the deal), then the
    steps it owes, in their order (protocol.md 11.6)."""
    t = Table(3, seed=3)
    seat = waiting(t, 2)
    box = t.boxes[seat]
    owed = list(box.deal)
    complaint = wm.Complaint(round=t.seats[seat].round, reason="a card of mine does not open")
    box.push([complaint])
    sent = [box.poll() for _ in range(len(owed) + 1)]
    assert [m.body for m in sent] == [complaint, *owed]
    assert [m.counter for m in sent] == sorted(m.counter for m in sent)


def test_placed_names_the_one_of_two_messages_on_their_way_whose_counter_it_gives():
    """Two deal steps of seat S are on their way; the host places the second one's counter,
    then the first's: each time the seat takes the message of that counter (not the first on
    its way), and once each is chained it is no longer on its way, whichever the host
    sequenced first."""
    t = Table(3, seed=3)
    seat = waiting(t, 2)
    box = t.boxes[seat]
    first, second = box.poll(), box.poll()
    assert first.counter != second.counter and set(box.unplaced) == {first.counter,
                                                                      second.counter}
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(range(32))))
    peer.table, peer.outbox = t.seats[seat], box
    for mine, seq in ((second, 7), (first, 8)):
        placed = peer._placed(Placed(seq=seq, counter=mine.counter))
        assert (placed.seq, placed.counter, placed.body) == (seq, mine.counter, mine.body)
    t.deliver(first)
    assert box.unplaced == {second.counter: second} and list(box.flying) == [second]
    t.deliver(second)
    assert box.unplaced == {} and not box.flying
    seat = waiting(t, 2)  # deal steps commute: a host may sequence the later one first
    box = t.boxes[seat]
    first, second = box.poll(), box.poll()
    t.deliver(second)
    assert box.unplaced == {first.counter: first}


def test_a_refused_seeds_body_is_dropped_and_never_sent_again():
    """Soak 14-3's second half: the host refused a seat's ``seeds`` (there, over its size cap:
    `check_body`, as here) and the seat's outbox dropped them.  So it must: a refusal says what
    the body or the stream is, which a copy does not change (the same bytes over the same cap,
    seeds no longer due), and each copy would count among its connection's bad messages.  The
    outbox sends the body no more, not after a reconnection either; the host times the seeds
    out and the round is audited without them, no party at fault (with sharing on, from the
    seat's holders' shares: R2)."""
    t = Table(3, seed=3)
    kept, stop = kept_by_host(t, lambda msg: msg.author == 1 and isinstance(msg.body, wm.Deal)
                              and msg.body.step == "seeds")
    t.run_until(lambda: kept)
    stop()
    box, seeds = t.boxes[1], kept[0]
    with pytest.raises(RemoteProtocolError) as refused:
        check_body(seeds, t.host.game_id, 64, 1024)
    error = refused.value
    assert error.code == "bad_message" and error.ref_counter == seeds.counter
    box.error(wm.Error(code=error.code, reason=error.reason, ref_counter=error.ref_counter))
    assert box.dropped == [seeds.body] and not box.flying and box.poll() is None
    box.reconnected()
    assert box.poll() is None, "the refused seeds were sent again after a reconnection"
    t.time_out(1, "seeds")
    t.run_until(lambda: t.host.audited >= 1)
    assert [seat for seat, _ in t.host.seeds_timeouts.values()] == [1]
    assert t.host.fault is None and all(table.fault is None for table in t.seats)
