"""The host as relay, attacked (docs/dealing-review.md, "Review of the code (session 18)"): it
sequences a seat's message, drops the seat's link before the seat hears so, and the seat's
outbox signs the same body again with a new counter (`Outbox.reconnected`), which the host then
sequences too.  Counters need only rise (protocol.md 8.3), so the chain takes the copy; what
the table makes of it must be the same at every party, and must name no seat that only did what
its outbox does after a reconnection."""

from __future__ import annotations

import pytest

from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import HOST_AUTHOR, Deal

from test_adversary_r1 import kept_by_host, names_nobody_but_the_host
from test_table_dropout_silent import parties, shared


@pytest.mark.xfail(strict=True, reason="dealing-review s18 #5: a pass signed again after a "
                   "reconnection and sequenced twice is counted twice by every seat "
                   "(PeerTable checks no pass turn) and names its author at the host and in "
                   "verify")
def test_a_pass_signed_again_after_a_reconnection_and_sequenced_twice_splits_no_party():
    t = shared(4, 3)
    kept, stop = kept_by_host(t, lambda msg: msg.author == 1 and isinstance(msg.body, Deal)
                              and msg.body.step == "pass")
    t.run_until(lambda: kept, play=False)
    stop()
    placed = t.host.admit(kept[0])  # the host sequences seat 1's pass 1 ...
    t.boxes[1].reconnected()  # ... and drops seat 1's link before it hears so
    copy = t.boxes[1].poll()
    assert copy.body == placed.body and copy.counter > placed.counter
    for table, box in zip(t.seats, t.boxes):
        box.push(table.receive(placed))
        box.sequenced(placed)
    again = t.host.chain.place(copy)  # a lying host sequences the copy as well
    names_nobody_but_the_host(t, again)
    assert len({repr(party._passes) for party in parties(t)}) == 1, \
        [party._passes for party in parties(t)]
    report = verify([t.host.start_game, *t.stream, placed, again])
    assert report.fault is None or report.fault.culprit == HOST_AUTHOR, report.summary()
