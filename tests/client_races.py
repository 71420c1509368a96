"""Which of the host's refusals of clients/simple_bot.py's messages an honest race explains
(protocol.md 9, "A refusal that a race causes"), judged from the sequenced stream alone by the
client's own replica (written from the protocol): `overtaken`."""

from __future__ import annotations

import re

from test_table_silence import simple_bot_follower

SHARE_NOT_OWED = re.compile(r"a key share for position (\d+) of generation (\d+) that no one "
                            r"asked of it \(no key share for position \1 is owed to seat (\d+)\)")
MOVE_OVERTAKEN = (": the deal is not settled", ": the round is stopped for its audit")
"""The ends of a move's refusal that a change of the table in flight explains."""
DEAL_OVER = re.compile(r"after round \d+'s deal was over|for pick \d+, which a void of round 0 "
                       r"dropped")
"""A deal step refused as answering a deal that is over (`StreamTable._dropped`): signed while it
was due, since only the host can place it after (docs/dealing.md)."""


def overtaken(error, start, stream, seat: int) -> bool:
    """Whether the host's ``error`` refusing seat ``seat``'s message is a race: an
    ``out_of_turn`` of a message never sequenced, and, between the seat's messages sequenced
    before and after it (it was signed after the one, refused before the other), a message
    that changed what the table owes (a round voided or stopped, a seat lost or seated
    mid-round, a proposal dropped: the replica's ``changes``) before which the message was
    owed: a key share of that position to that seat, or a move (refused as the deal not
    settled, or the round stopped), or any deal step of a deal a void ended (`DEAL_OVER`).  A
    key share never owed is never explained."""
    counter = error.ref_counter
    ours = [m for m in stream if m.author == seat]
    if error.code != "out_of_turn" or counter is None or any(m.counter == counter for m in ours):
        return False
    after = max((m.seq for m in ours if m.counter < counter), default=-1)
    before = min((m.seq for m in ours if m.counter > counter), default=len(stream))
    share = SHARE_NOT_OWED.search(error.reason)
    if share is None and not (error.reason.endswith(MOVE_OVERTAKEN)
                              or DEAL_OVER.search(error.reason)):
        return False
    replica = simple_bot_follower(start)
    for msg in stream[:before]:
        owed, changes = replica.owed, replica.changes
        owers = set() if share is None else set(owed.get(
            (int(share[3]), int(share[2]), int(share[1])), ()))
        replica.apply(msg.seq, msg.author, msg.to_wire()["body"])
        if msg.seq > after and replica.changes != changes and (share is None or seat in owers):
            return True
    return False
