"""R1's replacement seated mid-round, in process over our real classes (docs/dealing.md, "The
replacement takes the hand from that turn"): seat 2 of a 4-seat table, ``t = 3``, voted gone
after some draws and rebuilt, is taken by a stand-in at the approval that completes the host's
``replace``; every other seat hands it its keys of the lost hand (``shares``, the ``"handed
box"`` derivation), the replacement replays the round's deal and opens exactly that hand, and
the round finishes, not void, audited clean at every party, the host's public table and
``shanghai verify``.  The adversaries, played with our own classes: a seat that never hands its
keys on (a staller, voted gone), a handed box with a position not in the hand, a second one, and
the lost seat's old player, who cannot open the boxes handed to its replacement."""

from __future__ import annotations

import pytest

from shanghai_net.deal.box import unseal
from shanghai_net.deal.participant import Participant
from shanghai_net.engine import RoundVoided, SeatLost
from shanghai_net.table.bodies import parse_deal
from shanghai_net.table.fault import Fault
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.verify import verify
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire.messages import Deal

from test_table_dropout_lost_rebuild import lost, published
from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_silent import parties, seat_playing, shared
from test_table_roster import newcomer, vote_gone


def replaced(kinds=None, hold_handed=()):
    """`lost` (seat 2 voted gone after some draws, ``t = 3``), its holders' shares published,
    then a stand-in proposed, approved and seated mid-round: the table, the lost player's table,
    its hand as its participant opened it, and the handed boxes of the seats ``hold_handed``,
    which the host keeps (to be offered by hand)."""
    t = lost(kinds=kinds)
    published(t)
    old = t.seats[2]
    hand = dict(old.participant.hand())
    held, plain = [], t.deliver
    t.deliver = lambda msg: held.append(msg) if msg.author in hold_handed and \
        handed(msg) else plain(msg)
    t.seat_newcomer(2)
    if hold_handed:
        t.run_until(lambda: len(held) == len(hold_handed), play=False)
    return t, old, hand, held


def handed(msg):
    """The boxes ``msg`` carries to seat 2 (a shares body), if any."""
    if not (isinstance(msg.body, Deal) and msg.body.step == "shares"):
        return []
    return [s for s in parse_deal(msg.body, b"", msg.author).sealed if s.recipient == 2]


def test_a_stand_in_seated_mid_round_holds_exactly_the_lost_hand_and_the_round_stands():
    t, old, hand, _ = replaced()
    round_no, penalty = t.host.round, t.host.rules.leave_penalty
    seated = len(t.stream)
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party.vacant == {} and party.lost == [(round_no, 2)] and party.round == round_no
        assert {s.seat for s in party.owed_steps() if s.step == "shares"} == {0, 1, 3}
        assert not party.settled  # no move before the hand is handed on
    t.run_until(lambda: t.host.settled)
    replacement = t.seats[2]
    assert replacement.participant.hand() == hand  # exactly the lost hand, every card opened
    assert {replacement.game.faces[token] for token in replacement.game.hands[2]} == \
        set(hand.values())
    boxes = [(m.author, s) for m in t.stream[seated:] for s in handed(m)]
    assert sorted(author for author, _ in boxes) == [0, 1, 3]
    for _, sealed in boxes:  # the old player cannot open what was handed to its replacement
        with pytest.raises(ValueError):
            unseal(old._box_key, sealed)
    for seat in (0, 1, 3):  # nobody else learned the hand
        assert not set(hand) & set(t.seats[seat].participant.hand())
    t.run_until(lambda: t.host.audited >= round_no)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert not any(isinstance(e, RoundVoided) for e in party.public.log)
        assert [(e.seat, e.penalty) for e in party.public.log if isinstance(e, SeatLost)] == \
            [(2, penalty)]  # the lost seat paid once; its replacement plays on
    assert all(seat.verdicts[round_no].clean for seat in t.seats)
    assert t.host.rounds_audited == round_no and t.host.public.results[-1].round_no == round_no
    t.run_until(lambda: t.host.finished)
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()
    assert report.voided is None and report.left == ()


class Withholding(PeerTable):
    """Seat 3: approves the replacement, but never hands it its keys of the lost hand."""

    def _seated_own(self, seat, box_key, holders):
        out = len(self._out)
        super()._seated_own(seat, box_key, holders)
        del self._out[out:]


def test_a_seat_that_never_hands_its_keys_on_holds_the_table_up_and_is_voted_gone():
    t, _, _, _ = replaced(kinds={3: Withholding})
    round_no, penalty = t.host.round, t.host.rules.leave_penalty
    t.run_until(lambda: not t.host.owed_steps() or t.host.owed().keys() == {3}, play=False)
    for party in parties(t):
        assert party.owed() == {3: "its keys of seat 2's hand for its replacement"}
        assert party.waiting_for() == {3} and not party.settled
    before = list(t.host.public.scores)
    t.gone.add(3)
    vote_gone(t, 3, [0, 1, 2])  # not rebuildable (2 of its holders left): as without sharing
    for party in parties(t):
        assert party.fault is None, party.fault
        assert party.left == [(round_no, 3)] and party.vacant == {3: round_no}
        voided = [e for e in party.public.log if isinstance(e, RoundVoided)]
        assert [(e.round_no, e.leaver, e.penalty) for e in voided] == [(round_no, 3, penalty)]
    assert t.host.public.scores[3] - before[3] == penalty
    assert [t.host.public.scores[s] - before[s] for s in (0, 1, 2)] == [0, 0, 0]


def held_box(change):
    """Seat 3's participant hands the hand on as ``change(self, generation, seat, positions)``
    says instead (its positions)."""
    class Changed(Participant):
        def hand_to_replacement(self, generation, seat):
            g = self.generation(generation)
            positions = change(self, generation, seat, self.lost_hand(generation, seat))
            from shanghai_net.deal.handed import handed_box_secret
            secret = handed_box_secret(g.context, self.seat, g.seed, seat, self._successors[seat],
                                       positions)
            sealed = self.seal_handed(g, seat, positions, secret)
            g.sharing.handed.append(sealed)
            return sealed
    return seat_playing(Changed)


def offered(t, held, why):
    """The host refuses seat 3's handed box saying ``why``; a lying host sequences it anyway,
    and every seat names seat 3, the replacement opening nothing more of it."""
    (msg,) = held
    with pytest.raises(RemoteProtocolError, match="out_of_turn.*" + why):
        t.host.admit(msg)
    known = dict(t.seats[2].participant.hand())
    said = t.relay(msg)
    for fault in said:
        assert fault is not None and fault.culprit == 3 and why in fault.reason, fault
    assert dict(t.seats[2].participant.hand()) == known


def test_a_handed_box_with_a_position_not_in_the_hand_is_refused_naming_its_sender():
    def stock(self, generation, seat, positions):
        g = self.generation(generation)
        extra = max(p for p in range(g.size) if p not in g.given and p not in g.mine
                    and p not in g.public)
        return tuple(sorted((*positions, extra)))
    t, _, _, held = replaced(kinds={3: held_box(stock)}, hold_handed={3})
    offered(t, held, "not in its hand")
    assert "seat 3: a box handing seat 2's hand of generation 0 on holds positions" in \
        t.seats[0].fault.reason


def test_a_handed_box_short_of_the_hand_is_refused_naming_its_sender():
    t, _, _, held = replaced(kinds={3: held_box(lambda self, g, seat, ps: ps[1:])},
                             hold_handed={3})
    offered(t, held, "not the")


def test_a_second_handed_box_from_one_sender_is_refused_naming_it():
    t, _, _, held = replaced(hold_handed={3})
    (first,) = held
    super(type(t), t).deliver(first)  # the host sequences the first
    again = t.sign(3, t.ids[3].sign_key, first.body)
    with pytest.raises(RemoteProtocolError, match="out_of_turn.*on, a second one"):
        t.host.admit(again)
    said = t.relay(again)
    assert all(f is not None and f.culprit == 3 and "a second one" in f.reason for f in said)


def test_every_party_keeps_one_order_of_boxes_its_own_taken_as_sequenced():
    """Review of the code #12: a seat's own boxes join its generation's boxes when the stream
    sequences them, not when it makes them, so every party holds one order, the host's public
    table's: the order by which a box to a seat replaced mid-round is audited with the
    replacement's box key."""
    t, _, _, _ = replaced()
    round_no = t.host.round
    t.run_until(lambda: t.host.settled)

    def order(boxes):
        return [(b.author, b.recipient, b.positions) for b in boxes]
    public = order(t.host.records[0].boxes)
    assert len({author for author, _, _ in public}) == 4
    for seat in t.seats:
        assert order(seat.participant.generation(0).boxes) == public, seat.seat
    t.run_until(lambda: t.host.audited >= round_no)
    assert all(seat.verdicts[round_no].clean for seat in t.seats)


def test_a_seat_lost_before_any_pass_is_restarted_and_its_replacement_commits_afresh():
    """Seat 0, lost once every commit of the round's shuffle is in and before its pass 1: the
    generation is restarted, not rebuilt (its commit dropped, no share published); the
    stand-in seated mid-round commits afresh to the holders at its seating, the shuffle goes
    on with its seed, and the round is audited clean everywhere."""
    t = shared(4, 3)
    t.run_until(lambda: t.host.round == 1 and t.host._all_committed(0))
    assert not t.host._passes.get(0)
    round_no, old, who = t.host.round, t.seats[0], newcomer(0)
    t.gone.add(0)
    vote_gone(t, 0, [1, 2, 3])
    for party in parties(t):
        assert party.lost == [(round_no, 0)] and party.rebuilds[0].owing() == []
        assert party.rebuilt_lost() == {0} and 0 not in party._commits[0]
    t.follow(0, who, yields=True)
    t.propose(0, who)
    t.run_until(lambda: t.seats[0] is not old, play=False)  # the lost seat's old table is
    t.gone.discard(0)  # muted until its replacement holds the seat (the host refuses it)
    t.run_until(lambda: t.host.shuffled(0), play=False)
    (fresh,) = [m for m in t.stream if m.author == 0 and isinstance(m.body, Deal)
                and m.body.step == "commit" and m.seq > t.host.chain.next_seq - 60
                and m.body.data["digest"] != old.participant.generation(0).commitments[0].digest]
    assert [box["to"] for box in fresh.body.data["shares"]] == [1, 2, 3]
    assert not [m for m in t.stream if isinstance(m.body, Deal) and m.body.step == "share_reveal"]
    t.run_until(lambda: t.host.audited >= round_no)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
    assert all(seat.verdicts[round_no].clean for seat in t.seats)
    assert_no_hidden_card_opened_to(t, 0)
