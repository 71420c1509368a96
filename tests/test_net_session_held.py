"""A person's move held by `NetSession.submit` when the game ends: the seat is never asked for
a move again, so the held move is answered then (soak 12-26: a claim decision on its way when
the next seat took the discard and went out; its `submit` waited for good, and the person's
program never went on to the game's end)."""

from __future__ import annotations

import trio
import trio.testing

from shanghai_net.engine import Phase
from shanghai_net.engine.moves import MayI, PassClaim
from shanghai_net.identity import Identity
from shanghai_net.net.session import NetSession
from shanghai_net.session import Refused

from test_console_net import FakePeer, lobby_state, welcome
from test_net_session import ONE_ROUND
from test_net_table import Table


async def test_a_claim_decision_held_when_the_game_ends_is_refused_as_the_game_over():
    """A one-round game of three; seat 0 is the person's, on a fake peer that never asks its
    player for a move (as a real peer, once the seat has no decision left).  In a claim window
    seat 0 submits its decision; the other seats and its own table play the game to its end.
    The submit returns `Refused`, "the game is over", and nothing is held any more."""
    t = Table(3, seed=2, rules=ONE_ROUND)
    t.run_until(lambda: t.host.settled and t.host.public.phase is Phase.DRAW and
                t.host.public.window is not None and 0 in t.host.public.window.undecided())
    session = NetSession(("192.0.2.7", 7777), Identity(b"\1" * 32, b"\2" * 32), name="ann",
                         peer_type=FakePeer)
    outcomes = []
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            await nursery.start(session.run)
            peer = session.peer
            peer.changed(status="playing", seat=0, welcome=welcome(),
                         lobby=lobby_state(ready=(True,) * 3), start=t.host.start_game,
                         table=t.seats[0])
            move = next(m for m in t.seats[0].legal_moves() if isinstance(m, (MayI, PassClaim)))

            async def decide():
                outcomes.append(await session.submit(move))
            nursery.start_soon(decide)
            await trio.testing.wait_all_tasks_blocked()
            assert outcomes == [] and session._player.held is not None  # on its way

            def step_and_tell():
                sent = t.step()
                peer.changed()
                return sent
            while not t.seats[0].finished:
                assert step_and_tell(), "stuck"
            await trio.testing.wait_all_tasks_blocked()
            assert outcomes, "the held claim decision was never answered"
            (outcome,) = outcomes
            assert isinstance(outcome, Refused) and outcome.move == move
            assert outcome.reason == "the game is over"
            assert session._player.held is None
            peer.stop.set()
