"""A refusal that an honest race causes (protocol.md 9), in process over our own tables: the
order that broke session 19's votes-again game.  A seat's key share of a card just drawn is on
its way when the votes void the round; the host refuses it, as no key share is owed any more,
and `overtaken` (the tests' judge of the client's refusals, on simple_bot's replica) takes it
as the race it is; a key share never owed it never forgives."""

from __future__ import annotations

from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire.messages import Deal, Error, VoidRound

from client_races import DEAL_OVER, SHARE_NOT_OWED, overtaken
from test_adversary_r1 import kept_by_host, votes_through_outboxes
from test_table_roster import Roster

RULES = {"contracts": [[2, 0], [1, 1]]}


def test_a_key_share_a_void_overtook_is_a_race_and_one_never_owed_is_not():
    """5 seats, sharing off.  In round 1 the host keeps seat 0's key share of a card another
    seat drew; seats 1, 2 and 4 vote seat 3 gone, and the round is void.  Then the kept share
    reaches the host: refused, as answering a deal that is over.  It was owed until the void, so
    the judge takes it as overtaken; not so with no void in its way.  A refusal of that share as
    not owed (a seating's way) is a race too; not one naming a card seat 0 never owed that
    seat."""
    t = Roster(5, seed=5, rules=RULES)

    def share_of_a_draw(msg) -> bool:
        return msg.author == 0 and isinstance(msg.body, Deal) and msg.body.step == "shares" \
            and t.host.round >= 1 and all(len(box["positions"]) <= 2
                                          for box in msg.body.data["boxes"])

    kept, stop = kept_by_host(t, share_of_a_draw)
    t.run_until(lambda: kept)
    stop()
    votes_through_outboxes(t, 3, [1, 2, 4])
    try:
        t.host.admit(kept[0])
    except RemoteProtocolError as refusal:
        error = Error(code=refusal.code, reason=refusal.reason, ref_counter=refusal.ref_counter)
    else:
        raise AssertionError("the host sequenced a key share the void made owed no more")
    assert error.code == "out_of_turn" and DEAL_OVER.search(error.reason), error
    start, stream = t.host.start_game, t.stream
    assert overtaken(error, start, stream, 0), error
    first_vote = next(m.seq for m in stream if isinstance(m.body, VoidRound))
    assert not overtaken(error, start, stream[:first_vote], 0), "a refusal with no change"
    generation, kept_box = kept[0].body.data["generation"], kept[0].body.data["boxes"][0]
    to, position = kept_box["to"], kept_box["positions"][0]

    def not_owed(at: int) -> Error:
        """The refusal of a key share of position ``at`` while the deal runs (a seating's)."""
        return Error(code="out_of_turn", ref_counter=error.ref_counter, reason=(
            f"seat 0: a key share for position {at} of generation {generation} that no one "
            f"asked of it (no key share for position {at} is owed to seat {to})"))
    assert SHARE_NOT_OWED.search(not_owed(position).reason) is not None
    assert overtaken(not_owed(position), start, stream, 0), "a share owed until the void"
    hand = next(p for box in (m.body.data["boxes"] for m in stream if m.author == 0
                              and isinstance(m.body, Deal) and m.body.step == "shares")
                for b in box if b["to"] != to for p in b["positions"])
    never_owed = not_owed(hand)
    assert not overtaken(never_owed, start, stream, 0), never_owed
