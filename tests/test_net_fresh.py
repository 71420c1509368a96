"""Fresh randomness for every game (issue 10): no one party chooses a game id, a seat's secret
serves one start only, and a secret never outlives the time its game could be resumed.

The attack these stop: a host stops game A after its first round and starts game B under A's
id, so that a victim draws again the round-1 seed it showed at the end of A's round 1."""

from __future__ import annotations

import dataclasses
import os
import random
from pathlib import Path

import pytest
import trio

from shanghai_net.deal import seeded
from shanghai_net.deal.randomness import chained
from shanghai_net.engine import Phase
from shanghai_net.identity import Identity
from shanghai_net.net import lobby as lobby_module
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.resume import MAX_AGE, GameSecrets, ReusedGame
from shanghai_net.table.public import PublicTable
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.secret import SeatSecret
from shanghai_net.table.start import check_fresh
from shanghai_net.wire import CLIENT, NEED_DATA, Connection
from shanghai_net.wire.messages import PROTOCOL_VERSION, Hello, Refused, StartGame, game_id_of

from seating import kept_in, start_seated, until

RULES = {"contracts": [[2, 0]]}
DIGEST_A, DIGEST_B = bytes([0xA]) * 32, bytes([0xB]) * 32
GAME = bytes(range(16))
SAMPLE = Path(__file__).resolve().parent.parent / "protocol" / "sample_game.bin"


# -- the secret store ------------------------------------------------------------------------------

class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


ONE, TWO = SeatSecret(bytes([1]) * 32), SeatSecret(bytes([2]) * 32)


def test_a_kept_secret_is_bound_to_its_start(tmp_path):
    store = GameSecrets(tmp_path)
    assert store.kept(GAME, DIGEST_A) is None
    store.keep(GAME, DIGEST_A, [ONE])
    assert (tmp_path / f"{GAME.hex()}.secret").stat().st_mode & 0o777 == 0o600
    again = GameSecrets(tmp_path)
    assert again.kept(GAME, DIGEST_A) == [ONE], "a crashed seat rejoins its game"
    with pytest.raises(ReusedGame, match="the host is reusing a game id"):
        again.kept(GAME, DIGEST_B)
    again.keep(GAME, DIGEST_A, [ONE, TWO])  # handed seat 1's secret, then our own
    assert GameSecrets(tmp_path).kept(GAME, DIGEST_A) == [ONE, TWO]
    assert again.kept(bytes(16), DIGEST_A) is None


def test_the_randomness_depends_on_game_start_and_secret():
    """Two secrets never draw alike; one secret's draws in a game are fixed."""
    head = lambda: bytes(32)  # noqa: E731 - the chain's head, here fixed
    draws = [secret.randomness(game, digest, head)(32) for secret, game, digest in
             ((ONE, GAME, DIGEST_A), (TWO, GAME, DIGEST_A), (ONE, GAME, DIGEST_B),
              (ONE, bytes(16), DIGEST_A))]
    assert len(set(draws)) == 4
    assert ONE.randomness(GAME, DIGEST_A, head)(32) == draws[0]
    assert ONE.box_public != TWO.box_public and len(ONE.box_public) == 32


def test_a_start_whose_id_does_not_commit_to_its_nonces_or_our_hello_is_refused_saying_which():
    """What a seat checks of every start before it draws a card (the attack's two forms, in
    process; over sockets below): the id commits to every nonce, and a game joined in the lobby
    commits to the nonce of the seat's own hello."""
    start = read_transcript(SAMPLE)[0]
    check_fresh(start, 1, start.nonces[1])
    check_fresh(start, None, None)  # a seat rejoining: its kept secret vouches for the game
    for forged in (dataclasses.replace(start, game_id=GAME),
                   dataclasses.replace(start, nonces=start.nonces[:-1])):
        with pytest.raises(ValueError) as info:
            check_fresh(forged, None, None)
        assert str(info.value) == "its game id does not commit to the seats' nonces"
    with pytest.raises(ValueError) as info:
        check_fresh(start, 1, start.nonces[0])
    assert str(info.value) == "it does not give seat 1 the nonce of our hello"


def test_a_damaged_or_old_secret_is_not_used(tmp_path):
    (tmp_path / f"{GAME.hex()}.secret").write_bytes(bytes(32))  # the old format: no digest
    with pytest.raises(ValueError, match="damaged or of an older version"):
        GameSecrets(tmp_path).kept(GAME, DIGEST_A)


def test_a_stopped_game_s_secret_is_swept_after_its_age_and_use_keeps_it(tmp_path):
    clock = Clock(1_000_000.0)
    store = GameSecrets(tmp_path, now=clock)
    kept, stale = bytes([1]) * 16, bytes([2]) * 16
    store.keep(kept, DIGEST_A, [ONE])
    store.keep(stale, DIGEST_A, [TWO])
    for game in (kept, stale):  # written at the clock's time
        path = tmp_path / f"{game.hex()}.secret"
        os.utime(path, (clock.now, clock.now))
    (tmp_path / "notes.txt").write_text("not ours")
    os.utime(tmp_path / "notes.txt", (0, 0))
    clock.now += MAX_AGE - 60
    assert store.kept(kept, DIGEST_A) == [ONE]  # a rejoin: in use, its age starts again
    clock.now += 120  # the other one is now older than MAX_AGE
    assert GameSecrets(tmp_path, now=clock).directory == tmp_path  # opening sweeps
    assert not (tmp_path / f"{stale.hex()}.secret").exists()
    assert (tmp_path / f"{kept.hex()}.secret").exists()
    assert (tmp_path / "notes.txt").exists(), "the sweep deletes only game secrets"
    clock.now += MAX_AGE
    assert store.sweep() == [kept]
    store.forget(kept)  # nothing left to forget: no error


def test_the_end_of_a_game_forgets_its_secret(tmp_path):
    store = GameSecrets(tmp_path)
    store.keep(GAME, DIGEST_A, [ONE])
    store.forget(GAME)
    assert not list(tmp_path.iterdir())
    assert store.kept(GAME, DIGEST_B) is None  # a forgotten id binds nothing


# -- draws bound to the chain ----------------------------------------------------------------------

def test_draws_are_the_same_at_the_same_head_and_unrelated_at_another():
    head = [b"h" * 32]
    key = bytes(32)
    live, replay = chained(key, lambda: head[0]), chained(key, lambda: head[0])
    first = [live(32), live(12)]
    assert [replay(32), replay(12)] == first, "a replay draws what the live game drew"
    head[0] = b"i" * 32
    forked = chained(key, lambda: head[0])
    assert forked(32) not in first and live(32) not in first
    # a 12-byte draw is no prefix of a 32-byte one at the same place
    assert chained(key, lambda: b"h" * 32)(12) != first[0][:12]
    assert chained(bytes([1]) * 32, lambda: b"h" * 32)(32) != first[0]


# -- over sockets ---------------------------------------------------------------------------------

def identities(n):
    rnd = seeded(b"fresh identities")
    return [Identity(rnd(32), rnd(32)) for _ in range(n)]


def make_peer(port, identity, seat, tmp_path, **options) -> Peer:
    return Peer(("127.0.0.1", port), identity, BotPlayer("basic", random.Random(seat)),
                name=f"bot{seat}", store=GameSecrets(tmp_path / f"seat{seat}"), timeout=10,
                reconnect=False, **options)


async def play_until(host: Host, tmp_path, done) -> tuple[dict, list[Peer]]:
    """Seat three bots (secrets under ``tmp_path``) at ``host``; stop the game (as a host that
    just stops) once ``done(host, outcomes)``; each seat's outcome (its result or its PeerError)
    and the peers."""
    outcomes: dict[int, object] = {}
    peers = []
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)
        for seat, identity in enumerate(identities(3)):
            peer = make_peer(port, identity, seat, tmp_path)
            peers.append(peer)            # the next peer connects once this one is seated: it takes the next seat
            await start_seated(nursery, peer, seat, kept_in(outcomes, seat, peer))
        await until(lambda: done(host, outcomes), done.__doc__ or "the test's end",
                    seconds=50)
        nursery.cancel_scope.cancel()
    return outcomes, peers


def in_round_one(host, outcomes):
    """the game in round 1's play"""
    public = host.public
    return public is not None and public.round == 1 and public.public.phase is Phase.PLAY


def all_refused(host, outcomes):
    """every seat's run ended"""
    return len(outcomes) == 3


async def stopped_game_a(tmp_path) -> StartGame:
    """Game A, stopped by its host in round 1: every seat's secret of it is left on disk."""
    host = Host(HostConfig(players=3, rules=RULES, claim_timeout=2, audit_timeout=7,
                           random=seeded(b"game A")))
    with trio.fail_after(60):
        await play_until(host, tmp_path, in_round_one)
    assert (tmp_path / "seat0" / f"{host.start.game_id.hex()}.secret").exists()
    return host.start


def secrets_of(tmp_path):
    return {p: p.read_bytes() for p in sorted(tmp_path.glob("seat*/*.secret"))}


@pytest.mark.parametrize("forgery", ["A's game id", "A's nonces"])
async def test_a_host_that_starts_a_game_under_a_stopped_game_s_id_is_refused(
        tmp_path, monkeypatch, forgery):
    """Game B under game A's id: with B's own nonces the id does not commit to them; with A's
    nonces (the id recomputes) the seat's nonce is not the one of its new hello.  Every seat
    refuses, naming the host; nothing of game B is sent; A's secrets are untouched."""
    a = await stopped_game_a(tmp_path)
    kept = secrets_of(tmp_path)

    def forged_start(**fields):
        if forgery == "A's game id":
            fields["game_id"] = a.game_id
        else:
            fields.update(game_id=a.game_id, host_nonce=a.host_nonce, nonces=a.nonces)
        return StartGame(**fields)

    monkeypatch.setattr(lobby_module, "StartGame", forged_start)
    b = Host(HostConfig(players=3, rules=RULES, random=seeded(b"game B")))
    with trio.fail_after(60):
        outcomes, _ = await play_until(b, tmp_path, all_refused)
    assert b.start.game_id == a.game_id and b.history.messages == [], "a step of game B was sent"
    why = ("does not commit to the seats' nonces" if forgery == "A's game id"
           else "does not give seat {} the nonce of our hello")
    for seat, outcome in outcomes.items():
        assert isinstance(outcome, PeerError), outcome
        assert f"refusing the game the host {b.identity.fingerprint} started" in str(outcome)
        assert why.format(seat) in str(outcome)
    assert secrets_of(tmp_path) == kept


async def test_a_host_that_rejoins_a_seat_to_another_start_of_its_game_id_is_refused(tmp_path):
    """Game B "resumed" under game A's id and nonces, its start changed (another claim timeout):
    the seat rejoins with its key, and its secret of A, bound to A's start digest, is not used:
    the host is named for reusing the id, and nothing of B is sent."""
    a = await stopped_game_a(tmp_path)
    kept = secrets_of(tmp_path)
    b_start = dataclasses.replace(a, claim_timeout=0.5)

    class ResumingHost(Host):
        def __init__(self, config):
            super().__init__(config)
            self.lobby.start, self.sequencer.public = b_start, PublicTable(b_start)
            self.started.set()

    b = ResumingHost(HostConfig(players=3, rules=RULES, random=seeded(b"game B")))
    outcomes = {}
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(b.run, listeners)
            try:
                await make_peer(port, identities(3)[0], 0, tmp_path).run()
            except PeerError as error:
                outcomes[0] = error
            nursery.cancel_scope.cancel()
    assert "the host is reusing a game id" in str(outcomes[0])
    assert b.history.messages == [] and secrets_of(tmp_path) == kept


async def test_every_seat_checks_the_game_id_and_sees_the_host_s_limits(tmp_path):
    """An honest host: the id commits to its nonce and each seat's hello nonce, and the game
    goes on; every seat's table shows the claim and audit timeouts of ``start_game``."""
    host = Host(HostConfig(players=3, rules=RULES, claim_timeout=2, audit_timeout=7,
                           random=seeded(b"honest")))
    with trio.fail_after(60):
        _, peers = await play_until(host, tmp_path, in_round_one)
    start = host.start
    assert start.game_id == game_id_of(start.host_nonce, start.nonces)
    assert [c.hello.nonce for c in host.seats] == list(start.nonces)
    assert len(set(start.nonces + (start.host_nonce,))) == 4
    for table in [host.public] + [peer.table for peer in peers]:
        assert table.fault is None and table.round == 1
        assert (table.claim_timeout, table.audit_timeout) == (2.0, 7.0)


async def test_a_player_s_hello_without_a_nonce_is_refused():
    host = Host(HostConfig(players=3, random=seeded(b"no nonce")))
    me = identities(1)[0]
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            conn = Connection(CLIENT)
            await stream.send_all(conn.send(Hello(
                protocol="shanghai-net", version=PROTOCOL_VERSION, name="old", sign_key=me.sign_public,
                box_key=me.box_public, join_code="", role="player")))
            answer = None
            while answer is None:
                event = conn.next_event()
                if event is NEED_DATA:
                    conn.receive_data(await stream.receive_some(conn.room))
                else:
                    answer = event
            assert isinstance(answer, Refused) and answer.code == "bad_message"
            assert "nonce" in answer.reason and host.seats == [None, None, None]
            await stream.aclose()  # the host's close of the connection waits for our end
            nursery.cancel_scope.cancel()


# -- the command line -----------------------------------------------------------------------------

def test_verify_of_an_empty_file_says_it_is_no_record(tmp_path, capsys):
    from shanghai_net.cli import main

    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with pytest.raises(SystemExit) as info:
        main(["verify", str(empty)])
    assert info.value.code == 2 and "not a record" in capsys.readouterr().err


def test_host_will_not_record_into_a_file_that_holds_another_game(tmp_path, capsys):
    """``--record`` appends: a file with another game in it is refused (and left alone) unless
    it is the game being resumed; an empty or new file is fine."""
    from shanghai_net.cli import main
    from shanghai_net.cli.records import check_record

    other = tmp_path / "other.transcript"
    other.write_bytes(SAMPLE.read_bytes())
    with pytest.raises(SystemExit) as info:
        # (99 players: were the file not refused first, the host would refuse the table)
        main(["host", "--no-console", "--fresh-identity", "--players", "99", "--bind",
              "127.0.0.1", "--port", "0", "--record", str(other)])
    assert info.value.code == 2 and "already holds a game" in capsys.readouterr().err
    assert other.read_bytes() == SAMPLE.read_bytes()
    with pytest.raises(ValueError, match="already holds a game"):
        check_record(other, SAMPLE)
    check_record(other, other)  # --resume FILE (and --record FILE) goes on with its own game
    empty = tmp_path / "empty.transcript"
    empty.write_bytes(b"")
    check_record(empty, None)
    check_record(tmp_path / "new.transcript", None)
