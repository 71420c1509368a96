"""Rejoining over real sockets: a peer whose connection drops, a peer that crashes and starts
again from its secret on disk, a host restarted from its transcript; in each case the game
finishes, every audit is clean, and the others saw who was missing."""

from __future__ import annotations

import random
from contextlib import asynccontextmanager

import pytest
import trio

from shanghai_net.deal import seeded
from shanghai_net.engine import Phase
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.transcript import read_transcript
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.resume import GameSecrets
from shanghai_net.table.public import PublicTable
from shanghai_net.table.verify import verify
from shanghai_net.wire import (CLIENT, NEED_DATA, Connection, ConnectionClosed, encode_frame,
                               sign_proof)
from shanghai_net.wire.messages import (PROTOCOL_VERSION, Error, Hello, Ping, Pong, Proof, Refused, StartGame,
                                        VoidRound, Welcome)

from seating import start_seated, until

RULES = {"contracts": [[2, 0]]}  # one round keeps each test short
FAST_RETRY = (0.05, 0.1, 0.2, 0.3, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5)


def make_peer(port, identity, seat, tmp_path, player=None, watch=None, kind=Peer,
              **options) -> Peer:
    """A bot peer (of class ``kind``); ``watch(peer)`` (a `Shown`, say) is called after each
    of its changes."""
    peer = kind(("127.0.0.1", port), identity,
                player or BotPlayer("basic", random.Random(seat)), name=f"bot{seat}",
                store=GameSecrets(tmp_path / f"seat{seat}"), timeout=10, retry_delays=FAST_RETRY,
                on_change=None if watch is None else lambda: watch(peer), **options)
    return peer


class Shown:
    """What a peer showed, change by change (its ``on_change``): a status or detail that lasts
    a moment is kept however late the test looks, as a poll of it could miss one on a loaded
    machine."""

    def __init__(self) -> None:
        self.statuses: list[str] = []
        self.details: list[str] = []
        self.absent: set[int] = set()
        """Every seat it ever showed missing."""

    def __call__(self, peer: Peer) -> None:
        self.statuses.append(peer.status)
        self.details.append(peer.detail)
        self.absent |= set(peer.absent)

    def only_playing_since(self, since: int) -> bool:
        """From change ``since`` on, playing until the game's end ("over", its last)."""
        seen = self.statuses[since:]
        return bool(seen) and seen[-1] == "over" and set(seen[:-1]) == {"playing"}


def identities(n):
    rnd = seeded(b"rejoin identities")
    return [Identity(rnd(32), rnd(32)) for _ in range(n)]


async def start_peers(nursery, port, keys, tmp_path, peers, results, options=None, kill=None):
    """A bot peer per key, in seat order: each is started once the host has seated the one
    before (`start_seated`), so the host gives it the lowest free seat, its own;
    ``options[seat]``: its `Peer` options; ``kill[seat]``: a cancel scope that kills that peer
    (a crash: its memory and connection are gone)."""
    for seat, identity in enumerate(keys):
        peers[seat] = make_peer(port, identity, seat, tmp_path, **(options or {}).get(seat, {}))

        async def run(seat=seat, scope=(kill or {}).get(seat) or trio.CancelScope()):
            with scope:
                results[seat] = await peers[seat].run()

        await start_seated(nursery, peers[seat], seat, run)


@asynccontextmanager
async def table_of_three(tmp_path, seed, rules=RULES, options=None, kill=None, **config):
    """A host and three bot peers on 127.0.0.1 (see `start_peers`); once the game has started,
    yields the host, its port, the peers and their results (filled in as each one's game
    ends), and the nursery."""
    host = Host(HostConfig(players=3, rules=rules, claim_timeout=2, random=seeded(seed), **config))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    peers, results = {}, {}
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)
        await start_peers(nursery, port, identities(3), tmp_path, peers, results, options, kill)
        await host.started.wait()  # every seat ready: the game, and host.public, are there
        yield host, port, peers, results, nursery


def assert_finished(host, results):
    public = host.public
    assert public.fault is None and public.finished and public.public.phase is Phase.OVER
    for seat, result in results.items():
        table = result.table
        assert table.fault is None and table.finished, seat
        assert all(v.clean for v in table.verdicts.values()), (seat, table.verdicts)
        assert table.game.result == public.public.result
        assert table.chain.head == public.chain.head


def in_round(host, round_no):
    public = host.public
    return public is not None and public.round == round_no and \
        public.public.phase is Phase.PLAY and public.settled


async def test_a_dropped_connection_rejoins_and_the_game_finishes(tmp_path):
    shown = {0: Shown(), 1: Shown()}
    with trio.fail_after(90):
        async with table_of_three(tmp_path, b"h1", options={
                seat: {"watch": shown[seat]} for seat in shown}) as (host, port, peers, results, _):
            await until(lambda: in_round(host, 1), "round 1 under way", seconds=60)
            dropped, since = peers[1], len(shown[1].statuses)
            await dropped._link.stream.aclose()  # the cable is pulled

            def back() -> bool:
                after = shown[1].statuses[since:]
                return "reconnecting" in after and "playing" in after[after.index("reconnecting"):]

            await until(back, "seat 1 reconnecting, then playing again", seconds=60)
    assert_finished(host, results)
    assert 1 in shown[0].absent, "the others never saw seat 1 missing"
    assert not peers[0].absent


async def test_a_crashed_peer_starts_again_from_its_secret_and_the_game_finishes(tmp_path):
    crashed = trio.CancelScope()
    with trio.fail_after(90):
        async with table_of_three(tmp_path, b"h2", kill={2: crashed}) as (
                host, port, peers, results, _):
            while not in_round(host, 1) or host.sequenced < 60:
                await trio.sleep(0.01)
            crashed.cancel()  # the process dies: its tables and connection are gone
            await until(lambda: 2 in peers[0].absent, "seat 0 saw seat 2 missing")
            before = host.sequenced
            reborn = peers[2] = make_peer(port, identities(3)[2], 2, tmp_path)
            results[2] = await reborn.run()
    assert_finished(host, results)
    assert before >= 60 and reborn.table.chain.next_seq == host.sequenced
    assert not any(e.code != "stale" for e in results[2].errors), results[2].errors
    assert not list((tmp_path / "seat2").iterdir()), "the game's secret outlived the game"


async def test_the_same_key_joining_again_is_refused_and_the_seat_s_player_stays(tmp_path):
    """Issue 24: the host's user joins their own table again without --fresh-identity (the same
    key and the same secrets on disk): refused at once, told what to do, and the seat's player
    never loses its connection."""
    shown = Shown()
    with trio.fail_after(60):
        async with table_of_three(tmp_path, b"h10", options={0: {"watch": shown}}) as (
                host, port, peers, results, nursery):
            await until(lambda: in_round(host, 1), "round 1 under way", seconds=50)
            since = len(shown.statuses)
            twin = make_peer(port, identities(3)[0], 0, tmp_path)
            with pytest.raises(PeerError, match="--fresh-identity") as refused:
                await twin.run()
            assert "refused: table_full: seat 0 (bot0)" in str(refused.value)
            assert twin.status == "failed" and host.seats[0].connected
    assert_finished(host, results)
    assert shown.only_playing_since(since), shown.statuses[since:]


class Cable:
    """A relay between the peers and the host: `pull` cuts its links at the peers' end only, so
    the host hears nothing (no end of stream) and holds each connection live until its silence
    timeout, as when a laptop's wifi drops."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.links: list[trio.CancelScope] = []
        self.hung: list[trio.SocketStream] = []

    async def serve(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        task_status.started(listeners[0].socket.getsockname()[1])
        await trio.serve_listeners(self._relay, listeners)

    def pull(self) -> None:
        for link in self.links:
            link.cancel()

    async def _relay(self, near: trio.SocketStream) -> None:
        far = await trio.open_tcp_stream("127.0.0.1", self.port)
        self.hung.append(far)  # never closed: the host must find out by its silence
        with trio.CancelScope() as link:
            self.links.append(link)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._pump, near, far)
                nursery.start_soon(self._pump, far, near)
        await near.aclose()

    @staticmethod
    async def _pump(source: trio.SocketStream, sink: trio.SocketStream) -> None:
        while data := await source.receive_some(65536):
            await sink.send_all(data)


async def test_a_peer_whose_cable_the_host_has_not_missed_yet_tries_again_until_it_has(tmp_path):
    """The peer sees its link drop before the host does: the host refuses its seat to the new
    connection while the old one is live, and the peer keeps trying (not a failure) until the
    host drops the old one for its silence; then it rejoins and the game finishes."""
    host = Host(HostConfig(players=3, rules=RULES, claim_timeout=2, ping_interval=0.2,
                           silence_timeout=1.5, random=seeded(b"h11")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    peers, results, shown = {}, {}, Shown()
    with trio.fail_after(240):  # bounds only: each wait below ends on a state
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            cable = Cable(port)
            relayed = await nursery.start(cable.serve)
            keys = identities(3)
            await start_peers(nursery, port, keys[:2], tmp_path, peers, results)
            peers[2] = make_peer(relayed, keys[2], 2, tmp_path, watch=shown)

            async def run_last():
                results[2] = await peers[2].run()

            nursery.start_soon(run_last)
            await until(lambda: in_round(host, 1), "round 1 under way", seconds=60)
            cable.pull()
            await until(lambda: "rejoined" in shown.details, "seat 2 rejoined", seconds=60)
            # generous: under load the 1.5 s silence timeout drops and rejoins seats again
            await until(lambda: len(results) == 3, "every seat's game over", seconds=150)
            for hung in cable.hung:  # the host dropped them; its close waits for their end
                await hung.aclose()
            nursery.cancel_scope.cancel()
    assert_finished(host, results)
    refused = [d for d in shown.details if "not yet missed our old connection" in d]
    assert any("(attempt 2 of 10)" in d for d in refused), set(shown.details)  # each counts


async def test_a_rejoin_without_the_secret_is_refused_clearly(tmp_path):
    crashed = trio.CancelScope()
    with trio.fail_after(60):
        async with table_of_three(tmp_path, b"h3", kill={0: crashed}) as (
                host, port, peers, results, nursery):
            while not in_round(host, 1):
                await trio.sleep(0.01)
            crashed.cancel()  # seat 0's connection is gone: its key may take the seat back
            while host.seats[0].connected:
                await trio.sleep(0.01)
            stranger = Peer(("127.0.0.1", port), identities(3)[0], BotPlayer(), timeout=10,
                            store=GameSecrets(tmp_path / "elsewhere"), reconnect=False)
            try:
                await stranger.run()
            except PeerError as error:
                assert "no secret of game" in str(error)
            else:
                raise AssertionError("a seat without its secret rejoined")
            nursery.cancel_scope.cancel()


async def test_a_host_restarted_from_its_transcript_finishes_the_game(tmp_path):
    record = tmp_path / "table.transcript"
    host_key = Identity(bytes(range(32)), bytes(range(32, 64)))
    config = dict(players=3, rules=RULES, claim_timeout=2, identity=host_key, record=record)
    first = Host(HostConfig(random=seeded(b"h4"), **config))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    peers, results = {}, {}
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            crashed = trio.CancelScope()

            async def doomed_host(task_status=trio.TASK_STATUS_IGNORED):
                with crashed:
                    await first.run(listeners, task_status=task_status)

            port = await nursery.start(doomed_host)
            await start_peers(nursery, port, identities(3), tmp_path, peers, results)
            while not in_round(first, 1) or first.sequenced < 80:
                await trio.sleep(0.01)
            crashed.cancel()  # the host dies mid-round
            for listener in listeners:
                await listener.aclose()
            while not all(p.status == "reconnecting" for p in peers.values()):
                await trio.sleep(0.01)
            second = Host(HostConfig(resume=record, **config))
            assert second.sequenced == len(read_transcript(record)) - 1 > 0
            # until they rejoin, every seat is shown as not connected ("waiting for ...")
            assert [(s.seat, s.connected) for s in second.lobby.lobby_state().seats] == \
                [(0, False), (1, False), (2, False)]
            again = await trio.open_tcp_listeners(port, host="127.0.0.1")
            await nursery.start(second.run, again)
    assert_finished(second, results)
    # the transcript is one whole game: it replays to the end
    messages = read_transcript(record)
    replay = PublicTable(messages[0])
    for msg in messages[1:]:
        replay.receive(msg)
    assert replay.finished and replay.public.result == second.public.public.result


def test_a_host_refuses_to_resume_what_it_cannot_and_leaves_the_file_alone(tmp_path):
    for name, content in (("empty", b""), ("notes", b"my shopping list: eggs, milk\n")):
        path = tmp_path / f"{name}.transcript"
        path.write_bytes(content)
        try:
            Host(HostConfig(resume=path))
        except ValueError as error:
            assert "not a transcript" in str(error)
        else:
            raise AssertionError(f"the {name} file was resumed")
        assert path.read_bytes() == content, "a file that is no transcript was changed"


async def test_a_torn_last_frame_is_cut_before_the_transcript_goes_on(tmp_path):
    """A host killed in the middle of writing a frame: the resumed host reads the whole frames,
    cuts the torn one, and what it appends is read back as frames."""
    record = tmp_path / "table.transcript"
    host_key = Identity(bytes(range(32)), bytes(range(32, 64)))
    first = Host(HostConfig(players=3, rules=RULES, identity=host_key, record=record,
                            random=seeded(b"h5")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    peers, results = {}, {}
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(first.run, listeners)
            await start_peers(nursery, port, identities(3), tmp_path, peers, results)
            while first.sequenced < 20:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    whole = record.read_bytes()
    torn = encode_frame(first.history.messages[-1].to_wire())[:10]  # a length, then too few bytes
    record.write_bytes(whole + torn)
    second = Host(HostConfig(resume=record, record=record, identity=host_key))
    assert record.read_bytes() == whole
    assert read_transcript(record)[-1] == second.history.messages[-1]


async def test_a_spectator_who_comes_late_is_sent_the_whole_game(tmp_path):
    with trio.fail_after(60):
        async with table_of_three(tmp_path, b"h6") as (host, port, peers, results, _):
            while not in_round(host, 1):
                await trio.sleep(0.01)
            watcher = Peer(("127.0.0.1", port), Identity(bytes(32), bytes(32)), role="spectator",
                           name="kibitzer", timeout=10)
            watched = await watcher.run()
    assert watched.seat is None and isinstance(watched.table, PublicTable)
    assert watched.table.finished and watched.table.chain.head == host.public.chain.head
    assert watched.table.public.result == host.public.public.result
    assert not watched.errors


async def test_a_player_who_never_returns_is_voted_gone_and_a_stand_in_plays_on(tmp_path):
    """Seat 2 dies for good in round 2; seat 0 votes by itself (after ``void_after``), and seat
    1 by hand once the test has seen seat 0's votes out of place refused.  The round scores
    nothing, seat 2 pays the leave penalty, the host seats a stand-in bot that the others
    approve, and round 2's contract is dealt again (round 3) and played to the game's end;
    `shanghai verify` follows seat 2's keys to the stand-in's."""
    record = tmp_path / "voided.transcript"
    gone = trio.CancelScope()
    keys = identities(3)
    with trio.fail_after(120):
        async with table_of_three(tmp_path, b"h7", {"contracts": [[2, 0], [2, 0]]}, {}, {2: gone},
                                  record=record) as (host, port, peers, results, _):
            while not in_round(host, 2):
                await trio.sleep(0.01)
            gone.cancel()
            # seat 0 votes by itself once it has seen seat 2 go (before, a busy machine could
            # keep seat 1 silent long enough for seat 0 to vote against it instead)
            while 2 not in peers[0].absent:
                await trio.sleep(0.01)
            peers[0].void_after = 0.3
            peers[0].nudge()
            while host.public.void_votes.get(2) != {0}:
                await trio.sleep(0.01)
            (vote,) = [m.body for m in host.history.messages if m.body.KIND == "void_round"]
            assert vote.seat == 2, vote
            # seat 0 voted: its second vote, and a vote for another round, are refused
            refused = [await refused_vote(peers[0], keys[0], round_no) for round_no in (2, 1)]
            assert refused == ["out_of_turn"] * 2
            assert not host.public.vacant and host.public.void_votes.get(2) == {0}
            assert peers[1].vote_void(2)
    public = host.public
    assert public.finished and public.fault is None and public.left == [(2, 2)]
    assert public.voided is None and not public.vacant
    stand_in = public.holders[2]
    assert stand_in.kind == "bot" and stand_in.since == 3 and stand_in.describe() == "bot for bot2"
    assert stand_in.sign_key != keys[2].sign_public and stand_in.before.sign_key == \
        keys[2].sign_public
    result = public.public.result
    assert [r.round_no for r in result.rounds] == [1, 3]
    penalty = public.rules.leave_penalty
    assert penalty > 0 and result.totals[2] == sum(r.points[2] for r in result.rounds) + penalty
    for seat in (0, 1):
        table = results[seat].table
        assert table.finished and table.left == [(2, 2)] and table.game.result == result
        assert all(v.clean for v in table.verdicts.values()), table.verdicts
        assert table.holders[2] == stand_in
    (bot,) = host.stand_ins
    assert bot.table.seat == 2 and bot.table.finished and bot.table.game.result == result
    assert bot.table.verdicts[3].clean
    report = verify(read_transcript(record))
    assert report.ok and report.left == ((2, 2),) and report.rounds == 2, report.summary()
    assert "round 2 voided by the table's vote: bot2 left it" in report.summary()
    assert "seat 2 played by bot (bot" in report.summary()
    assert report.summary().endswith("ok: every move and the deal of every round scored check "
                                     "out; round 2 voided before its seeds were shown, so its "
                                     "deal was not audited")  # issue 24: not "every deal"


async def refused_vote(peer, identity, round_no):
    """Send the seat's vote for ``round_no`` by hand; the code the host answers."""
    vote = peer.table.chain.sign(identity.sign_key, peer.seat, VoidRound(round=round_no, seat=2),
                                 peer.outbox.reserve())
    await peer._link.send(vote)
    while not [e for e in peer.errors if e.ref_counter == vote.counter]:
        await trio.sleep(0.01)
    return next(e.code for e in peer.errors if e.ref_counter == vote.counter)


async def test_a_player_who_leaves_before_showing_the_round_s_seeds_loses_the_round_with_it(
        tmp_path):
    """Seat 2 goes at the round's end without its seeds.  No vote may pre-empt the audit: the
    host times its seeds out after the table's ``audit_timeout``; the round cannot be audited,
    so it is void and loses the score it had been given (a cheat cannot keep a round's
    winnings by leaving before its audit), and seat 2, named absent, not guilty (the host could
    have dropped its seeds), pays as a seat that left, once: its round is dealt again, the seats
    vote it gone when it holds that deal up (no second charge), and a stand-in finishes."""
    gone = trio.CancelScope()

    def keeps_its_seeds(table):
        table._send_seeds = lambda: None

    options = {2: {"on_table": keeps_its_seeds}, 0: {"void_after": 0.3}, 1: {"void_after": 0.3}}
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"h8", {"contracts": [[2, 0], [2, 0]]}, options,
                                  {2: gone}, audit_timeout=5.0) as (host, port, peers, results, _):
            while not host.public.waiting_audit:
                await trio.sleep(0.01)
            scored = host.public.public.results[0]
            assert any(scored.points), "round 1 scored something to take back"
            gone.cancel()
            for seat in (0, 1):
                while not peers[seat].table.waiting_audit:  # its own table waits for the seeds
                    await trio.sleep(0.01)
                assert not peers[seat].vote_void(), "a vote while the audit waits for seeds"
            await until(lambda: host.public.finished, "the game's end", seconds=140)
    public = host.public
    assert public.finished and public.voided is None and public.fault is None
    assert public.verdict is None and public.silent == {(1, 2)}
    assert public.left == [(1, 2), (3, 2)] and public.unpaid == {(3, 2)}
    result = public.public.result
    assert [r.round_no for r in result.rounds] == [4, 5]
    assert result.totals[2] == sum(r.points[2] for r in result.rounds) + \
        public.rules.leave_penalty
    for seat in (0, 1):
        assert results[seat].table.game.result == result


class CountsPings(Peer):
    """A peer that answers pings (as every peer does) and says when one came."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.pinged = trio.Event()

    async def _on_message(self, link, msg) -> None:
        await super()._on_message(link, msg)
        if isinstance(msg, Ping):
            self.pinged.set()
            self.pinged = trio.Event()


async def test_a_machine_that_goes_silent_is_dropped_and_one_that_answers_pings_is_not():
    """The live peer is seated first and, not ready, sends nothing after its hello but its
    pongs; the mute one says hello and nothing more.  The mute one is dropped ``silence_timeout``
    after its hello; had pongs not counted, the live one would have gone first, so when the mute
    one goes the live one still holds its seat, and is pinged again."""
    from shanghai_net.wire import CLIENT, Connection
    from shanghai_net.wire.messages import Hello

    host = Host(HostConfig(players=3, ping_interval=0.1, silence_timeout=2.0,
                           random=seeded(b"h9")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    keys = identities(2)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            live = CountsPings(("127.0.0.1", port), keys[0], BotPlayer(), timeout=10,
                               auto_ready=False)
            nursery.start_soon(live.run)
            await until(lambda: host.seats[0] is not None, "the live peer seated")
            seated = host.seats[0]
            mute = await trio.open_tcp_stream("127.0.0.1", port)  # says hello, then nothing
            conn = Connection(CLIENT)
            await mute.send_all(conn.send(Hello(
                protocol="shanghai-net", version=PROTOCOL_VERSION, name="mute", sign_key=keys[1].sign_public,
                box_key=keys[1].box_public, join_code="", role="player", nonce=bytes(32))))
            await until(lambda: host.seats[1] is not None, "the mute machine seated")
            await until(lambda: host.seats[1] is None, "the silent machine dropped")
            assert host.seats[0] is seated and seated.connected and live.status == "lobby"
            await live.pinged.wait()  # and its connection goes on
            assert host.seats[0] is seated and seated.connected
            await mute.aclose()
            nursery.cancel_scope.cancel()


class RawClient:
    """A connection driven by hand, message by message, as an impostor would."""

    def __init__(self, stream, conn):
        self.stream, self.conn = stream, conn

    @classmethod
    async def hello(cls, port, sign_public, box_public, role="player", name="mallory",
                    join_code=""):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        client = cls(stream, Connection(CLIENT))
        await client.send(Hello(protocol="shanghai-net", version=PROTOCOL_VERSION, name=name,
                                sign_key=sign_public, box_key=box_public, join_code=join_code,
                                role=role, nonce=bytes(32)))
        return client

    async def send(self, msg):
        await self.stream.send_all(self.conn.send(msg))

    async def aclose(self):
        """Our end of the stream: the host's close of the connection waits for it."""
        await self.stream.aclose()

    async def next(self, *types):
        """The next message of one of ``types`` (others are skipped); None once the host closed."""
        while True:
            event = self.conn.next_event()
            if event is NEED_DATA:
                data = await self.stream.receive_some(self.conn.room)
                self.conn.receive_data(data)
                continue
            if isinstance(event, ConnectionClosed):
                return None
            if isinstance(event, Ping):  # a live connection answers, or the host drops it
                await self.send(Pong(nonce=event.nonce))
            if isinstance(event, types):
                return event


class HeldBot(BotPlayer):
    """A bot that, until ``go`` is set, makes no move in the play phase: once a seat has drawn,
    the round stands still (it cannot end) until the test lets it go."""

    def __init__(self, seat: int, go: trio.Event) -> None:
        super().__init__("basic", random.Random(seat))
        self.go = go

    def choose(self, table):
        if table.game.phase is Phase.PLAY and not self.go.is_set():
            return None
        return super().choose(table)


async def test_an_impostor_with_a_seats_public_key_is_refused_and_the_player_stays(tmp_path):
    """Seat 1's public key is public (every spectator gets it): someone who connects with it but
    signs with another key is refused ``bad_signature``, and so is one who never answers the
    challenge (``timeout``); seat 1's player is never pushed off and the game finishes.  Seat 0
    The round stands still until the silent one is refused: a game that ended first would
    close that connection with the game's ``bye`` instead (issue 12)."""
    keys = identities(3)
    mallory = Identity(bytes(range(32)), bytes(range(1, 33)))
    shown = Shown()
    go = trio.Event()
    held = {seat: {"player": HeldBot(seat, go)} for seat in range(3)}
    held[1]["watch"] = shown
    with trio.fail_after(90):
        async with table_of_three(tmp_path, b"h8", options=held, hello_timeout=3) as (
                host, port, peers, results, nursery):
            await until(lambda: in_round(host, 1), "round 1 under way", seconds=60)
            since = len(shown.statuses)
            impostor = await RawClient.hello(port, keys[1].sign_public, mallory.box_public)
            welcome = await impostor.next(Welcome)
            assert welcome.seat == 1 and len(welcome.challenge) == 32
            assert welcome.game_id == host.start.game_id
            assert host.seats[1] is not None and host.seats[1].connected
            await impostor.send(sign_proof(mallory.sign_key, welcome.game_id, welcome.challenge))
            refused = await impostor.next(Refused, StartGame)
            assert isinstance(refused, Refused) and refused.code == "bad_signature"
            await impostor.aclose()

            silent = await RawClient.hello(port, keys[1].sign_public, mallory.box_public)
            assert (await silent.next(Welcome)).challenge != welcome.challenge
            refused = await silent.next(Refused, StartGame)
            assert isinstance(refused, Refused) and refused.code == "timeout"
            await silent.aclose()
            assert in_round(host, 1) and not host.done.is_set()
            go.set()
            for peer in peers.values():
                peer.nudge()
    assert_finished(host, results)
    assert shown.only_playing_since(since), shown.statuses[since:]
    assert all(e.code == "stale" for e in results[1].errors), results[1].errors


async def test_a_proof_nobody_asked_for_is_answered_wrong_state(tmp_path):
    """In the lobby no seat is challenged: a ``proof`` there is a ``wrong_state`` error, and the
    connection goes on."""
    host = Host(HostConfig(players=3, random=seeded(b"h9")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    me = identities(1)[0]
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            client = await RawClient.hello(port, me.sign_public, me.box_public)
            welcome = await client.next(Welcome)
            assert welcome.seat == 0 and welcome.challenge is None and welcome.game_id is None
            await client.send(Proof(sig=bytes(64)))
            error = await client.next(Error)
            assert error.code == "wrong_state"
            await client.send(Ping(nonce=7))
            assert await client.next(Pong) == Pong(nonce=7)
            await client.aclose()
            nursery.cancel_scope.cancel()
