"""A seat's round state survives a crash: saved to bytes, restored, and the round goes on."""

from __future__ import annotations

import pytest

from shanghai_net.cards import deck
from shanghai_net.deal import MentalTable, Participant, seeded

CARDS = deck(1, 1)[:21]


def test_restored_seat_keeps_its_hand_and_finishes_the_round():
    table = MentalTable(3, seeded(b"save"), cards=CARDS)
    first = table.open_many_to(range(0, 9, 3), 1)
    before = table.participants[1]
    table.restore(1, table.save(1))
    restored = table.participants[1]
    assert restored is not before
    assert restored.hand() == before.hand() == {(0, p): c for p, c in zip(range(0, 9, 3), first)}
    more = table.open_many_to([10, 11], 1)
    assert table.open_public(3) == first[1]
    pile = [table.open_public(p) for p in (12, 13)]
    table.reshuffle(pile)
    table.restore(1, table.save(1))
    assert sorted(table.open_many_to([0, 1], 1)) == sorted(pile)
    assert set(table.participants[1].hand().values()) == {first[0], first[2], *more, *pile}
    assert table.audit().clean


def test_restored_seat_finishes_a_pick_with_the_nonce_it_committed():
    table = MentalTable(3, seeded(b"save pick"), cards=CARDS)
    commitments = [table.participants[s].pick_commit(0, 10, [0, 1]) for s in (0, 1)]
    for message in commitments:
        for p in table.participants:
            if p.seat != message.author:
                p.receive(message)
    table.restore(1, table.save(1))
    for message in [table.participants[s].pick_reveal(0) for s in (0, 1)]:
        for p in table.participants:
            if p.seat != message.author:
                p.receive(message)  # a new nonce after the restore would be a cheat
    assert len({p.pick_result(0) for p in table.participants}) == 1


def test_restore_rejects_what_is_not_a_save():
    table = MentalTable(3, seeded(b"save junk"), cards=CARDS)
    with pytest.raises(ValueError, match="not a saved participant"):
        Participant.restore(b"\x93\x01\x02\x03", table.roster, None, seeded(b""))
