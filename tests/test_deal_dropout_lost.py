"""Sharing on, R1: a seat lost mid-round is rebuilt from its holders' published shares, checked at
once, and the round goes on: every party makes its passes and takes its keys from its seed."""

from __future__ import annotations

import dataclasses

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from shanghai_net.deal import CheatDetected, PassOutput, seeded
from shanghai_net.deal.lost import NotRebuildable
from shanghai_net.deal.messages import Context, ShareReveal
from shanghai_net.deal.sharing import rebuild, seed_scalar
from dropout_helpers import CARDS, assert_only_holders_open, changing, dealing, shared_table

TWO = (2).to_bytes(32, "little")


def rebuilt_everywhere(table, seat, generation=0):
    seed = {p.generation(generation).sharing.rebuilt.get(seat) for p in table._live()}
    assert len(seed) == 1 and None not in seed
    return seed.pop()


def test_a_seat_lost_after_draws_is_rebuilt_and_the_deal_goes_on_without_it():
    table = shared_table()
    hands = {seat: table.open_many_to([seat, seat + 4], seat) for seat in range(4)}
    own = table.participants[2].generation(0).seed
    table.lose(2)
    assert rebuilt_everywhere(table, 2) == own
    assert all(p.rebuilt(2) for p in table._live())
    assert table.open_many_to([8, 9], 0) and table.open_many_to([10], 3)  # 2's keys: its seed
    assert table.open_public(12)
    assert table.participants[1].hand() == {(0, p): c for p, c in zip([1, 5], hands[1])}
    assert table.audit().clean


@pytest.mark.parametrize("steps, lost", [(1, 1), (2, 1), (5, 1), (6, 3), (3, 0)])
def test_a_seat_lost_between_passes_is_rebuilt_and_its_passes_made_by_every_party(steps, lost):
    table = shared_table(deal=False)
    table.commit(CARDS)
    table.passes(steps)
    table.lose(lost)
    table.passes()
    assert len({p.final_deck(0) for p in table._live()}) == 1
    cards = [table.open_to(p, p % 4) for p in range(12) if p % 4 != lost]
    assert len(set(cards)) == len(cards) and table.audit().clean


def test_a_generation_whose_passes_had_not_begun_is_restarted_with_the_replacement_s_seed():
    table = shared_table(deal=False)
    table.commit(CARDS)
    before = table.participants[2].generation(0).commitments[2]
    assert table.lose(2) is None and 2 not in table.participants[0].generation(0).commitments
    replacement = table.replace(2, X25519PrivateKey.from_private_bytes(bytes(range(32))))
    after = table.participants[0].generation(0).commitments[2]
    assert after != before and [h for h, _, _ in after.shares] == [0, 1, 3]
    assert not table.participants[0].generation(0).sharing.rebuilt
    table.passes()
    assert replacement.hand() == {} and len(table.open_many_to([0, 1, 2], 2)) == 3
    assert table.audit().clean


def publishing(change):
    return changing(ShareReveal, lambda self, reveal: dataclasses.replace(
        reveal, shares=tuple((n, change(y)) for n, y in reveal.shares)))


def test_a_wrong_published_share_names_its_author():
    plus_one = publishing(lambda y: (int.from_bytes(y, "little") + 1).to_bytes(32, "little"))
    table = shared_table(cheats={3: plus_one})
    table.open_many_to([0, 1], 2)
    with pytest.raises(CheatDetected, match="seat 3: published a share of seat 2's seed for "
                                            "generation 0 that is off its commitments") as caught:
        table.lose(2)
    assert caught.value.culprit == 3
    assert not table.participants[0].generation(0).sharing.rebuilt
    assert_only_holders_open(table)


def test_a_rebuilt_seed_off_its_commitment_names_the_dealer():
    table = shared_table(cheats={2: dealing(secret=lambda self, g: seed_scalar(seeded(b"x")))})
    with pytest.raises(CheatDetected, match="generation 0: seat 2: its seed of generation 0 is "
                                            "not a canonical nonzero scalar on its commitment"):
        table.lose(2)
    assert not table.participants[0].generation(0).sharing.rebuilt
    assert_only_holders_open(table)


def test_a_past_step_off_the_rebuilt_seed_names_the_seat_at_once():
    def mark(self, message):
        points = list(message.points)
        points[5], points[6] = points[6], points[5]
        return dataclasses.replace(message, points=tuple(points))
    table = shared_table(cheats={2: changing(PassOutput, mark)})
    with pytest.raises(CheatDetected, match="seat 2: pass 1 output is not its key") as caught:
        table.lose(2)
    assert caught.value.culprit == 2


def test_a_sharing_off_the_seed_names_the_dealer_at_its_rebuild():
    table = shared_table(cheats={2: dealing(coefficients=seeded(b"not the seed's stream"))})
    with pytest.raises(CheatDetected, match="seat 2: its share commitments of generation 0 are"):
        table.lose(2)


def test_a_withheld_share_is_survived_below_the_largest_threshold():
    table = shared_table(players=5, t=3)
    table.lose(2, silent={4})
    assert rebuilt_everywhere(table, 2) and table.open_many_to([0, 1], 4) and table.audit().clean


def test_below_t_shares_the_seat_is_not_rebuilt_and_nothing_is_learned():
    table = shared_table()
    table.open_many_to([0, 1], 2)
    with pytest.raises(NotRebuildable, match="2 shares of its generation 0 can come, 3 needed"):
        table.lose(2, silent={1})
    assert all(not p.generation(0).sharing.rebuilt for p in table.participants)
    assert_only_holders_open(table)


def test_a_seat_with_fewer_than_t_holders_left_is_not_rebuildable():
    table = shared_table(players=5, t=3, holders=(0, 1, 2, 4))
    with pytest.raises(NotRebuildable, match="seat 2 is not rebuildable: 2 holders of its gen"):
        table.participants[0].lose(2, (0, 1))


def test_shares_of_a_live_seat_are_refused_and_t_minus_1_of_them_rebuild_nothing():
    table = shared_table()
    shares = {h: table.participants[h].generation(0).sharing.held[2] for h in (0, 1)}
    reveal = ShareReveal(Context(b"shanghai-net game", 1, 0), 1, 2, ((0, shares[1]),))
    with pytest.raises(ValueError, match="seat 1's shares of seat 2 refused: no loss of seat 2"):
        table.participants[3].receive(reveal)
    with pytest.raises(ValueError, match="seat 0 owes no shares|no loss of seat 2"):
        table.participants[0].share_reveal(2)
    g = table.participants[0].generation(0)
    commit = g.commitments[2]
    with pytest.raises(ValueError, match="2 shares of seat 2's seed for generation 0, 3 needed"):
        rebuild(g.context, 2, 3, commit.feldman, commit.digest, shares)  # t-1 points: nothing
    assert not g.sharing.rebuilt
    assert_only_holders_open(table)


def test_a_second_or_a_malformed_share_reveal_is_refused():
    table = shared_table(players=5, t=3)
    table.lose(2)
    reveal = table.participants[0].generation(0).sharing.published[2]
    again = ShareReveal(Context(b"shanghai-net game", 1, 0), 0, 2, ((0, reveal[0]),))
    with pytest.raises(ValueError, match="it owes none, or sent them, or was timed out"):
        table.participants[1].receive(again)
    table = shared_table(players=5, t=3, deal=False)
    table.commit(CARDS)
    table.passes(1)
    table.participants[0].lose(2, (0, 1, 3, 4))
    share = table.participants[1].generation(0).sharing.held[2]
    for shares in [((1, share),), ((0, share[:31]),), ((0, share), (1, share))]:
        with pytest.raises(ValueError, match="not one 32-byte share for each of generations"):
            table.participants[0].receive(ShareReveal(Context(b"shanghai-net game", 1, 0), 1,
                                                      2, shares))


def test_a_seat_restored_mid_rebuild_finishes_it():
    table = shared_table(players=5, t=3)
    table.open_many_to([0, 1], 2)
    for participant in table._live():
        participant.lose(2, (0, 1, 3, 4))
    table.vacant.add(2)
    table._broadcast(table.participants[0].share_reveal(2))
    table.restore(4, table.save(4))
    restored = table.participants[4]
    assert restored.owing(2) == [1, 3, 4] and not restored.rebuilt(2)
    table._broadcast(table.participants[1].share_reveal(2), table.participants[3].share_reveal(2))
    assert restored.rebuilt(2) and table.open_many_to([5], 4) and table.audit().clean


def test_a_lost_seat_still_vacant_at_the_round_s_end_shows_its_cards_from_its_seed():
    table = shared_table()
    hand = dict(zip([0, 4], table.open_many_to([0, 4], 2)))
    table.lose(2)
    assert {p: table.open_public(p) for p in (0, 4)} == hand
    assert table.audit().clean
    table = shared_table()
    table.open_many_to([0], 2)
    with pytest.raises(ValueError, match="is held by a player: only its holder reveals it"):
        table.participants[0].reveal_own_key(0, 0)
