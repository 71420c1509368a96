"""What a seat sends, in what order, and which of its messages the host's `placed` names
(issue 40): a complaint goes before everything else waiting in the seat's outbox, and `placed`
names its message by counter when two are on their way.  Each broken by hand passed the suite.
In process (the `Table` harness of test_net_table)."""

from __future__ import annotations

from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Placed

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
