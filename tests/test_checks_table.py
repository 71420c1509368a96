"""Checks of the table protocol that no test made fail before docs/checks.md listed them: each
test plays the party that would exploit the missing check, in process (the `Table` harness of
test_net_table), and asserts who is named and that nothing hidden opened."""

from __future__ import annotations

import dataclasses
import random

import pytest

from shanghai_net.bots import make_bot
from shanghai_net.deal import Participant, seeded
from shanghai_net.deal.group import multiply_all
from shanghai_net.deal.messages import Context, PassOutput, PickReveal, SeedReveal
from shanghai_net.engine.moves import CallShanghai, DrawStock, MayI
from shanghai_net.net.peer import Peer
from shanghai_net.table.bodies import deal_body, move_to_body, reveals_body, seeds_body
from shanghai_net.table.fault import Fault
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.watch import EARLY, HostWatch
from shanghai_net.wire import RemoteProtocolError, sign_game
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import PROTOCOL_VERSION, Welcome

from test_net_complaints import assert_everyone_names, assert_no_hidden_card_opened_to, seat_running
from test_net_table import Table


def deliver_one_at_a_time(t, done):
    """Sequence the seats' messages one by one (no moves), until ``done()``."""
    for _ in range(5000):
        if done():
            return
        msg = next((m for m in (box.poll() for box in t.boxes) if m is not None), None)
        assert msg is not None, "stuck: no seat has anything to send"
        t.deliver(msg)
    raise AssertionError("too long")


def sequenced_anyway(t, msg):
    """A lying host sequences ``msg`` without its checks: what each seat's table says."""
    msg = t.host.chain.place(msg)
    faults = []
    for table in t.seats:
        with pytest.raises(Fault) as info:
            table.receive(msg)
        faults.append(info.value)
    return faults


# -- a protest's evidence (table/disputes.py Disputes._evidence_of_claim) -------------------------

EVIDENCE = ["another seat's claim", "a move that is no claim", "a claim signed after the timeout",
            "a claim that names no basis", "a claim signed with another seat's key"]


@pytest.mark.parametrize("evidence", EVIDENCE)
def test_a_protest_whose_claim_is_not_its_own_answer_to_the_window_is_refused_and_named(evidence):
    """A seat the host timed out protests with something other than its own signed claim in the
    window the timeout closed: the host refuses it, and sequenced anyway every seat names the
    protester; no party records it."""
    t = Table(3, seed=14)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    window, silent = t.host.open_window()
    seat = silent[0]
    other = next(s for s in range(3) if s != seat)
    basis = t.host.chain.basis
    author, key, body = seat, t.ids[seat].sign_key, move_to_body(MayI(seat))
    if evidence == "another seat's claim":
        author, key, body = other, t.ids[other].sign_key, move_to_body(MayI(other))
    elif evidence == "a move that is no claim":
        body = move_to_body(DrawStock(seat))
    elif evidence == "a claim that names no basis":
        basis = None
    elif evidence == "a claim signed with another seat's key":  # in the seat's name: forged
        key = t.ids[other].sign_key
    claim = sign_game(key, t.host.chain.start, author, 99, body, basis)
    timeout = t.time_out(seat)
    if evidence == "a claim signed after the timeout":
        claim = sign_game(key, t.host.chain.start, author, 99, body, t.host.chain.basis)
    protest = t.seats[seat].chain.sign(
        t.ids[seat].sign_key, seat, wm.Protest(seq=timeout.seq, reason="x", claim=claim.to_wire()))
    why = "is no message it signed" if "key" in evidence else "is not its answer to the window"
    with pytest.raises(RemoteProtocolError, match=why) as info:
        t.host.admit(protest)
    assert info.value.code == "bad_message"
    for fault in sequenced_anyway(t, protest):
        assert fault.culprit == seat and why in fault.reason
    assert not any(party.protests for party in (t.host, *t.seats))


# -- the watch on the host's timeouts (table/watch.py HostWatch.seen) ----------------------------

class Watched(Table):
    """Every seat watches the host's timeouts; each sequenced message takes a second."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.now = 0.0
        self.watches = [HostWatch(table) for table in self.seats]

    def deliver(self, msg):
        msg = super().deliver(msg)
        self.now += 1.0
        for watch in self.watches:
            watch.seen(self.now)
        return msg


def test_an_early_timeout_in_a_later_claim_window_is_protested_too():
    """The host waits out the agreed time in a seat's first claim window, then times the seat
    out at once in its second: the seat's watch protests (its clock starts again in every
    window, not only the first)."""
    t = Watched(3, seed=14)
    seat, windows = 1, []

    def second_window():
        open_now = t.host.open_window()
        if open_now is not None and seat in open_now[1] and open_now[0] not in windows:
            windows.append(open_now[0])
        return len(windows) == 2

    t.run_until(second_window)
    assert t.now > 2 * t.host.claim_timeout  # the first window opened long before
    timeout = t.time_out(seat)
    protest = t.watches[seat].judge(timeout, None, t.now)
    assert protest is not None, "an early timeout in the seat's second window went unprotested"
    assert "timed out 0.0 s after the claim window opened here" in protest.reason
    t.deliver(t.seats[seat].chain.sign(t.ids[seat].sign_key, seat, protest))
    assert all([(p.seat, p.seq) for p in party.protests] == [(seat, timeout.seq)]
               for party in (t.host, *t.seats))


def test_a_timeout_at_half_the_agreed_time_is_on_time_and_one_a_moment_sooner_is_early():
    """protocol.md 11.4: a timeout sooner than half the agreed claim time after the window
    opened is early; at half it is not (the half is the room left for the network's delays and
    a busy machine, and an honest host at that edge is not to be protested)."""
    t = Watched(3, seed=14)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    opened, seat = t.now, t.host.open_window()[1][0]
    timeout = t.time_out(seat)
    half = EARLY * t.host.claim_timeout
    assert t.watches[seat].judge(timeout, None, opened + half) is None
    early = t.watches[seat].judge(timeout, None, opened + half - 0.1)
    assert early is not None and f"timed out {half - 0.1:.1f} s after" in early.reason


def test_an_early_timeout_of_a_claim_on_its_way_is_protested_with_the_claim_first():
    """An early timeout that took a claim on its way is protested as the claim's: which of the
    two it was depends on when the window opened here (a busy seat's clock), the claim does
    not.  The early wording stays for a timeout with no claim of the seat's on its way."""
    t = Watched(3, seed=14)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    opened, seat = t.now, t.host.open_window()[1][0]
    timeout = t.time_out(seat)
    claim = t.seats[seat].chain.sign(t.ids[seat].sign_key, seat,
                                     wm.PassClaim())
    protest = t.watches[seat].judge(timeout, claim, opened + 0.1)
    assert protest is not None and protest.claim == claim.to_wire()
    assert protest.reason.startswith("timed out while its pass_claim was on its way, 0.1 s")
    early = t.watches[seat].judge(timeout, None, opened + 0.1)
    assert early is not None and early.reason.startswith("timed out 0.1 s after the claim window")


# -- a complaint's audit (table/disputes.py Disputes._accuse) ------------------------------------

def test_a_complaint_before_every_commitment_audits_no_shuffle_and_names_the_complainer():
    """A seat complains of round 1 while the host has sequenced only some seats' commitments to
    its first shuffle: that shuffle is not audited (a seat whose commitment the host holds back
    has nothing to answer for), so the audit clears everyone and names the complainer."""
    t = Table(3, seed=21)

    def commitments_partly_in():
        commits = [s for s in t.host.owed_steps() if s.step == "commit"]
        return t.host.round == 1 and 0 < len(commits) < t.host.players

    deliver_one_at_a_time(t, commitments_partly_in)
    uncommitted = {s.seat for s in t.host.owed_steps()}
    complainer = next(s for s in range(3) if s not in uncommitted)
    t.deliver(t.seats[complainer].chain.sign(
        t.ids[complainer].sign_key, complainer, wm.Complaint(round=1, reason="nothing, really")))
    deliver_one_at_a_time(t, lambda: not t.host.waiting_audit)
    for party in (t.host, *t.seats):
        assert party.verdict is not None, "the audit found the deal clean and named no one"
    assert_everyone_names(t, complainer, "every step of the deal matches its seed")
    for seat in range(3):
        assert_no_hidden_card_opened_to(t, seat)


# -- what each seat owes (table/owed.py Owing._owed_picks) ---------------------------------------

def test_no_pick_nonce_is_owed_before_every_party_s_commitment_is_sequenced():
    """A client that answers the ``owed`` notice reveals what it lists: a nonce listed before
    every party committed would let the last to commit choose the pick (the first dealer)."""
    t = Table(3, seed=22)
    seen = []

    def pick_done():
        steps = t.host.owed_steps()
        committing = {s.pick for s in steps if s.step == "pick_commit"}
        early = [s for s in steps if s.step == "pick_reveal" and s.pick in committing]
        assert not early, f"owed a nonce before every commitment: {early}"
        seen.extend(s.step for s in steps)
        return t.host.round == 1

    deliver_one_at_a_time(t, pick_done)
    assert "pick_commit" in seen and "pick_reveal" in seen


# -- votes, protests and the host's one body (table/disputes.py, table/public.py, stream.py) ------

def test_a_second_vote_of_one_seat_is_refused_and_named_if_the_host_sequences_it():
    """Seat 0 votes twice to void the round: the host refuses the second vote (one seat's two
    votes are not a majority of three); a host that sequences it anyway is named by no one but
    the voter, whom every seat names."""
    t = Table(3, seed=51)
    t.run_until(lambda: t.host.settled and t.host.generations and t.host.public.round_no == 1)
    vote = wm.VoidRound(round=t.host.void_target, seat=2)
    t.deliver(t.seats[0].chain.sign(t.ids[0].sign_key, 0, vote))
    again = t.seats[0].chain.sign(t.ids[0].sign_key, 0, vote)
    with pytest.raises(RemoteProtocolError, match="a second vote") as info:
        t.host.admit(again)
    assert info.value.code == "out_of_turn" and not t.host.finished
    for fault in sequenced_anyway(t, again):
        assert fault.culprit == 0 and "a second vote" in fault.reason


def test_a_second_protest_of_one_timeout_is_refused():
    t = Table(3, seed=52)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    seat = t.host.open_window()[1][0]
    timeout = t.time_out(seat)
    protest = wm.Protest(seq=timeout.seq, reason="too soon")
    t.deliver(t.seats[seat].chain.sign(t.ids[seat].sign_key, seat, protest))
    with pytest.raises(RemoteProtocolError, match="a second protest") as info:
        t.host.admit(t.seats[seat].chain.sign(t.ids[seat].sign_key, seat, protest))
    assert info.value.code == "bad_message" and len(t.host.protests) == 1


def test_only_the_host_signs_a_timeout_and_it_signs_nothing_else():
    """A seat's own `timeout` body is refused (it would pass a rival's claim); a host that signs
    any other body (a move for a seat) is named by every seat."""
    t = Table(3, seed=53)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    seat, rival = t.host.open_window()[1][0], 0
    forged = t.seats[rival].chain.sign(t.ids[rival].sign_key, rival, wm.Timeout(seat=seat))
    with pytest.raises(RemoteProtocolError, match="only the host signs a timeout") as info:
        t.host.admit(forged)
    assert info.value.code == "bad_signature"
    move = t.host.chain.sign(t.host_id.sign_key, wm.HOST_AUTHOR, move_to_body(MayI(seat)))
    for fault in sequenced_anyway(t, move):
        assert fault.culprit == wm.HOST_AUTHOR and "the host signed a may_i body" in fault.reason


# -- what a lying host sequences without its checks (stream.py, deal/participant.py) --------------

def relayed_anyway(t, msg):
    """A lying host places ``msg`` without its checks and relays it: what each party makes of
    it, by party: ``"host"`` (the host's own table, as a spectator's or `verify`'s), then each
    seat; its `Fault`, or None if it took the message."""
    msg = t.host.chain.place(msg)
    outcomes = {}
    for party, table in (("host", t.host), *enumerate(t.seats)):
        try:
            table.receive(msg)
            outcomes[party] = None
        except Fault as fault:
            outcomes[party] = fault
    return outcomes


def refused_then_relayed(t, author, body, refusal):
    """``author`` signs ``body``: the host refuses it (``refusal``), a lying host relays it
    anyway; `relayed_anyway`'s outcomes."""
    msg = t.seats[author].chain.sign(t.ids[author].sign_key, author, body)
    with pytest.raises(RemoteProtocolError, match=refusal):
        t.host.admit(msg)
    return relayed_anyway(t, msg)


def assert_named_by(outcomes, parties, culprit, why):
    """Each of ``parties`` (keys of `relayed_anyway`'s outcomes) named ``culprit`` for ``why``."""
    for party in parties:
        fault = outcomes[party]
        who = "the host's table" if party == "host" else f"seat {party}"
        assert fault is not None, f"{who} took it: {why!r} went unnamed"
        assert fault.culprit == culprit and why in fault.reason, f"{who}: {fault}"


def test_a_seat_that_sends_a_second_seed_commitment_is_named_at_once():
    """Seat 1's seed commitment is sequenced; it sends another, for another seed.  The host
    refuses it; a lying host that sequences it anyway does not carry the table along: every
    other seat names seat 1 for the two commitments (rather than play on in a stream the host's
    own table, and `verify`, reject)."""
    t = Table(3, seed=24)
    cheat = 1
    deliver_one_at_a_time(t, lambda: t.host.round == 1 and 0 in t.host.records
                          and cheat in t.host.records[0].commitments)
    second = wm.Deal("commit", {"round": 1, "generation": 0, "digest": bytes(range(32))})
    named = refused_then_relayed(t, cheat, second, "a second commitment")
    assert_named_by(named, ["host"], cheat, "a second commitment")
    assert_named_by(named, [0, 2], cheat, "seat 1: sent two different seed commitments")


def test_a_seat_that_sends_a_second_pass_is_named_at_once_not_counted_as_the_next_seat_s():
    """Seat 1's pass 1 is sequenced; it sends a second, different one (its points in another
    order).  The host refuses it; sequenced anyway, every party names seat 1 at once, by one
    rule (`StreamTable._check_pass_turn`: a different pass at a turn made already is its
    author's; the same body again is the host's, test_adversary_relay.py).  Taken as a repeat
    instead, it would still be counted: every table one pass ahead of the deal, seat 0 would
    never send its pass 2, and the deal would wait for ever, no one named."""
    t = Table(3, seed=25)
    cheat = 1
    deliver_one_at_a_time(t, lambda: t.host.round == 1 and 0 in t.host.records
                          and len(t.host.records[0].passes) == 2)
    first = t.host.records[0].passes[cheat]
    assert first.author == cheat and first.phase == 1
    second = wm.Deal("pass", {"round": 1, "generation": 0, "phase": 1,
                              "points": list(reversed(first.points)), "proof": first.proof})
    named = refused_then_relayed(t, cheat, second, "pass 1 of seat 1 out of turn")
    assert_named_by(named, ["host", 0, 1, 2], cheat, "pass 1 of seat 1 out of turn")


def test_a_move_sequenced_before_the_deal_settled_names_its_author_at_every_party():
    """The first discard's claim window is open in the public game while key shares of the
    deal are still owed (every seat's own replica still waits for cards).  A lying host
    sequences seat 2's claim then: every party, the host's own table included, names seat 2;
    without the check the host's table (and `verify`) would take the claim while every seat
    stopped naming no one."""
    t = Table(3, seed=5)
    t.run_until(lambda: t.host.outstanding and not t.host.public.waiting, play=False)
    claimer = 2
    assert claimer in t.host.public.to_move() and not t.host.settled
    named = refused_then_relayed(t, claimer, move_to_body(MayI(claimer)), "the deal is not settled")
    assert_named_by(named, ["host", 0, 1, 2], claimer,
                    "seat 2: 'mayi' before the deal settled")
    for seat in range(3):
        assert_no_hidden_card_opened_to(t, seat)


def test_a_deal_step_for_another_round_names_its_author_at_every_party():
    """Round 1's shuffle waits for commitments; seat 1 signs its commitment as round 2's.  The
    host refuses it; sequenced anyway, every party names seat 1, the seat itself and the host's
    own table included (whose public record would otherwise take it as round 1's)."""
    t = Table(3, seed=26)
    cheat = 1
    deliver_one_at_a_time(t, lambda: t.host.round == 1 and 0 in t.host.records)
    assert cheat not in t.host.records[0].commitments
    body = wm.Deal("commit", {"round": 2, "generation": 0, "digest": bytes(range(32))})
    named = refused_then_relayed(t, cheat, body, "round 2: the deal is in round 1")
    assert_named_by(named, ["host", 0, 1, 2], cheat,
                    "seat 1: commit for round 2; the deal is in round 1")


def test_a_deal_step_relayed_after_the_round_stopped_names_the_host_not_its_author():
    """Seat 0 complains while round 1's commitments come in; seat 2's commitment, sent before
    the complaint was sequenced (deal steps commute), reaches the host after it.  The host
    refuses it: only seeds are due.  A host that sequences it anyway is named by every party;
    seat 2, which did nothing wrong, is not."""
    t = Table(3, seed=21)

    def commitments_partly_in():
        commits = [s for s in t.host.owed_steps() if s.step == "commit"]
        return t.host.round == 1 and 0 < len(commits) < t.host.players

    deliver_one_at_a_time(t, commitments_partly_in)
    late = next(s.seat for s in t.host.owed_steps() if s.step == "commit")
    complainer = next(s for s in range(3) if s != late)
    sent = t.boxes[late].poll()
    assert sent.body.step == "commit"
    t.deliver(t.seats[complainer].chain.sign(
        t.ids[complainer].sign_key, complainer, wm.Complaint(round=1, reason="my card")))
    with pytest.raises(RemoteProtocolError, match="the round is stopped for its audit"):
        t.host.admit(sent)
    assert_named_by(relayed_anyway(t, sent), ["host", 0, 1, 2], wm.HOST_AUTHOR,
                    f"the host relayed seat {late}'s commit after the round was stopped")
    for seat in range(3):
        assert_no_hidden_card_opened_to(t, seat)


def test_a_seat_may_not_protest_another_seat_s_timeout_to_pre_empt_its_protest():
    """The host times seat S out; seat R protests that timeout first, with a reason of its own
    (were it taken, S's own protest, with its claim as evidence, would be refused as a second
    protest of one timeout).  The host refuses R's, takes S's; a host that sequences R's anyway
    is named by no one but R, whom every party names."""
    t = Table(3, seed=52)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    victim = t.host.open_window()[1][0]
    rival = next(s for s in range(3) if s != victim)
    timeout = t.time_out(victim)
    pre_empt = wm.Protest(seq=timeout.seq, reason="the host is slow to me")
    rivals = t.seats[rival].chain.sign(t.ids[rival].sign_key, rival, pre_empt)
    with pytest.raises(RemoteProtocolError, match="which is no host timeout of its seat"):
        t.host.admit(rivals)
    t.deliver(t.seats[victim].chain.sign(t.ids[victim].sign_key, victim,
                                         wm.Protest(seq=timeout.seq, reason="too soon")))
    assert all([(p.seat, p.seq) for p in party.protests] == [(victim, timeout.seq)]
               for party in (t.host, *t.seats))
    assert_named_by(relayed_anyway(t, rivals), ["host", 0, 1, 2], rival,
                    f"seat {rival}: protests seq {timeout.seq}, which is no host timeout of its "
                    "seat")


def test_a_pass_before_every_commitment_is_refused_and_named_at_every_party():
    """Seat 0 makes its pass 1 of round 1 (keyed and permuted by its own seed, as honest as
    can be) before every seat has committed to its seed: the seats still to commit would
    commit knowing it.  The host refuses it; sequenced anyway, every party names seat 0."""
    t = Table(3, seed=27)
    hasty = 0
    deliver_one_at_a_time(t, lambda: t.host.round == 1 and 0 in t.host.records
                          and hasty in t.host.records[0].commitments)
    assert len(t.host.records[0].commitments) < 3
    g = t.seats[hasty].participant.generation(0)
    points = multiply_all(g.keys.pass_key, [g.step_input(0)[i] for i in g.keys.permutation])
    early = deal_body(PassOutput(g.context, hasty, 1, tuple(points)))
    named = refused_then_relayed(t, hasty, early, "a pass before every commitment")
    assert_named_by(named, ["host", 0, 1, 2], hasty, "seat 0: a pass before every commitment")


def test_a_seat_s_watch_protests_its_own_early_timeout_only():
    """The host times seat S out the moment a claim window opens.  S's watch protests; every
    other seat's watch, though that window opened for it at the same moment, says nothing (its
    protest of another seat's timeout would be refused, and name it)."""
    t = Watched(3, seed=14)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    victim = t.host.open_window()[1][0]
    timeout = t.time_out(victim)
    assert t.watches[victim].judge(timeout, None, t.now) is not None
    for seat in range(3):
        if seat != victim:
            assert t.watches[seat].judge(timeout, None, t.now) is None, \
                f"seat {seat}'s watch protests seat {victim}'s timeout"


def test_a_seat_catching_up_takes_a_window_and_its_timeout_in_a_burst_and_does_not_protest():
    """The soak's honest host protested: seat S (re)joins -- handed over, or the host resumed --
    and, replaying, takes a claim window's opening and the host's on-time timeout of it in one
    burst (here: at the same moment).  S's watch, behind until it caught up, does not judge
    that window; once caught up, an early timeout in its next window is protested as ever."""
    t = Watched(3, seed=14)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    victim = t.host.open_window()[1][0]
    t.watches[victim] = HostWatch(t.seats[victim])
    t.watches[victim].behind()
    t.watches[victim].seen(t.now)
    timeout = t.time_out(victim)
    assert t.watches[victim].judge(timeout, None, t.now) is None, \
        "a seat protests a window it took in its catch-up burst"
    t.watches[victim].caught_up()
    windows = [t.host.open_window()]

    def next_window():
        open_now = t.host.open_window()
        return open_now is not None and victim in open_now[1] and open_now[0] != windows[0]
    t.run_until(next_window)
    timeout = t.time_out(victim)
    protest = t.watches[victim].judge(timeout, None, t.now)
    assert protest is not None and "timed out 0.0 s after the claim window opened here" in \
        protest.reason, "a caught-up seat no longer protests an early timeout"


class Recorded(Table):
    """The in-process table, keeping the stream as the host sequenced it (a rejoin's replay)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.stream = []

    def deliver(self, msg):
        self.stream.append(super().deliver(msg))
        return self.stream[-1]

    def time_out(self, seat, what="claim"):
        self.stream.append(super().time_out(seat, what))
        return self.stream[-1]


def rejoined_peer(t, seat, seed):
    """Seat ``seat``'s `Peer` (a fresh table from the seat's own randomness in the `Table` of
    ``seed``), to be welcomed back in a running game: what it replays comes through its real
    `_on_message`."""
    peer = Peer(("127.0.0.1", 0), t.ids[seat], auto_ready=False, reconnect=False)
    start = t.host.start_game
    peer.start, peer.seat = start, seat
    table = PeerTable(start, seat, t.ids[seat].box_key, seeded(b"seat %d %d" % (seed, seat)))
    peer._sit(table, table.start())
    return peer


async def test_a_rejoined_seat_does_not_protest_a_window_it_replayed_and_protests_once_live():
    """The soak's honest host protested: a seat that rejoins (or is handed over, or whose host
    resumed) while a claim window is open replays the stream and takes the window's opening and
    the host's timeout of it in one burst.  The seat's real `Peer`, welcomed with the stream
    sequenced past the window's opening, does not protest the timeout that follows; the same
    peer, caught up, protests an early timeout in its next window."""
    t = Recorded(3, seed=14)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    victim = t.host.open_window()[1][0]
    peer = rejoined_peer(t, victim, seed=14)
    peer._watch.caught_up()  # live until its connection dropped: the welcome puts it behind
    await peer._on_message(None, Welcome(version=PROTOCOL_VERSION, seat=victim, table={},
                                         sequenced=len(t.stream)))
    for msg in t.stream:  # the replay, up to where the welcome said the host had sequenced
        await peer._on_message(None, msg)
    other = next(s for s in t.host.open_window()[1] if s != victim)
    t.boxes[other].push(t.seats[other].submit(t.move_for(other)))
    t.deliver(t.boxes[other].poll())  # after the welcome, another seat answers the window
    for msg in [t.stream[-1], t.time_out(victim)]:  # the burst: at once, the timeout on time
        await peer._on_message(None, msg)
    assert not protests_in(peer), "a rejoined seat protests a window it replayed"
    peer._watch.caught_up()  # as its loop does once its inbox runs dry
    fed, first = len(t.stream), t.host.open_window()

    def next_window():
        open_now = t.host.open_window()
        return open_now is not None and victim in open_now[1] and open_now != first
    t.run_until(next_window)
    for msg in [*t.stream[fed:], t.time_out(victim)]:  # the host times the seat out at once
        await peer._on_message(None, msg)
    assert [p.reason for p in protests_in(peer)] == [
        "timed out 0.0 s after the claim window opened here; the table agreed on 10 s"]


def protests_in(peer):
    return [body for body in peer.outbox.deal if isinstance(body, wm.Protest)]


def test_a_pick_nonce_before_every_party_s_commitment_is_refused_and_named_at_every_party():
    """The first-dealer pick: seat S, its commitment sequenced, reveals its nonce before every
    party has committed (a party still to commit could then choose its own nonce, and the
    pick).  The host refuses it; sequenced anyway, every party names S."""
    t = Table(3, seed=28)

    def some_committed():
        owing = [s for s in t.host.owed_steps() if s.step == "pick_commit"]
        return 0 < len(owing) < len(owing[0].parties) if owing else False

    deliver_one_at_a_time(t, some_committed)
    owing = {s.seat for s in t.host.owed_steps() if s.step == "pick_commit"}
    hasty = next(s for s in range(3) if s not in owing)
    nonce = t.seats[hasty].participant._picks[0].nonce  # its own, committed to
    early = deal_body(PickReveal(Context(t.host.game_id, 0, 0), 0, hasty, nonce))
    named = refused_then_relayed(t, hasty, early, "pick nonce 0 out of turn")
    assert_named_by(named, ["host"], hasty, "pick nonce 0 out of turn")
    assert_named_by(named, [s for s in range(3) if s != hasty], hasty,
                    f"seat {hasty}: pick_reveal: pick 0: no commitment yet from seats")


def stop_round_1(t, complainer=0):
    """Play until round 1's deal settled, then ``complainer`` complains: every seat owes its
    seeds of round 1."""
    t.run_until(lambda: t.host.round == 1 and t.host.settled and t.host.generations, play=False)
    t.deliver(t.seats[complainer].chain.sign(
        t.ids[complainer].sign_key, complainer, wm.Complaint(round=1, reason="my card")))
    assert t.host.waiting_audit


def test_a_seeds_body_with_two_seeds_for_one_shuffle_names_its_author_at_every_party():
    """Round 1 stops for its audit; seat 1's seeds body shows two seeds for shuffle 0, its own
    and another.  The host sequences it as evidence, naming seat 1; so does every other seat
    (rather than keep the first and audit on, while the host's table stopped)."""
    t = Table(3, seed=31)
    stop_round_1(t)
    seed = t.seats[1].participant.generation(0).seed
    context = t.seats[1].participant.generation(0).context
    body = seeds_body(1, [SeedReveal(context, 1, seed), SeedReveal(context, 1, bytes(32))])
    msg = t.host.admit(t.seats[1].chain.sign(t.ids[1].sign_key, 1, body))
    assert t.host.fault.culprit == 1 and "two seeds for generation 0" in t.host.fault.reason
    for table in (t.seats[0], t.seats[2]):
        with pytest.raises(Fault) as info:
            table.receive(msg)
        assert info.value.culprit == 1 and "seat 1: revealed two seeds" in info.value.reason


def test_a_seat_that_hides_its_seeds_in_an_empty_seeds_body_is_named_by_the_audit():
    """Round 1 stops for its audit; seat 1 answers with a seeds body that shows no seed at all
    (its seeds would show what it did).  The round is audited when the last seeds come, and the
    host's table and every other seat name seat 1 for the seed it did not reveal (the audit
    does not fail on the missing seed, leaving the table with no verdict)."""
    t = Table(3, seed=32)
    stop_round_1(t)
    hidden = t.seats[1].chain.sign(t.ids[1].sign_key, 1, seeds_body(1, []))
    t.boxes[1].sent_past(hidden)
    t.deliver(hidden)
    t.boxes[1].deal.clear()  # its honest seeds body is not sent
    deliver_one_at_a_time(t, lambda: not t.host.waiting_audit)
    for party in (t.host, t.seats[0], t.seats[2]):  # seat 1's own table knows its seeds
        assert party.fault is None, party.fault
        assert party.verdict is not None and party.verdict.culprit == 1, party.verdict
        assert "seat 1: revealed no seed" in party.verdict.reason


class Callers(Table):
    """Seats that play random legal moves and call SHANGHAI whenever they may (so that a
    SHANGHAI penalty, a pick between the caller and its victim, comes early)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.bots = [make_bot("random", random.Random(seat)) for seat in range(len(self.seats))]

    def move_for(self, seat):
        calls = [m for m in self.seats[seat].legal_moves() if isinstance(m, CallShanghai)]
        return calls[0] if calls else super().move_for(seat)

    def run_one_at_a_time(self, done):
        for _ in range(20000):
            if done():
                return
            self.play()
            msg = next((m for m in (box.poll() for box in self.boxes) if m is not None), None)
            assert msg is not None, "stuck: no seat has anything to send"
            self.deliver(msg)
        raise AssertionError("too long")


def test_a_pick_commitment_that_leaves_out_a_party_is_named_by_the_seat_that_looks_on_too():
    """A SHANGHAI penalty: a pick between the caller and its victim of which of the caller's
    cards the victim gets.  One of the two commits to it as a pick among itself alone (its
    nonce alone would choose the card).  The host sequences it as evidence, naming it; so does
    the other party, and so must the seat that is no party to the pick (it knows the pick from
    the stream, not from the first commitment it sees)."""
    t = Callers(3, seed=1)

    def penalty():
        return any(len(p.parties) == 2 and not p.commitments for p in t.host._picks)

    t.run_one_at_a_time(penalty)
    pick = next(p for p in t.host._picks if len(p.parties) == 2)
    cheat, other = pick.parties
    onlooker = next(s for s in range(3) if s not in pick.parties)
    alone = wm.Deal("pick_commit", {"round": t.host.round, "pick": pick.number,
                                    "n": pick.request.n, "parties": [cheat],
                                    "digest": bytes(range(32))})
    msg = t.host.admit(t.seats[cheat].chain.sign(t.ids[cheat].sign_key, cheat, alone))
    assert t.host.fault.culprit == cheat and "does not fit the pick" in t.host.fault.reason
    for seat in (other, onlooker):
        with pytest.raises(Fault) as info:
            t.seats[seat].receive(msg)
        assert info.value.culprit == cheat and f"pick {pick.number} is range({pick.request.n}) " \
            f"among seats {list(pick.parties)}, not range" in info.value.reason, \
            f"seat {seat}: {info.value}"


# -- the final result of a game whose audit named a seat (table/disputes.py final_result) --------

@pytest.mark.parametrize("totals, winners", [((5, 40, 40, 90), (1, 2)), ((5, 40, 60, 90), (1,))])
def test_a_convicted_leader_is_ranked_last_and_the_best_of_the_others_win(totals, winners):
    """Seat 0 had the best total, and the audit named it: it is ranked last and wins nothing;
    the others keep their order, and every one of them with the best total among them wins
    (two, when two tie)."""
    from types import SimpleNamespace

    from shanghai_net.engine.events import GameResult
    from shanghai_net.table.disputes import final_result

    result = GameResult(totals=totals, ranking=(0, 1, 2, 3), winners=(0,), rounds=())
    table = SimpleNamespace(verdict=Fault(0, "round 3 audit: seat 0 marked a card"))
    ended = final_result(table, SimpleNamespace(result=result))
    assert ended.ranking == (1, 2, 3, 0) and ended.winners == winners
    assert ended.totals == totals



def settled_reveal(seed):
    """A table whose round 1 deal settled, the seat to move, and its honest reveal of a card
    it holds (every seat's key)."""
    t = Table(3, seed=seed)
    t.run_until(lambda: t.host.round == 1 and t.host.settled, play=False)
    seat = t.host.public.turn
    token = next(iter(t.seats[seat].participant.hand()))
    return t, seat, t.seats[seat].participant.reveal(*token)


@pytest.mark.parametrize("case", ["a commitment to no running shuffle", "a reveal of position 999"])
def test_a_deal_step_of_no_running_shuffle_or_no_dealt_position_is_refused_and_named(case):
    """Once round 1's deal settled, the seat to move signs a commitment to a shuffle no one
    runs (generation 5), or a reveal of its own card moved to position 999: the host refuses
    it, saying why; relayed anyway, the host's own table (a spectator's, `verify`'s) names the
    seat for it."""
    t, seat, honest = settled_reveal(29)
    if case == "a commitment to no running shuffle":
        body = wm.Deal("commit", {"round": 1, "generation": 5, "digest": bytes(32)})
        why = "no shuffle of generation 5 is running"
    else:
        body, why = reveals_body(1, [dataclasses.replace(honest, position=999)]), \
            "a reveal of no dealt position"
    assert_named_by(refused_then_relayed(t, seat, body, why), ["host"], seat, why)


def test_a_reveal_of_two_seats_keys_is_sequenced_as_evidence_against_its_author():
    """A reveal holds every seat's key of a card (its holder's) or its author's own: one with
    its own and another seat's is its author's cheat, sequenced so that every party names it."""
    t, seat, honest = settled_reveal(29)
    two = dataclasses.replace(honest, keys=honest.keys[:2])
    msg = t.host.admit(t.seats[seat].chain.sign(t.ids[seat].sign_key, seat,
                                                reveals_body(1, [two])))
    assert (t.host.fault.culprit, t.host.fault.reason) == (
        seat, f"seat {seat}: a reveal holds neither every seat's key nor only its author's own")
    for other in (s for s in range(3) if s != seat):
        with pytest.raises(Fault) as named:
            t.seats[other].receive(msg)
        assert named.value.culprit == seat


# -- a card its holder must show before it opened (table/seat.py PeerTable._try_open) ------------

class LastCardClaimers(Table):
    """Seats that claim the discard (MAY I) whenever the stock is down to two cards or fewer:
    with the pile never turned over (``max_reshuffles=0``), the claim's penalty draws take the
    stock's last card and the round ends stuck at once, so the claimant must show a card
    whose keys are still on their way to it."""

    def move_for(self, seat):
        claims = [m for m in self.seats[seat].legal_moves() if isinstance(m, MayI)]
        if claims and len(self.seats[seat].game.stock) <= 2:
            return claims[0]
        return super().move_for(seat)


class WrongKeySealer(Participant):
    """Seals a wrong key for the cards of ``wrong_for`` (tokens)."""

    wrong_for = frozenset()

    def seal(self, g, share):
        wrong = [i for i, p in enumerate(share.positions)
                 if (g.context.generation, p) in self.wrong_for]
        if wrong:
            keys = list(share.keys)
            keys[wrong[0]] = (12345).to_bytes(32, "little")
            share = dataclasses.replace(share, keys=tuple(keys))
        return super().seal(g, share)


class WrongKeyForACardToShow(seat_running(WrongKeySealer)):
    """A seat that seals a wrong key for a card it shares with its recipient when the table
    must show that card at once: the recipient's card cannot open when it has to show it."""

    def _flush(self):
        self.participant.wrong_for = {(g, p) for (g, _), positions in self._shares.items()
                                      for p in positions if (g, p) in self._publics}
        super()._flush()


def test_a_card_that_does_not_open_when_its_holder_must_show_it_is_complained_of_not_shown():
    """A MAY I claimant's penalty card is the stock's last; the round ends stuck on the next
    draw, so the claimant must show that card before the other seats' keys for it arrive (it
    defers its reveal).  Seat 2 seals it a wrong key: when the keys are in, the card does not
    open, and the claimant complains instead of showing it; the audit names seat 2."""
    cheat = 2
    t = LastCardClaimers(3, seed=9, rules={"decks": 1, "max_reshuffles": 0},
                         kinds={cheat: WrongKeyForACardToShow})
    deferred = {}

    def a_complaint():
        for table in t.seats:
            if table._deferred:
                deferred.setdefault(table.seat, list(table._deferred))
        return any(s.complaint is not None for s in t.seats) or t.host.finished

    t.run_until(a_complaint)
    (victim, tokens), = deferred.items()
    assert victim != cheat
    assert t.seats[victim].complaint is not None and "does not open" in t.seats[victim].complaint
    assert t.seats[victim]._deferred == tokens  # not shown
    t.run_until(lambda: t.host.finished, play=False)
    assert_everyone_names(t, cheat, "holds per-card keys that do not match its seed")
    assert_no_hidden_card_opened_to(t, cheat)
