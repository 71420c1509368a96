"""A cheat in the deal that only its victim can see reaches the whole table: the victim sends a
``complaint``, the round stops and is audited at once, and every seat and the host name the same
culprit, never the victim; a complaint without cause names the complainer.  In process: the
host's `PublicTable` and every seat's `PeerTable` fed one stream (see test_net_table)."""

from __future__ import annotations

import dataclasses

import pytest

from shanghai_net.deal import KeyReveal, KeyShare, Participant, PassOutput
from shanghai_net.deal.group import multiply
from shanghai_net.table.seat import PeerTable
from shanghai_net.wire import messages as wm

from test_net_table import Table

TWO = (2).to_bytes(32, "little")


def seat_running(participant_type):
    """A PeerTable whose deal is made by ``participant_type`` (a cheat)."""

    class Cheating(PeerTable):
        def _participant(self, round_no):
            return participant_type(self.seat, self.roster, self.game_id, round_no,
                                    self._box_key, self._random, self.rules.shuffle_proof)

    return Cheating


def changing(kind, change):
    """A participant that changes its outgoing signed messages of type ``kind``."""
    return type("Cheat", (Participant,), {
        "outgoing": lambda self, m: change(self, m) if isinstance(m, kind) else m})


def marks_every_card(self, output):
    """Pass 1 with every point doubled: the cheater could follow a card it knows (2·C), and
    no card opens for anyone."""
    if output.phase != 1:
        return output
    return dataclasses.replace(output, points=tuple(multiply(TWO, p) for p in output.points))


def wrong_first_key(self, share):
    return dataclasses.replace(share, keys=((12345).to_bytes(32, "little"), *share.keys[1:]))


class GarbageBox(Participant):
    def seal(self, g, share):
        sealed = super().seal(g, share)
        return dataclasses.replace(sealed, ciphertext=bytes(len(sealed.ciphertext)))


def wrong_own_key(self, reveal):
    """The key this seat shows for the card turned up from the stock is not its own."""
    if len(reveal.keys) != 1:
        return reveal
    return dataclasses.replace(reveal, keys=((self.seat, (7).to_bytes(32, "little")),))


CHEATS = {  # the cheat, what the verdict says, whether a victim complains (else it is public:
    # the card turned up from the stock, before any card is dealt, opens to nothing for all)
    "pass 1 marks every card": (changing(PassOutput, marks_every_card),
                                "pass 1 output is not its key times", False),
    "a wrong key in a box": (changing(KeyShare, wrong_first_key),
                             "holds per-card keys that do not match its seed", True),
    "a box that does not open": (GarbageBox, "the box of positions", True),
    "a wrong own key for the upturned card": (changing(KeyReveal, wrong_own_key),
                                              "carries a key for seat", False),
}


def assert_everyone_names(t, culprit, why):
    for party in (t.host, *t.seats):
        assert party.finished and party.fault is None, party.fault
        assert party.verdict is not None and party.verdict.culprit == culprit, party.verdict
        assert why in party.verdict.reason
        assert party.voided == party.round
    host = t.host.public
    if t.host.round == 1:  # the game ends with its first round, voided: no one scored
        assert host.result is not None and host.result.totals == (0,) * t.host.players


def assert_no_hidden_card_opened_to(t, seat):
    """``seat`` learned no card another seat holds hidden: not in its deal, not in its replica."""
    cheater = t.seats[seat]
    known = set(cheater.participant.hand()) | {tok for tok in cheater.game.faces if tok[0] >= 0}
    for other in t.seats:
        if other.seat != seat:
            assert not known & set(other.participant.hand()), f"seat {seat} saw seat " \
                                                               f"{other.seat}'s cards"


@pytest.mark.parametrize("cheat", CHEATS)
def test_a_deal_cheat_is_named_by_every_seat_and_the_host_and_never_the_victim(cheat):
    participant_type, why, complained = CHEATS[cheat]
    culprit = 2
    t = Table(4, seed=11, kinds={culprit: seat_running(participant_type)})
    t.run_until(lambda: t.host.finished)
    assert_everyone_names(t, culprit, why)
    complainers = [s.seat for s in t.seats if s.complaint is not None]
    assert bool(complainers) == complained and culprit not in complainers
    assert_no_hidden_card_opened_to(t, culprit)


def test_a_complaint_without_cause_names_the_complainer():
    t = Table(3, seed=12)
    t.run_until(lambda: t.host.settled and t.host.public.round_no == 1 and t.host.generations)
    liar = 1
    t.boxes[liar].push([wm.Complaint(round=t.seats[liar].round, reason="my card did not open")])
    t.run_until(lambda: t.host.finished, play=False)
    assert_everyone_names(t, liar, "seat 1: complained (my card did not open), but every step")


def test_the_host_refuses_a_second_complaint_and_any_move_while_the_round_is_audited():
    from shanghai_net.engine.moves import DrawStock
    from shanghai_net.table.bodies import move_to_body
    from shanghai_net.wire import RemoteProtocolError

    t = Table(3, seed=13)
    t.run_until(lambda: t.host.settled and t.host.generations)
    complaint = wm.Complaint(round=t.host.round, reason="no")
    t.deliver(t.seats[0].chain.sign(t.ids[0].sign_key, 0, complaint))
    assert t.host.waiting_audit and not t.host.settled
    for body, code in ((complaint, "out_of_turn"), (move_to_body(DrawStock(1)), "out_of_turn")):
        with pytest.raises(RemoteProtocolError) as info:
            t.host.admit(t.seats[1].chain.sign(t.ids[1].sign_key, 1, body))
        assert info.value.code == code


def test_a_seat_timed_out_after_it_claimed_protests_with_its_signed_claim():
    """The host drops a seat's may_i and times the seat out: the seat shows the claim it
    signed, every party checks the signature and records the protest; the game goes on."""
    from shanghai_net.engine.moves import MayI
    from shanghai_net.table.bodies import move_to_body

    t = Table(3, seed=14)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    window, silent = t.host.open_window()
    seat = silent[0]
    claim = t.seats[seat].chain.sign(t.ids[seat].sign_key, seat, move_to_body(MayI(seat)))
    timeout = t.time_out(seat)  # the host never sequenced the claim
    protest = wm.Protest(seq=timeout.seq, reason="I claimed; the host timed me out",
                         claim=claim.to_wire())
    t.deliver(t.seats[seat].chain.sign(t.ids[seat].sign_key, seat, protest))
    for party in (t.host, *t.seats):
        (recorded,) = party.protests
        assert (recorded.seat, recorded.seq, recorded.claim) == (seat, timeout.seq, claim)
        assert party.fault is None and not party.finished


def test_a_protest_of_no_timeout_or_with_a_forged_claim_is_refused():
    from shanghai_net.engine.moves import MayI
    from shanghai_net.table.bodies import move_to_body
    from shanghai_net.wire import RemoteProtocolError

    t = Table(3, seed=15)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    seat = t.host.open_window()[1][0]
    other = (seat + 1) % 3
    forged = t.seats[other].chain.sign(t.ids[other].sign_key, seat, move_to_body(MayI(seat)))
    timeout = t.time_out(seat)
    for body, why in ((wm.Protest(seq=timeout.seq - 1, reason="no"), "no host timeout"),
                      (wm.Protest(seq=timeout.seq, reason="x", claim=forged.to_wire()),
                       "no message it signed")):
        with pytest.raises(RemoteProtocolError, match=why) as info:
            t.host.admit(t.seats[seat].chain.sign(t.ids[seat].sign_key, seat, body))
        assert info.value.code == "bad_message"
    assert not t.host.protests


def test_a_seed_off_its_commitment_at_the_round_s_end_voids_the_scored_round_at_every_party():
    """No complaint: the round is played and scored, then its audit (every seat's and the
    host's) finds seat 1's seed does not match its commitment; the round's score is taken back
    and the game ends there, with seat 1 named everywhere."""
    from shanghai_net.deal import SeedReveal

    t = Table(3, seed=16, kinds={1: seat_running(changing(
        SeedReveal, lambda self, reveal: dataclasses.replace(reveal, seed=bytes(32))))})
    t.run_until(lambda: t.host.finished)
    assert_everyone_names(t, 1, "seat 1: seed does not match commitment")
    assert t.host.public.results == [] and t.host.public.round_no == 2
