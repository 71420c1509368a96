"""Sharing on: a pick's nonces are read from the parties' seeds, so a party lost before its
reveal is rebuilt with its nonce and the pick is decided over every nonce, the same result."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from shanghai_net.deal import CheatDetected, Participant
from shanghai_net.deal.picks import seed_nonce
from dropout_helpers import CARDS, shared_table

REPLACEMENT = X25519PrivateKey.from_private_bytes(bytes(range(32)))


def commit_pick(table, number, n, parties):
    table._record(("pick", number, n, parties))  # the message that begins it: every seat
    table._broadcast(*[table.participants[s].pick_commit(number, n, parties) for s in parties])


def reveal_pick(table, number, parties):
    table._broadcast(*[table.participants[s].pick_reveal(number) for s in parties])


def test_with_sharing_on_a_nonce_is_its_seed_s_and_the_first_dealer_pick_draws_its_own():
    table = shared_table(deal=False)
    first = table.pick(4, [0, 1, 2, 3])
    assert table.participants[0]._picks[0].generation is None and 0 <= first < 4
    table.reshuffle(CARDS)
    assert 0 <= table.pick(1000, [1, 3]) < 1000
    for seat in (1, 3):
        g = table.participants[seat].generation(0)
        assert table.participants[seat]._picks[1].nonce == seed_nonce(g.context, seat, 1, g.seed)
    assert table.audit().clean


def test_a_party_lost_before_its_reveal_is_rebuilt_and_the_pick_decided_the_same():
    tables = [shared_table() for _ in range(2)]
    for table in tables:
        commit_pick(table, 0, 1000, [0, 2, 3])
    reveal_pick(tables[1], 0, [0, 2, 3])
    reveal_pick(tables[0], 0, [0, 3])
    with pytest.raises(ValueError, match="no nonce yet from seats"):
        tables[0].participants[0].pick_result(0)
    tables[0].lose(2)
    assert {p.pick_result(0) for p in tables[0]._live()} == {tables[1].participants[0]
                                                              .pick_result(0)}
    assert tables[0].audit().clean


class DrawsItsNonce(Participant):
    def _own_nonce(self, pick, state):
        return self._random(32)


def test_a_party_that_commits_to_a_nonce_not_its_seed_s_is_named_at_the_audit():
    table = shared_table(cheats={2: DrawsItsNonce})
    assert 0 <= table.pick(1000, [1, 2]) < 1000
    verdict = table.audit()
    assert verdict.culprit == 2 and "its nonce for pick 0 is not its seed's" in verdict.reason


def test_a_party_that_committed_to_a_nonce_not_its_seed_s_is_named_at_its_rebuild():
    table = shared_table(cheats={2: DrawsItsNonce})
    commit_pick(table, 0, 1000, [1, 2])
    with pytest.raises(CheatDetected, match="seat 2: nonce for pick 0 does not match") as caught:
        table.lose(2)
    assert caught.value.culprit == 2


def test_a_replacement_in_a_rebuilt_generation_draws_its_nonce():
    table = shared_table()
    table.lose(2, REPLACEMENT)
    assert 0 <= table.pick(1000, [1, 2]) < 1000
    state = table.participants[2]._picks[0]
    g = table.participants[2].generation(0)
    assert state.public == {2} and state.nonce != seed_nonce(g.context, 2, 0, g.seed)
    assert table.audit().clean


def test_a_pick_s_seed_generation_survives_a_save_and_restore():
    table = shared_table()
    commit_pick(table, 0, 1000, [1, 2])
    before = table.participants[1]._picks[0]
    table.restore(1, table.save(1))
    assert table.participants[1]._picks[0] == before and before.generation == 0
    reveal_pick(table, 0, [1, 2])
    assert table.audit().clean
