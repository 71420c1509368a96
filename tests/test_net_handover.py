"""Handing a seat over mid-round (issue 22, protocol.md 11.9), over real sockets on 127.0.0.1:
the holder seals its secrets to a successor watching the game and signs a ``hand_over``; the
successor joins again as the seat, replays the game from its first message as the seat with
those secrets, and plays on from the very turn; from the next deal the seat's cards are sealed
to the successor's own box key, which the one who handed it over cannot open."""

from __future__ import annotations

import random

import trio

from shanghai_net.deal.box import unseal
from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.resume import GameSecrets
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.bodies import parse_deal
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.secret import seal_secrets
from shanghai_net.table.verify import verify
from shanghai_net.wire import messages as wm

from seating import kept_in, until
from test_net_rejoin import FAST_RETRY, assert_finished, in_round, table_of_three

TWO_ROUNDS = {"contracts": [[2, 0], [2, 0]]}


def successor(port, tmp_path, name="bea") -> tuple[Peer, Identity, dict]:
    """A bot peer that watches until a seat is handed to it; and its hand after each message
    once it plays the seat (seq -> the cards it holds, as its own replica shows them)."""
    identity = Identity(bytes([7]) * 32, bytes([8]) * 32)
    hands: dict[int, list] = {}

    def seen() -> None:
        table = peer.table
        if isinstance(table, PeerTable) and not table.game.waiting:
            hands[table.chain.next_seq - 1] = sorted(map(str, table.game.hand(table.seat)))

    peer = Peer(("127.0.0.1", port), identity, BotPlayer("basic", random.Random(7)), name=name,
                role="bot", successor=True, store=GameSecrets(tmp_path / name), timeout=10,
                retry_delays=FAST_RETRY, on_change=seen)
    return peer, identity, hands


def moved_in_round(host, round_no, moves):
    """Round ``round_no`` is under way with ``moves`` moves played in it: mid-round."""
    return in_round(host, round_no) and host.public.public.turns >= moves


async def watching_mid_round(host, port, nursery, tmp_path, ends) -> tuple[Peer, Identity, dict]:
    """bea (`successor`) following the game from its start, run to its end into
    ``ends["bea"]`` (its result, or the PeerError that stopped it); once round 1 is two turns
    in."""
    bea, bea_id, hands = successor(port, tmp_path)
    nursery.start_soon(kept_in(ends, "bea", bea))
    await until(lambda: bea.table is not None, "bea following the game as a spectator")
    await until(lambda: moved_in_round(host, 1, 2), "round 1 two turns in", seconds=60)
    return bea, bea_id, hands


async def test_a_seat_handed_over_mid_round_is_played_on_by_its_successor(tmp_path):
    record = tmp_path / "handed.transcript"
    results = {}
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"hand over", TWO_ROUNDS, record=record,
                                  stand_in=None) as (host, port, peers, seats, nursery):
            bea, bea_id, hands = await watching_mid_round(host, port, nursery, tmp_path, results)
            handing = peers[1]
            own = handing._secrets[-1]
            assert handing.hand_over("bea", "bot", bea_id.sign_public, bea.box_public)
    public = host.public
    assert_finished(host, {s: r for s, r in seats.items() if s != 1})
    assert "we handed seat 1 over: it is played by bea for bot1 now" in seats[1].unseated
    assert not isinstance(results["bea"], PeerError), results["bea"]
    mine = results["bea"].table
    assert mine.seat == 1 and mine.finished and mine.fault is None
    assert mine.game.result == public.public.result and all(v.clean for v in
                                                            mine.verdicts.values())
    holder = public.holders[1]
    assert holder.sign_key == bea_id.sign_public and holder.since == 1
    assert holder.box_key == bea.box_public and holder.before.box_key == own.box_public
    history = host.history.messages
    handed = next(m for m in history if isinstance(m.body, wm.HandOver))
    assert handed.author == 1 and handed.body.sign_key == bea_id.sign_public
    last = seats[1].table  # where the one who handed it over stopped: at the hand-over
    assert last.chain.next_seq == handed.seq + 1
    assert hands[handed.seq] == sorted(map(str, last.game.hand(1))), "the same hand goes on"
    round_two = next(m.seq for m in history if isinstance(m.body, wm.Deal)
                     and m.body.data.get("round") == 2)
    assert any(m.author == 1 and handed.seq < m.seq < round_two for m in history), \
        "the successor played on in the round it was handed"
    boxes = [box for m in history if isinstance(m.body, wm.Deal) and m.body.step == "shares"
             for box in parse_deal(m.body, public.game_id, m.author).sealed
             if box.recipient == 1 and box.context.round == 2]
    assert boxes, "round 2 dealt seat 1 no cards"
    for box in boxes:  # sealed to bea: the one who handed the seat over opens none of them
        unseal(bea._own.box_key, box)
        try:
            unseal(own.box_key, box)
        except ValueError:
            continue
        raise AssertionError("the old holder opened a round-2 box of seat 1")
    report = verify(read_transcript(record))
    assert report.ok, report.summary()
    assert "seat 1 played by bea (bot, key" in report.summary()


VOTING = {0: {"void_after": 0.5}, 2: {"void_after": 0.5}}
"""Seats 0 and 2 vote by themselves to void the round of a seat away that owes a step, as
`shanghai bot` does."""


async def test_a_successor_handed_secrets_it_cannot_open_says_so_leaves_and_the_table_goes_on(
        tmp_path):
    """The holder of seat 1 signs a hand-over to bea whose secrets are sealed to another key
    (the relay, the host and the other seats cannot tell: only bea's box key opens them).  bea
    says which seat's hand-over does not open, leaves the seat, and the table goes on: the seat
    is voted gone (as a seat lost for good: nobody can tell the two apart) and a stand-in plays
    it from the next deal.  Nobody is named a cheat (nothing public proves it) and bea
    opened no card of the seat."""
    record = tmp_path / "garbled.transcript"
    results = {}
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"garbled", TWO_ROUNDS, options=VOTING,
                                  record=record) as (host, port, peers, seats, nursery):
            bea, bea_id, hands = await watching_mid_round(host, port, nursery, tmp_path, results)
            handing = peers[1]
            table = handing.table
            elsewhere = Identity(bytes([9]) * 32, bytes([10]) * 32).box_public
            sealed = seal_secrets(handing._secrets, elsewhere, table.game_id, 1,
                                  bea_id.sign_public, bytes(32))
            handing.outbox.push([wm.HandOver(name="bea", role="bot", sign_key=bea_id.sign_public,
                                             box_key=bea.box_public, sealed=sealed)])
            handing.nudge()
            await until(lambda: "bea" in results, "bea's word on the hand-over", seconds=60)
            await until(lambda: host.public.finished, "the game's end", seconds=60, state=lambda: (
                host.public.holders, host.public.vacant, host.public.owed(),
                host.public.public.phase, host.public.game.to_move(), results,
                [(s, p.absent, p.status) for s, p in peers.items()]))
    error = results["bea"]
    assert isinstance(error, PeerError), error
    assert "the hand-over of seat 1 does not open with our box key" in str(error)
    assert hands == {}, "bea played the seat without its secrets"
    public = host.public
    assert_finished(host, {s: r for s, r in seats.items() if s != 1})
    assert public.holders[1].kind == "bot" and public.holders[1].name == "bot", \
        "a stand-in plays the seat"
    assert public.holders[1].sign_key not in (bea_id.sign_public, peers[1].identity.sign_public)
    [voided] = [e for e in public.public.log if type(e).__name__ == "RoundVoided"]
    assert voided.leaver == 1 and voided.penalty > 0 and voided.goes_on, voided
    report = verify(read_transcript(record))
    assert report.ok, report.summary()
