"""LocalSession: bots on trio timers, claim windows that time out, refusals, redaction, seeds."""

from __future__ import annotations

import random

import pytest
import trio
import trio.testing

from shanghai_net.bots import make_bot
from shanghai_net.engine import (
    ClaimPassed, Discard, DrawStock, Drew, MayI, PassClaim, Phase, RoundEnded,
    RoundStarted, TakeDiscard,
)
from shanghai_net.rules import preset
from shanghai_net.session import Accepted, LocalSession, Refused, redact

from console_harness import davis_session


class StockBot:
    """Always the stock, never a claim, discards its first card: a predictable opponent."""

    def choose(self, view, moves):
        for kind in (DrawStock, PassClaim, Discard):
            for move in moves:
                if type(move) is kind and not getattr(move, "shanghai", False):
                    return move
        return moves[0]


async def play_as_bot(session: LocalSession, seed: int, stop_after_rounds: int = 1) -> None:
    """Play seat 0 with a basic bot through ``submit``, acknowledging summaries."""
    me = make_bot("basic", random.Random(seed))
    rounds = 0
    while session.result is None:
        if session.waiting_for_ready:
            rounds += 1
            if rounds >= stop_after_rounds:
                return
            await session.ready()
            continue
        game = session.game
        if session.seat in game.to_move():
            move = me.choose(session.view, list(game.legal_moves(session.seat)))
            outcome = await session.submit(move)
            assert isinstance(outcome, Accepted), outcome
        else:
            await trio.sleep(0.05)


async def test_same_seed_same_game(autojump_clock):
    logs = []
    for _ in range(2):
        session = LocalSession(preset("davis"), ["basic", "basic", "random"], seed=11, bot_delay=0.3)
        async with trio.open_nursery() as nursery:
            await nursery.start(session.run)
            await play_as_bot(session, seed=5)
            nursery.cancel_scope.cancel()
        logs.append([e.text for e in session.log])
    assert any(isinstance(e.event, RoundEnded) for e in session.log)
    assert logs[0] == logs[1]
    other = LocalSession(preset("davis"), ["basic", "basic", "random"], seed=12, bot_delay=0.3)
    async with trio.open_nursery() as nursery:
        await nursery.start(other.run)
        await play_as_bot(other, seed=5)
        nursery.cancel_scope.cancel()
    assert [e.text for e in other.log] != logs[0]


async def test_bots_wait_their_delay(mock_clock):
    # seat 0 deals, so bot seat 1 plays first and waits bot_delay before each move
    session = LocalSession(preset("davis"), [StockBot(), StockBot()], seed=1, bot_delay=2.0, claim_timeout=100)
    session._dealer.handle = _first_dealer(session._dealer, 0)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        assert session.game.turn == 1
        await trio.testing.wait_all_tasks_blocked()
        assert session.game.to_move()[0] == 1
        mock_clock.jump(1.9)
        await trio.testing.wait_all_tasks_blocked()
        assert session.game.to_move()[0] == 1  # not yet
        mock_clock.jump(0.2)
        await trio.testing.wait_all_tasks_blocked()
        # seat 1 chose the stock; seat 2 decides on the upturned card one delay later
        assert session.game.to_move() == [2, 0] and session.game.window.declined
        mock_clock.jump(2.1)
        await trio.testing.wait_all_tasks_blocked()
        assert session.game.to_move() == [0]
        nursery.cancel_scope.cancel()


def _first_dealer(dealer, seat):
    """Make the first random pick (the first dealer) come out as ``seat``."""
    original = dealer.handle
    state = {"first": True}

    def handle(request, game):
        from shanghai_net.engine import Pick

        if isinstance(request, Pick) and state["first"]:
            state["first"] = False
            game.fulfil_pick(seat)
        else:
            original(request, game)

    return handle


async def test_claim_window_closes_after_timeout_as_a_pass(mock_clock):
    session = LocalSession(preset("davis"), [StockBot(), StockBot()], seed=4, bot_delay=0.0, claim_timeout=5.0)
    session._dealer.handle = _first_dealer(session._dealer, 2)  # seat 0 plays first
    changes = []
    session.subscribe(lambda: changes.append(session.now()))
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        await trio.testing.wait_all_tasks_blocked()
        assert isinstance(await session.submit(DrawStock(0)), Accepted)
        card = session.view.hand[0]
        assert isinstance(await session.submit(Discard(0, card)), Accepted)
        await trio.testing.wait_all_tasks_blocked()
        # seat 1 drew and discarded; seat 2 chose the stock; only you may still claim
        assert session.view.may_claim
        claim = session.claim
        assert claim is not None and claim.undecided == (0,)
        assert claim.deadline == pytest.approx(session.now() + 5.0)
        mock_clock.jump(4.9)
        await trio.testing.wait_all_tasks_blocked()
        assert session.view.may_claim
        mock_clock.jump(0.2)
        await trio.testing.wait_all_tasks_blocked()
        assert not session.view.may_claim
        assert any(isinstance(e.event, ClaimPassed) and e.event.seat == 0 for e in session.log)
        assert changes, "subscribers heard nothing"
        nursery.cancel_scope.cancel()


async def test_refused_move_gives_the_engine_reason_and_changes_nothing(autojump_clock):
    session = davis_session(bot_delay=1.0)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        before = session.view
        card = before.hand[0]
        outcome = await session.submit(Discard(0, card))
        assert isinstance(outcome, Refused)
        assert "draw phase" in outcome.reason and outcome.reason.startswith("'discard")
        assert session.view == before
        outcome = await session.submit(TakeDiscard(1))
        assert isinstance(outcome, Refused) and "seat 0" in outcome.reason
        outcome = await session.submit(MayI(0))
        assert isinstance(outcome, Refused) and "your turn" in outcome.reason
        nursery.cancel_scope.cancel()


async def test_log_hides_other_seats_draws(autojump_clock):
    session = LocalSession(preset("davis"), ["basic", "basic", "basic"], seed=3, bot_delay=0.2)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        await play_as_bot(session, seed=1)
        nursery.cancel_scope.cancel()
    draws = [e.event for e in session.log if isinstance(e.event, Drew)]
    assert any(d.seat != 0 for d in draws) and any(d.seat == 0 for d in draws)
    for d in draws:
        assert (d.card is not None) == (d.seat == 0), d
    # the engine's own log (it sees every face) is where the faces were
    assert any(isinstance(e, Drew) and e.seat != 0 and e.card is not None for e in session.game.log)
    assert redact(Drew(1, session.view.hand[0]), 0) == Drew(1, None)


async def test_next_round_waits_for_ready(autojump_clock):
    session = LocalSession(preset("davis"), ["basic", "basic"], seed=8, bot_delay=0.2)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        await play_as_bot(session, seed=2, stop_after_rounds=1)
        assert session.waiting_for_ready
        assert session.view.round_no == 2 and session.view.phase is Phase.DRAW
        moves = len(session.game.log)
        await trio.sleep(30)
        assert len(session.game.log) == moves, "bots played on while the summary was open"
        await session.ready()
        await trio.sleep(30)
        assert len(session.game.log) > moves
        assert sum(isinstance(e.event, RoundStarted) for e in session.log) == 2
        nursery.cancel_scope.cancel()


async def test_chat_and_seats(autojump_clock):
    session = LocalSession(preset("good-miller"), ["basic", "random"], seed=1, name="ann")
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        await session.say("  hello table ")
        await session.say("   ")
        nursery.cancel_scope.cancel()
    chat = [e for e in session.log if e.chat_from is not None]
    assert [(e.chat_from, e.text) for e in chat] == [(0, "hello table")]
    assert [(s.name, s.bot) for s in session.seats] == [("ann", None), ("basic bot", "basic"), ("random bot", "random")]
    assert session.submit  # the interface
    outcome = await session.submit(DrawStock(1))
    assert isinstance(outcome, Refused) and "you play seat 0" in outcome.reason


def test_bad_seat_and_carousel():
    with pytest.raises(ValueError, match="seat 3"):
        LocalSession(preset("davis"), ["basic"], seat=3)
    assert LocalSession(preset("carousel"), ["basic", "basic"]).players == 3  # carousel is hosted too


