"""R1, the same seat lost twice in one round (docs/dealing.md, "Rebuildable"): seat 2 of a
4-seat table, ``t = 3``, voted gone and rebuilt, its replacement seated mid-round, and then the
replacement voted gone too.  A seat lost already this round is not rebuildable: its second loss
voids the round as with sharing off.  Found over real processes (the acceptance game
`lost_seat_game` with ``--sharing default``, /work/notes/s17/stall-findings.md "acc1", "acc4"):
the bots voted a stand-in gone, the second loss reached the deal's `LostSeats.lose`, whose
ValueError stopped the host (exit 1) and every seat, nobody named.  Played with our own classes,
as the adversary sees it: nobody is named, the seat pays once for the round (the replacement, a
person, as a seat that left; the host's stand-in nothing, the lost player's charge standing), the
void round's seeds are never shown and no seat learns a card it does not hold."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from shanghai_net.deal.lost import NotRebuildable
from shanghai_net.engine import RoundVoided, SeatLost
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Deal

from dropout_helpers import shared_table
from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_lost_rebuild import lost, published
from test_table_dropout_silent import parties
from test_table_roster import newcomer, vote_gone


def seated(t, seat, who, role):
    """``who`` takes vacant ``seat`` (``role``: "bot", the host's stand-in; "player", a person
    the host proposes) once every other seat approves; the table then plays until it settles."""
    old = t.seats[seat]
    t.follow(seat, who, yields=role == "bot")
    t.propose(seat, who, role=role, name=role)
    t.gone.discard(seat)
    t.run_until(lambda: t.seats[seat] is not old, play=False)
    t.ids[seat] = who


@pytest.mark.parametrize("role", ["bot", "player"])
def test_a_replacement_lost_in_the_round_its_seat_was_lost_voids_it_and_names_nobody(role):
    t = lost()  # seat 2 voted gone after some draws by 0, 1 and 3
    published(t)
    round_no, penalty = t.host.round, t.host.rules.leave_penalty
    seated(t, 2, newcomer(2), role)
    t.run_until(lambda: t.host.settled and 2 in t.host.public.to_move())
    charged = list(t.host.public.scores)  # the lost player's penalty, paid at its loss
    hand = dict(t.seats[2].participant.hand())
    assert hand and all(party.lost == [(round_no, 2)] for party in parties(t))
    t.gone.add(2)  # the replacement dies at its turn
    vote_gone(t, 2, [0, 1, 3])
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.left == [(round_no, 2)] and party.vacant == {2: round_no}
        assert party.unpaid == ({(round_no, 2)} if role == "bot" else set())
        assert party.rebuilds == {} and party.generations == set()  # the round's deal is void
        voided = [e for e in party.public.log if isinstance(e, RoundVoided)]
        assert [(e.round_no, e.leaver, e.goes_on) for e in voided] == \
            [(round_no, 2 if role == "player" else None, True)]
        assert party.public.scores == charged, "the seat pays once for the round"
        assert [e.seat for e in party.public.log if isinstance(e, SeatLost)] == [2]
    for seat in (0, 1, 3):  # nobody learned the lost hand, nor any card it does not hold
        assert_no_hidden_card_opened_to(t, seat)
        assert not set(hand) & set(t.seats[seat].participant.hand())
    seated(t, 2, newcomer(3), "bot")  # the next deal waits for someone to play seat 2
    t.run_until(lambda: t.host.finished)
    shown = [m for m in t.stream if isinstance(m.body, Deal) and m.body.step == "seeds" and
             m.body.data["round"] == round_no]
    assert shown == [], "the void round's seeds are never shown"
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()
    assert report.voided is None and report.left == ((round_no, 2),)


def test_the_deal_refuses_to_rebuild_a_seat_lost_already_in_the_round_changing_nothing():
    """The deal layer's side: `LostSeats.lose` of a seat lost already this round (its
    replacement seated) is `NotRebuildable`, as every party's table has it, and nothing of the
    first loss changes."""
    table = shared_table()
    table.open_many_to([0, 4], 0)
    table.lose(2, X25519PrivateKey.from_private_bytes(bytes(range(32))))
    party = table.participants[0]
    before = party.save()
    with pytest.raises(NotRebuildable, match="seat 2 is not rebuildable: it was lost already"):
        party.lose(2, table.holders)
    assert party.save() == before and party.rebuilt(2)
