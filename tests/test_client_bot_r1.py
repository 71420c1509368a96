"""clients/simple_bot.py (written from the documents alone) at a table sharing seeds where a
reference seat is lost mid-round (R1, protocol.md 11.10), over real sockets beside our
reference peers: it votes only on the signed stream, follows the rebuild, takes the lost
seat's keys from its rebuilt seed for every card (turned up or drawn, after the rebuild too)
and makes its remaining passes itself, hands the stand-in seated mid-round its boxes, and plays
the game to its end with a clean audit everywhere."""

from __future__ import annotations

import random

import pytest
import trio

from shanghai_net.conformance.kit import Pushy
from shanghai_net.engine import Phase
from shanghai_net.engine.events import Drew, RoundVoided, SeatLost, TookDiscard
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import HOST_AUTHOR, Deal, Discard, Timeout, VoidRound

from client_races import overtaken
from seating import until
from test_client_bot import THREE_ROUNDS, game_with_the_client

RULES = {**THREE_ROUNDS, "shanghai": False}
"""No SHANGHAI calls: our stand-in seated mid-round fails at a SHANGHAI penalty's hand-over
("position p of generation g is not a hidden card of seat s", deal/participant.py
``hand_over``), a fault of our reference replacement, not of the client's (issue 38)."""
LOST = 2
"""The reference seat killed mid-round 1."""
VOTE_AFTER = 3.0
"""Seconds every voter (the client, the reference bots) waits on a stalled seat before voting."""
SILENT_AFTER = 30.0
"""The host's ``audit_timeout``: the seeds, shares and silent clocks.  Far longer than
`VOTE_AFTER`, so that a client voting on the lobby's word (the seat's link is down) votes
before the host's signed ``silent`` timeout, where one voting on the stream votes after it;
and long enough for a client on a loaded machine to show its seeds in time."""


class FrozenAtItsDiscard(BotPlayer):
    """Once it has drawn in round 1, it makes no move more: the table waits on its discard."""

    def __init__(self, seed: int) -> None:
        super().__init__("basic", random.Random(seed))

    def choose(self, table):
        drawn = any(isinstance(e, (Drew, TookDiscard)) and e.seat == table.seat
                    for e in table.public.log)
        return None if table.round == 1 and drawn else super().choose(table)


def voting_peers(seat: int) -> dict:
    return {"void_after": VOTE_AFTER}


def final_checks(host, tables, process, record, client_seat, lost=LOST, raced=False):
    """The game ended clean: at the host and in ``verify``, no fault at any reference seat but
    the lost one nor at the host's stand-ins, and the client exited 0 with no error but
    ``stale`` (and, ``raced``, a refusal an honest race explains, `overtaken`: a move, or a key
    share owed, signed before a message that changed what is owed, a mid-round seating or a
    void, say, which the host sequenced first and the client takes as overtaken)."""
    log = process.stderr.decode()
    public = host.public
    assert public.fault is None, (public.fault, log[-3000:])
    assert public.finished and public.public.phase is Phase.OVER
    for seat, table in tables.items():  # (one may not have read the game's end yet)
        assert seat == lost or table.fault is None, (seat, table.fault)
    for stand_in in host.stand_ins:
        assert stand_in.result.table.fault is None
    start, *stream = read_transcript(record)
    report = verify([start, *stream])
    assert report.ok, report.summary()
    errors = [e for e in host.seats[client_seat].errors_sent if e.code != "stale"
              and not (raced and overtaken(e, start, stream, client_seat))]
    assert errors == [], errors
    assert process.returncode == 0, log[-3000:]
    return log


async def test_the_client_votes_on_the_signed_timeout_and_plays_on_after_the_rebuild(tmp_path):
    """4 seats, t = 3: seat 2 dies at its turn in round 1 (a move, no deal step).  The client votes it gone only
    after the host's signed ``silent`` timeout (not on the lobby's word that its link is down),
    the seat is lost and rebuilt with the round going on, and the client takes its keys of the
    cards drawn after the rebuild from its seed (a client waiting for the lost seat's key
    shares stalls there); the host's stand-in takes the seat mid-round, and the game ends."""
    record = tmp_path / "game.transcript"

    async def kill_at_its_discard(host, peers, scopes, started) -> None:
        await host.started.wait()
        public = host.public
        await until(lambda: public.round == 1 and public.moving() == {LOST} and
                    not public.owed() and public.public.turn == LOST,
                    "round 1 waiting on seat 2's move alone, at its turn",
                    seconds=120, state=lambda: (public.round, public.moving(), public.owed()))
        scopes[LOST].cancel()

    with trio.fail_after(500):
        host, tables, process = await game_with_the_client(
            0, 21, RULES, record, script=kill_at_its_discard,
            player=lambda i: FrozenAtItsDiscard(i) if i == LOST else BotPlayer(
                "basic", random.Random(2100 + i)),
            client_args=("--vote-after", str(VOTE_AFTER)), peer_options=voting_peers,
            sharing=3, audit_timeout=SILENT_AFTER)
    log = final_checks(host, tables, process, record, 0)
    stream = read_transcript(record)[1:]
    silent = [m.seq for m in stream if m.author == HOST_AUTHOR and
              isinstance(m.body, Timeout) and m.body.what == "silent" and m.body.seat == LOST]
    votes = {m.author: m.seq for m in stream if isinstance(m.body, VoidRound)}
    assert silent and 0 in votes, (silent, votes, log[-2000:])
    assert votes[0] > silent[0], "the client voted on the lobby's word, before the timeout"
    public = host.public
    assert public.lost == [(1, LOST)] and public.left == []
    assert [e.seat for e in public.public.log if isinstance(e, SeatLost)] == [LOST]
    assert not any(isinstance(e, RoundVoided) for e in public.public.log)
    reveal = next(m.seq for m in stream if isinstance(m.body, Deal)
                  and m.body.step == "share_reveal")
    assert any(m.seq > reveal and m.author == 0 and isinstance(m.body, Deal)
               and m.body.step in ("shares", "reveal") and m.body.data["round"] == 1
               for m in stream), "the client dealt nothing of round 1 after the rebuild"



def lost_at(host, scopes, step: str, round_no: int, lost: int = LOST) -> None:
    """The host never sequences seat ``lost``'s first deal ``step`` of generation 0 (or of none)
    from round ``round_no`` on, and the seat dies as it sends it: the table waits on a step of a
    seat that owes the deal a step."""
    sequencer = host.sequencer
    submit = sequencer.submit

    async def dropping(client, msg) -> None:
        body = msg.body
        if msg.author == lost and isinstance(body, Deal) and body.step == step \
                and body.data.get("round", 0) >= round_no and body.data.get("generation", 0) == 0:
            scopes[lost].cancel()
            sequencer.submit = submit  # once: not the step of the seat's replacement
            return
        await submit(client, msg)

    sequencer.submit = dropping


async def stand_in_once_rebuilt(host) -> None:
    """The host proposes its stand-in for seat `LOST` only once the seat is rebuilt: ours,
    seated before the rebuild of a seat lost owing a pass, fails ("seat 2's seed is not rebuilt
    yet", deal/participant.py ``make_pass``: issue 38)."""
    sequencer = host.sequencer
    propose, waiting = sequencer.propose, []

    def later(body):
        waiting.append((body, trio.Event()))
        return waiting[-1][1]

    sequencer.propose = later
    await host.started.wait()
    await until(lambda: LOST in host.public.rebuilt_lost(), "seat 2 rebuilt", seconds=300)
    sequencer.propose = propose
    for body, sequenced in waiting:
        await propose(body).wait()
        sequenced.set()


async def test_the_client_makes_the_passes_of_a_seat_lost_at_its_pass(tmp_path):
    """4 seats, t = 3: seat 2 dies owing its pass 1 of round 2's first shuffle.  The client votes
    it gone with the reference bots (it owes the deal a step), follows its rebuild, and makes
    its remaining passes (1 and 2) itself at their turn, as every party does: nobody sends them.
    A client that waits for them stalls there.  The round is dealt, the stand-in plays the seat,
    and the game ends clean everywhere."""
    record = tmp_path / "game.transcript"

    async def drop_its_pass(host, peers, scopes, started) -> None:
        lost_at(host, scopes, "pass", 2)
        await stand_in_once_rebuilt(host)

    with trio.fail_after(500):
        host, tables, process = await game_with_the_client(
            0, 22, RULES, record, script=drop_its_pass,
            client_args=("--vote-after", str(VOTE_AFTER)), peer_options=voting_peers,
            sharing=3, audit_timeout=SILENT_AFTER)
    final_checks(host, tables, process, record, 0, raced=True)
    stream = read_transcript(record)[1:]
    public = host.public
    assert public.lost == [(2, LOST)] and public.left == []
    assert not any(isinstance(e, RoundVoided) for e in public.public.log)
    passes = [(m.author, m.body.data["phase"]) for m in stream if isinstance(m.body, Deal)
              and m.body.step == "pass" and m.body.data["round"] == 2
              and m.body.data["generation"] == 0]
    assert passes == [(0, 1), (1, 1), (3, 1), (0, 2), (1, 2), (3, 2)], passes
    assert 0 in {m.author for m in stream if isinstance(m.body, VoidRound)}


async def test_the_client_decides_a_pick_with_the_nonce_of_a_party_lost_before_its_reveal(
        tmp_path):
    """4 seats, t = 3, every reference seat calling SHANGHAI when it may: seat 1, after the
    client, dies as it sends its first ``pick_reveal`` of a SHANGHAI pick (its call on the
    client's discard).  The client votes it gone with the reference bots, and at its rebuild
    reads its nonce from its rebuilt seed of the pick's nonce generation, checks it against its
    ``pick_commit`` and decides the pick, as every party does (a client that waits for the
    reveal never decides it).  The host seats no stand-in (ours, seated mid-round, fails to
    replay a SHANGHAI penalty: issue 38), so the game stops there, with the client's word."""
    record, log = tmp_path / "game.transcript", tmp_path / "client.log"
    stop = trio.Event()

    async def drop_its_reveal(host, peers, scopes, started) -> None:
        lost_at(host, scopes, "pick_reveal", 1, lost=1)
        await until(lambda: "nonce read from its rebuilt seed" in log.read_text(),
                    "the client's pick decided with the lost seat's nonce", seconds=150,
                    state=lambda: (host.public and host.public.lost, log.read_text()[-500:]))
        stop.set()

    with trio.fail_after(500):
        host, _, _ = await game_with_the_client(
            0, 23, THREE_ROUNDS, record, script=drop_its_reveal,
            player=lambda i: Pushy(random.Random(2300 + i)),
            client_args=("--vote-after", str(VOTE_AFTER)), peer_options=voting_peers,
            client_log=log, stop=stop, sharing=3, audit_timeout=SILENT_AFTER, stand_in=None)
    public = host.public
    assert public.fault is None and [seat for _, seat in public.lost] == [1]
    stream = host.history.messages
    commits = [m for m in stream if m.author == 1 and isinstance(m.body, Deal)
               and m.body.step == "pick_commit"]
    reveals = [m for m in stream if m.author == 1 and isinstance(m.body, Deal)
               and m.body.step == "pick_reveal"]
    assert len(reveals) == len(commits) - 1, "the pick did not wait on the lost seat's reveal"
    assert "stopped" not in log.read_text(), log.read_text()


def test_the_client_waits_for_the_seeds_of_a_lost_seat_s_replacement():
    """A seat lost this round owes no ``seeds`` while it is vacant; once its replacement is
    seated mid-round, the replacement owes them like any seat (protocol.md 11.10, "The
    replacement"): the client's audit waits for them, or it scores the round one ``seeds``
    early and counts the last one in the next round."""
    from shanghai_net.deal import seeded
    from test_client_bot import client_start, load_client

    bot = load_client()
    keys, start = client_start(4)
    rnd = seeded(b"client replacement seeds")
    table = bot.Table({**start, "share_threshold": 3}, 0, rnd(32), rnd(32), rnd, keys[0])
    table.rebuilds[2] = bot.Rebuild({})
    table.vacant[2] = table.round_no
    table.over, round_no = True, table.round_no
    for seat in (0, 1):
        table.deal_seeds(seat, {"round": round_no, "seeds": [], "shares": []})
    assert table.round_no == round_no
    table.deal_seeds(3, {"round": round_no, "seeds": [], "shares": []})
    assert table.round_no == round_no + 1, "a vacant lost seat owes no seeds"
    table.rebuilds[2] = bot.Rebuild({})  # the same round again, its replacement seated
    del table.vacant[2]
    table.round_no, table.over = round_no, True
    for seat in (0, 1, 3):
        table.deal_seeds(seat, {"round": round_no, "seeds": [], "shares": []})
    assert table.round_no == round_no, "scored before the replacement's seeds"
    table.deal_seeds(2, {"round": round_no, "seeds": [], "shares": []})
    assert table.round_no == round_no + 1


def test_the_client_leaves_a_seat_lost_mid_round_out_of_the_claim_windows_until_it_is_seated():
    """The cause of session 19's flake (StopIteration in the client's ``take_card``): a claim
    window opened while a seat lost this round is vacant leaves it out (protocol.md 11.4,
    11.10, "The loss"), as the reference engine does until the seat's replacement is seated.
    A client that counts it waits on its answer for good: the next drawer's ``draw_stock``
    never settles the window, the drawer gets no card in its tracking, and the drawn card
    played (or discarded) is found in no token of its hand.  Seat 0 is lost at seat 1's turn
    (under load the leave came after seat 0's own discard), seat 1 discards, seat 2 draws."""
    from shanghai_net.deal import seeded
    from test_client_bot import client_start, load_client

    bot = load_client()
    keys, start = client_start(4)
    rnd = seeded(b"client lost seat's claim windows")
    table = bot.Table({**start, "share_threshold": 3}, 3, rnd(32), rnd(32), rnd, keys[3])
    table.shuffling = None  # round 1 dealt: seat s holds positions s, s+4, ...; the pile one card
    cards = iter(range(100, 200))
    for position in range(12):
        table.hands[position % 4].append((0, position))
        table.faces[(0, position)] = next(cards)
    table.stock_size, table.top, table.pile = 40, 12, [99]
    table.turn, table.phase = 1, "play"  # seat 1 has drawn
    table.lose(0, table.round_no)
    seq = iter(range(1000, 2000))
    table.apply(next(seq), 1, {"kind": "discard", "card": table.faces[(0, 1)], "shanghai": False})
    assert table.window.order == [3], "the window counts vacant seat 0"
    table.apply(next(seq), 3, {"kind": "pass_claim"})
    table.apply(next(seq), 2, {"kind": "draw_stock"})
    drawn = (0, 12)
    assert table.window is None and table.phase == "play" and table.hands[2][-1] == drawn
    table.faces[drawn], table.owed = 150, {}  # its key shares in, its reveal before its discard
    table.apply(next(seq), 2, {"kind": "discard", "card": 150, "shanghai": False})
    assert drawn not in table.hands[2] and table.pile[-1] == 150 and table.turn == 3
    assert table.window.order == [1], "seat 0 is still vacant"
    del table.vacant[0]  # its replacement seated (``take_seat``): windows count it again
    table.turn, table.discarder = 2, 1
    assert table.open_window().order == [3, 0]


def dies_after_its_discard(host, scope: trio.CancelScope, seat: int, dead: trio.Event) -> None:
    """The host sequences nothing of ``seat`` after its first discard of round 1: the seat
    dies as it sends its next message (a key share of the next drawer's card, say), and the
    table goes on without it once it is lost, its neighbour's discard opening a claim window
    while it is vacant (where session 19's flake came from, when a leave came late)."""
    sequencer = host.sequencer
    submit, discarded = sequencer.submit, []

    async def dropping(client, msg) -> None:
        if msg.author == seat and discarded:
            scope.cancel()
            dead.set()
            sequencer.submit = submit
            return
        await submit(client, msg)
        if msg.author == seat and isinstance(msg.body, Discard) and host.public.round >= 1:
            discarded.append(msg.body)

    sequencer.submit = dropping


@pytest.mark.parametrize("loss", ["quits", "dies after its discard"])
async def test_the_client_plays_a_seat_lost_mid_round_as_its_replacement(tmp_path, loss):
    """4 kit seats, t = 3: in round 1 one quits (its ``leave``) or dies after its discard,
    the three others vote it gone and it is lost and rebuilt, the round going on.  The host
    seats no bot of its own: the client, started then, is proposed for the seat at its
    ``hello``, follows the game from its start, is seated at the approval that completes its
    ``replace`` (mid-round), takes the lost hand (its own keys from the rebuilt seeds, every
    other seat's from the handed boxes), and plays the seat from the turn it was at to the
    game's end: nothing is void, and the game is clean everywhere.  Dead after its discard,
    the seat is left out of the claim windows opened while it is vacant (protocol.md 11.4):
    a client that counts it there loses track of the hands (session 19's flake)."""
    import sys

    from shanghai_net.conformance.kit import client_tail, kit_game, leave_in_round
    from shanghai_net.conformance.runner import _propose_on_hello
    from shanghai_net.conformance.situations import SEAT_RULES
    from shanghai_net.deal import seeded
    from shanghai_net.net.host import Host, HostConfig
    from shanghai_net.wire.messages import Approve, Replace

    from test_client_bot import BOT

    record, step = tmp_path / "game.transcript", 20.0
    rnd = seeded(b"client replacement mid-round")
    host = Host(HostConfig(players=4, preset="davis", rules=dict(SEAT_RULES), random=rnd,
                           stand_in=None, sharing=3, audit_timeout=SILENT_AFTER, record=record))
    leaver: list[int] = []

    async def setup(game) -> None:
        kit = await game.kit_peers(rnd, range(1, 5), step)

        async def lose_and_hand_the_seat() -> None:
            await host.started.wait()
            peer, scope = kit[0]
            leaver.append(peer.seat)
            if loss == "quits":
                await leave_in_round(host, peer, scope, 1)
            else:
                dead = trio.Event()
                dies_after_its_discard(host, scope, peer.seat, dead)
                await dead.wait()
            while not host.public.lost:
                for other, _ in kit[1:]:
                    other.vote_void(peer.seat)
                await trio.sleep(0.1)
            game.run.relay.on_hello = _propose_on_hello(host, peer.seat)
            game.start_client([sys.executable, str(BOT), "{host}:{port}"])

        game.nursery.start_soon(lose_and_hand_the_seat)

    with trio.fail_after(500):
        run = await kit_game(host, 450, step, setup)
    process = run.done.get("process")
    log = process.stderr.decode() if process is not None else ""
    (tmp_path / "client.log").write_text(log)
    assert run.stopped == "", (run.stopped, log[-3000:])
    public, (seat,) = host.public, leaver
    assert public.fault is None and public.finished, (public.fault, log[-3000:])
    assert [s for _, s in public.lost] == [seat] and public.left == []
    assert not any(isinstance(e, RoundVoided) for e in public.public.log)
    stream = read_transcript(record)[1:]
    replace = next(m for m in stream if isinstance(m.body, Replace))
    second = next(m.seq for m in stream if isinstance(m.body, Deal)
                  and m.body.data.get("round") == 2)
    played = [m for m in stream if m.author == seat and replace.seq < m.seq < second
              and not isinstance(m.body, Approve)]
    assert played, "the client played nothing of round 1"
    if loss != "quits":  # a window opened while the seat was vacant, with the seat in its order
        reveal = next(m.seq for m in stream if isinstance(m.body, Deal)
                      and m.body.step == "share_reveal")
        lost = max(m.seq for m in stream if isinstance(m.body, VoidRound)
                   and m.body.seat == seat and m.seq < reveal)  # the deciding vote
        approved = max(m.seq for m in stream if isinstance(m.body, Approve)
                       and m.body.seq == replace.seq)  # (seated here or later)
        windows = [m.seq for m in stream if isinstance(m.body, Discard) and lost < m.seq
                   < approved and m.author != seat and (m.author + 1) % 4 != seat]
        assert windows, "no claim window opened while the lost seat was vacant"
    report = verify(read_transcript(record))
    assert report.ok, report.summary()
    assert process.returncode == 0, client_tail(run.done) + log[-3000:]
