"""The table at which a kit seat cheats at R1, a seat lost mid-round (protocol.md 11.10): the
host shares seeds, the client and four kit peers play; in round 1 the kit seat after the client
quits (its ``leave``) and the table votes it lost, the round going on; every holder of its seed
publishes its shares (``share_reveal``), and the kit seat two after the client publishes a wrong
one, the last: the client must take it that the share's author cheated, and play no more (a
client that checks no published share rebuilds the lost seat from the first ``t``, which are
good, and plays on).  After that ``share_reveal`` the relay holds back all of the host's
frames, so that the client's next word can only be its own reading of it."""

from __future__ import annotations

import dataclasses
from functools import partial

import trio

from ..deal import seeded
from ..deal.messages import ShareReveal
from ..deal.participant import Participant
from ..net.host import Host, HostConfig
from ..net.peer import Peer, PeerError
from ..wire.messages import Deal
from .kit import KitGame, Run, Told, cancellable, client_tail, kit_game, kit_peer, moves_into, \
    told_then_answered
from .report import client_seat
from .sharing import _cheating_table, _liar, _silent, named_and_left
from .situations import LOST_SITUATIONS, SEAT_RULES, SHARING_PLAYERS, SHARE_THRESHOLD, Outcome

__all__ = ["lost_tables"]


def _wrong_reveal(participant: Participant, message, client: int):
    """The liar's ``share_reveal`` carries its first share of the lost seat's seed plus one."""
    if not isinstance(message, ShareReveal) or participant.seat != _liar(client):
        return message
    (generation, share), *rest = message.shares
    wrong = (int.from_bytes(share, "little") + 1).to_bytes(32, "little")
    return dataclasses.replace(message, shares=((generation, wrong), *rest))


async def lost_tables(command: list[str], game_timeout: float, step: float) -> list[Outcome]:
    """R1's situation: one table."""
    told = Told()
    run = await _table(command, game_timeout, step, told)
    return [_judged(run, told, step)]


async def _table(command: list[str], game_timeout: float, step: float, told: Told) -> Run:
    rnd = seeded(b"conformance kit lost seat")
    host = Host(HostConfig(players=SHARING_PLAYERS, preset="davis", rules=dict(SEAT_RULES),
                           random=rnd, audit_timeout=step / 4, sharing=SHARE_THRESHOLD,
                           stand_in=None))

    async def setup(game: KitGame) -> None:
        game.start_client(command)
        table = _cheating_table(_wrong_reveal, lambda: client_seat(game.run))
        kit = []
        for i in range(1, SHARING_PLAYERS):
            peer = kit_peer(game.port, rnd, i, step)
            peer.table_type = table
            kit.append((peer, await game.nursery.start(cancellable, partial(_played, peer))))
        _liar_last(game.run)
        game.nursery.start_soon(_lose_the_seat_after_the_client, game, kit)
        game.nursery.start_soon(told_then_answered, game, told, _told_the_reveal, step)

    return await kit_game(host, game_timeout, step, setup)


async def _played(peer: Peer) -> None:
    """A kit seat's game, to its end or to the cheat its table names (every seat stops then)."""
    try:
        await peer.run()
    except PeerError:
        pass


async def _lose_the_seat_after_the_client(game: KitGame, kit) -> None:
    """Three moves into round 1 the kit seat after the client quits (``leave``, then it stops);
    the other kit seats vote it gone until the table has lost it."""
    host = game.run.host
    await moves_into(host, 1)
    seat = client_seat(game.run)
    (leaver, scope), = [(p, s) for p, s in kit if p.seat == _silent(seat)]
    await leaver.leave()
    scope.cancel()
    while not host.public.lost:
        for peer, _ in kit:
            if peer is not leaver:
                peer.vote_void(leaver.seat)
        await trio.sleep(0.1)


def _reveals(host: Host, seat: int) -> list:
    """The ``share_reveal``s of lost ``seat`` the host has sequenced."""
    return [m for m in host.history.messages if isinstance(m.body, Deal)
            and m.body.step == "share_reveal" and m.body.data.get("seat") == seat]


def _liar_last(run: Run) -> None:
    """The host sequences the liar's ``share_reveal`` only once ``t`` others are in: its wrong
    share comes after ``t`` good ones."""
    sequencer = run.host.sequencer
    submit = sequencer.submit

    async def ordered(client, msg) -> None:
        seat = client_seat(run)
        if seat is not None and msg.author == _liar(seat) and isinstance(msg.body, Deal) \
                and msg.body.step == "share_reveal":
            while len(_reveals(run.host, _silent(seat))) < SHARE_THRESHOLD:
                await trio.sleep(0.05)
        await submit(client, msg)

    sequencer.submit = ordered


async def _told_the_reveal(game: KitGame, told: Told) -> None:
    """The relay sends the client the liar's ``share_reveal`` and holds back everything after
    it."""
    run = game.run
    relay = run.relay

    def reveal_sent(message: dict) -> None:
        seat = client_seat(run)
        if told.left is None and seat is not None and message.get("type") == "game" \
                and message.get("author") == _liar(seat) \
                and message.get("body", {}).get("step") == "share_reveal":
            told.left, told.seq, relay.held = relay.current.left, message["seq"], True
            told.seats = (_silent(seat), _liar(seat))

    relay.rewrite = reveal_sent


def _judged(run: Run, told: Told, step: float) -> Outcome:
    situation = LOST_SITUATIONS[0]
    if told.left is None:
        return Outcome(*situation, False, f"not reached: {run.stopped or client_tail(run.done)}")
    seat, liar = told.seats
    named = getattr(run.host.public.fault, "culprit", None)
    return named_and_left(run, told, situation, step, named == liar,
                          f"seat {seat} lost, seat {liar}'s share_reveal at seq {told.seq} "
                          f"names seat {named}")
