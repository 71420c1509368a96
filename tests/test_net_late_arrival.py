"""A late arrival is offered a seat it may take (protocol.md 11.8, once a game), over real
sockets: seat 1's program is killed in round 2 and its first holder takes the seat back from
the host's stand-in (its bot plays it on: the seat was given back, and only a stand-in takes it
now); seat 2's is killed after, and the host's stand-in plays it.  A person who arrives then is
proposed for seat 2, not refused for seat 1, the lowest seat a bot plays; a second person, with
no seat left that a person may take, is refused and told why."""

from __future__ import annotations

import trio

from shanghai_net.cli.spectate import may_watch_instead
from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.peer import PeerError

from seating import kept_in, until
from test_net_rejoin import identities, in_round, make_peer, table_of_three
from test_net_takeback import HELD, HoldsRound, proposed_and_approved, release

RULES = {"contracts": [[2, 0]] * 5}
"""Deals 1, 2 (voided), 3 (seat 1's stand-in's), 4 (seat 1's first holder's, voided), 5 (seat
2's stand-in's), then the late arrival's to the end."""

LATE = HELD + 2
"""The deal seat 2's stand-in plays, which seat 0's player holds until the late arrival's
proposal has every approval."""


class HoldsTwoRounds(HoldsRound):
    """Seat 0's player: it holds round `HELD` until ``gate``, and round `LATE` until
    ``later``."""

    def __init__(self, gate: trio.Event, later: trio.Event) -> None:
        super().__init__(gate, HELD, 0)
        self.later = later

    def choose(self, table):
        if table.round == LATE and not self.later.is_set():
            return None
        return super().choose(table)


async def gone(host, voter, seat):
    """``seat`` was killed: seat 0 votes it gone by itself, ``voter`` by hand."""
    public = host.public
    round_no = public.round
    await until(lambda: public.void_votes.get(round_no) == {0},
                f"seat 0's vote that seat {seat} left round {round_no}", seconds=60)
    assert voter.vote_void(seat)


async def test_a_late_arrival_is_offered_a_stand_in_s_seat_past_one_given_back(tmp_path):
    gate, later = trio.Event(), trio.Event()
    killed = {1: trio.CancelScope(), 2: trio.CancelScope()}
    first = identities(3)[1]
    rnd = seeded(b"late past a seat given back")
    late_key, other_key = Identity(rnd(32), rnd(32)), Identity(rnd(32), rnd(32))
    ends = {}
    with trio.fail_after(240):
        async with table_of_three(tmp_path, b"la1", RULES,
                                  {0: {"void_after": 0.3, "player": HoldsTwoRounds(gate, later)}},
                                  killed) as (host, port, peers, results, nursery):
            public = host.public
            await until(lambda: in_round(host, 2), "round 2 under way", seconds=60)
            killed[1].cancel()
            await gone(host, peers[2], 1)
            await until(lambda: public.stand_in(1) and public.round == HELD,
                        "the stand-in seated in seat 1 for round 3", seconds=60)
            back = make_peer(port, first, 1, tmp_path)
            nursery.start_soon(kept_in(ends, "back", back))
            await release(host, peers, gate, 1, first.sign_public)
            await until(lambda: in_round(host, HELD + 1) and
                        public.holders[1].sign_key == first.sign_public,
                        "seat 1's first holder playing it again", seconds=90)
            assert public.given_back(1) and public.up_for_taking(1)

            killed[2].cancel()
            await gone(host, back, 2)
            await until(lambda: public.stand_in(2) and public.round == LATE,
                        "the stand-in seated in seat 2", seconds=60)
            late = make_peer(port, late_key, 7, tmp_path, role="player")
            late.name = "late"
            nursery.start_soon(kept_in(ends, "late", late))
            await until(lambda: "late" in ends or proposed_and_approved(host, 2,
                                                                        late_key.sign_public),
                        "the late arrival proposed for seat 2, or refused", seconds=60)
            assert "late" not in ends, ends["late"]
            try:
                await make_peer(port, other_key, 8, tmp_path, role="player").run()
            except PeerError as error:
                refused = error
            assert public.round == LATE, "the held round went on"
            later.set()
            peers[0].nudge()
            await until(lambda: "late" in ends, "the late arrival's game over", seconds=120)
    assert not isinstance(ends["late"], PeerError), ends["late"]
    assert public.fault is None and public.finished
    holder = public.holders[2]
    assert holder.sign_key == late_key.sign_public and holder.since == LATE + 1, holder
    assert late.result.table.game.result == public.public.result
    assert "refused: table_full" in str(refused), refused
    assert refused.words == (
        "the host refused: the game at this table has started without you, and no seat of it is "
        "free for you: seat 1 was given back to a player once already this game, so only the "
        "host's bots take it now; you may watch the game: shanghai watch HOST (add --table NAME "
        "at a named table), or sit at another table of this host (shanghai join HOST --table "
        "NAME), or open one (--table NAME --open)"), refused.words
    assert may_watch_instead(refused.words)
