"""One numbering of rounds after a voided round (issue 42, item 8): a round the table voids and
deals again is the same round, in the title ("round 1 of 2"), the log ("round 1 again,
re-dealt: the first deal was void"), the round summary, the score sheet, the final table's
columns, the audits, ``shanghai watch`` and ``shanghai verify``, though its deal has a number
of its own (the deal's ``round_no``, which the deal protocol never uses twice).  Before, the
title said "round 1 of 2" while the log said "round 2", and the game's last round was "Round 3
over" in a game of two, its columns R1 R3.

A whole game over real sockets: ann (a `NetSession`, played through ``submit``), a bot peer
and bea, who quits in round 1; the table votes her gone, round 1 is dealt again with the host's
stand-in, and round 2 follows.  A spectator watches it and the host records it."""

from __future__ import annotations

import random
import re

import trio

from shanghai_net.bots import make_bot
from shanghai_net.cli.net import HostedTable
from shanghai_net.cli.spectate import spectate
from shanghai_net.console.sheets import score_sheet
from shanghai_net.console.viewmodel import entry_lines, game_over_table, round_summary, view_model
from shanghai_net.engine.events import RoundEnded
from shanghai_net.identity import Identity
from shanghai_net.net.host import HostConfig
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.session import NetSession
from shanghai_net.net.transcript import read_transcript
from shanghai_net.session import Accepted
from shanghai_net.table.verify import verify

from test_net_session import until

TWO_ROUNDS = {"contracts": [[2, 0]] * 2, "final_round_meld_all": False, "max_turns": 24}


async def play_to_the_end(session: NetSession) -> None:
    """Play ann's seat with a basic bot's choices, through ``submit``, to the game's end."""
    me = make_bot("basic", random.Random(7))
    while session.result is None or not session.over:
        table = session.table
        if table.seat is not None and table.can_move() and session.view is not None:
            moves = list(table.game.legal_moves(table.seat))
            if moves:
                outcome = await session.submit(me.choose(session.view, moves))
                if isinstance(outcome, Accepted):
                    continue
        await until(session, lambda: session.over or (
            session.table.can_move() and session.view is not None))


async def test_a_round_dealt_again_keeps_its_number_everywhere(tmp_path):
    record = tmp_path / "game.bin"
    config = HostConfig(players=3, preset="davis", rules=dict(TWO_ROUNDS), claim_timeout=5.0,
                        record=record)
    table = HostedTable(config, bots=[BotPlayer("basic", random.Random(3))], seed=6, name="ann",
                        auto_ready=True)
    watched: list[str] = []
    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            await nursery.start(table.serve)
            await nursery.start(table.session.run)
            ann = table.session
            await until(ann, lambda: ann.lobby is not None and len(ann.lobby.seats) == 2)
            bea = NetSession(ann.address, Identity(bytes(range(32)), bytes(range(1, 33))),
                             name="bea", auto_ready=True, reconnect=False)
            async with trio.open_nursery() as hers:
                hers.start_soon(bea.run)
                await until(ann, lambda: ann.view is not None)
                nursery.start_soon(lambda: spectate(ann.address, say=watched.append))
                await until(bea, lambda: bea.view is not None)
                await bea.leave()
                hers.cancel_scope.cancel()
            await until(ann, lambda: 2 in ann.away)
            assert "seat 2 left this round" in await ann.vote_void()
            await until(ann, lambda: ann.table.left == [(1, 2)])
            await play_to_the_end(ann)
            await until(ann, lambda: ann.audit(3) == "clean")
            nursery.cancel_scope.cancel()

    view, seats, log = ann.view, ann.seats, ann.log
    numbers = ann.round_numbers
    assert numbers == {1: 1, 2: 1, 3: 2}  # deal 2 plays round 1 again

    # the console: the title, the log, the audits, the round summaries
    assert view_model(view, seats=seats, log=log).title.startswith("davis · round 2 of 2")
    told = entry_lines(log, seats, view.seat, rounds=numbers)
    assert any(re.fullmatch(r"round 1 again, re-dealt: the first deal was void; .+ deals?; "
                            r"contract: two books", line) for line in told), told
    assert any(line.startswith("round 1 void, it scores nothing: bea left") for line in told)
    assert "round 1 audited: clean" in told and "round 2 audited: clean" in told
    assert not any("round 3" in line for line in told), [x for x in told if "round 3" in x]
    results = [e.event.result for e in log if isinstance(e.event, RoundEnded)]
    assert [round_summary(r, seats, view.seat, view.rules, rounds=numbers)[0].split(":")[0]
            for r in results] == ["Round 1 over", "Round 2 over"]

    # the score sheet (S) and the final table
    sheet = score_sheet(view.rules, log, seats, view.seat, 3)
    rows = [line.split()[:2] for line in sheet if line[:2].strip().isdigit()]
    assert [row[0] for row in rows] == ["1", "1", "2"] and rows[0][1] == "voided", sheet
    final = game_over_table(ann.result, seats, view.seat, view.rules)
    assert final[1].split()[:2] == ["R1", "R2"] and "R3" not in final[1]

    # `shanghai watch` and `shanghai verify`
    assert any(line.startswith("round 1 again, re-dealt: the first deal was void;")
               for line in watched), watched
    assert not any(re.match(r"round 3\b", line) for line in watched), watched
    summary = verify(read_transcript(record)).summary()
    assert "round 1 voided by the table's vote: bea left it" in summary
    assert "from round 1 (dealt again)" in summary and "round 3" not in summary, summary
