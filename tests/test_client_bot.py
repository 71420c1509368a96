"""The stand-alone client (clients/simple_bot.py, written from docs/protocol.md alone) plays a
whole game over real sockets with three shanghai_net bot peers: the acid test of the protocol
document.  The bot runs as a script in a subprocess, as a stranger's client would."""

from __future__ import annotations

import ast
import random
import signal
import sys
from pathlib import Path

import pytest
import trio

from shanghai_net.conformance.kit import leave_in_round, moves_into, vote_gone
from shanghai_net.deal import seeded
from shanghai_net.engine import Phase
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Approve, Deal, Replace, Timeout, VoidRound

from client_races import overtaken
from seating import until

BOT = Path(__file__).resolve().parent.parent / "clients" / "simple_bot.py"
THREE_ROUNDS = {"contracts": [[2, 0], [1, 1], [0, 2]], "max_turns": 48}
"""Three rounds, each stopped at 48 turns if no one has gone out, to keep the tests quick: the
client's seeds (fresh each run) make every deal another, and some went past 150 turns."""
CLIENT_END = 60.0
"""Seconds the client may take, once the host is done, to read the game's end and exit: it
normally ends as soon as its process gets the CPU; the bound only catches one that never does."""


class _Started:
    """The client's process, handed over by `trio.run_process` once it runs (it takes this as
    its task status), so that a test can signal it."""

    def __init__(self) -> None:
        self.process: trio.Process | None = None

    def started(self, process: trio.Process) -> None:
        self.process = process


class PausingHost(Host):
    """Stops the client's process (SIGSTOP) as it sequences the client's last message, its seeds
    of the last round: the rest of the game, the bye and the close then wait together in the
    client's socket, as on a loaded machine where the client gets no CPU for a while."""

    def __init__(self, config: HostConfig, client: _Started, client_seat: int,
                 rounds: int) -> None:
        super().__init__(config)
        publish = self.sequencer._publish

        async def pausing(msg, origin=None) -> None:
            body = msg.body
            if msg.author == client_seat and isinstance(body, Deal) and body.step == "seeds" \
                    and body.data.get("round") == rounds:
                client.process.send_signal(signal.SIGSTOP)
            await publish(msg, origin)

        self.sequencer._publish = pausing


async def game_with_the_client(client_seat: int, seed: int, rules: dict, record: Path,
                               pause_at_end: bool = False, script=None, player=None,
                               client_args=(), peer_options=None, client_log=None,
                               stop=None, **options):
    """Host a davis table of four; the client takes ``client_seat``, bot peers the others.
    The claim timeout is long: every seat answers, so a timeout means one did not.
    ``pause_at_end``: the client is stopped from its last message until the host has closed,
    and pinged every 0.2 s, so that pings it must answer wait for it with the game's end (the
    host gives up waiting for its end of the stream after a ``send_timeout`` of 3 s).
    ``script(host, peers, scopes, started)``, if given, runs beside the game once every seat is
    taken (``peers`` and the cancel ``scopes`` of their runs by seat; ``started`` holds the
    client's process).  ``player(seat)``: a peer's player (the basic bot if not given);
    ``client_args``: more of the client's command line; ``peer_options(seat)``: more of a
    peer's `Peer` arguments; ``client_log``: a file the client's log goes to as it is written
    (the process then captures none); ``stop``: an event that, once set, ends the game there
    (the client killed) before the host is done; ``options``: more of the host's
    `HostConfig`."""
    rnd = seeded(b"client test %d" % seed)
    paused = {"ping_interval": 0.2, "send_timeout": 3.0} if pause_at_end else {}
    config = HostConfig(players=4, preset="davis", claim_timeout=30.0, random=rnd, rules=rules,
                        record=record, **paused, **options)
    started = _Started()
    if pause_at_end:
        host = PausingHost(config, started, client_seat, len(rules["contracts"]))
    else:
        host = Host(config)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    tables, client, peers, scopes = {}, {}, {}, {}
    closed, ended = trio.Event(), trio.Event()
    async with trio.open_nursery() as nursery:
        async def run_host(task_status=trio.TASK_STATUS_IGNORED) -> None:
            await host.run(listeners, task_status=task_status)
            closed.set()  # every connection closed, the listeners too

        port = await nursery.start(run_host)

        async def run_client() -> None:
            command = [sys.executable, str(BOT), f"127.0.0.1:{port}", "--name", "stranger",
                       *client_args]
            if client_log is None:
                client["process"] = await trio.run_process(
                    command, capture_stderr=True, check=False, task_status=started)
            else:
                with open(client_log, "wb") as log:
                    client["process"] = await trio.run_process(
                        command, stderr=log, check=False, task_status=started)
            ended.set()

        async def peer(i: int) -> None:
            peer = peers[i] = Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                                   player(i) if player is not None
                                   else BotPlayer("basic", random.Random(seed * 100 + i)),
                                   name=f"bot{i}", random=seeded(b"peer %d %d" % (seed, i)),
                                   timeout=20, on_table=lambda t: tables.__setitem__(t.seat, t),
                                   **(peer_options(i) if peer_options is not None else {}))
            with trio.CancelScope() as scopes[i]:
                await peer.run()

        for seat in range(4):  # seats are given in the order the players arrive
            if seat == client_seat:
                nursery.start_soon(run_client)
            else:
                nursery.start_soon(peer, seat)
            name = "stranger" if seat == client_seat else f"bot{seat}"
            await until(lambda: host.seats[seat] is not None, f"the host seated {name}",
                        seconds=60)  # the client's process starts first
            assert host.seats[seat].name == name, f"the host gave seat {seat} to another"
        if script is not None:
            nursery.start_soon(script, host, peers, scopes, started)
        await first_of(host.done, stop if stop is not None else trio.Event())
        if not host.done.is_set():  # stopped
            started.process.kill()
            await ended.wait()
            nursery.cancel_scope.cancel()
            return host, tables, client["process"]
        if pause_at_end:
            await closed.wait()
            started.process.send_signal(signal.SIGCONT)
        with trio.move_on_after(CLIENT_END):  # the client's own end of the game
            await ended.wait()
        if not ended.is_set():  # ended here, so that its log tells why it did not end
            started.process.kill()
            await ended.wait()
            raise AssertionError(f"the client did not end within {CLIENT_END:g} s of the "
                                 f"game's end; its log:\n{client['process'].stderr.decode()}")
        nursery.cancel_scope.cancel()
    return host, tables, client["process"]


async def first_of(*events: trio.Event) -> None:
    """Wait until one of ``events`` is set."""
    async with trio.open_nursery() as nursery:
        async def wait(event: trio.Event) -> None:
            await event.wait()
            nursery.cancel_scope.cancel()

        for event in events:
            nursery.start_soon(wait, event)


@pytest.mark.parametrize("client_seat,seed", [(0, 1), (2, 2)])
async def test_the_client_bot_plays_a_whole_game(client_seat, seed, tmp_path):
    rules = THREE_ROUNDS
    record = tmp_path / "game.transcript"
    with trio.fail_after(300):  # a whole game against a subprocess, on a loaded machine
        host, tables, process = await game_with_the_client(client_seat, seed, rules, record)
    public = host.public
    assert public.fault is None
    assert public.finished and public.public.phase is Phase.OVER
    for seat, table in tables.items():
        assert table.fault is None, (seat, table.fault)
        assert table.finished
        for round_no in range(1, 4):
            assert table.verdicts[round_no].clean, (seat, round_no, table.verdicts[round_no])
    result = public.public.result
    assert len(result.rounds) == 3 and len(result.totals) == 4
    errors = [e for e in host.seats[client_seat].errors_sent if e.code != "stale"]
    assert errors == []
    timeouts = [m for m in read_transcript(record)[1:] if isinstance(m.body, Timeout)]
    assert timeouts == [], "a seat left a claim window to the host's clock"
    log = process.stderr.decode()
    assert process.returncode == 0, log


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="pauses the client with SIGSTOP")
async def test_the_client_ends_cleanly_when_the_game_s_end_and_the_close_arrive_together(
        tmp_path):
    """The client gets no CPU from its last message until the host has sent the rest of the
    game and its bye and closed: it reads them and the end of the stream in one go, and takes
    that end as the game's (issue 28), not as a lost link to rejoin through.  Pings came
    meanwhile: the client's pongs (and its own bye) go into a connection the host has closed,
    the first draws a reset and the next ones fail, and still the client reads the game's end
    that was already in its socket."""
    rules = THREE_ROUNDS
    with trio.fail_after(300):  # a whole game against a subprocess, on a loaded machine
        host, _, process = await game_with_the_client(1, 3, rules, tmp_path / "game.transcript",
                                                      pause_at_end=True)
    assert host.public.finished and host.public.fault is None
    log = process.stderr.decode()
    assert process.returncode == 0 and "game over, no errors" in log, log


async def test_the_client_bot_plays_on_when_a_peer_leaves_for_good_and_a_stand_in_takes_its_seat(
        tmp_path):
    """Seat 2's player quits in round 2 (it says bye and its program stops): the client and the
    two other peers vote it gone (3 of 4), the round is void and seat 2 pays the leave penalty;
    the host's stand-in bot is proposed, every seat still playing approves it, and it plays
    seat 2 with its own keys from the deal of round 2's contract again (round 3).  The client
    checks the stand-in's messages with its key and seals its key shares to its box key, plays
    to the end, and its totals are the reference peers'."""
    rules = THREE_ROUNDS
    record = tmp_path / "game.transcript"

    async def seat_2_leaves(host, peers, scopes, started) -> None:
        await leave_in_round(host, peers[2], scopes[2], 2)
        await vote_gone(host, [peers[1], peers[3]], 2)

    with trio.fail_after(400):
        host, tables, process = await game_with_the_client(0, 4, rules, record,
                                                           script=seat_2_leaves)
    log = process.stderr.decode()
    public = host.public
    assert public.fault is None, public.fault
    assert public.finished and public.public.phase is Phase.OVER
    messages = read_transcript(record)[1:]
    votes = [m for m in messages if isinstance(m.body, VoidRound)]
    assert {m.author for m in votes} == {0, 1, 3} and {m.body.seat for m in votes} == {2}
    replace = next(m for m in messages if isinstance(m.body, Replace))
    approvals = {m.author for m in messages if isinstance(m.body, Approve)
                 and m.body.seq == replace.seq}
    assert approvals == {0, 1, 3}
    stand_in = host.stand_ins[0]
    assert replace.body.sign_key == stand_in.identity.sign_public
    assert stand_in.result.table.finished and stand_in.result.table.fault is None
    # the client sealed the stand-in its key shares in round 3: the stand-in opened them
    assert any(m.author == 0 and isinstance(m.body, Deal) and m.body.step == "shares"
               and m.body.data["round"] >= 3
               and any(box["to"] == 2 for box in m.body.data["boxes"]) for m in messages)
    result = public.public.result
    assert len(result.rounds) == 3  # the voided round scores nothing
    assert result.totals[2] >= public.rules.leave_penalty
    for seat, table in tables.items():
        if seat == 2:
            continue  # the player who left
        assert table.fault is None and table.finished, (seat, table.fault)
        assert table.game.result.totals == result.totals
    line = next(line for line in log.splitlines() if "result: totals" in line)
    totals, winners = line.split("result: totals ", 1)[1].split(", winners ")
    assert tuple(ast.literal_eval(totals)) == result.totals, log
    assert tuple(ast.literal_eval(winners)) == result.winners, log
    start = read_transcript(record)[0]
    errors = [e for e in host.seats[0].errors_sent if e.code != "stale"
              and not overtaken(e, start, messages, 0)]  # a step the others' votes overtook
    assert errors == [], errors
    timeouts = [m for m in messages if isinstance(m.body, Timeout) and m.body.seat == 0]
    assert timeouts == [], "the client left a claim window to the host's clock"
    assert process.returncode == 0, log
    report = verify(read_transcript(record))
    assert report.ok, report.fault


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="pauses the client with SIGSTOP")
async def test_the_client_bot_voted_gone_and_replaced_stops_cleanly(tmp_path):
    """The client (seat 0) is stopped mid-round 2 (SIGSTOP); the three peers vote it gone and
    the host's stand-in takes seat 0 at the next deal.  Let go again, the client reads that its
    seat is vacant and another key plays it (or that the host no longer takes its key): it
    stops with a line that says so, exit status 3, and the game goes on to its end without it."""
    rules = THREE_ROUNDS

    async def client_voted_gone(host, peers, scopes, started) -> None:
        await moves_into(host, 2)
        key = host.start.seats[0].sign_key
        started.process.send_signal(signal.SIGSTOP)
        await vote_gone(host, list(peers.values()), 0)
        while host.public.holders[0].sign_key == key:  # until the stand-in plays seat 0
            await trio.sleep(0.05)
        started.process.send_signal(signal.SIGCONT)

    with trio.fail_after(400):
        host, tables, process = await game_with_the_client(
            0, 5, rules, tmp_path / "game.transcript", script=client_voted_gone)
    log = process.stderr.decode()
    assert process.returncode == 3, log
    assert "stopped: seat 0 is played by 'bot'" in log or "voted seat 0 gone" in log, log
    public = host.public
    assert public.finished and public.fault is None, public.fault
    assert public.holders[0].sign_key == host.stand_ins[0].identity.sign_public


def load_client():
    """clients/simple_bot.py as a module, for a look at its own table (no sockets)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("simple_bot_under_test", BOT)
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    return bot


def client_start(players):
    """Each seat's key (one byte repeated) and a davis `start_game` of ``players`` seats, as the
    client's own `Table` reads it: for the tests that look at that table without a host."""
    keys = [bytes([k]) * 32 for k in range(1, players + 1)]
    return keys, {"game_id": bytes(16), "preset": "davis", "rules": {},
                  "host_key": bytes([9]) * 32, "first_dealer_pick": {"method": "fixed", "seat": 0},
                  "seats": [{"seat": s, "name": f"p{s}", "sign_key": keys[s], "box_key": keys[s]}
                            for s in range(players)]}


def test_the_client_bot_approves_a_stand_in_s_seat_changing_hands_and_names_one_key_for_two():
    """Issue 22, the client's own table (no sockets): it approves the host's ``replace`` of a
    seat a stand-in bot plays (a first holder coming back, a late arrival) as of a vacant seat,
    and of its own seat when it is that stand-in; not of a seat a person plays; and it stops,
    naming the host, on one key proposed for two seats."""
    bot = load_client()
    keys, start = client_start(4)
    rnd = seeded(b"client table")

    def replace(seat, key, role="player"):
        return {"seat": seat, "name": "x", "role": role, "sign_key": key, "box_key": key}

    table = bot.Table(start, 0, rnd(32), rnd(32), rnd, keys[0])
    table.roles[2] = "bot"  # a stand-in plays seat 2, a person seat 3
    table.vacant[1] = 1  # seat 1 was voted gone
    table.proposed(10, replace(2, bytes([20]) * 32))
    table.proposed(11, replace(3, bytes([21]) * 32))
    table.proposed(12, replace(1, bytes([22]) * 32, "bot"))
    assert table.to_approve == [10, 12]
    with pytest.raises(bot.BotStopped, match="one key, one seat"):
        table.proposed(13, replace(2, bytes([22]) * 32))
    stand_in = bot.Table(start, 2, rnd(32), rnd(32), rnd, keys[2])
    stand_in.roles[2] = "bot"
    stand_in.proposed(10, replace(2, bytes([30]) * 32))  # its first holder's key comes back
    assert stand_in.to_approve == [10]


def test_the_client_bot_seated_as_a_newcomer_approves_the_replaces_already_waiting():
    """Issue 38 (soak 14-7's gap, in the client): seats 1 and 2 vacant, the host proposes a
    stand-in for seat 1, then the client's keys for seat 2; seats 0 and 3 approve the client
    first, so it is seated while seat 1's ``replace`` still waits, now for its say too.  It owes
    that approval (protocol.md 11.8: it decides as if the proposal had just come): without it,
    seat 1 stays vacant and the deal waits for good."""
    bot = load_client()
    keys, start = client_start(4)
    rnd = seeded(b"client newcomer approvals")
    ours = rnd(32)
    table = bot.Table(start, None, rnd(32), rnd(32), rnd, ours, taking=2)
    table.round_no, table.waiting_seats = 1, True  # round 1's deal waits for seats 1 and 2
    table.vacant[1] = table.vacant[2] = 0

    def replace(seat, key):
        return {"kind": "replace", "seat": seat, "name": "x", "role": "bot", "sign_key": key,
                "box_key": rnd(32)}

    table.apply(10, 8, replace(1, bytes([20]) * 32))
    table.apply(11, 8, replace(2, ours))
    for seat, seq in ((0, 11), (3, 11), (0, 10), (3, 10)):
        table.apply(100 + seat + seq, seat, {"kind": "approve", "seq": seq})
    assert table.seat == 2 and table.taking is None
    assert 1 in table.vacant and table.to_approve == [10], "seat 1's replace waits for good"
    table.apply(200, 2, {"kind": "approve", "seq": 10})
    assert table.to_approve == [] and not table.vacant and not table.waiting_seats


def test_the_client_bot_seated_mid_round_approves_the_replaces_already_waiting():
    """The mid-round path (R1) of the test above on its own (protocol.md 11.8, 11.10; soak
    14-7), 5 seats, ``t`` = 3: seats 1 and 2 lost this round, each rebuilt from its holders'
    shares, the round going on; the host proposes a stand-in for seat 1, then the client's
    keys for seat 2.  Seats 0, 3 and 4 approve the client first, so it takes seat 2 mid-round (`seat_approved`,
    with no deal to wait for) while seat 1's ``replace`` still waits, now for its say too: it
    owes that approval, or seat 1 stays vacant for good."""
    bot = load_client()
    keys, start = client_start(5)
    rnd = seeded(b"client mid-round approvals")
    ours = rnd(32)
    table = bot.Table({**start, "share_threshold": 3}, None, rnd(32), rnd(32), rnd, ours,
                      taking=2)
    table.round_no = 1
    for lost in (1, 2):  # lost this round and rebuilt, the round going on (no deal waits)
        table.vacant[lost] = table.round_no
        table.rebuilds[lost] = bot.Rebuild({})

    def replace(seat, key):
        return {"kind": "replace", "seat": seat, "name": "x", "role": "bot", "sign_key": key,
                "box_key": rnd(32)}

    table.apply(10, 8, replace(1, bytes([20]) * 32))
    table.apply(11, 8, replace(2, ours))
    for seq in (11, 10):
        for seat in (0, 3, 4):
            table.apply(100 + seat + seq, seat, {"kind": "approve", "seq": seq})
    assert table.seat == 2 and table.taking is None and not table.waiting_seats
    assert 1 in table.vacant and table.to_approve == [10], "seat 1's replace waits for good"
    table.apply(200, 2, {"kind": "approve", "seq": 10})
    assert table.to_approve == [] and not table.vacant and table.round_no == 1


def test_the_client_bot_holds_one_box_key_to_one_seat():
    """protocol.md 6.2, 11.8, 11.9 (one box key, one seat): the client's own table refuses a
    `start_game` that gives two seats one box key, a ``replace`` or a ``hand_over`` with a box
    key another seat has held or a waiting ``replace`` names; a seat's own earlier box key is
    allowed back."""
    bot = load_client()
    keys, start = client_start(4)
    rnd = seeded(b"client box keys")
    twins = {**start, "seats": [dict(entry) for entry in start["seats"]]}
    twins["seats"][3]["box_key"] = keys[1]
    with pytest.raises(bot.BotStopped, match="one box key, one seat"):
        bot.Table(twins, 0, rnd(32), rnd(32), rnd, keys[0])

    def replace(seat, box_key):
        return {"seat": seat, "name": "x", "role": "bot", "sign_key": rnd(32), "box_key": box_key}

    table = bot.Table(start, 0, rnd(32), rnd(32), rnd, keys[0])
    table.vacant[1] = table.vacant[2] = 1
    with pytest.raises(bot.BotStopped, match="one box key, one seat"):
        table.proposed(10, replace(1, keys[3]))  # seat 3's box key
    table.proposed(11, replace(1, keys[1]))  # seat 1's own box key comes back
    with pytest.raises(bot.BotStopped, match="one box key, one seat"):
        table.proposed(12, replace(2, keys[1]))  # named for seat 1 by a waiting replace
    with pytest.raises(bot.BotStopped, match="one box key, one seat"):
        table.handed(13, 3, {"name": "y", "sign_key": rnd(32), "box_key": keys[2]})
    table.handed(14, 3, {"name": "y", "sign_key": rnd(32), "box_key": bytes([40]) * 32})
    with pytest.raises(bot.BotStopped, match="one box key, one seat"):
        table.proposed(15, replace(2, bytes([40]) * 32))  # seat 3's successor holds it


def test_the_client_bot_gives_a_newcomer_its_grace_before_voting_it_gone():
    """Issue 42 (protocol 8, 11.5): a seat whose holder changed at this deal and has signed
    nothing since reads the whole game first; the client bot waits `NEWCOMER_GRACE` more before
    voting it gone, and does not take its predecessor's ``bye`` for its own, or it voids every
    deal after a leave.  Once the newcomer has signed, it is a seat like any other."""
    import time

    bot = load_client()
    assert bot.VERSION == 10
    keys, start = client_start(3)
    rnd = seeded(b"client grace")
    seat = bot.Seat.__new__(bot.Seat)  # no socket: only its vote is looked at
    seat.table = bot.Table(start, 0, rnd(32), rnd(32), rnd, keys[0])
    seat.log, seat.vote_after = lambda text: None, 5.0
    seat.table.round_no = 2
    seat.table.unheard = {2}  # seat 2's stand-in took it at this deal and is still reading
    seat.away, seat.left = {2: time.monotonic() - 30}, {2}  # its predecessor said bye
    seat.consider_vote()
    assert seat.table.vote is None
    seat.away = {2: time.monotonic() - bot.NEWCOMER_GRACE - 10}
    seat.consider_vote()
    assert seat.table.vote == (2, 2)
    seat.table.vote, seat.away = None, {2: time.monotonic() - 1}
    seat.table.unheard.clear()  # it signed: a bye now is its own
    seat.consider_vote()
    assert seat.table.vote == (2, 2)


def test_the_client_bot_votes_again_once_the_seat_it_voted_against_sends_what_it_owed():
    """protocol.md 11.5, a vote lapses: the client's own table drops its vote against a seat
    that then sends a deal step, a move or an approval (not a vote or a protest of that seat),
    and the client chooses again, now against the seat still away; its own vote, once
    sequenced, is not sent again."""
    import time

    bot = load_client()
    keys, start = client_start(3)
    rnd = seeded(b"client lapse")
    seat = bot.Seat.__new__(bot.Seat)  # no socket: only its vote is looked at
    table = seat.table = bot.Table(start, 0, rnd(32), rnd(32), rnd, keys[0])
    seat.log, seat.vote_after, seat.left = lambda text: None, 5.0, set()
    table.round_no = 2
    seat.away = {1: time.monotonic() - 30}  # seat 1's link blinked
    seat.consider_vote()
    assert table.vote == (2, 1)
    table.apply(40, 0, {"kind": "void_round", "round": 2, "seat": 1})  # ours, sequenced
    assert table.vote is None and table.voters[2] == {0}
    seat.away = {2: time.monotonic() - 30}  # seat 1 is back; seat 2 is gone
    table.apply(41, 1, {"kind": "void_round", "round": 2, "seat": 2})
    table.apply(42, 1, {"kind": "protest", "seq": 7, "reason": "I am here"})
    seat.consider_vote()
    assert table.vote is None and table.votes[(2, 1)] == {0}, "its vote and protest: no lapse"
    table.lapse(1)  # what a deal step, move or approval of seat 1 does (`ALIVE_KINDS`)
    assert table.voters[2] == {1} and not table.votes.get((2, 1))
    seat.consider_vote()
    assert table.vote == (2, 2)
    assert {"deal", "approve", "discard", "may_i"} <= bot.ALIVE_KINDS
    assert not {"void_round", "protest", "hand_over", "complaint"} & bot.ALIVE_KINDS
