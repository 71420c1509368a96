"""No one can freeze a table: each flood of issue 10 over real sockets (127.0.0.1, port 0), run
against a one-round game of three bot seats.  In each, the game finishes, no honest seat is
dropped, and the attacker gets the error (or the closing) the host's budgets promise
(docs/protocol.md 9.1).  The budgets themselves are tested first, with a hand-moved clock."""

from __future__ import annotations

import math
import random

import trio

from shanghai_net.deal import seeded
from shanghai_net.engine.moves import DrawStock
from shanghai_net.identity import Identity
from shanghai_net.table.bodies import move_to_body
from shanghai_net.net.budget import Budget, Limits, TokenBucket, Verdict
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.sequencer import check_body
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.net.player import BotPlayer
from shanghai_net.wire import (CLIENT, NEED_DATA, Connection, ConnectionClosed, RemoteProtocolError,
                               encode_frame)
from shanghai_net.wire.messages import (PROTOCOL_VERSION, Chat, DealerPick, GameMessage, Hello, LobbyState,
                                        PassClaim, Refused, StartGame, VoidRound)
from shanghai_net.wire.signing import sign_wire

from seating import start_seated
from test_net_rejoin import HeldBot

ONE_ROUND = {"contracts": [[2, 0]]}
LIMITS = Limits(message_rate=10, message_burst=20, byte_rate=1000, byte_burst=2000, chat_rate=1,
                chat_burst=3, stale_rate=1, stale_burst=5, patience=4)


# -- the budgets, by hand ------------------------------------------------------------------------

def test_a_bucket_refills_at_its_rate_up_to_its_burst():
    bucket = TokenBucket(rate=2, burst=3)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.5) and not bucket.take(0.5)  # one token back in half a second
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False]  # never over 3


def test_bytes_over_budget_are_paced_not_refused():
    budget = Budget(LIMITS)
    assert budget.read(0.0, 2000) == 0.0  # the burst: read on at once
    assert budget.read(0.0, 500) == 0.5  # 500 bytes of debt at 1000 a second
    assert budget.read(0.5, 1000) == 1.5


def test_messages_over_budget_are_told_once_then_dropped_then_closed():
    budget = Budget(LIMITS)
    assert all(budget.message(0.0) is Verdict.PASS for _ in range(20))
    assert budget.message(0.0) is Verdict.TELL
    assert budget.message(0.0) is Verdict.DROP
    assert budget.message(0.1) is Verdict.PASS  # slowed down: a token came back
    assert budget.message(0.1) is Verdict.TELL  # over again: told again
    assert [budget.message(0.1) for _ in range(2)] == [Verdict.DROP, Verdict.ABUSE]  # 5 > 4


def test_chat_has_its_own_smaller_budget_and_a_few_stale_answers_are_normal():
    budget = Budget(LIMITS)
    assert [budget.chat(0.0) for _ in range(4)] == [Verdict.PASS] * 3 + [Verdict.TELL]
    assert budget.message(0.0) is Verdict.PASS
    assert [budget.stale(0.0) for _ in range(6)] == [False] * 5 + [True]
    assert not budget.stale(1.0)


def test_a_slow_reader_misses_chat_and_lobby_states_but_not_the_game():
    host = Host(HostConfig(players=3, queue=4))
    client = host.connections.new_client(stream=None)
    for i in range(10):
        assert client.queue(Chat(text=f"hi {i}", name="x")) == (i < 4)
    lobby = [LobbyState(seats=(), preset="davis", rules={}, join_code=str(i)) for i in range(3)]
    assert client.queue(lobby[0]) is False and client.connected
    client.outq.popleft()
    assert client.queue(lobby[1]) and client.queue(lobby[2])  # the newer replaces the older
    assert [m for m in client.outq if isinstance(m, LobbyState)] == [lobby[2]]
    assert client.connected
    start = StartGame(game_id=bytes(16), host_nonce=bytes(32), nonces=(), seats=(),
                      preset="davis", rules={}, claim_timeout=10.0, audit_timeout=60.0,
                      first_dealer_pick=DealerPick(method="coin_flip"))
    assert client.queue(start) is False and not client.connected


def padded(sign_key, start: bytes, seat: int, body, pad: bytes) -> GameMessage:
    """``body`` signed by ``seat`` (of the game whose start digest is ``start``) with an unknown
    field ``pad``, under a counter far ahead (the answer to it must not be taken for the answer
    to the seat's next real move)."""
    wire = {**body.to_wire(), "pad": pad}
    return GameMessage.from_wire(sign_wire(sign_key, start, seat, 1005, wire))


def test_a_body_may_carry_a_little_it_does_not_define_but_not_much():
    config = HostConfig(players=3)
    caps = config.max_body, config.max_unknown

    key = Identity(bytes(range(32)), bytes(32)).sign_key
    check_body(padded(key, bytes(32), 1, PassClaim(), b"n" * 900), b"", *caps)  # within max_unknown
    for pad, words in ((b"n" * 2000, "more than its known fields need"),
                       (b"n" * 70_000, "over the host's cap of 65536")):
        try:
            check_body(padded(key, bytes(32), 1, VoidRound(round=1, seat=2), pad), b"", *caps)
        except RemoteProtocolError as error:
            assert error.code == "bad_message" and words in error.reason and \
                error.ref_counter == 1005
        else:
            raise AssertionError(f"a body padded with {len(pad)} bytes was let through")


# -- floods over sockets -------------------------------------------------------------------------

class Raw:
    """A connection driven by hand, as an attacker would: a hello, then whatever it likes."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.conn = Connection(CLIENT)
        self.got: list = []

    @classmethod
    async def spectator(cls, port: int, name: str = "mallory") -> Raw:
        raw = cls(await trio.open_tcp_stream("127.0.0.1", port))
        me = Identity(bytes(range(32)), bytes(range(1, 33)))
        await raw.stream.send_all(raw.conn.send(Hello(
            protocol="shanghai-net", version=PROTOCOL_VERSION, name=name, sign_key=me.sign_public,
            box_key=me.box_public, join_code="", role="spectator")))
        await raw.next("welcome", "refused")
        return raw

    async def send(self, data: bytes) -> None:
        """Send ``data``; a host that has closed on us is no failure (read what it said)."""
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async def next(self, *types: str):
        """The next message of one of ``types``; None once the host has closed."""
        while True:
            try:
                event = self.conn.next_event()
            except RemoteProtocolError:
                return None
            if event is NEED_DATA:
                try:
                    data = await self.stream.receive_some(self.conn.room)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    data = b""
                self.conn.receive_data(data)
                continue
            if isinstance(event, ConnectionClosed):
                return None
            self.got.append(event)
            if event.TYPE in types:
                return event

    async def codes_until_closed(self) -> list[str]:
        """The codes of every error the host sends until it closes the connection."""
        while await self.next("error") is not None:
            pass
        return [m.code for m in self.got if m.TYPE == "error"]


async def run_peer_to_its_end(peer):
    """Run ``peer``; a peer that fails (a flooder closed for good) keeps why in ``failed``."""
    try:
        await peer.run()
    except PeerError as error:
        peer.failed = str(error)


async def run_table(attack, player=None, hold=True, peer_types=None, **config):
    """A one-round game between three bot seats, ``peers[i]`` seated at seat i (``player``:
    seat 0's player; ``peer_types``: seat -> its `Peer` class, `Peer` by default) while
    ``attack(host, port)`` runs beside it; returns the host, the peers, and which connection
    each seat had when the game started, once the game is over and the attack has ended.  With
    ``hold``, the bots make no move in the play phase until the attack has ended, so the game
    cannot end (and close the attacker's connection with its ``bye``) before the attack has run
    its course."""
    host = Host(HostConfig(players=3, rules=ONE_ROUND, claim_timeout=2,
                           random=seeded(b"flood"), **config))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    keys = seeded(b"flood seats")
    peers = []
    go = trio.Event()
    if not hold:
        go.set()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run, listeners)
        for i in range(3):
            bot = player if i == 0 and player is not None else HeldBot(i, go)
            peer_type = (peer_types or {}).get(i, Peer)
            peers.append(peer_type(("127.0.0.1", port), Identity(keys(32), keys(32)), bot,
                                   name=f"bot{i}", random=seeded(b"flood peer %d" % i),
                                   timeout=20, retry_delays=(0.05, 0.1, 0.2, 0.5, 1, 1, 1),
                                   void_after=600))
            await start_seated(nursery, peers[i], i, lambda i=i: run_peer_to_its_end(peers[i]))
        await host.started.wait()
        seated = list(host.seats)
        async with trio.open_nursery() as attackers:
            attackers.start_soon(attack, host, port)
        go.set()
        for peer in peers:
            peer.nudge()
    return host, peers, seated


async def seat_only(host, port):
    """No attack beside the table: the attacker is seat 0 itself."""


def assert_finished_without_dropping(host, peers, seated, honest=(1, 2)):
    public = host.public
    assert public.fault is None and public.finished
    for peer in peers:
        assert peer.status == "over" and peer.table.finished and peer.table.fault is None
        assert peer.table.chain.head == public.chain.head
    for seat in honest:
        assert host.seats[seat] is seated[seat], f"seat {seat} was dropped"


async def test_a_chat_burst_from_a_spectator_is_dropped_and_it_is_closed():
    said = {}

    async def attack(host, port):
        raw = await Raw.spectator(port)
        await raw.send(b"".join(encode_frame({"type": "chat", "text": f"spam {i}"}) for i in range(1500)))
        said["codes"] = await raw.codes_until_closed()

    with trio.fail_after(120):
        host, peers, seated = await run_table(attack)
    assert said["codes"] == ["rate_limited", "abuse"]
    assert_finished_without_dropping(host, peers, seated, honest=(0, 1, 2))
    for peer in peers:  # the burst allowed, relayed; the rest dropped at the host
        assert len(peer.chat) <= HostConfig.chat_burst + 1


class StaleFlooder(BotPlayer):
    """Seat 0: once the game is under way, sends a burst of stale game messages (each looks
    like an answer that lost a race), then plays on honestly once the host has closed it."""

    def __init__(self, count: int) -> None:
        super().__init__("basic", random.Random(0))
        self.count = count
        self.sent = False
        self.codes: list[str] = []

    def extra(self, table, outbox):
        if self.sent or table.chain.next_seq < 20:
            return []
        self.sent = True
        old = GameMessage(author=table.seat, counter=0, body=move_to_body(DrawStock(table.seat)),
                          sig=bytes(64))
        return [old] * self.count

    def on_error(self, error) -> None:
        self.codes.append(error.code)


async def test_a_stale_flood_counts_towards_abuse():
    flooder = StaleFlooder(count=2 * int(HostConfig.stale_burst))
    refusals: list[Refused] = []
    refused = trio.Event()

    class ComesBack(Peer):
        """Seat 0: keeps what the host answers when it comes back after being closed."""

        async def _on_message(self, link, msg) -> None:
            if isinstance(msg, Refused):
                refusals.append(msg)
                refused.set()
            await super()._on_message(link, msg)

    class VotesOnceRefused(Peer):
        """An honest seat that votes seat 0 gone only once seat 0 has come back and been
        refused: a vote at once (the seat has left) could let the stand-in take the seat, and
        the game end, before seat 0's first retry reaches the host."""

        def _vote_due(self) -> float:
            return super()._vote_due() if refused.is_set() else math.inf

    async def until_refused(host, port):
        with trio.fail_after(60):
            await refused.wait()

    with trio.fail_after(120):
        # the message budget out of the way: the stale budget is what stops this flood
        host, peers, seated = await run_table(
            until_refused, player=flooder, message_burst=10**6,
            peer_types={0: ComesBack, 1: VotesOnceRefused, 2: VotesOnceRefused})
    assert "abuse" in flooder.codes, flooder.codes[-5:]
    before = flooder.codes[:flooder.codes.index("abuse")]
    assert before.count("stale") >= HostConfig.stale_burst
    # a seat closed for abuse has left the game: its key refused when it comes back, its round
    # voided by the others' votes, the seat played on by the host's stand-in (not refused: its
    # keys are its own), the contract dealt again, the game played to its end; no honest seat
    # dropped
    assert peers[0].seat == 0 and peers[0].identity.sign_public in host.barred
    assert [(r.code, r.reason) for r in refusals] == \
        [("abuse", "seat 0 was closed for abuse: it may not come back to this game")]
    assert peers[0].failed == f"refused: abuse: {refusals[0].reason}"
    public = host.public
    assert public.fault is None and public.finished and public.left == [(1, 0)]
    assert 1 not in public.void_votes  # the votes of seats 1 and 2 carried, and are spent
    assert public.holders[0].kind == "bot" and public.holders[0].before.sign_key == \
        peers[0].identity.sign_public
    (stand_in,) = host.stand_ins
    assert stand_in.status == "over" and stand_in.table.game.result == public.public.result
    for peer in peers[1:]:
        assert peer.status == "over" and peer.table.left == [(1, 0)] and peer.table.fault is None
    assert host.seats[1] is seated[1] and host.seats[2] is seated[2]


async def test_big_frames_are_refused_and_their_senders_closed():
    said = {}

    async def integers(port):
        raw = await Raw.spectator(port, "ints")
        big = encode_frame({"type": "numbers", "n": list(range(100)) * 600})  # 60 KiB, under the cap
        for _ in range(HostConfig.abuse_limit + 5):
            await raw.send(big)
        said["ints"] = await raw.codes_until_closed()

    async def huge(port):
        raw = await Raw.spectator(port, "huge")
        await raw.send(encode_frame({"type": "numbers", "n": list(range(100)) * 2000}))  # 200 KB
        said["huge"] = await raw.codes_until_closed()

    async def attack(host, port):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(integers, port)
            nursery.start_soon(huge, port)

    with trio.fail_after(120):
        host, peers, seated = await run_table(attack)
    assert said["huge"] == ["frame_too_large"]
    assert said["ints"][-1] == "abuse" and said["ints"].count("unknown_message") > 20
    assert_finished_without_dropping(host, peers, seated, honest=(0, 1, 2))


async def test_spectators_past_the_cap_are_refused_and_idle_ones_hold_nothing_up():
    answers = []
    done = trio.Event()

    async def attack(host, port):
        async with trio.open_nursery() as nursery:
            async def watcher(i):
                raw = await Raw.spectator(port, f"watcher{i}")
                answers.append(raw.got[-1])
                await done.wait()  # connected, reading nothing more
                await raw.stream.aclose()

            for i in range(HostConfig.max_spectators + 8):
                nursery.start_soon(watcher, i)
            while len(answers) < HostConfig.max_spectators + 8:
                await trio.sleep(0.01)
            await host.done.wait()
            done.set()

    with trio.fail_after(120):
        host, peers, seated = await run_table(attack, hold=False)  # it watches the game out
    refused = [a for a in answers if a.TYPE == "refused"]
    assert sum(a.TYPE == "welcome" for a in answers) == HostConfig.max_spectators
    assert len(refused) == 8
    assert all(a.code == "table_full" and "spectators" in a.reason for a in refused)
    assert_finished_without_dropping(host, peers, seated, honest=(0, 1, 2))


class Padder(BotPlayer):
    """Seat 0: at its first decisions, sends its move padded with an unknown field (20 KB,
    three times; then 200 KB, over the host's frame cap), then plays on honestly."""

    PADS = (20_000, 20_000, 20_000, 200_000)

    def __init__(self) -> None:
        super().__init__("basic", random.Random(0))
        self.sent = 0
        self.errors: list = []

    def extra(self, table, outbox):
        if self.sent >= len(self.PADS) or not table.can_move() or table.chain.next_seq < 10:
            return []
        self.sent += 1
        return [padded(outbox.sign_key, table.chain.start, table.seat,
                       VoidRound(round=table.round, seat=1), b"p" * self.PADS[self.sent - 1])]

    def on_error(self, error) -> None:
        self.errors.append(error)


async def test_padded_bodies_are_refused_before_they_are_sequenced():
    padder = Padder()

    with trio.fail_after(120):
        host, peers, seated = await run_table(seat_only, player=padder)
    refused = [e for e in padder.errors if e.code == "bad_message"]
    assert len(refused) == 3 and all("known fields need" in e.reason for e in refused)
    assert "frame_too_large" in [e.code for e in padder.errors]
    assert not any(b"p" * 1000 in frame for frame in host.history.frames)
    assert max(map(len, host.history.frames)) < 30_000
    assert_finished_without_dropping(host, peers, seated)
