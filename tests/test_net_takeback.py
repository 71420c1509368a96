"""A seat that changes hands and comes back, over real sockets (protocol.md 11.8): a seat's
first holder takes it back from the host's stand-in bot at a later round's start, whether its
program was killed and started again with its kept identity or its connection stayed away with
the seat's table in memory; a person who arrives once the game has started takes a stand-in's
seat; a person's seat is not taken back.  The game is held in the stand-in's round by seat 0's
player until the proposal has every approval, so the newcomer's round is the next one however
fast the machine plays."""

from __future__ import annotations

import random

import trio

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Replace

from seating import kept_in, until
from test_net_rejoin import identities, in_round, make_peer, table_of_three

RULES = {"contracts": [[2, 0]] * 3}  # rounds 1, 2 (voided), 3 (the stand-in's), 4
HELD = 3
"""The stand-in's round, which seat 0's player holds until the proposal is approved."""


class HoldsRound(BotPlayer):
    """A bot that makes no decision in round ``held`` until ``gate`` is set."""

    def __init__(self, gate: trio.Event, held: int, seed: int) -> None:
        super().__init__("basic", random.Random(seed))
        self.gate, self.held = gate, held

    def choose(self, table):
        if table.round == self.held and not self.gate.is_set():
            return None
        return super().choose(table)


class KeptAway(Peer):
    """A peer whose connections after the first wait for ``back``: a laptop whose network is
    gone until the test says (its tables stay in memory)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.back = trio.Event()
        self.connections = 0

    async def _connection(self) -> None:
        self.connections += 1
        if self.connections > 1:
            await self.back.wait()
        await super()._connection()


def killer(scope):
    async def kill():
        scope.cancel()  # the process dies: its tables and connection are gone
    return kill


def options(gate, more=None):
    """Seat 0 holds round `HELD` until ``gate``, and votes a seat gone by itself;
    ``more``: seat -> more options."""
    return {0: {"void_after": 0.3, "player": HoldsRound(gate, HELD, 0)}, **(more or {})}


def proposed_and_approved(host, seat, key) -> bool:
    """The host's proposal of ``key`` for ``seat`` is sequenced and has every approval."""
    public = host.public
    return any(p.body.seat == seat and p.body.sign_key == key and not public.needed(p)
               for p in public.proposals.values())


async def stand_in_seated(host, peers, gone):
    """Seat 2 goes in round 2 (``await gone()``); seat 0 votes it gone by itself and seat 1
    by hand once it has (a seat that votes by itself after 0.3 s, alone, is no majority: a
    newcomer that catches up with the game for longer is not voted out), and the host's
    stand-in takes it at round 3's deal."""
    await until(lambda: in_round(host, 2), "round 2 under way", seconds=60)
    await gone()
    await until(lambda: host.public.void_votes.get(2) == {0}, "seat 0's vote that seat 2 left")
    assert peers[1].vote_void(2)
    await until(lambda: host.public.holders[2].kind == "bot" and host.public.round == HELD,
                "the stand-in bot seated for round 3", seconds=60)


async def release(host, peers, gate, seat, key):
    """Let the held round go on once the host's proposal of ``key`` has every approval."""
    public = host.public
    await until(lambda: proposed_and_approved(host, seat, key),
                "the proposal sequenced, with every seat's approval", seconds=60,
                state=lambda: f"round {public.round}, proposals "
                f"{[(p.body.seat, p.body.name, p.approvals) for p in public.proposals.values()]}"
                f", voted gone {public.left}, holders "
                f"{[f'{h.describe()} from {h.since}' for h in public.holders]}")
    assert host.public.round == HELD, "the held round went on"
    gate.set()
    peers[0].nudge()


def assert_taken_back(host, peer, key, since):
    """``peer`` (of ``key``) played seat 2 from round ``since`` to the end, as every party
    agrees, and the stand-in stopped when the stream unseated it."""
    public = host.public
    assert public.finished and public.fault is None and not public.vacant
    holder = public.holders[2]
    assert holder.sign_key == key and holder.since == since, holder
    assert holder.before.kind == "bot" and holder.before.before.sign_key == key
    table = peer.result.table
    assert table.seat == 2 and table.finished and table.fault is None
    assert table.verdicts[since].clean and table.game.result == public.public.result
    assert table.chain.head == public.chain.head
    (bot,) = host.stand_ins
    assert bot.status == "over" and "seat 2 is played by" in bot.result.unseated


async def test_a_killed_first_holder_starts_again_and_takes_its_seat_back_from_the_stand_in(
        tmp_path):
    """Seat 2's program is killed in round 2; the table votes it gone and the host's stand-in
    plays round 3.  The program starts again with its kept identity and store: the host
    proposes its keys back, every seat approves (the stand-in too), it follows the game from
    its start and plays seat 2 from round 4's deal to the end; `verify` follows the seat's
    keys to the stand-in's and back."""
    record = tmp_path / "takeback.transcript"
    killed, gate = trio.CancelScope(), trio.Event()
    key = identities(3)[2]
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"tb1", RULES, options(gate), {2: killed},
                                  record=record) as (host, port, peers, results, nursery):
            await stand_in_seated(host, peers, killer(killed))
            back = make_peer(port, key, 2, tmp_path)
            ends = {}
            nursery.start_soon(kept_in(ends, 2, back))
            await until(lambda: back.seat == 2 and back.start is not None,
                        "the first holder let back in to follow the game")
            assert back.table.seat is None, "it follows; it does not replay its old seat"
            await release(host, peers, gate, 2, key.sign_public)
            await until(lambda: 2 in ends, "the first holder's game over", seconds=90)
    assert not isinstance(ends[2], PeerError), ends[2]
    assert_taken_back(host, back, key.sign_public, HELD + 1)
    assert host.public.holders[2].describe() == "bot2"
    summary = verify(read_transcript(record)).summary()
    # the deals are 1, 2 (voided), 3 (round 2 again), 4 (round 3): issue 42 counts rounds
    assert "seat 2 played by bot2 (bot, key" in summary and ") from round 3\n" in summary
    assert "seat 2 played by bot (bot, key" in summary and "from round 2 (dealt again)" in summary
    assert "ok: every move" in summary, summary


async def test_a_first_holder_whose_connection_stayed_away_takes_its_seat_back(tmp_path):
    """Seat 2's connection goes and stays away (its program runs on, the seat's table in
    memory) until the stand-in plays round 3.  When it comes back the host proposes its keys
    and says the seat changed hands: its old table is of no use, so it connects again to follow
    the game from the start, and plays seat 2 from round 4's deal."""
    gate = trio.Event()
    key = identities(3)[2]
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"tb2", RULES, options(gate, {2: {
                "kind": KeptAway}})) as (host, port, peers, results, nursery):
            away = peers[2]
            await stand_in_seated(host, peers, lambda: away._link.stream.aclose())  # the cable
            away.back.set()
            await until(lambda: away.table is not None and away.outbox is None and
                        away.table.seat is None and away.status == "playing",
                        "seat 2 back, following the game to take its seat")
            await release(host, peers, gate, 2, key.sign_public)
            await until(lambda: 2 in results, "seat 2's game over", seconds=90)
    assert_taken_back(host, away, key.sign_public, HELD + 1)
    assert away.connections >= 3  # its first, the one the host said changed hands, the last


async def test_a_late_arrival_takes_the_stand_in_s_seat_and_keeps_it(tmp_path):
    """A person who says hello once the game has started, while a stand-in plays seat 2, is
    proposed for it; the seats and the stand-in approve, and the person plays seat 2 from the
    next deal ("late for bot2").  Then seat 2's first holder, and a second person, are refused:
    the seat is a person's now, and no other is a stand-in's."""
    gate = trio.Event()
    rnd = seeded(b"late arrival")
    late_key = Identity(rnd(32), rnd(32))
    killed = trio.CancelScope()
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"tb3", RULES, options(gate), {2: killed}) as (
                host, port, peers, results, nursery):
            await stand_in_seated(host, peers, killer(killed))
            late = make_peer(port, late_key, 7, tmp_path, role="player")
            late.name = "late"
            ends = {}
            nursery.start_soon(kept_in(ends, "late", late))
            await release(host, peers, gate, 2, late_key.sign_public)
            await until(lambda: host.public.holders[2].sign_key == late_key.sign_public,
                        "the late arrival seated")
            # the host's own check: it signs no proposal every party would name it for (a
            # key that plays another seat), and its table goes on
            await host.propose(1, "twin", "bot", late_key.sign_public,
                               late_key.box_public).wait()
            assert host.public.fault is None and not any(
                isinstance(m.body, Replace) and m.body.seat == 1 for m in host.history.messages)
            refusals = []
            for who, role in ((identities(3)[2], "bot"),
                              (Identity(bytes(32), bytes(32)), "player")):
                try:
                    await make_peer(port, who, 8, tmp_path, role=role).run()
                except PeerError as error:
                    refusals.append(str(error))
            await until(lambda: "late" in ends, "the late arrival's game over", seconds=90)
    assert not isinstance(ends["late"], PeerError), ends["late"]
    public = host.public
    holder = public.holders[2]
    assert holder.kind == "player" and holder.since == HELD + 1
    assert holder.describe() == "late for bot2"
    table = late.result.table
    assert table.finished and table.verdicts[HELD + 1].clean
    assert table.game.result == public.public.result
    assert len(refusals) == 2 and all("table_full" in r for r in refusals), refusals
    assert "seat 2, which you played, is played by late for bot2 now" in refusals[0]
    assert "started without you" in refusals[1]


async def test_a_seat_taken_back_keeps_the_stand_in_s_moves_as_the_stand_in_s(tmp_path):
    """Issue 42, item 7: when carl took his seat back, his console credited him with the
    stand-in's plays ("carl goes out!", "Round 3 over: you went out"), and said "seat 2 was
    handed to you: your program replays the game as it" and "rejoined".  Seat 2's program is
    killed in round 2 and starts again as a console's `NetSession` (its player a bot, so that
    it plays on by itself): its log names whoever held the seat's key at each message, so
    round 3's moves of seat 2 are "bot for bot2"'s and rounds 1, 2 and 4's are "you"; the
    round summary of round 3 names the stand-in; while it follows the game it says it takes
    its seat back, and waits for the next deal."""
    from shanghai_net.console.viewmodel import entry_lines, names_at, round_summary
    from shanghai_net.engine.events import Discarded, RoundEnded, RoundStarted
    from shanghai_net.net.resume import GameSecrets
    from shanghai_net.net.session import NetSession
    from test_net_rejoin import FAST_RETRY

    killed, gate = trio.CancelScope(), trio.Event()
    key = identities(3)[2]
    said: set[str] = set()

    def bot_peer(address, identity, player, **options):  # the console's peer, a bot deciding
        return Peer(address, identity, BotPlayer("basic", random.Random(2)),
                    retry_delays=FAST_RETRY, **options)

    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"tb1", RULES, options(gate), {2: killed}) as (
                host, port, peers, results, nursery):
            await stand_in_seated(host, peers, killer(killed))
            carl = NetSession(("127.0.0.1", port), key, name="bot2", timeout=10,
                              store=GameSecrets(tmp_path / "seat2"), peer_type=bot_peer)
            carl.subscribe(lambda: said.update({carl.watching or "", carl.status}))
            done = trio.Event()

            async def run_carl():
                await carl.run()
                done.set()
            nursery.start_soon(run_carl)
            await until(lambda: carl.peer is not None and carl.peer.seat == 2 and
                        carl.peer.start is not None, "the first holder let back in to follow")
            await release(host, peers, gate, 2, key.sign_public)
            with trio.fail_after(90):
                await done.wait()
    assert carl.table.seat == 2 and carl.table.finished and carl.table.fault is None
    assert host.public.holders[2].sign_key == key.sign_public

    deal, by_deal = 0, {}
    lines = entry_lines(carl.log, carl.seats, 2, rounds=carl.round_numbers)
    for entry, line in zip(carl.log, lines):
        if isinstance(entry.event, RoundStarted):
            deal = entry.event.round_no
        if isinstance(entry.event, Discarded) and entry.event.seat == 2:
            by_deal.setdefault(deal, []).append(line.split(" discard")[0])
    assert {1, HELD, HELD + 1} <= set(by_deal), by_deal  # (killed in deal 2: maybe none there)
    assert set(by_deal[HELD]) == {"bot for bot2"}, by_deal[HELD]  # "bot for bot2 discards 7♥"
    for own in set(by_deal) - {HELD}:
        assert set(by_deal[own]) == {"you"}, (own, by_deal[own])  # "you discard 7♥"
    ended = next(e.event.result for e in carl.log if isinstance(e.event, RoundEnded)
                 and e.event.result.round_no == HELD)
    summary = round_summary(ended, carl.seats, 2, carl.table.rules, rounds=carl.round_numbers,
                            names=names_at(carl.log, ended))
    assert any(line.startswith("2 bot for bot2 ") for line in summary), summary
    assert "you" not in summary[0], summary[0]  # carl's keys played no seat in round 3

    assert any("you take seat 2 back from bot for bot2" in s for s in said), said
    assert "waiting to take seat 2 at the next round's deal" in said, said
    assert not any("handed to you" in s or s == "rejoined" for s in said), said
