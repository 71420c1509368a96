"""A deal step of a round placed after that round's deal was voided (docs/dealing.md, "A step the
host places where it is not due"; helper liar's note of session 19), in process over our real
classes.  A seat signs a step when the stream it has seen makes it due; the host keeps it while
the votes that void the round come in, then, though its own table refuses it, sequences it
while the next deal waits for someone to play the seat voted gone (the round's number is still
the running one).  Its author could not know: every party and `verify` name the host, never the
author.  Before, every party named the author ("a pass before every commitment"; "no pick 0
among it is running")."""

from __future__ import annotations

import pytest

from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire.messages import Deal

from test_adversary_r1 import every_party_names_the_host, kept_by_host, votes_through_outboxes
from test_table_silence import Muted


def kept_past_a_void(step: str, round_no: int):
    """5 seats, sharing off: the host keeps seat 0's first ``step`` of round ``round_no``;
    seats 1, 3 and 4 vote seat 2 gone before it is sequenced (the round is void, seat 2
    vacant, the next deal waits for someone to play it) and the host refuses it then; (the
    table, the step kept)."""
    t = Muted(5, verifiable=True, rules={"contracts": [[2, 0], [1, 1]]})
    t.run_until(lambda: t.host.round == round_no, play=False)
    kept, stop = kept_by_host(t, lambda msg: msg.author == 0 and isinstance(msg.body, Deal)
                              and msg.body.step == step)
    t.run_until(lambda: kept, play=False)
    stop()
    t.gone.add(2)
    votes_through_outboxes(t, 2, [1, 3, 4])
    assert t.host.left == [(round_no, 2)] and t.host.round == round_no
    return t, kept[0]


@pytest.mark.parametrize("step, round_no, why", [
    ("pass", 1, "after round 1's deal was over"),
    ("pick_reveal", 0, "for pick 0, which a void of round 0 dropped"),
], ids=["a pass of round 1", "a nonce of the first-dealer pick"])
def test_a_step_sequenced_after_its_round_was_voided_names_the_host(step, round_no, why):
    t, kept = kept_past_a_void(step, round_no)
    with pytest.raises(RemoteProtocolError, match=why):
        t.host.admit(kept)  # an honest host refuses it
    late = t.host.chain.place(kept)  # a lying host sequences it
    every_party_names_the_host(t, late, f"the host sequenced seat 0's {step} {why}")
    for party in (t.host, *t.seats):
        assert party.left == [(round_no, 2)] and party.verdict is None
