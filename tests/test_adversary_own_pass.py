"""A seat's own pass, made and not yet sequenced, when a loss is decided (docs/dealing-review.md,
review of the code (session 18) #4): a seat's deal takes its own pass in when the stream brings
it back, so every party, the seat included, decides from the same passes whether the lost
seat's generation restarts or is rebuilt; a pass the host refused (its generation restarted)
goes again, the same message, once every fresh commit is in.  In process over our own classes,
an honest host and seats racing (5 and 6 seats) or a host that refuses the pass (4 seats, where
the seat's own vote is among the bar); each test asserts who is named (nobody), who is lost, and
that every party audits the round clean."""

from __future__ import annotations

import pytest

from shanghai_net.deal import seeded
from shanghai_net.table.seat import PeerTable
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

from test_adversary_r1 import kept_by_host, named, votes_through_outboxes
from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_silent import parties, shared


def passes_of(seat):
    return lambda msg: msg.author == seat and isinstance(msg.body, Deal) and \
        msg.body.step == "pass"


def answering(t):
    """The host answers a message it refuses with an error to its author, as its
    `Client.error` does (the author's outbox signs a ``stale`` one again, drops another);
    the refusals, (message, error), in order."""
    refusals, plain = [], t.deliver

    def deliver(msg):
        try:
            return plain(msg)
        except RemoteProtocolError as error:
            refusals.append((msg, error))
            t.boxes[msg.author].error(wm.Error(code=error.code, reason=error.reason[:500],
                                               ref_counter=msg.counter))
            return msg

    t.deliver = deliver
    return refusals


def pass_kept_at_a_loss(players, threshold, passer, voters, lost=2):
    """A shared table of ``players`` seats, threshold ``threshold``: ``passer``'s first pass of
    round 1 is made and kept by the host, and ``voters`` vote ``lost`` gone (it left) before it
    is sequenced; (the table, the passes kept, stop keeping)."""
    t = shared(players, threshold)
    t.refusals = answering(t)
    kept, stop = kept_by_host(t, passes_of(passer))
    t.run_until(lambda: kept, play=False)
    t.gone.add(lost)
    votes_through_outboxes(t, lost, voters)
    stop()
    return t, kept


def every_party_audits_round_1_clean(t, lost=2):
    t.run_until(lambda: t.host.audited >= 1)
    for party in parties(t):
        assert named(party) is None, (getattr(party, "seat", "host"), party.fault, party.verdict)
        assert party.lost == [(1, lost)]
    assert all(seat.verdicts[1].clean for seat in t.seats)
    assert_no_hidden_card_opened_to(t, lost)


@pytest.mark.parametrize("players, threshold, voters", [
    (4, 3, [0, 1, 3]),     # seat 0's own vote is needed: the host sequences it and drops the pass
    (5, 3, [1, 3, 4]),     # the race an honest host and seats run into
    (6, 4, [1, 3, 4, 5]),  # the same at the default threshold of 6 seats
])
def test_a_pass_refused_after_a_loss_goes_again_as_it_was_once_the_generation_restarts(
        players, threshold, voters):
    """Seat 0 has made its pass 1 of generation 0 (every commit in) when seat 2 is voted gone:
    the host refuses the pass (no pass before every commit: the generation restarts without
    seat 2's commit; at 4 seats also its counter, below seat 0's vote), seats a newcomer, which
    commits afresh; seat 0 sends its pass again, the same message, and the round is dealt and
    audited clean at every party, with nobody named."""
    t, kept = pass_kept_at_a_loss(players, threshold, 0, voters)
    assert all(party._passes.get(0, 0) == 0 for party in parties(t)), "no pass sequenced"
    assert all(seat.participant.generation(0).passes == [] for seat in t.seats), \
        "a pass made and not sequenced is no step of the deal, at its maker either"
    t.deliver(kept[0])
    assert [error.code for _, error in t.refusals] == ["out_of_turn"] if players > 4 else \
        ["stale"], "refused: no pass before every commit (4 seats: below seat 0's vote)"
    t.seat_newcomer(2)
    assert all(msg.body == kept[0].body for msg, _ in t.refusals), "(at 4 seats signed again)"
    assert "a pass before every commitment" in t.refusals[-1][1].reason
    every_party_audits_round_1_clean(t)
    again = next(m for m in t.stream if passes_of(0)(m))
    assert again.body == kept[0].body and again.counter > kept[0].counter


def test_a_pass_kept_past_the_next_seat_s_loss_counts_when_sequenced_late():
    """5 seats, ``t = 3``: seat 0's pass is sequenced, seat 1 has made its pass and the host
    keeps it while seats 0, 3 and 4 vote seat 2 gone: the passes had begun, so generation 0 is
    rebuilt at every party.  The host then sequences seat 1's pass, late; seat 2's passes are
    made by every party from its rebuilt seed, and the round is audited clean everywhere."""
    t = shared(5, 3)
    kept, stop = kept_by_host(t, passes_of(1))
    t.run_until(lambda: kept, play=False)
    assert t.host._passes[0] == 1
    t.gone.add(2)
    votes_through_outboxes(t, 2, [0, 3, 4])
    assert all(len(seat.participant.generation(0).passes) == 1 for seat in t.seats)
    stop()
    late = t.deliver(kept[0])  # before seat 1's share_reveal: its counter is below it
    assert late.seq > max(m.seq for m in t.stream if isinstance(m.body, wm.VoidRound))
    t.run_until(lambda: t.host.rebuilt_lost() == {2}, play=False)
    assert all(party._passes[0] >= 3 for party in parties(t)), "seat 2's pass is made by all"
    t.seat_newcomer(2)
    every_party_audits_round_1_clean(t)


def test_a_seat_replaying_the_stream_takes_its_refused_and_sent_again_pass_once():
    """The race of 5 seats played to the round's audit; then seat 0's table, started afresh
    from its secret (after a crash), replays the whole stream: it makes its pass at the same
    messages, takes it in only where the stream has it, and ends where seat 0 did."""
    t, kept = pass_kept_at_a_loss(5, 3, 0, [1, 3, 4])
    t.deliver(kept[0])
    t.seat_newcomer(2)
    every_party_audits_round_1_clean(t)
    again = PeerTable(t.host.start_game, 0, t.ids[0].box_key, seeded(b"seat 1 0"))
    made = [*again.start()]
    for msg in t.stream:
        made.extend(again.receive(msg))
    passes = [body for body in made if isinstance(body, Deal) and body.step == "pass"]
    assert passes[:2] == [kept[0].body] * 2, "made before the loss, and again after it"
    assert again.fault is None and again.verdicts[1].clean
    assert again.chain.head == t.seats[0].chain.head and again.game.scores == t.seats[0].game.scores


def test_a_pass_the_host_holds_past_the_restart_is_sequenced_once():
    """5 seats, ``t = 3``: the host holds seat 0's pass past the loss of seat 2, the newcomer's
    seating and its fresh commit, and holds too the copy seat 0 sends once every fresh commit
    is in; then it sequences the first: its counter is below seat 0's approval, so it is
    refused ``stale``, signed again and sequenced; the held copy, sequenced after, is refused
    ``stale``, signed again and refused out of turn.  One pass, the message seat 0 made first;
    the round is audited clean at every party."""
    t, kept = pass_kept_at_a_loss(5, 3, 0, [1, 3, 4])
    held, stop = kept_by_host(t, passes_of(0))
    t.seat_newcomer(2)
    t.run_until(lambda: t.host._all_committed(0) and len(held) == 1, play=False)
    stop()
    t.deliver(kept[0])
    t.run_until(lambda: t.host._passes.get(0), play=False)
    t.deliver(held[0])
    every_party_audits_round_1_clean(t)
    sequenced = [msg for msg in t.stream if passes_of(0)(msg) and msg.body.data["phase"] == 1]
    assert [msg.body for msg in sequenced] == [kept[0].body]
    assert [error.code for _, error in t.refusals] == ["stale", "stale", "out_of_turn"]
    assert all(msg.body == kept[0].body for msg, _ in t.refusals)


def test_a_commit_the_host_keeps_past_another_seat_s_loss_counts_when_sequenced_late():
    """5 seats, ``t = 3``: the host keeps seat 3's commit of generation 0 while seats 0, 1 and
    4 vote seat 2 gone: no pass had begun, so the generation restarts without seat 2's commit
    only.  Seat 3's commit, sequenced late, stands (a seat commits once: unlike a pass, its
    commit is no message to make afresh), the newcomer commits afresh, and the round is audited
    clean at every party."""
    t = shared(5, 3)
    t.refusals = answering(t)
    kept, stop = kept_by_host(t, lambda msg: msg.author == 3 and isinstance(msg.body, Deal)
                              and msg.body.step == "commit" and msg.body.data["round"] == 1)
    t.run_until(lambda: kept, play=False)
    t.gone.add(2)
    votes_through_outboxes(t, 2, [0, 1, 4])
    stop()
    assert all(3 not in party._commits.get(0, ()) for party in parties(t))
    t.deliver(kept[0])
    t.seat_newcomer(2)
    every_party_audits_round_1_clean(t)
    assert t.refusals == []
