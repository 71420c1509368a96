"""The chaos evening's harness (benchmarks/soak.py and benchmarks/chaos/, `make soak`) kept from
rotting: its draw (a game from its seed alone; a seat's faults playable in their order; a third
of the tables sharing seeds), its watch on the record, its judge (who must pay, who may; a seat
lost mid-round at a table sharing seeds, R1, pays once and voids nothing), and one short game of
real processes on 127.0.0.1 (a one-round game, three seats) with one seat SIGKILLed and started
again, judged as the evening judges each of its games."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from types import SimpleNamespace

from benchmarks.chaos.draw import FINAL, KINDS, PERSON_ONLY, Fault, GameSpec, Seat, draw_game
from benchmarks.chaos.judge import Outcome
from benchmarks.chaos.watch import RecordWatch
from shanghai_net.engine.events import SeatLost
from shanghai_net.table.verify import Report, verify
from shanghai_net.wire import encode_frame

SOAK = Path(__file__).resolve().parent.parent / "benchmarks" / "soak.py"
SEEDS = [f"{run}-{game}" for run in range(1, 9) for game in range(40)]


def test_a_game_is_drawn_from_its_seed_alone():
    first, again = draw_game("5-3"), draw_game("5-3")
    assert first == again
    assert first != draw_game("5-4")
    assert any(s.person for s in first.seats) and len(first.seats) + first.host_bots \
        == first.players
    assert first.deal_bound == first.rounds + len(first.faults)


def test_the_mixed_draw_shares_seeds_at_a_third_of_its_tables_of_4_to_6_seats():
    """Each sharing table has 4 holders at least (the host's bots hold nothing; 3 holders share
    nothing, docs/dealing.md); every other game is the one ``several`` draws (seeds 7 to 9
    replay with ``--draw several``); ``several`` and ``single`` never share."""
    mixed = [draw_game(seed) for seed in SEEDS]
    shared = [g for g in mixed if g.sharing]
    assert 0.25 < len(shared) / len(mixed) < 0.42
    assert {g.players for g in shared} == {4, 5, 6}
    assert all(g.players - g.host_bots >= 4 for g in shared)
    assert any(g.host_bots for g in shared)
    for game in mixed:
        several = draw_game(game.seed, draw="several")
        assert not several.sharing and not draw_game(game.seed, draw="single").sharing
        assert game.sharing or game == several, game.seed
    assert not any(draw_game(seed, players=3).sharing for seed in SEEDS)


def test_the_time_bound_counts_the_host_s_timeouts_a_fault_may_take():
    """Soak 13-4 (4 seats, t 3; bot3 and dee taken back at the same moment): each seat's
    round was voided in turn by the host's ``silent`` timeout (two seats of four left, no
    majority) and its ``vote`` timeout (``t`` holders' votes could not come), each a full
    audit_timeout after the last message: the game took 490 s where it was given 330 s.  Each
    seat lost at once with another, and at a table sharing seeds each seat lost, counts one
    more audit_timeout; one fault alone at a table sharing nothing counts none."""
    game = draw_game("13-4")
    assert game.sharing and game.players == 4
    assert [(f.kind, f.order()) for f in game.faults] == [("take-back", (3, 0, 9))] * 2
    assert game.host_waits == 4 and game.time_bound == 150 + 2 * 90 + 4 * 90
    alone = GameSpec("x", 3, 0, [Seat("ann", True)], [Fault("sigkill-gone", "ann", 1, 3, 1)])
    assert alone.host_waits == 0 and alone.time_bound == 150 + 90
    alone.sharing = True
    assert alone.host_waits == 1


def test_the_time_bound_grows_with_the_turns_played():
    """Soak 13-28 (6 seats, t 4, one seat killed and back): round 2 ran to the house rule's
    300 turns, nobody out, in 225 s, and the game was stopped at its 330 s in round 3 with its
    record moving (its bound then; 420 s now, with the host's ``vote`` timeout the seat lost
    may take).  A game has its bound and 0.75 s for each discard past 150."""
    game = draw_game("13-28")
    assert game.players == 6 and game.time_bound == 150 + 2 * 45 + 90 + 90
    assert game.time_bound_at(0) == game.time_bound_at(150) == 420
    assert game.time_bound_at(319) == 420 + 0.75 * 169


def test_sessions_15_and_16s_seeds_play_their_games_again():
    """soak6.log's failed game 6-20: carl's bye and bot2's SIGTERM at deal 3 + 6 discards."""
    game = draw_game("6-20", draw="single")
    assert [(s.name, s.person) for s in game.seats] == [("bot2", False), ("bob", True),
                                                       ("carl", True)]
    assert [(f.kind, f.target, f.deal, f.discards) for f in game.faults] == [
        ("bye", "carl", 3, 6), ("sigterm-rejoin", "bot2", 3, 6)]


def test_a_seats_faults_are_playable_in_their_order():
    """Nothing strikes a seat after a fault whose player is not back, a seat is taken back once
    (protocol.md 11.8), a person's faults strike persons, eve takes one seat, the host dies at
    most twice (five episodes a game too, some of the few kinds that are limited)."""
    games = [draw_game(seed) for seed in SEEDS] + [
        draw_game(seed, kinds, episodes=5) for seed in SEEDS[:40]
        for kinds in (KINDS, ("host-resume",), ("hand-over-person", "take-back"))]
    for game in games:
        seed = game.seed
        people = {s.name for s in game.seats if s.person}
        for target in {f.target for f in game.faults} - {"host"}:
            kinds = [f.kind for f in game.faults if f.target == target]
            assert not FINAL.intersection(kinds[:-1]), (seed, kinds)
            assert kinds.count("take-back") <= 1, (seed, kinds)
            assert target in people or not PERSON_ONLY.intersection(kinds), (seed, kinds)
            assert "host-resume" not in kinds, seed
        assert sum(f.kind == "hand-over-person" for f in game.faults) <= 1, seed
        assert all(f.kind == "host-resume" for f in game.faults if f.target == "host"), seed
        assert sum(f.target == "host" for f in game.faults) <= 2, seed
        assert [f.order() for f in game.faults] == sorted(f.order() for f in game.faults), seed


def test_the_several_draw_has_each_shape():
    """A seat struck three times, two seats struck at one moment, a fault at a round's audit."""
    def drawn(shape):
        return [draw_game(seed, shapes=(shape,), episodes=1) for seed in SEEDS[:40]]

    assert max(max(sum(f.target == t.target for f in g.faults) for t in g.faults)
               for g in drawn("again-and-again")) == 3
    for game in drawn("two-at-once"):
        first, second = game.faults
        assert first.target != second.target and first.order() == second.order(), game
    assert all(len(g.faults) == 1 and g.faults[0].audit for g in drawn("at-the-audit"))
    assert all(len(g.faults) == 1 and not g.faults[0].audit for g in drawn("scattered"))


def test_a_fault_at_the_audit_waits_for_its_deals_first_seeds(tmp_path):
    watch = RecordWatch(tmp_path / "record.bin", 3, 3)
    at_audit = Fault("sigkill-rejoin", "ann", 2, 0, 1.0, audit=True)
    in_play = Fault("sigkill-rejoin", "ann", 2, 5, 1.0)
    watch.started, watch.deal, watch.in_deal = True, 2, 30
    assert watch.reached(in_play) and not watch.reached(at_audit)
    watch.seeds_from = {1}
    assert watch.reached(at_audit)
    watch.deal, watch.in_deal, watch.seeds_from = 1, 40, {0, 2}
    assert not watch.reached(at_audit) and not watch.reached(in_play)


def test_a_leave_at_the_last_rounds_audit_leaves_no_round_to_play(tmp_path):
    """Soak 8-2: ann said bye at the last round's audit, once before her seeds went out and
    once after; both times they came (her program sends them on its way out), the game was
    over for her, and no charge was due."""
    watch = RecordWatch(tmp_path / "record.bin", 3, 3)
    watch.audited, watch.seeds_from = 2, {0}  # rounds 1 and 2 audited, round 3's first seeds
    assert watch.at_last_audit()
    watch.audited, watch.seeds_from = 2, set()  # round 3 not played out: no seeds of it yet
    assert not watch.at_last_audit()
    watch.audited, watch.seeds_from = 1, {2, 0}  # round 2's audit: round 3 still to play
    assert not watch.at_last_audit()
    watch.audited, watch.seeds_from = 3, set()  # every round audited
    assert watch.at_last_audit()


def judged(tmp_path, faults, charges) -> Outcome:
    spec = GameSpec("0-0", 3, 0, [Seat("ann", True), Seat("bot3", False), Seat("carl", True)],
                    faults)
    out = Outcome(spec, tmp_path, finished=True, charges=charges)
    for seat in spec.seats:
        out._charged(seat.name)
    return out


def struck(kind, target, where="deal 1, discard 3") -> Fault:
    return Fault(kind, target, 1, 3, 1.0, injected=where)


def test_a_seat_pays_once_for_each_time_it_left_for_good(tmp_path):
    """ann was taken back, then quit: two leaves, two charges; one is an undercharge."""
    faults = [struck("take-back", "ann"), struck("bye", "ann", "deal 2, discard 1")]
    assert judged(tmp_path, faults, {"ann": 2}).failures == []
    assert judged(tmp_path, faults, {"ann": 1}).failures == [
        "ann left (take-back, bye) and was charged 1 times"]


def test_a_seat_that_left_at_the_last_rounds_audit_may_pay_nothing(tmp_path):
    bye = struck("bye", "ann", "deal 3, audit (2 seeds in), the last round's")
    bye.over = True
    assert judged(tmp_path, [bye], {}).failures == []
    assert judged(tmp_path, [bye], {"ann": 1}).failures == []
    assert judged(tmp_path, [bye], {"ann": 2}).failures == ["ann charged 2 times (bye)"]


def test_a_seat_back_again_and_again_pays_at_most_once_each_time(tmp_path):
    faults = [struck("sigkill-rejoin", "bot3"), struck("sigterm-rejoin", "bot3"),
              struck("sigstop", "bot3")]
    for paid in (0, 1, 2, 3):
        assert judged(tmp_path, faults, {"bot3": paid}).failures == []
    assert judged(tmp_path, faults, {"bot3": 4}).failures == [
        "bot3 charged 4 times (sigkill-rejoin, sigterm-rejoin, sigstop)"]


def test_a_fault_that_never_struck_allows_no_charge(tmp_path):
    """carl's player had gone when his second fault's moment came: it allows no charge."""
    faults = [struck("sigkill-rejoin", "carl"),
              Fault("sigkill-gone", "carl", 3, 0, 1.0, missed="carl's process had ended")]
    assert judged(tmp_path, faults, {"carl": 1}).failures == []
    assert judged(tmp_path, faults, {"carl": 2}).failures == [
        "carl charged 2 times (sigkill-rejoin)"]
    assert judged(tmp_path, faults, {"ann": 1}).failures == [
        "ann charged 1 times (no fault of its own)"]


def test_a_stand_in_voted_gone_is_no_charge_to_its_seat(tmp_path):
    """The soak's game 5-2: bot3 left (charged), its stand-in died with the host and was voted
    gone in the round dealt again, which costs the seat nothing (`Report.unpaid`): the seat
    paid once, though two of its rounds were voided (the evening had said "charged 2 times")."""
    out = Outcome(draw_game("5-2", draw="single"), tmp_path)
    report = Report(game_id=bytes(16), names=("ann", "dee", "bot3", "carl"), preset="davis",
                    messages=1364, moves=604, rounds=3, faces=283, left=((3, 2), (4, 2)),
                    unpaid=frozenset({(4, 2)}))
    out.count_leaves(report)
    assert out.charges == {"bot3": 1} and out.voids == {"bot3": 2}


def r1_judged(tmp_path, faults, losses, left=(), unpaid=(), sharing=True, t=3) -> Outcome:
    """A finished 4-seat game (ann, bot3, carl, dee) judged from its report and its losses."""
    spec = GameSpec("0-0", 4, 0, [Seat("ann", True), Seat("bot3", False), Seat("carl", True),
                                  Seat("dee", True)], faults, sharing=sharing)
    report = Report(game_id=bytes(16), names=("ann", "bot3", "carl", "dee"), preset="davis",
                    messages=1, moves=1, rounds=3, faces=1, left=tuple(left),
                    unpaid=frozenset(unpaid), scored=3)
    out = Outcome(spec, tmp_path, finished=True)
    out.judge(SimpleNamespace(share_threshold=t, seats=()), report, losses)
    return out


def test_a_seat_lost_mid_round_pays_once_and_voids_nothing(tmp_path):
    """R1: bot3 voted gone by t holders is rebuilt, its round goes on (3 deals for 3 rounds);
    the loss is its one charge.  A stand-in lost so pays nothing (`SeatLost.penalty` 0)."""
    gone = [struck("sigkill-gone", "bot3")]
    out = r1_judged(tmp_path, gone, [SeatLost(1, 1, 150)])
    assert out.failures == [] and out.charges == {"bot3": 1} and out.lost == {"bot3": 1}
    assert out.voids == {} and out.deals == 3
    assert r1_judged(tmp_path, gone, []).failures == [
        "bot3 left (sigkill-gone) and was charged 0 times"]
    assert r1_judged(tmp_path, gone, [SeatLost(1, 1, 150), SeatLost(2, 1, 150)]).failures == [
        "bot3 charged 2 times (sigkill-gone)"]
    out = r1_judged(tmp_path, gone, [SeatLost(1, 1, 150), SeatLost(2, 1, 0)])
    assert out.failures == [] and out.charges == {"bot3": 1} and out.lost == {"bot3": 2}
    assert r1_judged(tmp_path, gone, [SeatLost(1, 2, 150)]).failures == [
        "bot3 left (sigkill-gone) and was charged 0 times",
        "carl charged 1 times (no fault of its own)"]


def test_a_seat_silent_at_its_seeds_is_rebuilt_and_pays_only_when_lost_later(tmp_path):
    """R2: ann, killed at round 1's audit before her seeds, is rebuilt and audited (no leave,
    no charge for it); she is lost in round 2 (R1): one charge.  Killed and back at the audit,
    she may pay nothing."""
    gone = [struck("sigkill-gone", "ann", "deal 1, audit (1 seeds in)")]
    out = r1_judged(tmp_path, gone, [SeatLost(2, 0, 150)])
    assert out.failures == [] and out.charges == {"ann": 1} and out.voids == {}
    back = [struck("sigkill-rejoin", "ann", "deal 1, audit (1 seeds in)")]
    assert r1_judged(tmp_path, back, []).failures == []


def test_a_loss_then_a_void_of_its_round_is_one_charge_each(tmp_path):
    """bot3 lost in round 2 (R1), then carl voted gone in it with too few holders left: the
    round is void (carl pays), and bot3 still paid once (the engine charges it again with the
    void, having taken its loss back with the round's ledgers)."""
    faults = [struck("sigkill-gone", "bot3"), struck("bye", "carl")]
    out = r1_judged(tmp_path, faults, [SeatLost(2, 1, 150)], left=[(2, 2)])
    assert out.failures == [] and out.charges == {"bot3": 1, "carl": 1}
    assert out.voids == {"carl": 1} and out.deals == 4


def test_the_host_asked_to_share_seeds_must_share_them(tmp_path):
    assert r1_judged(tmp_path, [], [], t=None).failures == [
        "the host was asked to share seeds, and its start_game's t is None"]
    assert r1_judged(tmp_path, [], [], sharing=False).failures == [
        "the host was not asked to share seeds, and its start_game's t is 3"]
    assert r1_judged(tmp_path, [], [], sharing=False, t=None).failures == []


def watched(t, tmp_path, faults) -> tuple[RecordWatch, list[int], Outcome]:
    """The in-process game ``t`` played to its end, written to a record a message at a time
    with the watch reading it as it grows (the deal it saw when a vote first carried against
    seat 3), then judged as the evening judges (``faults``: (kind, seat), each struck)."""
    t.run_until(lambda: t.host.finished)
    start, record = t.host.start_game, tmp_path / "record.bin"
    watch = RecordWatch(record, 4, 2)
    deals_at_loss = []
    with open(record, "wb") as file:
        for msg in [start, *t.stream]:
            file.write(encode_frame(msg.to_wire()))
            file.flush()
            watch.poll()
            if watch.voids_of({3}) and not deals_at_loss:
                deals_at_loss.append(watch.deal)
    names = [seat.name for seat in start.seats]
    spec = GameSpec("0-0", 4, 0, [Seat(name, True) for name in names],
                    [struck(kind, names[seat]) for kind, seat in faults], rounds=2, sharing=True)
    out = Outcome(spec, tmp_path, finished=True)
    out.judge(start, verify([start, *t.stream]), watch.losses())
    return watch, deals_at_loss, out


def test_the_watch_counts_a_seat_lost_mid_round_as_gone_not_as_a_deal(tmp_path):
    """A record of a 4-seat game sharing seeds (t = 3), seat 3 voted gone in round 1 by the
    three others, rebuilt and replaced mid-round (in process, test_table_thin_holders.py's
    table): the watch's deal stays 1 through the loss (a void would make it 2), the vote that
    lost the seat counts for a take-back's wait, and the judge charges the seat once."""
    from test_table_dropout_silent import shared
    from test_table_thin_holders import replaced

    t = shared(players=4)
    replaced(t, 3)
    watch, deals_at_loss, out = watched(t, tmp_path, [("sigkill-gone", 3)])
    assert watch.broken == "" and deals_at_loss == [1]
    assert watch.deal == 3 and watch.audited == 2 and watch.ended == [(1, 3)]
    assert watch.void_causes == []
    assert [(e.round_no, e.seat, bool(e.penalty)) for e in watch.losses()] == [(1, 3, True)]
    lost = t.host.start_game.seats[3].name
    assert out.failures == [] and out.deals == 2 and out.voids == {}
    assert out.charges == out.lost == {lost: 1}


def test_the_watch_tells_a_void_for_silence_from_a_loss(tmp_path):
    """The same game, then seat 0 silent at round 2's seeds with too few holders of its commit
    to rebuild it (R2 cannot): the round is void by the host's seeds timeout, a new deal; seat 0
    pays for it, seat 3 for its loss, once each."""
    from test_table_thin_holders import silent_in_round_2

    t = silent_in_round_2(0)
    watch, _, out = watched(t, tmp_path, [("sigkill-gone", 3), ("sigkill-rejoin", 0)])
    assert watch.broken == "" and watch.ended == [(1, 3), (2, 0)]
    assert watch.void_causes == ["timeout seeds"]
    assert watch.deal == 1 + watch.audited + 1 and watch.audited == 2
    names = [seat.name for seat in t.host.start_game.seats]
    assert out.failures == [] and out.deals == 3
    assert out.charges == {names[0]: 1, names[3]: 1} and out.voids == {names[0]: 1}


def test_the_watch_tells_a_vote_timeout_no_vote_could_have_spared(tmp_path):
    """Soak 13-5 (5 seats, t 4, seat 1 a stand-in, no holder): the host's ``vote`` timeout of
    seat 2, whose other holders (0, 3, 4) are fewer than t, ended a wait for holders' votes
    that could never come; one of seat 1 (other holders 0, 2, 3, 4) ended a wait that votes
    could have ended.  The tally names the first apart (the host now times it out at once:
    Sequencer._vote_wait)."""
    from shanghai_net.wire.messages import Timeout, VoidRound

    watch = RecordWatch(tmp_path / "record.bin", 5, 3)
    watch.table = SimpleNamespace(share_threshold=4, start_game=SimpleNamespace(host_run=()),
                                  share_holders=lambda t, host_run: (0, 2, 3, 4))
    assert watch._cause(Timeout(seat=2, what="vote")) == \
        "timeout vote (fewer than t other holders)"
    assert watch._cause(Timeout(seat=1, what="vote")) == "timeout vote"
    assert watch._cause(Timeout(seat=2, what="seeds")) == "timeout seeds"
    assert watch._cause(VoidRound(round=3, seat=2)) == "VoidRound"
    watch.table.share_threshold = None  # sharing off: no holders' bar
    assert watch._cause(Timeout(seat=2, what="vote")) == "timeout vote"


def test_the_watch_says_where_a_stalled_record_stands_and_on_whom(tmp_path):
    """A game over its time bound says what the table waited for (soak 11-5 stood 370 s at a
    nonce nobody could send): here seat 3 never commits to the first-dealer pick."""
    from test_table_roster import Roster

    t = Roster(4, seed=101, rules={"contracts": [[2, 0]]})
    t.gone.add(3)
    while t.step(play=False):
        pass
    record = tmp_path / "record.bin"
    watch = RecordWatch(record, 4, 1)
    assert watch.waiting() == "no game message yet"
    record.write_bytes(b"".join(encode_frame(m.to_wire()) for m in [t.host.start_game,
                                                                    *t.stream]))
    watch.poll()
    assert watch.last_seq == 2
    assert watch.waiting() == \
        "the last message seq 2, the table owed seat 3: its commitment to pick 0"


def test_the_watch_names_an_approval_owed_and_the_votes_standing(tmp_path):
    """Soak 13-4's stand, sharing off: two seats of four (0 and 2) gone at once in the
    first-dealer pick; the two left vote seat 2 gone (no majority) and the host times it out
    as silent: the pick is void, seat 2 vacant; the host proposes a replacement, which waits
    for seat 0's approval, and the two vote seat 0 gone: the table waits for the host's
    ``silent`` timeout of seat 0, no stall, and the watch says so (it said the table owed
    "nothing the stream names")."""
    from test_table_roster import Roster, newcomer, vote_gone
    from shanghai_net.wire import messages as wm

    t = Roster(4, seed=101, rules={"contracts": [[2, 0]]})
    t.gone |= {0, 2}
    while t.step(play=False):
        pass
    vote_gone(t, 2, [1, 3])
    t.host_says(wm.Timeout(seat=2, what="silent"))
    assert t.host.vacant == {2: 0}
    t.propose(2, newcomer(2))
    while t.step(play=False):
        pass
    vote_gone(t, 0, [1, 3])
    record = tmp_path / "record.bin"
    record.write_bytes(b"".join(encode_frame(m.to_wire()) for m in [t.host.start_game,
                                                                    *t.stream]))
    watch = RecordWatch(record, 4, 1)
    watch.poll()
    assert watch.waiting() == (
        f"the last message seq {watch.last_seq}, the table owed seat 0: its approval of a "
        "replacement; seat 2 vacant since round 0; votes that seat 0 left: seats 1, 3 (not "
        "carried)")


def test_the_watch_tells_a_seat_s_own_player_signing_from_its_stand_in(tmp_path):
    """A fault waits until a seat's program started again has signed (soak 12-11: two faults
    struck two programs still starting): seat 3 leaves in round 1, is voted gone and its
    stand-in plays the game out; only seat 3's own key's messages count as seat 3 signing."""
    from test_table_roster import Roster, vote_gone
    from test_table_vacancies import stand_ins

    t = Roster(4, seed=8, rules={"contracts": [[2, 0], [1, 1]]})
    t.run_until(lambda: t.host.settled)
    t.gone.add(3)
    vote_gone(t, 3, [0, 1, 2])
    last_own = max(m.seq for m in t.stream if m.author == 3)
    stand_ins(t, [3])
    t.run_until(lambda: t.host.finished)
    assert any(m.author == 3 and m.seq > last_own for m in t.stream), "the stand-in signs"
    record = tmp_path / "record.bin"
    record.write_bytes(b"".join(encode_frame(m.to_wire()) for m in [t.host.start_game,
                                                                    *t.stream]))
    watch = RecordWatch(record, 4, 2)
    watch.poll()
    assert watch.signed[3] == last_own
    assert not watch.signed_since({3}, last_own) and watch.signed_since({3}, last_own - 1)
    assert watch.signed_since({0, 3}, last_own)


def test_the_watch_reads_a_record_longer_than_a_frame_at_once(tmp_path, monkeypatch):
    """Read again from its start (a resumed host cut a torn frame), a long game's record is
    more than the decoder takes at once (1 MiB; soak 11-3's was 1.3 MB): here a decoder of
    frames no larger than the game's largest reads a 4-seat game's record whole (and says the
    game is over: soak 12-26's host outlived its game, waiting for two seats to leave)."""
    from benchmarks.chaos import watch as watching
    from shanghai_net.wire import FrameDecoder
    from test_table_roster import Roster

    t = Roster(4, seed=1, rules={"contracts": [[2, 0]]})
    t.run_until(lambda: t.host.finished)
    frames = [encode_frame(m.to_wire()) for m in [t.host.start_game, *t.stream]]
    record, largest = tmp_path / "record.bin", max(map(len, frames))
    record.write_bytes(b"".join(frames))
    assert record.stat().st_size > 10 * largest
    monkeypatch.setattr(watching, "FrameDecoder", lambda: FrameDecoder(max_frame=largest))
    watch = RecordWatch(record, 4, 1)
    watch.poll()
    assert watch.last_seq == t.stream[-1].seq and watch.audited == 1 and not watch.broken
    assert watch.waiting().startswith(f"the last message seq {watch.last_seq}, the game over")


def test_one_short_game_with_a_seat_killed_and_back(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SOAK), "--games", "1", "--seed", "3", "--players", "3",
         "--rounds", "1", "--episodes", "1", "--shapes", "scattered",
         "--kinds", "sigkill-rejoin", "--jobs", "1", "--work", str(tmp_path)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    row = re.search(r"^sigkill-rejoin" + r" +(\d+)" * 10 + "$", done.stdout, re.MULTILINE)
    assert row is not None, done.stdout
    injected, games, finished, voided, lost, charged, named, _, verified, failed = \
        map(int, row.groups())
    assert (injected, games, finished, lost, named, verified, failed) == (1, 1, 1, 0, 0, 1, 0), \
        done.stdout
    assert charged <= 1 and voided <= 1
    record = tmp_path / "3-0" / "record.bin"
    assert record.exists()
    assert any((tmp_path / "3-0" / "logs").glob("*.2.log")), \
        "the killed seat was never started again"
