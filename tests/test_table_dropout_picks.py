"""Pick nonces read from the seed, audited by every party, in process over our real classes
(docs/dealing.md, "Picks are decided at the commit"; protocol.md 11.10): with sharing on, a
SHANGHAI penalty's nonces come from the parties' seeds, and a seat that picks with a nonce of
its own choosing (say one it ground against a nonce it learned) is named at the round's audit by
every seat, the host's public table and ``shanghai verify``, from its revealed seed or from its
rebuilt one: silent at its seeds (R2), or lost mid-round (R1) and replaced.  Lost between its
commitment and its nonce (R1), its nonce is rebuilt, checked against its commitment (off it
names the seat at once) and the pick decided over every nonce.  With sharing off a nonce is
drawn (version 9's rule): it is checked against its commitment alone, as it comes."""

from __future__ import annotations

import dataclasses
import random

import pytest

from shanghai_net.bots import make_bot
from shanghai_net.deal import Participant
from shanghai_net.deal.messages import PickReveal
from shanghai_net.deal.picks import seed_nonce
from shanghai_net.engine.moves import CallShanghai
from shanghai_net.table.fault import Fault
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Deal

from dropout_helpers import changing
from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_lost_rebuild import published
from test_table_dropout_silent import parties, seat_playing, shared, silent_at_first_audit
from test_table_roster import vote_gone
from test_table_silence import Muted

CHEAT = 2
WHY = "seat 2: its nonce for pick 1 is not its seed's (of generation 0)"


class Calling(Muted):
    """Seats that play random legal moves and call SHANGHAI whenever they may, so that round 1
    has SHANGHAI penalties early: with seed 1, pick 1 is between seats 1 and 2."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, seed=1, **kwargs)
        self.bots = [make_bot("random", random.Random(seat)) for seat in range(len(self.seats))]

    def move_for(self, seat):
        calls = [m for m in self.seats[seat].legal_moves() if isinstance(m, CallShanghai)]
        return calls[0] if calls else super().move_for(seat)


class DrawsItsNonce(Participant):
    """Picks with nonces of its own (drawn here; a grinder's would be chosen), not its seed's."""

    def _own_nonce(self, pick, state):
        return self._random(32)


DRAWING = seat_playing(DrawsItsNonce)


def calling(t=3, **kwargs):
    return shared(t=t, table=Calling, **kwargs)


def assert_named_by_every_party(t, culprit, why, replaced=False):
    """Every party names ``culprit`` at round 1's audit, the round is void and the game ends
    there with it ranked last, as for any deal cheat; no hidden card opened to it (``replaced``:
    nor to its seat's replacement, which holds the lost hand, and nothing more)."""
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party.verdict is not None and party.verdict.culprit == culprit, party.verdict
        assert why in party.verdict.reason and party.verdict.reason.startswith("round 1 audit")
        assert party.finished and party.left == [] and party.public.results == []
    report = verify([t.host.start_game, *t.stream])
    assert report.fault is not None and report.fault.culprit == culprit, report.summary()
    assert why in report.fault.reason
    penalty = t.host.rules.leave_penalty if replaced else 0  # a lost seat pays as it leaves
    assert report.voided == 1 and report.totals == tuple(penalty * (s == culprit)
                                                         for s in range(len(t.seats)))
    assert report.ranking[-1] == culprit
    assert_no_hidden_card_opened_to(t, culprit)


def penalty_nonces(stream):
    """The nonces of the SHANGHAI penalties in ``stream`` (the rounds after round 0's
    first-dealer pick)."""
    return [m for m in stream if isinstance(m.body, Deal) and m.body.step == "pick_reveal"
            and m.body.data["round"] > 0]


def test_with_sharing_on_the_nonces_are_the_seeds_and_every_party_audits_them_clean():
    t = calling()
    t.run_until(lambda: t.host.finished)
    assert len(penalty_nonces(t.stream)) > 10
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()


def test_a_seat_that_picks_with_nonces_off_its_seed_is_named_by_every_party_and_verify():
    t = calling(kinds={CHEAT: DRAWING})
    t.run_until(lambda: t.host.finished)
    assert_named_by_every_party(t, CHEAT, WHY)


def test_a_seat_silent_at_its_seeds_is_rebuilt_and_its_nonces_off_its_seed_named():
    """R2: seat 2's seeds never reach the host; it is rebuilt from the shares in the others'
    seeds, and its nonces are checked against the rebuilt seed."""
    t = calling(kinds={CHEAT: DRAWING})
    silent_at_first_audit(t, CHEAT)
    assert not [m for m in t.stream if m.author == CHEAT and isinstance(m.body, Deal)
                and m.body.step == "seeds"]
    assert_named_by_every_party(t, CHEAT, WHY)


def test_with_sharing_off_a_drawn_nonce_is_the_rule_and_no_one_is_named():
    t = calling(t=None, kinds={CHEAT: DRAWING})
    t.run_until(lambda: t.host.finished)
    assert CHEAT in {m.author for m in penalty_nonces(t.stream)}
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
    assert verify([t.host.start_game, *t.stream]).ok


@pytest.mark.parametrize("sharing", [None, 3])
def test_a_nonce_off_its_commitment_is_named_as_it_comes_with_sharing_on_or_off(sharing):
    """Version 9's rule, still checked: a SHANGHAI penalty's ``pick_reveal`` whose nonce is not
    the one its author committed to is sequenced by the host as the evidence, and names its
    author at the host, every other seat and ``verify``."""
    other = changing(PickReveal, lambda self, reveal: dataclasses.replace(
        reveal, nonce=bytes(32)) if reveal.context.round > 0 else reveal)
    t = calling(t=sharing, kinds={CHEAT: seat_playing(other)})
    held, plain = [], t.deliver
    t.deliver = lambda msg: held.append(msg) if msg.author == CHEAT and \
        penalty_nonces([msg]) else plain(msg)
    t.run_until(lambda: held)
    msg = t.host.admit(held[0])
    t.stream.append(msg)
    why = f"seat 2: pick nonce {msg.body.data['pick']} does not match its commitment"
    assert (t.host.fault.culprit, t.host.fault.reason) == (CHEAT, why)
    for seat in (0, 1, 3):
        with pytest.raises(Fault) as info:
            t.seats[seat].receive(msg)
        assert info.value.culprit == CHEAT and "does not match its commitment" in \
            info.value.reason
    report = verify([t.host.start_game, *t.stream])
    assert report.fault.culprit == CHEAT and why in report.fault.reason
    assert_no_hidden_card_opened_to(t, CHEAT)


def test_the_honest_nonce_of_the_cheat_s_pick_is_the_seed_s():
    """What the audit compares with: the nonce seat 2's seed gives for pick 1, which an honest
    seat 2 reveals."""
    t = calling()
    t.run_until(lambda: t.host.round == 1 and len(t.host._picks) > 1 and
                CHEAT in t.host._picks[1].nonces)
    g = t.seats[CHEAT].participant.generation(0)
    assert t.host._picks[1].parties == (1, CHEAT)
    assert t.host._picks[1].nonces[CHEAT] == seed_nonce(g.context, CHEAT, 1, g.seed)


def lose_2(t):
    """Seat 2 sends nothing more; the others vote it gone (R1) and publish their shares of it."""
    t.gone.add(CHEAT)
    vote_gone(t, CHEAT, [0, 1, 3])
    published(t)


def revealed_1(t):
    """Round 1's pick 1 (between seats 1 and 2) has seat 2's nonce."""
    return t.host.round == 1 and len(t.host._picks) > 1 and CHEAT in t.host._picks[1].nonces


def test_a_seat_lost_after_its_pick_is_replaced_and_the_round_audited_clean_everywhere():
    """R1 after a SHANGHAI penalty (a card handed from seat to seat), and a reshuffle after
    the replacement sat: the replacement follows the hand-over, the public table seals the new
    generation's boxes for seat 2 to its box key, and nobody is named."""
    t = calling()
    t.run_until(lambda: revealed_1(t))
    lose_2(t)
    t.seat_newcomer(CHEAT)
    seated = len(t.stream)
    t.run_until(lambda: t.host.audited >= 1)
    assert [m for m in t.stream[seated:] if isinstance(m.body, Deal) and m.body.step == "commit"
            and m.body.data["round"] == 1]  # reshuffled in round 1 after the replacement sat
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.lost == [(1, CHEAT)] and party.public.results
    t.run_until(lambda: t.host.finished)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()


def test_a_seat_lost_after_picking_off_its_seed_is_named_from_its_rebuilt_seed():
    """R1: seat 2 revealed a nonce of its own, then was lost; the audit checks it against the
    seed its holders rebuilt (its replacement's seeds carry that seed)."""
    t = calling(kinds={CHEAT: DRAWING})
    t.run_until(lambda: revealed_1(t))
    lose_2(t)
    t.seat_newcomer(CHEAT)
    t.run_until(lambda: t.host.finished)
    for party in parties(t):
        assert party.lost == [(1, CHEAT)]
    assert_named_by_every_party(t, CHEAT, WHY, replaced=True)


def committed_1(t):
    """Round 1's pick 1 has seat 2's commitment and not its nonce yet."""
    return t.host.round == 1 and len(t.host._picks) > 1 and \
        CHEAT in t.host._picks[1].commitments and CHEAT not in t.host._picks[1].nonces


def test_a_seat_lost_between_its_commitment_and_its_nonce_has_its_nonce_rebuilt():
    """R1: seat 2 is lost before its ``pick_reveal``; every party reads its nonce from its
    rebuilt seed and decides the pick over it: the outcome fixed at the commit, the round
    finishes with its replacement and is audited clean."""
    t = calling()
    t.run_until(lambda: committed_1(t))
    g = t.seats[CHEAT].participant.generation(0)
    due = seed_nonce(g.context, CHEAT, 1, g.seed)
    lose_2(t)
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party._picks[1].nonces[CHEAT] == due
    t.seat_newcomer(CHEAT)
    t.run_until(lambda: t.host._picks[1].result is not None)
    assert {party._picks[1].result for party in parties(t)} == {t.host._picks[1].result}
    t.run_until(lambda: t.host.finished)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()


def test_a_seat_lost_after_committing_to_a_nonce_off_its_seed_is_named_at_its_rebuild():
    """R1: seat 2 committed to a nonce of its own and was lost before revealing it: its rebuilt
    nonce does not open its commitment, and every party names it at the share that completes
    the rebuild (as for a rebuilt seed off its digest); no card opened to it."""
    t = calling(kinds={CHEAT: DRAWING})
    t.run_until(lambda: committed_1(t))
    admitted, admit = [], t.host.admit
    t.host.admit = lambda msg: admitted.append(admit(msg)) or admitted[-1]
    with pytest.raises(Fault):
        lose_2(t)
    evidence = admitted[-1]
    assert evidence.body.step == "share_reveal"
    t.stream.append(evidence)  # (the delivery raised before the stream kept it)
    for seat in t.seats:  # the delivery stopped at the first seat that named it
        if seat.fault is None and seat.seat != CHEAT:
            with pytest.raises(Fault):
                seat.receive(evidence)
    why = "seat 2: nonce for pick 1 does not match its commitment"
    for party in [t.host, *(t.seats[s] for s in (0, 1, 3))]:
        assert party.fault is not None and party.fault.culprit == CHEAT, party.fault
        assert why in party.fault.reason
    report = verify([t.host.start_game, *t.stream])
    assert report.fault.culprit == CHEAT and why in report.fault.reason
    assert_no_hidden_card_opened_to(t, CHEAT)
