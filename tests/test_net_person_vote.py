"""A person who never presses V does not hold the table for good: where every vote is needed
(three seats, one lost, a bot and a person; the bot's vote alone carries nothing) the person's
seat votes by itself, as V would, once the console has offered V for ``person_vote_after``
(`PERSON_VOTE_AFTER`) with no key pressed; ``W`` (wait for them) starts the countdown again,
so a person who is there decides.  The rule on a `Peer` with a stand-in table, on trio's clock
as passed in; then over real sockets with our own `Host`, `Peer` and `NetSession`: the person
plays its moves but never votes, and the table finishes."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import trio

from shanghai_net.deal import seeded
from shanghai_net.engine.events import RoundVoided
from shanghai_net.identity import Identity
from shanghai_net.net.config import BOT_VOID_AFTER
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import PersonPlayer
from shanghai_net.net.session import NetSession
from shanghai_net.net.transcript import read_transcript
from shanghai_net.net.voting import PERSON_VOTE_AFTER, STALL_VOTE
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import VoidRound

from seating import start_seated, until
from test_net_rejoin import identities, make_peer
from test_net_session import until as session_until
from test_net_take_over import play_it_out
from test_net_takeback import HoldsRound

AFTER = PERSON_VOTE_AFTER


class Pushed:
    """The outbox's part the vote uses: what was pushed."""

    def __init__(self) -> None:
        self.deal, self.flying, self.pushed = [], [], []

    def push(self, bodies) -> None:
        self.pushed += bodies
        self.deal += bodies


def ann(quit=frozenset(), stalled_since=10.0):
    """Seat 0 of three, a person's: seat 2 owes the deal a step since ``stalled_since`` and
    stays connected (the table waits on it); seat 1 is a bot; ``quit``: seats whose ``leave``
    is sequenced."""
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), PersonPlayer(),
                role="player", person_vote_after=AFTER)
    peer.seat = 0
    peer.table = SimpleNamespace(
        seat=0, share_threshold=None, quitters=lambda: set(quit), vacant={}, unheard=set(),
        silenced={}, idle_silenced=set(), stalled_by=lambda: {2}, finished=False,
        waiting_audit=False, void_target=1, void_votes={1: set()}, still_silent=set,
        chain=SimpleNamespace(next_seq=0))
    peer.outbox = Pushed()
    peer.stalling = {2: stalled_since}
    peer.nudge = peer._changed = lambda: None
    return peer


def votes(peer) -> list[tuple[int, int]]:
    return [(body.round, body.seat) for body in peer.outbox.pushed if isinstance(body, VoidRound)]


def test_the_person_s_seat_votes_for_them_once_v_was_offered_for_its_wait():
    """V is offered `STALL_VOTE` after seat 2's stall: until then the seat only looks again
    then; from then its countdown runs, and at its end the seat votes as V would."""
    peer = ann()
    offered = 10.0 + STALL_VOTE
    assert peer._person_vote_due(offered - 1) == offered  # it looks again once V is offered
    assert peer.person_vote_at(offered - 1) is None
    peer._vote_by_itself(offered - 1)
    assert votes(peer) == []
    assert peer._person_vote_due(offered + 0.5) == offered + 0.5 + AFTER  # found it offered
    assert peer._person_vote_due(offered + 7) == offered + 0.5 + AFTER  # and counts from then
    assert peer.person_vote_at(offered + 7) == offered + 0.5 + AFTER
    peer._vote_by_itself(offered + AFTER)  # a moment early: nothing
    assert votes(peer) == [] and peer.votes_for_person == []
    peer._vote_by_itself(offered + 0.5 + AFTER)
    assert votes(peer) == [(1, 2)] and peer.votes_for_person == [2]


def test_w_starts_the_countdown_again_and_a_person_who_is_there_decides():
    peer = ann()
    offered = 10.0 + STALL_VOTE
    peer._person_vote_due(offered)
    assert peer.wait_for_them(offered + AFTER - 1) == offered + 2 * AFTER - 1
    peer._vote_by_itself(offered + AFTER)  # the wait it was armed with: the person waits
    assert votes(peer) == []
    assert peer._person_vote_due(offered + AFTER) == offered + 2 * AFTER - 1
    assert peer.vote_void(2)  # V y, by the person: the countdown stops while it stands
    assert peer.person_vote_at(offered + AFTER) is None
    assert peer.wait_for_them(offered + AFTER) is None  # nothing to wait for


def test_no_vote_at_once_for_a_person_a_leave_or_a_seat_that_came_back():
    """A bot votes at once on a sequenced ``leave``; a person's seat gives its person the
    whole wait first.  A seat that sends its step again is offered no more: the countdown
    stops, and starts afresh if it stalls again."""
    quitter = ann(quit={1})
    assert 1 in quitter.holding_up(11.0)
    assert quitter._person_vote_due(11.0) == 11.0 + AFTER
    assert quitter.vote_target(quitter.holding_up(11.0)) == 1
    bot = ann(quit={1})
    bot.person_vote_after, bot.void_after = None, BOT_VOID_AFTER
    assert bot._vote_due() == -math.inf
    peer = ann()
    offered = 10.0 + STALL_VOTE
    peer._person_vote_due(offered)
    peer.stalling = {2: offered + 5}  # it sent a step; it owes the next one
    assert peer._person_vote_due(offered + 6) == offered + 5 + STALL_VOTE
    assert peer._offered_at is None and peer.person_vote_at(offered + 6) is None
    again = offered + 5 + STALL_VOTE
    assert peer._person_vote_due(again) == again + AFTER


THREE_ROUNDS = {"contracts": [[2, 0]] * 3}
AUDIT = 2.0
"""The table's ``audit_timeout``: the host's silence clock."""
WAIT = 3.0
"""The person's ``person_vote_after`` at this table (the console's is `PERSON_VOTE_AFTER`)."""


async def test_a_table_whose_person_never_presses_v_finishes(tmp_path):
    """ann (a `NetSession`, whose moves the test plays) sits at seat 0, a bot at seat 1, and
    seat 2's program is killed at its move in round 1 (no ``bye``).  The host times seat 2 out
    as silent; the bot votes at once; its vote alone cannot carry (the seats that can vote are
    ann's and its own).  Nobody presses V: ann's seat votes `WAIT` after V was first offered,
    the round is void, the host's stand-in plays seat 2, and the game ends, seat 2 charged
    once.  Before, the table waited for ann's V for good."""
    record = tmp_path / "walked away.bin"
    host = Host(HostConfig(players=3, rules=THREE_ROUNDS, claim_timeout=1, audit_timeout=AUDIT,
                           random=seeded(b"walked away"), record=record))
    killed, never = trio.CancelScope(), trio.Event()
    keys = identities(3)
    rnd = random.Random(7)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(150):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            person = NetSession(("127.0.0.1", port), Identity(rnd.randbytes(32), rnd.randbytes(32)),
                                name="ann", auto_ready=True, think=0.0, vote_for_you_after=WAIT)
            await nursery.start(person.run)
            await session_until(person, lambda: person.peer.seat is not None)
            assert person.peer.seat == 0
            await start_seated(nursery, make_peer(port, keys[1], 1, tmp_path,
                                                  void_after=BOT_VOID_AFTER), 1)
            lost = make_peer(port, keys[2], 2, tmp_path, player=HoldsRound(never, 1, 2),
                             void_after=BOT_VOID_AFTER)

            async def doomed():
                with killed:
                    await lost.run()

            await start_seated(nursery, lost, 2, doomed)
            await session_until(person, lambda: person.table is not None)
            nursery.start_soon(play_it_out, person)
            public = host.public
            await until(lambda: public.moving() == {2}, "seat 2 to move in round 1", seconds=90,
                        state=lambda: (public.round, public.moving(), public.owed()))
            killed.cancel()  # its program ends with its move unmade
            await until(lambda: public.left, "seat 2 voted gone", seconds=60,
                        state=lambda: (public.silenced, public.gone_votes))
            await until(lambda: public.finished, "the game's end", seconds=90)
            await session_until(person, lambda: person.over)
            await person.leave()
    assert public.fault is None and public.verdict is None and public.left == [(1, 2)]
    messages = read_transcript(record)[1:]
    votes = {(m.author, m.body.seat) for m in messages if isinstance(m.body, VoidRound)}
    assert votes == {(0, 2), (1, 2)}, votes
    assert person.peer.votes_for_person == [2]
    assert any(e.text == f"nobody pressed a key for {WAIT:g} s while the table waited for bot2: "
               "your seat voted that they left, as V does" for e in person.log), \
        [e.text for e in person.log]
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert paid == [2], "seat 2 charged once, no other seat"
    report = verify(read_transcript(record))
    assert report.ok and report.left == ((1, 2),), report.summary()
