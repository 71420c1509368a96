"""The next game at the same table (protocol.md 6.6): once a game is over at a `TableServer`
the table stays, the seats ask for a rematch (bots at once, a person when they choose), and
the host opens the next game, with the same seats in the same order, fresh nonces and a fresh
game id, each game recorded in its own file that `shanghai verify` accepts.  Then the
adversaries, played with our own classes: a host that forges a vote, one that drops it, a
stranger after a kept seat, a vote before the game is over.  Last, the rematch's lobby
(`KeptSeats`): a person takes an open seat first, the host's bots fill the rest once the kept
seats are back, a kept seat not back within ``rematch_wait`` (short here: the timer is what is
tested) is open and filled, and a lobby of bots alone then closes.  Real sockets on 127.0.0.1
port 0; every wait is on a state (`seating.until`), bounded."""

from __future__ import annotations

import logging
import random
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from shanghai_net.cli import main
from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.rematch import KeptSeats, Previous, RematchVotes
from shanghai_net.net.tables import TableServer
from shanghai_net.wire.messages import Rematch

from seating import start_seated, until

BOT = Path(__file__).resolve().parent.parent / "clients" / "simple_bot.py"

ONE_ROUND = {"contracts": [[2, 0]]}


def server_for(tmp_path, seed=b"rematch", server=TableServer, **config) -> TableServer:
    config = HostConfig(players=3, rules=ONE_ROUND, claim_timeout=5.0, random=seeded(seed),
                        record=tmp_path / "game.bin", **config)
    return server(config, ["kitchen"])


def peer_for(port, seat, role="bot", rematch=True, table="kitchen", **options) -> Peer:
    rnd = seeded(b"rematch peer %d" % seat)
    return Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                BotPlayer("basic", random.Random(seat)), name=f"{role}{seat}", role=role,
                table=table, random=rnd, timeout=20, rematch=rematch, **options)


@asynccontextmanager
async def serving(server, seconds):
    """``server`` on 127.0.0.1, port 0, the test's nursery and the port; ``seconds`` bounds
    the whole of it (it only catches a hang)."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(seconds):
        async with trio.open_nursery() as nursery:
            yield nursery, await nursery.start(server.run, listeners)


async def follow(peer, seat, games):
    """Run ``peer``'s game and every rematch after it; ``games[seat]``: each game's peer."""
    while True:
        games.setdefault(seat, []).append(peer)
        await peer.run()
        if peer.next_game is None:
            return
        peer = peer.next_peer()


async def seat_table(nursery, port, games, seats=(0, 1)):
    """Bots at ``seats`` (they ask for a rematch at once and play every game the table plays),
    a person at seat 2 (it asks when the test says); ``games[seat]``: each game's peer of that
    seat, in order.  The person's peer is returned."""
    for seat in seats:
        peer = peer_for(port, seat)
        await start_seated(nursery, peer, seat, lambda p=peer, s=seat: follow(p, s, games))
    person = peer_for(port, 2, role="player", rematch=None)
    await start_seated(nursery, person, 2, lambda: follow(person, 2, games))
    return person


def totals(peer) -> tuple[int, ...]:
    return tuple(peer.table.game.result.totals)


async def test_a_rematch_plays_the_next_game_with_the_same_seats_and_fresh_ids(tmp_path):
    """The bots ask at once and the lobby shows it, with the result; once the person asks, the
    host opens game 2 at the same table: every seat's key at its seat again, fresh nonces and
    box keys, a fresh game id, the last game's result in its lobby; game 2 in a file of its own.
    When the person then leaves, only bots are left: the table closes."""
    server = server_for(tmp_path)
    games: dict[int, list[Peer]] = {}
    async with serving(server, 240) as (nursery, port):
        person = await seat_table(nursery, port, games)
        await until(lambda: person.lobby is not None and person.lobby.rematch == (0, 1),
                    "the lobby shows that both bots asked for a rematch", 120,
                    lambda: person.lobby)
        first = server.opened[0].host
        assert person.may_rematch and person.next_game is None
        assert person.lobby.result == totals(person) == tuple(first.public.game.result.totals)
        assert await person.ask_rematch()
        await until(lambda: len(games[2]) == 2 and games[2][1].lobby is not None,
                    "the person sits in the rematch's lobby", 60)
        again = games[2][1]
        assert again.welcome.table["game"] == 2 and again.lobby.result == totals(person)
        await until(lambda: again.may_rematch, "the person's second game is over", 120)
        assert again.lobby.result == totals(again) != totals(person)
        await again.leave()  # the person goes home: the bots alone do not play on
    one, two = server.opened
    assert (one.name, two.name) == ("kitchen", "kitchen") and two.host.game == 2
    assert not server.tables and one.crash is None and two.crash is None
    a, b = one.host.start, two.host.start
    assert two.host.public.finished and a.game_id != b.game_id
    assert [s.sign_key for s in a.seats] == [s.sign_key for s in b.seats]
    assert not set(a.nonces) & set(b.nonces) and a.host_nonce != b.host_nonce
    assert not {s.box_key for s in a.seats} & {s.box_key for s in b.seats}
    assert [len(games[s]) for s in range(3)] == [2, 2, 2]  # no third game: no person asked
    assert all(games[s][1].next_game is None for s in range(3))
    assert main(["verify", str(tmp_path / "game.bin")]) == 0
    assert main(["verify", str(tmp_path / "game-2.bin")]) == 0


class ForgingHost(Host):
    """A host that counts a vote for every seat still at the table, asked or not."""

    def _votes(self) -> RematchVotes:
        votes = super()._votes()
        votes.votes |= set(votes.seated)
        return votes


class ForgingServer(TableServer):
    def _host(self, name, first=False, previous=None):
        host = super()._host(name, first, previous)
        host.__class__ = ForgingHost if previous is None else Host
        return host


async def test_a_forged_vote_opens_a_lobby_the_seat_never_comes_to(tmp_path):
    """The host says the person asked for a rematch when it did not: the person's peer takes
    no `next_game` it did not ask for and goes; the next table keeps its seat for its key, so
    no game starts without it (its fresh nonce, its signatures): the forgery gains nothing."""
    server = server_for(tmp_path, seed=b"forged", server=ForgingServer)
    games: dict[int, list[Peer]] = {}
    async with serving(server, 240) as (nursery, port):
        person = await seat_table(nursery, port, games)
        await until(lambda: len(server.opened) == 2 and
                    sum(c is not None for c in server.opened[1].host.seats) == 2,
                    "the bots sit in the forged rematch's lobby", 120)
        await until(lambda: person.status == "over", "the person's peer has gone", 20,
                    lambda: person.status)
        second = server.opened[1].host
        assert person.next_game is None and len(games[2]) == 1
        assert person.unasked is not None  # the host's forgery, seen and ignored
        assert second.seats[2] is None and second.start is None  # kept, empty, not started
        assert second.lobby._kept(2) == person.identity.sign_public
        nursery.cancel_scope.cancel()


class DroppingServer(TableServer):
    """A host whose tables never count seat 2's vote."""

    def _host(self, name, first=False, previous=None):
        host = super()._host(name, first, previous)
        rematch = host._rematch
        host._rematch = lambda client: None if client.seat == 2 else rematch(client)
        return host


async def test_a_dropped_vote_only_closes_the_table_and_the_seat_sees_it(tmp_path):
    """The host drops the person's vote: the lobby it shows never lists seat 2 among those who
    asked (the person sees that), and the table closes after its wait, as any host may close
    its table; no game is played that a seat did not agree to."""
    server = server_for(tmp_path, seed=b"dropped", server=DroppingServer, rematch_wait=3.0)
    games: dict[int, list[Peer]] = {}
    async with serving(server, 240) as (nursery, port):
        person = await seat_table(nursery, port, games)
        await until(lambda: person.may_rematch, "the game is over", 120)
        assert await person.ask_rematch()
    assert len(server.opened) == 1 and person.next_game is None
    assert 2 not in person.lobby.rematch and set(person.lobby.rematch) == {0, 1}
    assert [len(games[s]) for s in range(3)] == [1, 1, 1]


async def test_a_kept_seat_is_refused_to_a_stranger(tmp_path):
    """In a rematch's lobby the seats are kept for the keys that asked: a stranger who comes
    before the person is refused, naming the kept seats, and the person then takes its own."""
    server = server_for(tmp_path, seed=b"kept")
    async with serving(server, 240) as (nursery, port):
        for seat in (0, 1):
            peer = peer_for(port, seat)
            await start_seated(nursery, peer, seat)
        person = peer_for(port, 2, role="player")  # asks at once; the test joins it later
        await start_seated(nursery, person, 2)
        await until(lambda: person.status == "over", "the first game is over", 120)
        assert person.next_game is not None and person.next_game.table == "kitchen"
        rnd = seeded(b"stranger")
        stranger = Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)), BotPlayer(),
                        name="stranger", role="player", table="kitchen", random=rnd,
                        timeout=20)
        with pytest.raises(PeerError, match="table_full.*some kept for the last game's players"):
            await stranger.run()
        again = person.next_peer()
        await start_seated(nursery, again, 2)
        assert server.opened[1].host.seats[2].hello.sign_key == person.identity.sign_public
        nursery.cancel_scope.cancel()


async def test_a_vote_before_the_game_is_over_is_refused_and_the_game_goes_on(tmp_path):
    """A rematch asked for during the game, or at a host that does not keep its tables, is
    answered ``error`` ``wrong_state`` naming why; the game goes on to its end."""
    config = HostConfig(players=3, rules=ONE_ROUND, claim_timeout=5.0,
                        random=seeded(b"early"))
    host = Host(config)  # one table, closed at the game's end: no rematch here
    async with serving(host, 120) as (nursery, port):
        peers = [peer_for(port, seat, table="") for seat in range(3)]
        for seat, peer in enumerate(peers):
            await start_seated(nursery, peer, seat)
        await until(lambda: peers[0]._link is not None and peers[0].start is not None,
                    "seat 0 is in the game")
        await peers[0]._link.send(Rematch())
        await until(lambda: any(e.code == "wrong_state" and "rematch" in e.reason
                                for e in peers[0].errors), "the early vote refused")
        await host.done.wait()
    assert host.public.finished and all(p.status == "over" for p in peers)
    assert all(p.next_game is None and not p.may_rematch for p in peers)
    assert "rematch" not in peers[0].welcome.table


async def test_the_client_bot_agrees_to_a_rematch_and_plays_the_second_game(tmp_path):
    """clients/simple_bot.py (written from the protocol document) asks for the rematch at once
    and plays game 2 at its seat of game 1 with the same signing key; it exits cleanly when
    the table closes after game 2 (the person left), and both records verify."""
    server = server_for(tmp_path, seed=b"client bot")
    games: dict[int, list[Peer]] = {}
    ended = trio.Event()
    process = {}
    async with serving(server, 300) as (nursery, port):

        async def run_client() -> None:
            process["done"] = await trio.run_process(
                [sys.executable, str(BOT), f"127.0.0.1:{port}", "--name", "stranger"],
                capture_stderr=True, check=False)
            ended.set()

        nursery.start_soon(run_client)
        first = server.opened[0].host
        await until(lambda: first.seats[0] is not None, "the client sits at seat 0", 60)

        person = await seat_table(nursery, port, games, seats=(1,))
        await until(lambda: person.lobby is not None and person.lobby.rematch == (0, 1),
                    "the client and the bot asked for a rematch", 120)
        assert await person.ask_rematch()
        await until(lambda: len(games[2]) == 2 and games[2][1].may_rematch,
                    "the second game is over", 120)
        await games[2][1].leave()
        await ended.wait()  # the table closed: no person left to ask
    log = process["done"].stderr.decode()
    assert process["done"].returncode == 0, log
    assert "rematch: game 2 at table kitchen" in log
    one, two = (t.host for t in server.opened)
    assert two.public.finished and one.start.seats[0].sign_key == two.start.seats[0].sign_key
    assert one.start.seats[0].box_key != two.start.seats[0].box_key
    assert main(["verify", str(tmp_path / "game.bin")]) == 0
    assert main(["verify", str(tmp_path / "game-2.bin")]) == 0


# -- the rematch's lobby: kept seats, open seats, our bots (pure) -----------------------------

A, B = b"a" * 32, b"b" * 32


def test_open_seats_are_filled_only_once_every_kept_seat_is_back():
    """Seat 0 open (its player left), 1 and 2 kept: no bot while a kept seat is empty; a person
    who comes first takes the open seat (held), and then no bot is needed; bots on their way
    count, so a second look sends none twice."""
    kept = KeptSeats((None, A, B))
    assert kept.to_fill(held=set(), coming=0) == 0
    assert kept.to_fill(held={1}, coming=0) == 0  # seat 2's player is not back
    assert kept.to_fill(held={1, 2}, coming=0) == 1
    assert kept.to_fill(held={1, 2}, coming=1) == 0  # our bot is on its way
    assert kept.to_fill(held={0, 1, 2}, coming=0) == 0  # a person took it first
    assert kept.kept(0) is None and kept.kept(1) == A and kept.kept(5) is None


def test_a_kept_seat_is_open_after_the_wait_and_never_kept_again():
    """Before the deadline a kept seat's player may leave and come back; at it, every kept
    seat not held is open (and filled); after it, a kept seat whose player leaves is open at
    once; a lobby with no person left then closes, never before the deadline."""
    kept = KeptSeats((None, A, B))
    assert not kept.left(1) and kept.kept(1) == A  # before the deadline: still kept
    assert not kept.abandoned(people=0)
    assert kept.expire(held={1}) == [2]
    assert kept.kept(2) is None and kept.kept(1) == A
    assert kept.to_fill(held={1}, coming=0) == 2
    assert kept.left(1) and kept.kept(1) is None
    assert not kept.left(1)  # open already
    assert kept.abandoned(people=0) and not kept.abandoned(people=1)


# -- the rematch's lobby over sockets: open seats filled, kept seats released -----------------

def stranger_for(port, name="stranger") -> Peer:
    """A person who did not play the last game, who comes to the rematch's lobby."""
    rnd = seeded(name.encode())
    return Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)), BotPlayer(), name=name,
                role="player", table="kitchen", random=rnd, timeout=20)


async def first_game_then_lobby(server, nursery, port, leavers, games):
    """Game 1: bots at ``leavers`` go at its end (their seats open), the other bots below
    seat 2 play every game, and a person at seat 2 asks at once but comes back only when the
    test brings its returned peer; the rematch's host, once its lobby holds the staying bots,
    and the person's peer."""
    for seat in (0, 1):
        peer = peer_for(port, seat, rematch=seat not in leavers)
        await start_seated(nursery, peer, seat, None if seat in leavers
                           else lambda p=peer, s=seat: follow(p, s, games))
    person = peer_for(port, 2, role="player")
    await start_seated(nursery, person, 2)
    await until(lambda: person.status == "over" and len(server.opened) == 2,
                "the first game is over and the rematch opened", 120, lambda: person.status)
    second = server.opened[1].host
    await until(lambda: all(second.seats[s] is not None for s in (0, 1) if s not in leavers),
                "the bots that asked are back", 60, lambda: second.seats)
    return second, person


def back(person) -> Peer:
    """The person's peer for the rematch: it plays it, and then asks for no other."""
    again = person.next_peer()
    again.rematch = None
    return again


async def test_a_person_takes_an_open_seat_first_and_our_bots_fill_the_rest(tmp_path):
    """Seats 0 and 1 were bots that went at the game's end: open in the rematch.  While the
    person's kept seat 2 is empty no bot of the host comes; a person who comes takes seat 0;
    once the person is back, one bot of the host's stand-in level fills seat 1 (fresh keys,
    none of game 1's), and game 2 plays to its end and verifies."""
    server = server_for(tmp_path, seed=b"filled")
    async with serving(server, 240) as (nursery, port):
        second, person = await first_game_then_lobby(server, nursery, port, (0, 1), {})
        stranger = stranger_for(port)
        await start_seated(nursery, stranger, 0)
        assert not second.fillers and second.seats[1] is None  # seat 2 is not back yet
        again = back(person)
        await start_seated(nursery, again, 2)
        await until(lambda: second.start is not None, "game 2 starts", 60,
                    lambda: second.seats)
        (bot,) = second.fillers
        keys = [s.sign_key for s in second.start.seats]
        first = [s.sign_key for s in server.opened[0].host.start.seats]
        assert keys == [stranger.identity.sign_public, bot.identity.sign_public,
                        person.identity.sign_public]
        assert keys[1] not in first and bot.role == "bot" and bot.player.level == "basic"
        await until(lambda: again.may_rematch, "game 2 is over", 120)
        await again.leave()
    assert second.public.finished and not server.tables
    assert main(["verify", str(tmp_path / "game-2.bin")]) == 0


async def test_no_bot_fills_an_open_seat_at_a_host_without_stand_ins(tmp_path):
    """``stand_in`` None: the open seat waits for a person, as the host's own setting says."""
    server = server_for(tmp_path, seed=b"no stand-ins", stand_in=None)
    async with serving(server, 240) as (nursery, port):
        second, person = await first_game_then_lobby(server, nursery, port, (0,), {})
        await start_seated(nursery, back(person), 2)
        assert second.seats[0] is None and not second.fillers and second.start is None
        nursery.cancel_scope.cancel()


async def test_a_kept_seat_whose_person_never_comes_back_is_filled_after_the_wait(tmp_path,
                                                                                   caplog):
    """Seat 1's person asked and never comes back: once the wait for the kept seats is over
    (`Host.release_kept`, which its timer calls; called here once seat 2's person is back, so
    that no machine's speed decides who was back in time) its seat is open, the log says so,
    a bot of the host takes it, and the next game plays with the other person.  The timer
    itself: `test_a_rematch_lobby_left_without_a_person_closes_after_the_wait`."""
    caplog.set_level(logging.INFO, logger="shanghai_net")
    server = server_for(tmp_path, seed=b"released", rematch_wait=600.0)
    async with serving(server, 240) as (nursery, port):
        bot = peer_for(port, 0)
        games: dict[int, list[Peer]] = {}
        await start_seated(nursery, bot, 0, lambda: follow(bot, 0, games))
        gone = peer_for(port, 1, role="player")  # asks at once, and is not seen again
        await start_seated(nursery, gone, 1)
        person = peer_for(port, 2, role="player")
        await start_seated(nursery, person, 2)
        await until(lambda: person.status == "over" and len(server.opened) == 2,
                    "the first game is over and the rematch opened", 120)
        second = server.opened[1].host
        again = back(person)
        await start_seated(nursery, again, 2)
        assert second.lobby._kept(1) == gone.identity.sign_public and not second.fillers
        second.release_kept()
        await until(lambda: second.start is not None, "game 2 starts without seat 1's person",
                    60, lambda: second.seats)
        (filler,) = second.fillers
        assert second.start.seats[1].sign_key == filler.identity.sign_public
        assert "seat 1 is open, its player did not come back" in caplog.text
        await until(lambda: again.may_rematch, "game 2 is over", 120)
        await again.leave()
    assert second.public.finished and not server.tables


@pytest.mark.parametrize("starts", [False, True])
async def test_the_kept_seats_are_released_once_the_wait_is_over_unless_the_game_started(
        autojump_clock, starts):
    """`Host._release_kept`, the timer: ``rematch_wait`` after a rematch's table opens it
    releases the kept seats (`Host.release_kept`), not a moment before, and never once the
    game has started."""
    host = Host(HostConfig(players=3, rematch_wait=30.0,
                           previous=Previous(keys=(b"\1" * 32, None, None), totals=(0, 0, 0),
                                             game=2)))
    released = []
    host.release_kept = lambda: released.append(trio.current_time())
    async with trio.open_nursery() as nursery:
        nursery.start_soon(host._release_kept)
        await trio.sleep(29.9)
        assert not released
        if starts:
            host.started.set()
    assert released == ([] if starts else [30.0])


async def test_a_rematch_lobby_left_without_a_person_closes_after_the_wait(tmp_path, caplog):
    """The only person asked and never comes back: once the wait is over (called here once
    both bots are back in the lobby: the timer is the test above) its seat is open, and with
    bots alone in the lobby the table closes (they are told ``bye``); no game 2."""
    caplog.set_level(logging.INFO, logger="shanghai_net")
    server = server_for(tmp_path, seed=b"abandoned", rematch_wait=600.0)
    ends: dict[int, Exception] = {}

    async def bot_follows(peer, seat):
        try:
            await follow(peer, seat, {})
        except PeerError as error:
            ends[seat] = error

    async with serving(server, 240) as (nursery, port):
        for seat in (0, 1):
            peer = peer_for(port, seat)
            await start_seated(nursery, peer, seat, lambda p=peer, s=seat: bot_follows(p, s))
        person = peer_for(port, 2, role="player")
        await start_seated(nursery, person, 2)
        await until(lambda: len(server.opened) == 2 and server.opened[1].host.lobby.held ==
                    {0, 1}, "both bots back in the rematch's lobby", 120)
        server.opened[1].host.release_kept()
        await until(lambda: server.opened[1].closed.is_set(), "the rematch's table closed", 60)
    second = server.opened[1].host
    assert second.start is None and not second.fillers and not server.tables
    assert "seat 2 is open" in caplog.text and "no person is left" in caplog.text
    assert sorted(ends) == [0, 1] and all("game over" in str(e) for e in ends.values())
