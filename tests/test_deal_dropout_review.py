"""The review of the dropout-tolerant deal as built (docs/dealing-review.md, "Review of
the code (session 16)"): each test plays an adversary, or the host's timing, with our own
classes and asserts who is named, that it is refused, and that no hidden card opens to a seat
not entitled to it."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from shanghai_net.deal import CheatDetected
from shanghai_net.deal.box import seal
from shanghai_net.deal.handed import handed_box_secret
from shanghai_net.deal.messages import Context, ShareReveal
from shanghai_net.deal.picks import seed_nonce
from dropout_helpers import CARDS, assert_only_holders_open, dealing, shared_table

REPLACEMENT = X25519PrivateKey.from_private_bytes(bytes(range(32)))


def lost_with_shares_from(table, holders, publishers, seat=2):
    """The vote that decides ``seat`` lost is sequenced (``holders`` the holders at it), and
    only ``publishers``' shares of it come: its rebuild waits."""
    table.holders = holders
    table.vacant.add(seat)
    table._record(("lose", seat, holders))
    for holder in publishers:
        table._broadcast(table.participants[holder].share_reveal(seat))


def seated_before_rebuilt(monkeypatch):
    """Five seats, ``t = 3``, two cards dealt to each; seat 2 lost with two of its four shares
    in, and its replacement seated (nobody hands it the hand yet): the table, and seat 2's
    participant before the loss."""
    table = shared_table(players=5, t=3)
    for seat in range(5):
        table.open_many_to([seat, seat + 5], seat)
    before = table.participants[2]
    lost_with_shares_from(table, (0, 1, 3, 4), (0, 1))
    monkeypatch.setattr(table, "_hand_on", lambda seat: None)
    table.replace(2, REPLACEMENT)
    return table, before


def begin_generation(table, seats):
    """The message that asks for a new shuffle is sequenced: every seat starts the generation,
    and only ``seats``' commits are sequenced yet; the others', made, wait (returned)."""
    table.generation += 1
    table._dealt[table.generation] = (tuple(CARDS), table.holders)
    commits = {p.seat: p.start_generation(table.generation, CARDS, holders=table.holders)
               for p in table._live()}
    table._broadcast(*[commits[s] for s in seats])
    return {s: c for s, c in commits.items() if s not in seats}


def test_a_replacement_does_not_open_a_share_sealed_to_its_predecessor_so_no_honest_dealer_is_named():
    """Finding 1.  Seat 2 is lost after its commit and before seat 3's (the host can so time
    it): the generation restarts, the replacement commits afresh, and seat 3's commit, sealed
    as it must be to the holders at the shuffle's due message (seat 2's old player among them),
    is then sequenced.  The replacement holds no share (rule 4) and must not try to open it."""
    table = shared_table(deal=False)
    waiting = begin_generation(table, [0, 1, 2])
    table.lose(2, REPLACEMENT)
    table._broadcast(waiting[3])  # before the fix: CheatDetected naming honest seat 3
    assert not table.complaints
    assert 3 not in table.participants[2].generation(0).sharing.held
    table.passes()
    assert len(table.open_many_to([0, 1], 2)) == 2 and table.open_many_to([2], 3)
    assert_only_holders_open(table)
    assert table.audit().clean


def test_a_lost_seat_s_dropped_commit_replayed_is_refused_and_frames_no_replacement():
    """Finding 2.  The lost seat's commit of a restarted generation is dropped; a host that
    replays it (the seat's old signed message) before the replacement's fresh commit must be
    refused, not taken as the seat's commit (the replacement's would then be 'two different
    seed commitments', naming the seat its replacement plays)."""
    table = shared_table(deal=False)
    table.commit(CARDS)
    old = table.participants[0].generation(0).commitments[2]
    table.lose(2)
    for participant in table._live():
        with pytest.raises(ValueError, match="seat 2 is vacant"):
            participant.receive(old)
    table.replace(2, REPLACEMENT)
    assert table.participants[0].generation(0).commitments[2] != old
    table.passes()
    assert table.audit().clean


def handed_for(table, sender, seat, positions, generation=0):
    """A handed box from ``sender`` for ``positions`` to ``seat``'s replacement, sealed as an
    honest one is."""
    p = table.participants[sender]
    g = p.generation(generation)
    key = p._successors[seat]
    secret = handed_box_secret(g.context, sender, g.seed, seat, key, positions)
    return seal(secret, p._boxes[seat], g.context, sender, seat, positions,
                b"".join(g.keys.card_keys[q] for q in positions))


def test_a_handed_box_for_positions_not_in_the_lost_hand_is_refused_by_every_party():
    """Finding 3.  The design's handing-on table: a box handing the replacement keys of a
    position the lost seat does not hold is refused as a share no one asked for.  Seats 0 and 3
    send the replacement their keys of seat 1's hidden cards (and of the stock); every party,
    the replacement too, refuses them, and no card of seat 1 opens to it."""
    table = shared_table()
    for seat in range(4):
        table.open_many_to([seat, seat + 4], seat)
    table.lose(2)
    replacement = table.replace(2, REPLACEMENT)
    for sender in (0, 3):
        for positions in ((1, 5), (12,), (2, 6, 1)):
            sealed = handed_for(table, sender, 2, positions)
            for participant in table._live():
                if participant.seat != sender:
                    with pytest.raises(ValueError, match="not the hand of seat 2"):
                        participant.record_handed(sealed)
    assert not {1, 5, 12} & set(replacement.handed_positions(0))
    assert_only_holders_open(table)
    assert table.audit().clean


def test_a_second_handed_box_from_one_sender_is_refused():
    """Finding 3, the duplicate: one sender hands a generation's lost hand on once."""
    table = shared_table()
    table.open_many_to([2, 6], 2)
    table.lose(2)
    table.replace(2, REPLACEMENT)
    again = handed_for(table, 0, 2, (2, 6))
    for participant in table._live():
        if participant.seat != 0:
            with pytest.raises(ValueError, match="handed seat 2's hand on already"):
                participant.record_handed(again)


@pytest.mark.parametrize("shares", [None, (5,), ((0,),), ((0, b"x" * 32, 1),), (("0", b"x" * 32),),
                                    b"\x00" * 32])
def test_a_malformed_share_reveal_is_refused_with_a_value_error(shares):
    """Finding 4.  A ``share_reveal`` whose ``shares`` is no list of (generation, 32-byte share)
    pairs is refused (ValueError, nothing changes), as a malformed commit or seeds is, not a
    TypeError out of the receiver."""
    table = shared_table()
    lost_with_shares_from(table, (0, 1, 3), ())
    bad = ShareReveal(Context(b"shanghai-net game", 1, 0), 0, 2, shares)
    for participant in table._live():
        if participant.seat != 0:
            with pytest.raises(ValueError, match="seat 0's shares of seat 2 refused"):
                participant.receive(bad)
            assert participant.owing(2) == [0, 1, 3]


def test_a_pick_not_begun_at_every_seat_is_refused_with_sharing_on():
    """Finding 5.  A pick's nonces come from the latest generation whose commits were all in
    when the pick began: every seat must fix it at the message that begins the pick
    (``expect_pick``), not when it first meets the pick.  A seat meeting a ``pick_commit`` of a
    pick it was not told of refuses it; before, it fixed the generation then, and a reshuffle
    committed in between made it name an honest party at the audit."""
    table = shared_table()
    for participant in table._live():
        participant.expect_pick(0, 1000, [0, 1])
    commit = table.participants[0].pick_commit(0, 1000, [0, 1])
    table.commit(CARDS)  # a reshuffle's commits all sequenced before the pick_commit
    table._broadcast(commit, table.participants[1].pick_commit(0, 1000, [0, 1]))
    table._broadcast(*[table.participants[s].pick_reveal(0) for s in (0, 1)])
    table.passes()
    assert table.participants[2]._picks[0].generation == 0
    assert table.audit().clean
    late = shared_table()
    with pytest.raises(ValueError, match="pick 0 was not begun"):
        late.participants[1].pick_commit(0, 1000, [0, 1])
    late.participants[0].expect_pick(0, 1000, [0, 1])
    early = late.participants[0].pick_commit(0, 1000, [0, 1])
    for participant in late.participants[1:]:
        with pytest.raises(ValueError, match="pick 0 was not begun"):
            participant.receive(early)


def test_a_replacement_seated_before_its_seat_is_rebuilt_draws_its_pick_nonce_and_is_not_named():
    """Finding 6.  Seat 2 is lost and its replacement seated before the shares are all in; a
    pick with the replacement begins; the rebuild then completes.  The seat's seed of the
    generation is public from the rebuild, so the replacement draws its nonce (the rule with sharing off
    for a party whose seed is public): it must not be checked against the rebuilt seed's."""
    table = shared_table(players=5, t=3)
    lost_with_shares_from(table, (0, 1, 3, 4), (0, 1))
    replacement = table.replace(2, REPLACEMENT)
    assert not replacement.rebuilt(2)
    assert 0 <= table.pick(1000, [0, 2]) < 1000
    table._broadcast(table.participants[3].share_reveal(2))  # the rebuild completes
    assert all(p.rebuilt(2) for p in table._live())
    g = table.participants[0].generation(0)
    assert replacement._picks[0].nonce != seed_nonce(g.context, 2, 0, g.seed_of(2))
    assert table.audit().clean


def test_a_rebuild_s_shares_are_each_checked_once(monkeypatch):
    """Point 5 of the brief: R1's published shares are checked as each is sequenced; the
    rebuild at the t-th uses them without checking them again (t multiplications a share).
    What the receiver of the t-th share checks: that share, then the rebuilt seat's sharing
    (one box a holder of its commit), nothing more."""
    import shanghai_net.deal.lost as lost
    import shanghai_net.deal.sharing as sharing
    calls = []

    def counted(commitments, holder, share, fits=sharing.share_fits):
        calls.append(holder)
        return fits(commitments, holder, share)

    table = shared_table()
    lost_with_shares_from(table, (0, 1, 3), (1, 3))
    last = table.participants[0].share_reveal(2)
    monkeypatch.setattr(lost, "share_fits", counted)
    monkeypatch.setattr(sharing, "share_fits", counted)
    table.participants[1].receive(last)
    assert table.participants[1].rebuilt(2)
    assert calls == [0] + [0, 1, 3]  # the share; then the audit of seat 2's three boxes


def test_a_replacement_seated_before_its_seat_is_rebuilt_opens_its_hand_once_it_is(monkeypatch):
    """Finding 7.  The replacement is seated, and handed its hand, before the last share of its
    seat comes: the handed boxes wait, and it opens them when the rebuild gives it the seat's
    own keys (before, they were kept for the audit and never opened: the hand stayed shut)."""
    table, before = seated_before_rebuilt(monkeypatch)
    hand, replacement = before.hand(), table.participants[2]
    for sender in table._live():
        if sender.seat != 2:
            table._record(("handed", sender.hand_to_replacement(0, 2)), skip=sender.seat)
    table._broadcast(table.participants[3].share_reveal(2))
    assert {(0, p): replacement.open(0, p) for p in replacement.handed_positions(0)} == hand
    assert_only_holders_open(table)
    assert table.audit().clean


def test_a_party_lost_in_a_restarted_generation_of_its_pick_is_no_crash_and_draws_again():
    """Finding 8.  A pick begins once a reshuffle's commits are all in and before its passes;
    its party is then lost: that generation restarts (its seed is not rebuilt) while the
    earlier one is.  The rebuild must not read a nonce from a seed nobody has (before: a
    TypeError in every party's rebuild); the party's nonce is simply not rebuilt (sharing off's
    rule for the pick)."""
    table = shared_table()
    table.commit(CARDS)  # generation 1: committed, not passed
    table._record(("pick", 0, 1000, [1, 2]))
    table._broadcast(*[table.participants[s].pick_commit(0, 1000, [1, 2]) for s in (1, 2)])
    assert table.participants[0]._picks[0].generation == 1
    table.lose(2)
    assert all(p.rebuilt(2) for p in table._live())
    assert 2 not in table.participants[0]._picks[0].nonces


def test_a_holder_dealt_two_bad_shares_complains_of_both_and_shows_its_seeds():
    """Finding 9.  Seats 1 and 2 both seal holder 0 a share off their commitments.  Holder 0
    complains of each (its complaint names every bad share it found); its ``seeds`` then carry
    nil for both, which every party accepts, and the audit names a cheating dealer (before: the
    holder kept one complaint, and its ``seeds`` failed with a KeyError: it could not reveal,
    and was shown absent)."""
    table = shared_table(deal=False, cheats={1: dealing(wrong_for=0), 2: dealing(wrong_for=0)})
    with pytest.raises(CheatDetected):
        table.commit(CARDS)
    assert [c.culprit for c in table.complaints] == [1, 2]
    for participant in table._live():
        for dealer in (1, 2):
            participant.record_complaint(0, dealer, 0)
    seeds = table.participants[0].reveal_seeds()
    assert seeds[0].shares == ((1, None), (2, None), (3, table.participants[0].generation(0)
                                                          .sharing.held[3]))
    table._broadcast(*seeds)
    for participant in table.participants[1:]:
        table._broadcast(*participant.reveal_seeds())
    verdict = table.participants[3].audit()
    assert verdict.culprit == 1 and "off its commitments" in verdict.reason


def test_a_round_stopped_before_a_seated_replacement_s_seat_is_rebuilt_audits_it_from_the_seeds(
        monkeypatch):
    """Finding 10.  Seat 2 is lost, its replacement seated, and the round stops (a complaint, or
    its end) before the last share of seat 2 comes.  The replacement has no seed of that
    generation to show: its ``seeds`` leave it out, and every party rebuilds seat 2 from the
    shares in the others' ``seeds`` and audits it (docs/dealing.md, R2's last sentence).
    Before, the replacement revealed a nil seed and was named for it."""
    table, before = seated_before_rebuilt(monkeypatch)
    own, replacement = before.generation(0).seed, table.participants[2]
    assert replacement.reveal_seeds() == []
    verdict = table.audit()
    assert verdict.clean, verdict
    assert {p.generation(0).sharing.rebuilt[2] for p in table._live()} == {own}


def test_a_replacement_s_nonce_in_a_later_generation_is_its_own_seed_s():
    """Finding 6, the other side: in a generation dealt after it was seated the replacement's
    seed is its own, so its nonce is read from it (and a rebuild of it would give it)."""
    table = shared_table(players=5, t=3)
    table.lose(2, REPLACEMENT)
    table.reshuffle(CARDS)
    assert 0 <= table.pick(1000, [1, 2]) < 1000
    state, g = table.participants[0]._picks[0], table.participants[2].generation(1)
    assert state.generation == 1 and state.from_seed(2)
    assert table.participants[2]._picks[0].nonce == seed_nonce(g.context, 2, 0, g.seed)
    assert table.audit().clean
