"""NetSession over real sockets: a seat played through the Session interface against bot peers
and a Host on 127.0.0.1, port 0.  The lobby (fingerprints, the ready flag), an illegal move
refused by the seat's own replica with nothing sent, moves accepted once sequenced, the claim
countdown by the host's timeout, each round's audit verdict in the log."""

from __future__ import annotations

import random
from contextlib import asynccontextmanager

import pytest
import trio

from shanghai_net.bots import make_bot
from shanghai_net.engine import Discard, Phase
from shanghai_net.cli.net import HostedTable
from shanghai_net.net.host import HostConfig
from shanghai_net.net.player import BotPlayer
from shanghai_net.session import Accepted, Refused

ONE_ROUND = {"contracts": [[2, 0]], "final_round_meld_all": False, "max_turns": 24}
"""One short round: two books with a discard, over after 24 turns if nobody went out."""


@asynccontextmanager
async def hosted(players=3, seed=1, auto_ready=True, claim_timeout=5.0, rules=ONE_ROUND):
    """A table hosted here: the seat (``table.session``) and ``players - 1`` basic bot peers."""
    config = HostConfig(players=players, preset="davis", rules=dict(rules),
                        claim_timeout=claim_timeout)
    bots = [BotPlayer("basic", random.Random(seed * 10 + i)) for i in range(players - 1)]
    table = HostedTable(config, bots=bots, seed=seed, name="ann", auto_ready=auto_ready)
    async with trio.open_nursery() as nursery:
        await nursery.start(table.serve)
        await nursery.start(table.session.run)
        yield table
        nursery.cancel_scope.cancel()


async def until(session, condition, timeout=60.0):
    """Wait (bounded) for ``condition()`` to hold after one of the session's changes."""
    with trio.fail_after(timeout):
        while not condition():
            changed = trio.Event()
            unsubscribe = session.subscribe(changed.set)
            try:
                await changed.wait()
            finally:
                unsubscribe()


async def test_the_lobby_shows_every_seat_and_waits_for_our_ready():
    async with hosted(auto_ready=False) as table:
        session = table.session
        await until(session, lambda: session.lobby is not None and len(session.lobby.seats) == 3)
        lobby = session.lobby
        assert lobby.you == 0 and lobby.preset == "davis" and lobby.players == 3
        assert dict(lobby.house_rules) == {"contracts": "2s", "final_round_meld_all": "false",
                                           "max_turns": "24"}
        assert lobby.host_fingerprint == table.host.identity.fingerprint
        mine = lobby.seats[0]
        assert mine.name == "ann" and mine.fingerprint == session.identity.fingerprint
        assert not mine.ready and not lobby.ready and not mine.bot
        assert all(s.bot for s in lobby.seats[1:])
        await until(session, lambda: all(s.ready for s in session.lobby.seats[1:]))
        assert session.view is None and table.host.start is None  # it waits for us
        await session.set_ready(True)
        await until(session, lambda: session.view is not None)
        assert [s.name for s in session.seats][0] == "ann"
        assert "the game starts" in [e.text for e in session.log]


async def test_a_round_through_submit_with_a_local_refusal_and_the_audit():
    async with hosted(seed=2) as table:
        session = table.session
        await until(session, lambda: session.view is not None)
        me = make_bot("basic", random.Random(7))
        refused = windows = 0
        while session.result is None:
            view = session.view
            if view.may_claim and session.claim is not None:
                windows += 1
                claim = session.claim
                assert 0 < claim.deadline - session.now() <= table.config.claim_timeout
            game = session.table.game
            if session.table.can_move():
                if view.phase is Phase.DRAW and not refused:
                    sent = table.host.sequenced
                    outcome = await session.submit(Discard(0, view.hand[0]))
                    assert isinstance(outcome, Refused) and "draw phase" in outcome.reason
                    assert table.host.sequenced == sent  # nothing went out
                    refused += 1
                move = me.choose(view, list(game.legal_moves(0)))
                version = session.table.version
                outcome = await session.submit(move)
                if isinstance(outcome, Refused):  # only if the game moved on in the meantime
                    assert session.table.version != version, outcome.reason
                    continue
                assert isinstance(outcome, Accepted) and outcome.move == move
            else:
                await until(session, lambda: session.table.can_move() or session.result)
        assert refused == 1 and windows
        await until(session, lambda: session.audit(1) == "clean")
        texts = [e.text for e in session.log]
        assert "round 1 audited: clean" in texts
        ended = [i for i, t in enumerate(texts) if t.startswith("round 1 over")]
        assert ended and ended[0] < texts.index("round 1 audited: clean")
        assert session.status == ""


async def test_a_second_seat_for_a_key_already_at_the_table_is_refused_with_the_reason():
    """Host and join as one user share one key: the host refuses the second seat and says why
    (else a rejoin after a crash could take the other player's seat)."""
    from shanghai_net.net.session import NetSession

    config = HostConfig(players=3, preset="davis", rules=dict(ONE_ROUND))
    table = HostedTable(config, bots=[], seed=5, name="ann")
    async with trio.open_nursery() as nursery:
        await nursery.start(table.serve)
        await nursery.start(table.session.run)
        session = table.session
        await until(session, lambda: session.lobby is not None and session.lobby.you == 0)
        twin = NetSession(session.address, session.identity, name="ann again", reconnect=False)
        await nursery.start(twin.run)
        await until(twin, lambda: twin.status.startswith("connection failed"))
        assert "already sits at seat 0" in twin.status and "--fresh-identity" in twin.status
        assert [s is not None for s in table.host.seats] == [True, False, False]
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("quits", [True, False])
async def test_a_player_who_quits_is_left_the_bots_follow_a_vote_at_once(quits):
    """The joiner goes: with `bye` (``quits``) the others see the seat as left, not lost, and
    the bot votes to void at once; without, as lost, and the bot follows our vote at once (not
    after BOT_VOID_AFTER).  Our vote and the bot's make the majority: the round is void, bea
    pays the leave penalty, and the host's stand-in takes her seat for the round dealt again;
    our players panel shows it as "bot for bea"."""
    from shanghai_net.identity import Identity
    from shanghai_net.net.session import NetSession
    from shanghai_net.session import Connection

    config = HostConfig(players=3, preset="davis", rules=dict(ONE_ROUND))
    table = HostedTable(config, bots=[BotPlayer("basic", random.Random(3))], seed=6, name="ann",
                        auto_ready=True)
    async with trio.open_nursery() as nursery:
        await nursery.start(table.serve)
        await nursery.start(table.session.run)
        ann = table.session
        await until(ann, lambda: ann.lobby is not None and len(ann.lobby.seats) == 2)
        joiner = NetSession(ann.address, Identity(bytes(range(32)), bytes(range(1, 33))), name="bea",
                            auto_ready=True, reconnect=False)
        async with trio.open_nursery() as bea:
            bea.start_soon(joiner.run)
            await until(ann, lambda: ann.view is not None)
            await until(joiner, lambda: joiner.view is not None)
            if quits:
                await joiner.leave()
            bea.cancel_scope.cancel()
        gone = Connection.LEFT if quits else Connection.LOST
        await until(ann, lambda: ann.seats[2].connection is gone)
        assert ("bea left the game" in [e.text for e in ann.log]) is quits
        votes = lambda: ann.table.void_votes.get(ann.table.void_target, set())  # noqa: E731
        if quits:  # the bot does not wait for anyone
            await until(ann, lambda: 1 in votes())
        else:
            assert 1 not in votes()
        await until(ann, lambda: 2 in ann.away)  # lost, V waits until the table waits on it
        target = ann.table.void_target
        assert "seat 2 left this round" in await ann.vote_void()
        await until(ann, lambda: ann.table.left == [(target, 2)])
        assert target not in ann.table.void_votes  # the votes that carried are spent with it
        assert ann.table.public.scores[2] == ann.table.rules.leave_penalty
        await until(ann, lambda: ann.table.round > target)  # dealt again, with the stand-in
        assert ann.seats[2].name == "bot for bea" and ann.seats[2].bot is not None
        assert not ann.table.vacant and ann.table.fault is None
        nursery.cancel_scope.cancel()
