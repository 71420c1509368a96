"""Bots play over real sockets (127.0.0.1, port 0): a host, N peers, trustless dealing, every
message signed and sequenced.  A whole game for 4 peers; the first round (dealt, played,
scored and audited) for 3 and 8 peers, to keep the suite quick."""

from __future__ import annotations

import random

import pytest
import trio

from shanghai_net.deal import Participant, seeded
from shanghai_net.deal.generation import Generation
from shanghai_net.engine import Phase
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.transcript import read_transcript
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.public import PublicTable

from seating import start_seated


async def play(players, preset="davis", rounds=None, seed=1, claim_timeout=5.0, player=None,
               watch=None, extra=None, record=None, rules=None, until=None, tables_by_seat=None,
               host_type=Host, void_after=None, identities=None, peer_type=Peer, **config):
    """Host a table and seat ``players`` bot peers; play until the game is over, or until round
    ``rounds`` is audited.  ``tables_by_seat``: seat -> the PeerTable class it runs (a cheat);
    ``host_type``: the Host class (a cheat); ``void_after``: the peers' (`Peer.void_after`);
    ``identities``: a dict to fill with each seat's Identity; ``peer_type``: the Peer class
    every seat runs; ``config``: more HostConfig fields.  Returns the host, the peers' tables and results."""
    rnd = seeded(b"net test %d" % seed)
    host = host_type(HostConfig(players=players, preset=preset, claim_timeout=claim_timeout,
                           random=rnd, record=record, rules=rules or {}, **config))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    tables: dict[int, PeerTable] = {}
    results = {}
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)

        for i in range(players):
            # peer i, started once the host has seated peers 0 to i-1, takes seat i, so that
            # ``player``, ``tables_by_seat`` and ``identities`` are keyed by the seat it got
            bot = (player or {}).get(i) or BotPlayer("basic", random.Random(seed * 100 + i))
            seat_type = type("TestPeer", (peer_type,), {
                "table_type": (tables_by_seat or {}).get(i, PeerTable)})
            identity = Identity(rnd(32), rnd(32))
            if identities is not None:
                identities[i] = identity
            me = seat_type(
                ("127.0.0.1", port), identity, bot, name=f"bot{i}",
                random=seeded(b"peer %d %d" % (seed, i)), timeout=20, void_after=void_after,
                on_table=lambda t: tables.__setitem__(t.seat, t))

            async def run(i=i, me=me) -> None:
                results[i] = await me.run()

            await start_seated(nursery, me, i, run)
        if extra is not None:
            nursery.start_soon(extra, host, port)
        while not host.done.is_set():
            await trio.sleep(0.05)
            if watch is not None:
                watch(host, tables)
            if rounds is not None and host.public is not None and host.public.audited >= rounds \
                    and len(tables) == players and all(t.audited >= rounds
                                                       for t in tables.values()) \
                    and (until is None or until()):
                nursery.cancel_scope.cancel()
    return host, tables, results


def assert_clean(host, tables, rounds):
    public = host.public
    assert public.fault is None
    for seat, table in tables.items():
        assert table.fault is None, (seat, table.fault)
        for round_no in range(1, rounds + 1):
            assert table.verdicts[round_no].clean, (seat, round_no, table.verdicts[round_no])
        assert table.chain.head == public.chain.head or table.chain.next_seq <= \
            public.chain.next_seq


def assert_host_holds_no_hidden_card(host, tables):
    """The host's state holds no face of a card hidden in a hand or the stock: no deal secret
    of any kind, and its replica knows only cards revealed to everyone."""
    public: PublicTable = host.public
    seen = set()

    def walk(value, depth=0):
        if id(value) in seen or depth > 6:
            return
        seen.add(id(value))
        assert not isinstance(value, (Participant, PeerTable)), type(value)
        if isinstance(value, Generation):  # the public record of a shuffle, kept for the audit
            assert (value.seat, value.seed, value.mine, value.received_shares) == \
                (-1, b"", {}, []), \
                "the host's record of a shuffle holds a seat's secret"
        if isinstance(value, dict):
            for item in value.values():
                walk(item, depth + 1)
        elif isinstance(value, (list, tuple, set)):
            for item in value:
                walk(item, depth + 1)
        elif hasattr(value, "__dict__") and type(value).__module__.startswith("shanghai_net"):
            for item in vars(value).values():
                walk(item, depth + 1)

    walk(host)
    game = public.public
    for token, card in game.faces.items():
        if token[0] >= 0:
            assert token in public._revealed, f"the host knows {token} = {card} unrevealed"
    for seat, table in tables.items():
        if table.round != public.round:
            continue
        for token in table.participant.hand():
            assert token not in game.faces, f"the host knows seat {seat}'s hidden {token}"


@pytest.mark.parametrize("players,preset", [(3, "davis"), (8, "marcelle")])
async def test_first_round_over_sockets(players, preset):
    checks = []

    def watch(host, tables):
        if host.public is not None and host.public.public.phase in (Phase.DRAW, Phase.PLAY):
            assert_host_holds_no_hidden_card(host, tables)
            checks.append(1)

    with trio.fail_after(150):
        host, tables, _ = await play(players, preset, rounds=1, watch=watch)
    assert len(tables) == players
    assert_clean(host, tables, 1)
    assert host.public.public.round_no == 2 and host.public.audited == 1
    assert checks, "the host was never checked mid-round"
    assert_host_holds_no_hidden_card(host, tables)


async def test_a_whole_game_between_four_bots_over_sockets(tmp_path):
    """A game of three contracts (CI's acceptance plays whole davis games from the command
    line, every one checked by `verify`)."""
    record = tmp_path / "game.transcript"
    with trio.fail_after(170):
        host, tables, results = await play(4, "davis", record=record,
                                           rules={"contracts": [[2, 0], [1, 1], [0, 2]]})
    rules_rounds = host.rules.rounds
    assert host.public.finished and host.public.public.phase is Phase.OVER
    assert_clean(host, tables, rules_rounds)
    result = host.public.public.result
    for seat, table in tables.items():
        assert table.finished and table.game.result == result
        assert results[seat].table is table
    assert len(result.rounds) == rules_rounds
    assert_host_holds_no_hidden_card(host, tables)
    # the transcript: start_game, then every sequenced message as a frame
    frames = read_transcript(record)
    assert frames[0].TYPE == "start_game" and len(frames) == host.sequenced + 1
    assert [m.seq for m in frames[1:]] == list(range(host.sequenced))
