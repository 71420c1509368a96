"""A holder's complaint of seed shares (sharing on; docs/dealing.md, "The holder's check, at
once"): ``share`` is a list, so a holder dealt two bad shares names both dealers, and every
party records both, so that its seeds may carry nil for each (review of the code, #9)."""

from __future__ import annotations

import pytest

from shanghai_net.table.verify import verify
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

from dropout_helpers import dealing
from test_table_dropout_silent import assert_named, parties, seat_playing, shared

BAD_FOR_1 = seat_playing(dealing(wrong_for=1))


def complained(party, generation=0):
    sharing = party.records[generation].sharing if hasattr(party, "records") else \
        party.participant.generation(generation).sharing
    return sharing.complaints


def shares_in_seeds(t, seat, generation=0):
    """(dealer, nil?) for each share ``seat``'s sequenced seeds carry of ``generation``."""
    return [(s["dealer"], s["share"] is None) for m in t.stream
            if m.author == seat and isinstance(m.body, Deal) and m.body.step == "seeds"
            for s in m.body.data["shares"] if s["generation"] == generation]


def test_a_holder_dealt_two_bad_shares_names_both_dealers_and_every_party_records_both():
    t = shared(kinds={2: BAD_FOR_1, 3: BAD_FOR_1})
    t.run_until(lambda: t.host.finished)
    (complaint,) = [m for m in t.stream if isinstance(m.body, wm.Complaint)]
    assert complaint.author == 1
    assert complaint.body.share == (wm.ShareComplained(dealer=2, generation=0),
                                    wm.ShareComplained(dealer=3, generation=0))
    for party in parties(t):
        assert complained(party) == {1: (2, 3)}
    assert shares_in_seeds(t, 1) == [(0, False), (2, True), (3, True)]  # nil for both, taken
    assert_named(t, 2, "seat 2's share for seat 1 is off its commitments")


def test_a_further_complaint_of_shares_is_valid_until_its_author_s_seeds():
    """A bad share found after the holder's complaint went out goes in a further complaint:
    valid while the round stopped by a complaint waits for the author's seeds, and it only
    records the shares (the round is stopped already)."""
    t = shared()
    t.run_until(lambda: t.host.round == 1 and t.host._all_committed(0))

    def complaint(seat, *dealers):
        return t.sign(seat, t.ids[seat].sign_key, wm.Complaint(
            round=1, reason="bad share", share=tuple(
                wm.ShareComplained(dealer=d, generation=0) for d in dealers) or None))

    t.deliver(complaint(1, 2))
    stopped = t.host.accusation
    t.deliver(complaint(1, 3))  # seat 1's further complaint
    t.deliver(complaint(0, 3))  # another holder's, after the round stopped
    assert t.host.accusation == stopped
    for party in parties(t):
        assert complained(party) == {1: (2, 3), 0: (3,)}
    with pytest.raises(RemoteProtocolError, match="out_of_turn.*being audited"):
        t.host.admit(complaint(0))  # no share: no further complaint
    seeds = t.deliver(t.boxes[0].poll())
    assert seeds.body.step == "seeds" and t.host.seeds_from == {0}
    with pytest.raises(RemoteProtocolError, match="out_of_turn.*being audited"):
        t.host.admit(complaint(0, 2))  # its seeds are in
    with pytest.raises(RemoteProtocolError, match="out_of_turn.*names none"):
        t.host.admit(t.sign(2, t.ids[2].sign_key,
                            wm.Complaint(round=1, reason="bad share", share=())))
    t.run_until(lambda: t.host.finished)
    assert_named(t, 1, "seat 1: complained (bad share), but every step of the deal matches")
    assert verify([t.host.start_game, *t.stream]).fault.culprit == 1
