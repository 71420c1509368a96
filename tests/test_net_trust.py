"""The trust pass (issue 21), each adversary played over real sockets with our own classes: what
every honest seat, the host and `verify` conclude, and that no hidden card opened.

A message that never arrived proves nothing about its author (the host relays everything and
may have dropped it): a seat whose seeds do not come is named as absent, never ranked last for
it, and the round is audited with the seeds that did come.  A vote may not pre-empt an audit
that has begun, nor take back another round's score."""

from __future__ import annotations

import trio

from shanghai_net.deal import CheatDetected
from shanghai_net.net.host import Host
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.verify import verify
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal, GameMessage

from seating import kept_in, start_seated, until
from test_net_cheats import assert_no_hidden_card_opened_to
from test_net_game import play

TWO_ROUNDS = {"contracts": [[2, 0], [2, 0]]}


def acting(seat: int, when, act):
    """A PeerTable that, at the seat the host gave it being ``seat``, once ``when(table)``,
    does ``act(table)`` (a body to send) once: an adversary keyed by its seat, not start order."""

    class Adversary(PeerTable):
        acted = False

        def receive(self, msg: GameMessage, own: bool = False):
            out = super().receive(msg, own)
            if self.seat == seat and not self.acted and when(self):
                self.acted = True
                out = [*out, act(self)]
            return out

    return Adversary


def complains_in(round_no: int):
    """When the deal of ``round_no`` has begun: a complaint without cause."""
    return (lambda t: t.round == round_no and t.generations and t.settled,
            lambda t: wm.Complaint(round=t.round, reason="my card did not open"))


async def test_a_vote_during_a_complaint_s_audit_is_refused_and_touches_no_other_round(tmp_path):
    """Round 2: seat 1 complains without cause, then seats 0 and 2, a majority, vote to void
    the round while its audit runs.  The host refuses the votes (its sequencer goes on), the
    audit names seat 1, only round 2 is void: round 1's score stands at every party and in
    `verify`."""
    record = tmp_path / "game.bin"
    when_complaint, complaint = complains_in(2)

    class ComplainsThenVotes(PeerTable):
        acted: set = set()

        def receive(self, msg, own=False):
            out = super().receive(msg, own)
            if self.seat == 1 and "complaint" not in self.acted and when_complaint(self):
                self.acted = self.acted | {"complaint"}
                out = [*out, complaint(self)]
            if self.seat != 1 and "vote" not in self.acted and self.accusation is not None \
                    and self.waiting_audit:
                self.acted = self.acted | {"vote"}
                out = [wm.VoidRound(round=self.round, seat=1), *out]  # before its own seeds
            return out

    tables_by_seat = {i: ComplainsThenVotes for i in range(3)}
    with trio.fail_after(120):
        host, tables, results = await play(3, record=record, rules=TWO_ROUNDS,
                                           tables_by_seat=tables_by_seat)
    public = host.public
    assert public.fault is None and public.finished
    round_1 = public.public.results[0]
    assert len(public.public.results) == 1 and any(round_1.points), "round 1 kept its score"
    for party in (public, *tables.values()):
        assert party.verdict is not None and party.verdict.culprit == 1, party.verdict
        assert "complained (my card did not open), but every step" in party.verdict.reason
        assert party.voided == 2 and party.public.results == [round_1]
    for voter in (r for r in results.values() if r.table.seat != 1):
        refused = [e for e in voter.errors if e.code == "out_of_turn" and "audit" in e.reason]
        assert refused, voter.errors
    report = verify(read_transcript(record))
    assert report.fault.culprit == 1 and report.voided == 2 and report.ranking[-1] == 1
    assert report.totals == public.public.result.totals and any(report.totals)


class DropsSeeds(Host):
    """Never sequences seat 2's first seeds (it says nothing: the seat only sees them not
    come)."""

    dropped = False

    async def _on_message(self, client, msg):
        if isinstance(msg, GameMessage) and msg.author == 2 and isinstance(msg.body, Deal) \
                and msg.body.step == "seeds" and not self.dropped:
            self.dropped = True
            return
        await super()._on_message(client, msg)


async def test_a_complaint_and_a_dropped_seeds_message_frame_no_one(tmp_path):
    """Seat 1 complains without cause and the host drops seat 2's seeds: the seeds timeout
    names seat 2 absent (seat 2, or the host), the round is audited with the seeds that came
    and cannot be decided, so no one is named a cheat or ranked last for it; seat 2 pays as a
    seat that left (the host could make any seat look gone), and protests with the seeds it
    signed, which every party and `verify` show; the game goes on and finishes."""
    record = tmp_path / "game.bin"
    when, complaint = complains_in(1)
    with trio.fail_after(180):
        host, tables, _ = await play(3, record=record, host_type=DropsSeeds, audit_timeout=5.0,
                                     rules=TWO_ROUNDS, tables_by_seat={
                                         i: acting(1, when, complaint) for i in range(3)})
    public = host.public
    assert public.fault is None and public.finished and public.verdict is None
    assert public.left == [(1, 2)] and public.silent == {(1, 2)} and not public.unpaid
    (protest,) = public.protests
    assert protest.seat == 2 and protest.claim is not None and protest.claim.body.step == "seeds"
    result = public.public.result
    assert result.totals[2] == sum(r.points[2] for r in result.rounds) + public.rules.leave_penalty
    report = verify(read_transcript(record))
    assert report.ok and report.fault is None and report.totals == result.totals, report.summary()
    assert "round 1 voided: seat 2's seeds never arrived (seat 2, or the host that relays it), " \
        "so bot2 left it" in report.summary()
    assert "bot2 protests the host's timeout" in report.summary()
    assert_no_hidden_card_opened_to(tables, 1)


async def seat_three(tmp_path, host, tables_by_seat, refusals_expected=("stale",),
                     **peer_options):
    """Host ``host`` and three bot peers, peer ``i`` seated at ``i`` and running the
    PeerTable class ``tables_by_seat(i)``; play until the host is done, failing at once
    if the host refuses a message with a code not in ``refusals_expected``.  The peers'
    tables by seat, and what each run ended with (its result, or the PeerError that stopped
    it)."""
    import random

    from shanghai_net.deal import seeded
    from shanghai_net.identity import Identity
    from shanghai_net.net.peer import Peer
    from shanghai_net.net.player import BotPlayer

    rnd = seeded(b"trust seats")
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    tables, ends = {}, {}
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)

        for i in range(3):  # each started once the one before is seated: it takes seat i
            seat_type = type("TrustPeer", (Peer,), {"table_type": tables_by_seat(i)})
            peer = seat_type(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                             BotPlayer("basic", random.Random(i)), name=f"bot{i}",
                             random=seeded(b"trust %d" % i), timeout=20, reconnect=False,
                             on_table=lambda t: tables.__setitem__(t.seat, t), **peer_options)
            await start_seated(nursery, peer, i, kept_in(ends, i, peer))
        heard, since = -1, trio.current_time()
        while not host.done.is_set():  # a refusal where evidence was due fails at once, not
            refused = [e for c in host.clients for e in c.errors_sent  # by the test's timeout
                       if e.code not in refusals_expected]
            assert not refused, f"the host refused: {refused}"
            if len(host.history) != heard:
                heard, since = len(host.history), trio.current_time()
            assert trio.current_time() - since < HUNG, f"the table hung after seq {heard - 1}"
            await trio.sleep(0.05)
    return tables, ends


HUNG = 30.0
"""Seconds with nothing sequenced, in a game the test expects to end: the table hangs."""


async def test_a_pass_that_repeats_a_point_is_sequenced_as_evidence_and_names_its_author(
        tmp_path):
    """Seat 1's pass 1 duplicates a point (two positions would open to one card).  Its own
    signature is the evidence: the host sequences it instead of refusing it (which left the
    round stalled, voided with no one named), and the host, every seat and `verify` name
    seat 1; no card was dealt."""
    import dataclasses

    from shanghai_net.deal import PassOutput
    from shanghai_net.net.host import HostConfig
    from test_net_complaints import changing, seat_running

    def repeats(self, output):
        return dataclasses.replace(output, points=(output.points[1], *output.points[1:]))

    cheat = seat_running(changing(PassOutput, repeats))

    class RepeatsAtSeatOne(cheat):
        def _participant(self, round_no):
            return (super()._participant if self.seat == 1 else
                    PeerTable._participant.__get__(self))(round_no)

    from shanghai_net.deal import seeded

    record = tmp_path / "game.bin"
    host = Host(HostConfig(players=3, record=record, random=seeded(b"repeats")))
    with trio.fail_after(60):
        tables, ends = await seat_three(tmp_path, host, lambda i: RepeatsAtSeatOne)
    why = "seat 1: pass 1 output repeats a point"
    assert host.public.fault.culprit == 1 and why in host.public.fault.reason
    for seat, table in tables.items():  # the honest seats (the cheat's own made it)
        if seat != 1:
            assert table.fault is not None and table.fault.culprit == 1, (seat, table.fault)
            assert "seat 1: pass 1 output repeats a point" in table.fault.reason
            assert isinstance(ends[seat], Exception) and "seat 1" in str(ends[seat])
    report = verify(read_transcript(record))
    assert report.fault.culprit == 1 and why in report.fault.reason
    assert all(not table.game.faces or all(tok[0] < 0 for tok in table.game.faces)
               for table in tables.values()), "a card opened"


async def test_a_protest_showing_a_claim_of_an_earlier_window_is_refused(tmp_path):
    """Seat 1 claims in a window (sequenced), stays silent in later ones, and protests the
    host's timeout there showing that old claim, as if the host had kept it from the table.
    The claim answers another window: the host refuses the protest, and no party, nor
    `verify`, records that the host "did not sequence" a claim it sequenced long ago."""
    import random

    from shanghai_net.engine.moves import MayI, PassClaim
    from shanghai_net.net.player import BotPlayer

    class KeepsItsOldClaim(PeerTable):
        old_claim = None

        def receive(self, msg, own=False):
            out = super().receive(msg, own)
            body = msg.body
            if self.seat == 1 and msg.author == 1 and self.old_claim is None and \
                    isinstance(body, (wm.MayI, wm.PassClaim)):
                self.old_claim = msg
            elif self.seat == 1 and self.old_claim is not None and \
                    isinstance(body, wm.Timeout) and body.seat == 1 and body.what == "claim":
                out = [*out, wm.Protest(seq=msg.seq, reason="the host kept my claim",
                                        claim=self.old_claim.to_wire())]
            return out

    class SilentOnceItClaimed(BotPlayer):
        def choose(self, table):
            moves = table.legal_moves()
            if table.seat == 1 and table.old_claim is not None and moves and \
                    all(isinstance(m, (MayI, PassClaim)) for m in moves):
                return None
            return super().choose(table)

    record = tmp_path / "game.bin"
    players = {i: SilentOnceItClaimed("basic", random.Random(i)) for i in range(3)}
    refused, recorded = [], []

    def watch(host, tables):  # what the host answered seat 1's protest, as the game goes on
        refused.extend(e for c in host.clients if c.seat == 1 for e in c.errors_sent
                       if e.code == "bad_message" and e not in refused)
        recorded.extend(p for p in host.public.protests if p.seat == 1 and p not in recorded)

    with trio.fail_after(120):
        host, tables, _ = await play(
            3, record=record, rounds=1, claim_timeout=1.0, player=players, watch=watch,
            tables_by_seat={i: KeepsItsOldClaim for i in range(3)},
            until=lambda: refused or recorded)
    assert tables[1].old_claim is not None
    assert not recorded, recorded
    assert refused and "is not its answer to the window" in refused[0].reason, refused
    for party in (host.public, *tables.values()):
        assert not [p for p in party.protests if p.seat == 1], party.protests
    report = verify(read_transcript(record))
    assert not [p for p in report.protests if p.seat == 1]


async def test_a_start_whose_claim_timeout_is_not_the_one_shown_or_too_short_is_refused(
        tmp_path, monkeypatch):
    """The host shows 10 s in its welcome (what the console counts down) and fixes 0.7 s in
    ``start_game`` (what its timer runs by), or 1 ms: every seat refuses the game naming the
    host, before any step of it is sequenced."""
    from shanghai_net.deal import seeded
    from shanghai_net.net import lobby as lobby_module
    from shanghai_net.net.host import HostConfig
    from shanghai_net.wire.messages import StartGame
    from test_net_fresh import play_until

    for forged, why in ((0.7, "claim timeout of 0.7 s is not the 10 s its welcome showed"),
                        (0.001, "under the protocol's minimum of 0.1 s")):
        monkeypatch.setattr(lobby_module, "StartGame",
                            lambda **fields: StartGame(**{**fields, "claim_timeout": forged}))
        host = Host(HostConfig(players=3, claim_timeout=10.0, random=seeded(b"timeouts")))
        with trio.fail_after(60):
            outcomes, _ = await play_until(host, tmp_path / str(forged), lambda host, ends:
                                           len(ends) == 3 or host.history.messages)
        assert len(outcomes) == 3 and all(
            "refusing the game" in str(o) and why in str(o) for o in outcomes.values()), outcomes
        assert host.history.messages == [], "a step of the game was sequenced"


class StaleThenTimeout(Host):
    """Answers seat 1's first ``REFUSED`` claims ``stale``, naming the seq the timeout of it
    will take, and times claim windows out at 0.6 of the agreed time: later than the watch
    calls early, and with no claim of seat 1's left on its way."""

    REFUSED = 3

    def _begin(self, start):
        super()._begin(start)
        sequencer = self.sequencer
        sequencer.public.claim_timeout = 0.6 * start.claim_timeout  # its own clock
        sequence = sequencer._sequence
        self.refused = 0

        async def sequence_or_stale(client, msg):
            if client.seat == 1 and isinstance(msg.body, (wm.MayI, wm.PassClaim)) \
                    and self.refused < self.REFUSED:
                self.refused += 1
                from shanghai_net.wire import RemoteProtocolError
                client.error(RemoteProtocolError("stale", "the game moved on",
                                                 sequencer.public.chain.next_seq, msg.counter))
                return
            await sequence(client, msg)

        sequencer._sequence = sequence_or_stale


async def test_a_claim_answered_stale_then_timed_out_before_the_agreed_time_is_protested(
        tmp_path):
    """The host keeps seat 1 from claiming: each of its first claims is refused ``stale``
    naming the coming timeout, and the timeout comes at 0.6 of the agreed time.  The claim was
    in the host's hands: seat 1 protests each such timeout with the claim it signed, every
    party records it, and `verify` lists it; the game goes on."""
    record = tmp_path / "game.bin"
    with trio.fail_after(120):
        host, tables, _ = await play(3, record=record, rounds=1, claim_timeout=2.0,
                                     host_type=StaleThenTimeout)
    protests = [p for p in host.public.protests if p.seat == 1]
    assert host.refused == StaleThenTimeout.REFUSED
    assert protests, "seat 1 never protested"
    assert all(p.claim is not None and "was on its way" in p.reason for p in protests), protests
    for table in tables.values():
        assert [p for p in table.protests if p.seat == 1][:len(protests)] == protests
    assert host.public.fault is None and host.public.verdict is None
    report = verify(read_transcript(record))
    assert [p for p in report.protests if p.seat == 1][:len(protests)] == protests


def test_a_claim_the_host_drops_unanswered_does_not_leave_its_seat_waiting_for_ever():
    """In process: seat S's may_i is sent and the host never answers it (neither sequenced nor
    refused).  Once the stream moves the game past the claim's basis, the host could no longer
    sequence it: S's outbox stops waiting for it, drops it as no longer to be made, and S plays
    on to the round's end."""
    from shanghai_net.engine.moves import MayI

    from test_net_table import Table

    t = Table(3, seed=21)
    t.run_until(lambda: t.host.open_window() is not None, play=False)
    window, silent = t.host.open_window()
    seat = silent[0]
    box, table = t.boxes[seat], t.seats[seat]
    box.push(table.submit(MayI(seat)), MayI(seat))
    dropped = box.poll()
    assert dropped is not None and box.in_flight is dropped  # on its way, never to arrive
    for other in silent:
        t.time_out(other)
    t.run_until(lambda: t.host.moment_seq > dropped.basis_seq)
    assert box.in_flight is None
    t.run_until(lambda: t.host.audited >= 1)  # S was not left waiting: the round went on
    assert all(party.fault is None for party in (t.host, *t.seats))


def test_a_claim_refused_stale_stays_the_seat_s_answer_until_the_stream_brings_the_seq_named():
    """In process: the host refuses seat S's pass_claim ``stale``, naming a seq the stream has
    not reached (its own coming timeout).  Another seat's claim is sequenced meanwhile: the
    refused claim is still S's answer to the window, what S protests an early timeout with.
    Once the stream brings the seq named (the timeout), S has no answer on its way."""
    from shanghai_net.engine.moves import PassClaim

    from test_net_table import Table, open_window, signed

    t = Table(4, seed=6)
    seat, other = open_window(t).window.undecided()[:2]
    box, table = t.boxes[seat], t.seats[seat]
    box.push(table.submit(PassClaim(seat)), PassClaim(seat))
    claim = box.poll()
    named = t.host.chain.next_seq + 1  # after another seat's claim: the host's coming timeout
    box.error(wm.Error(code="stale", reason="the game moved on", ref_seq=named,
                       ref_counter=claim.counter))
    assert box.answer is claim
    t.deliver(signed(t, other, PassClaim(other), t.host.chain.basis))
    assert box.answer is claim and t.host.chain.next_seq == named
    t.time_out(seat)
    assert box.answer is None


async def test_a_host_that_rolls_the_game_back_before_a_commitment_is_refused_by_every_seat(
        tmp_path):
    """Game A plays round 1 to its audit (every seat's round-1 seed is in A's record); the
    host stops and resumes from A's record cut just before round 1's commitments.  The seats
    rejoin with their kept secrets: at the same chain head each would draw the same seed
    again, which A's audit showed.  Each refuses to commit again, naming the host; nothing of
    round 1 is dealt anew."""
    from shanghai_net.deal import seeded
    from shanghai_net.identity import Identity
    from shanghai_net.net.host import HostConfig
    from shanghai_net.wire import encode_frame
    from test_net_fresh import identities, make_peer

    record = tmp_path / "a.transcript"
    host_key = Identity(bytes(range(32)), bytes(range(32, 64)))
    first = Host(HostConfig(players=3, rules=TWO_ROUNDS, record=record, identity=host_key,
                            random=seeded(b"rollback")))
    keys = identities(3)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(first.run, listeners)
            for seat in range(3):
                await start_seated(nursery, make_peer(port, keys[seat], seat, tmp_path), seat)
            await until(lambda: first.public is not None and first.public.audited >= 1,
                        "round 1 audited at the host", seconds=80)
            nursery.cancel_scope.cancel()  # the host stops after round 1's audit
    messages = read_transcript(record)
    cut = next(i for i, m in enumerate(messages[1:], 1) if isinstance(m.body, Deal) and
               m.body.step == "commit" and m.body.data["round"] == 1)
    assert any(isinstance(m.body, Deal) and m.body.step == "seeds" for m in messages[cut:])
    rolled = tmp_path / "b.transcript"
    rolled.write_bytes(b"".join(encode_frame(m.to_wire()) for m in messages[:cut]))

    second = Host(HostConfig(resume=rolled, record=rolled, identity=host_key))
    outcomes = {}
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(second.run, listeners)
            for seat in range(3):  # each rejoins the seat of its key, in any order
                nursery.start_soon(kept_in(outcomes, seat, make_peer(port, keys[seat], seat,
                                                                     tmp_path)))
            await until(lambda: len(outcomes) == 3 or len(second.history) != cut - 1,
                        "every seat's end, or a step of the rolled-back round", seconds=80)
            nursery.cancel_scope.cancel()
    why = "the host rolled the game back: a message of ours was sequenced at seq"
    assert len(outcomes) == 3 and all(why in str(o) for o in outcomes.values()), outcomes
    assert len(second.history) == cut - 1, "a step of the rolled-back round was sequenced"


class MemoryTrail:
    """A seat's trail kept in memory (the peer keeps it on disk: `net.resume.KeptTrail`)."""

    def __init__(self, heads=None):
        self.heads = dict(heads or {})
        self.last = max(self.heads, default=-1)
        self.flushes = 0

    def head_at(self, seq):
        return self.heads.get(seq)

    def keep(self, seq, head):
        self.heads.setdefault(seq, head)
        self.last = max(self.last, seq)

    def flush(self):
        self.flushes += 1


def test_a_seat_refuses_to_go_on_in_a_history_that_forks_from_its_trail():
    """In process: seat 0 keeps its trail through a round.  Restarted, it replays the stream (as
    a crashed peer does, sending nothing until caught up) and may go on; but given a trail in
    which one of its messages was sequenced under another head (another history at that seq),
    it sends nothing more and names the host."""
    import pytest

    from shanghai_net.deal import seeded
    from shanghai_net.table.fault import Fault
    from shanghai_net.table.outbox import Outbox
    from shanghai_net.wire.messages import HOST_AUTHOR
    from test_net_table import Table

    first = Table(3, seed=31)
    first.boxes[0].trail = trail = MemoryTrail()
    stream, deliver = [], first.deliver
    first.deliver = lambda msg: stream.append(deliver(msg)) or stream[-1]
    first.run_until(lambda: first.host.audited >= 1)
    assert trail.flushes and trail.last > 20

    def replay(heads):
        """Seat 0 restarted with ``heads`` as its trail: the stream replayed, then a poll."""
        table = PeerTable(first.host.start_game, 0, first.ids[0].box_key,
                          seeded(b"seat %d %d" % (31, 0)))
        box = Outbox(table, first.ids[0].sign_key, MemoryTrail(heads))
        box.push(table.start())
        for msg in stream:
            box.push(table.receive(msg, own=msg.author == 0))
            box.sequenced(msg)
        return box.poll()

    replay(trail.heads)  # the same history: it goes on
    forked = sorted(trail.heads)[len(trail.heads) // 2]
    with pytest.raises(Fault, match=f"the host forked the game: at seq {forked}") as fault:
        replay({**trail.heads, forked: bytes(32)})
    assert fault.value.culprit == HOST_AUTHOR


async def test_fresh_connections_from_one_address_share_one_chat_budget():
    """A spectator that comes back on a fresh connection again and again does not bring a
    fresh chat burst each time: connections from one address pay chat from one bucket."""
    from shanghai_net.deal import seeded
    from shanghai_net.net.host import HostConfig
    from shanghai_net.wire import encode_frame
    from test_net_flood import Raw

    host = Host(HostConfig(players=3, chat_rate=0.01, chat_burst=5, random=seeded(b"chat")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            listener = await Raw.spectator(port, "listener")
            for visit in range(5):
                raw = await Raw.spectator(port, f"visitor{visit}")
                await raw.send(b"".join(encode_frame({"type": "chat", "text": f"hi {visit} {i}"})
                                        for i in range(5)))
                await raw.next("error", "chat")  # the host has read them
                await raw.stream.aclose()
            await listener.send(encode_frame({"type": "ping", "nonce": 1}))
            await listener.next("pong")  # every relayed chat came before it
            await listener.stream.aclose()  # else the host waits for its end of stream
            nursery.cancel_scope.cancel()
    heard = [m for m in listener.got if m.TYPE == "chat" and m.name.startswith("visitor")]
    assert 5 <= len(heard) <= 6, [m.text for m in heard]


def test_a_pick_nonce_of_another_length_is_sequenced_as_evidence_against_its_author():
    """In process: seat 1 opens the first-dealer pick with a nonce a byte short.  No nonce of
    that length opens a commitment: the host sequences it as the evidence and names seat 1,
    as every party replaying the stream does (it was refused as out of turn, naming no one)."""
    import dataclasses

    from shanghai_net.table.bodies import deal_body, parse_deal
    from test_net_table import Table

    t = Table(3, seed=41)
    t.run_until(lambda: t.host._picks and len(t.host._picks[0].commitments) == 3, play=False)
    body = next(b for b in t.boxes[1].deal if b.step == "pick_reveal")
    (reveal,) = parse_deal(body, t.host.game_id, 1).messages
    short = deal_body(dataclasses.replace(reveal, nonce=reveal.nonce[:-1]))
    msg = t.host.admit(t.seats[1].chain.sign(t.ids[1].sign_key, 1, short))
    assert (t.host.fault.culprit, t.host.fault.reason) == \
        (1, "seat 1: pick nonce 0 does not match its commitment")
    for seat in (0, 2):
        table = t.seats[seat]
        try:
            table.receive(msg)
        except Exception as fault:  # noqa: BLE001 - the seat stops, naming the author
            assert getattr(fault, "culprit", None) == 1, fault
        else:
            raise AssertionError(f"seat {seat} took a nonce that opens no commitment")


def test_a_trail_torn_by_a_crash_keeps_its_whole_lines(tmp_path):
    """The trail file as a crash may leave it, its last line cut short: the lines before are
    read, the torn one (whose flush never finished, so nothing it vouches for was sent) not."""
    from shanghai_net.net.resume import KeptTrail

    path = tmp_path / "game.trail"
    trail = KeptTrail(path)
    trail.keep(3, bytes(32))
    trail.keep(9, bytes(range(32)))
    trail.flush()
    path.write_bytes(path.read_bytes() + b"12 00ab")
    again = KeptTrail(path)
    assert (again.last, again.head_at(3), again.head_at(9), again.head_at(12)) == \
        (9, bytes(32), bytes(range(32)), None)
