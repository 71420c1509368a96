"""The round's end with a seat lost in it still vacant (protocol.md 11.10, "The round's end with
the seat vacant") as clients/simple_bot.py follows it, on our in-process tables' stream: every
other seat shows its own key of each hidden card of the lost hand, the lost seat's key comes
from its rebuilt seed, and the round is audited.  The client's replica follows it to the audit,
and as a seat it owes the same reveal our seat sends.  Before, it waited for the lost hand to
be shown by its holder (for ever, with no one to seat) and never sent its key."""

from __future__ import annotations

from shanghai_net.table.bodies import parse_deal

from dropout_helpers import kind_of
from test_client_bot_lost import replica_of
from test_table_dropout_lost_at_hand_show import (hand_of, lost_before_the_end,
                                                  play_without_stand_in)
from test_table_silence import follow


def shown_at_the_round_s_end():
    """Round 1 of `lost_before_the_end`, played to its audit with no stand-in; (the table,
    the lost seat, the lost hand's hidden cards by token)."""
    t, lost, _ = lost_before_the_end(1)
    hand, hidden = hand_of(t, lost)
    play_without_stand_in(t, lost, lambda: t.host.audited >= 1)
    return t, lost, {token: hand[token] for token in hidden}


def test_the_client_s_replica_follows_a_lost_hand_shown_without_its_holder():
    t, lost, hidden = shown_at_the_round_s_end()
    seeds = next(k for k, msg in enumerate(t.stream) if kind_of(msg) == "deal seeds")
    replica = replica_of(t)
    follow(replica, t.stream[:seeds], 0)
    assert replica.verdict == "" and replica.vacant == {lost: 1} and replica.over
    assert hidden and not replica.hidden(lost) and hidden.keys() <= replica.shown
    assert {token: replica.faces[token] for token in hidden} == \
        {token: card.id for token, card in hidden.items()}
    follow(replica, t.stream, seeds)  # the others' seeds: the round audited
    assert replica.verdict == "" and replica.round_no == 2 and not replica.over


def test_the_client_owes_its_key_of_the_lost_hand_as_our_seat_sends_it():
    t, lost, hidden = shown_at_the_round_s_end()
    seat = next(s for s in range(4) if s != lost)
    ours = next(k for k, msg in enumerate(t.stream) if msg.author == seat and
                kind_of(msg) == "deal reveal" and
                {(r.context.generation, r.position) for r in
                 parse_deal(msg.body, t.host.game_id, seat).messages} <= hidden.keys())
    replica = replica_of(t, seat=seat)
    follow(replica, t.stream[:ours], 0)
    body, sent = replica.next_body(), t.stream[ours].to_wire()["body"]
    assert body["step"] == "reveal" == sent["step"]
    assert sorted(map(repr, body["data"]["reveals"])) == \
        sorted(map(repr, sent["data"]["reveals"]))
