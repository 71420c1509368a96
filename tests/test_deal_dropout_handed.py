"""Sharing on: a lost seat's replacement takes its hand (every other seat hands it its keys of the
hand, sealed with the "handed box" secret), and plays on; nobody else learns the hand; and the
rebuilt deal gives every seat the cards it would have had with nobody lost."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from hypothesis import given, settings, strategies as st

from shanghai_net.cards import deck
from shanghai_net.deal import CheatDetected, Participant
from shanghai_net.deal.box import seal
from dropout_helpers import assert_only_holders_open, shared_table

REPLACEMENT = X25519PrivateKey.from_private_bytes(bytes(range(32)))
CARDS = deck(1, 0)


def test_the_replacement_of_a_lost_seat_holds_its_hand_and_the_round_goes_on():
    table = shared_table(cards=CARDS)
    for seat in range(4):
        table.open_many_to(range(3 * seat, 3 * seat + 3), seat)
    table.open_many_to([20], 2)
    table.open_public(30)
    hands = {p.seat: p.hand() for p in table.participants}
    table.lose(2)
    assert [a for a in table.participants[0].generation(0).sharing.published[2]] == [0, 1, 3]
    replacement = table.replace(2, REPLACEMENT)
    assert replacement.hand() == hands[2] and len(hands[2]) == 4
    assert {p.seat: p.hand() for p in table._live() if p.seat != 2} == \
        {s: h for s, h in hands.items() if s != 2}
    assert_only_holders_open(table)
    assert table.open_many_to([21, 22], 2) and table.open_many_to([23], 0)
    table.hand_over(20, 2, 1)  # a SHANGHAI penalty moves one of the handed cards on
    assert table.open_public(31) and table.open_public(20) == hands[2][(0, 20)]
    assert_only_holders_open(table)
    assert table.audit().clean


def test_the_handed_boxes_open_to_the_replacement_alone():
    table = shared_table(cards=CARDS)
    table.open_many_to([0, 1], 2)
    table.lose(2, REPLACEMENT)
    for participant in table.participants[:2] + table.participants[3:]:
        handed = participant.generation(0).sharing.handed
        assert len(handed) == 3 and {b.recipient for b in handed} == {2}
        with pytest.raises(ValueError, match="no key yet from seats"):
            participant.open(0, 0)


def wrong_hander(kind):
    class Wrong(Participant):
        def seal_handed(self, g, seat, positions, secret):
            keys = b"".join(g.keys.card_keys[p + 1] for p in positions)
            if kind == "garbage":
                return seal(bytes(32), self._boxes[seat], g.context, self.seat, seat, positions,
                            keys)
            return seal(secret, self._boxes[seat], g.context, self.seat, seat, positions, keys)
    return Wrong


def test_a_wrong_key_handed_on_fails_the_card_and_the_audit_names_its_sender():
    table = shared_table(cards=CARDS, cheats={3: wrong_hander("wrong key")})
    table.open_many_to([0, 1], 2)
    with pytest.raises(CheatDetected, match="does not open to a card of its deck") as caught:
        table.lose(2, REPLACEMENT)
    assert caught.value.culprit is None
    verdict = table.audit()
    assert verdict.culprit == 3 and "holds keys its seed does not give" in verdict.reason


def test_a_handed_box_under_another_secret_names_its_sender():
    table = shared_table(cards=CARDS, cheats={1: wrong_hander("garbage")})
    table.open_many_to([0, 1], 2)
    table.lose(2)
    with pytest.raises(CheatDetected) as caught:
        table.replace(2, REPLACEMENT)
    assert caught.value.culprit is None  # the box opens to the replacement: a wrong key inside
    verdict = table.audit()
    assert verdict.culprit == 1 and "carries a box key its seed does not give" in verdict.reason


@settings(max_examples=12)
@given(st.data())
def test_a_rebuilt_deal_gives_every_seat_the_cards_of_the_deal_where_nobody_was_lost(data):
    players = data.draw(st.integers(3, 8), label="players")
    t = data.draw(st.integers(players // 2 + 1, players - 1), label="t")
    lost = data.draw(st.integers(0, players - 1), label="lost")
    before = data.draw(st.integers(0, 2), label="cards before the loss")
    seed = data.draw(st.binary(min_size=1, max_size=4), label="seed")
    tables = [shared_table(players, t, cards=CARDS, seed=seed) for _ in range(2)]
    for table in tables:
        for seat in range(players if before else 0):
            table.open_many_to(range(6 * seat, 6 * seat + before), seat)
    tables[0].lose(lost, REPLACEMENT)
    for table in tables:
        for seat in range(players):
            table.open_many_to(range(6 * seat + before, 6 * seat + 4), seat)
    hands = [[sorted(p.hand().items()) for p in table.participants] for table in tables]
    assert hands[0] == hands[1] and all(len(hand) == 4 for hand in hands[0])
    assert tables[0].audit().clean
