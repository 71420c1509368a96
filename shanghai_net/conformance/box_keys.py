"""The two tables at which the kit's host breaks one box key, one seat (protocol.md 6.2, 11.8):
it sends the client a `start_game` that gives two seats one box key, or sequences a ``replace``
that proposes another seat's box key.  The relay sends the client that word and then holds back
everything else of the host's, so that nothing the client hears after it can be why it stops;
each table ends once the client has left, or ``step`` seconds after the word."""

from __future__ import annotations

from typing import Awaitable, Callable

import trio

from ..deal import seeded
from ..identity import Identity
from ..net.host import Host, HostConfig
from ..wire.framing import encode_frame
from ..wire.messages import HOST_AUTHOR, Replace
from ..wire.signing import sign_game
from .kit import KitGame, Run, Told, client_tail, kit_game, our_peer, told_then_answered
from .report import client_seat
from .situations import BOX_KEY_SITUATIONS, PLAYERS, SEAT_RULES, Outcome

__all__ = ["box_key_tables"]


Script = Callable[[KitGame, Told], Awaitable[None]]


async def box_key_tables(command: list[str], game_timeout: float, step: float) -> list[Outcome]:
    """The two situations of one box key, one seat: one table each."""
    out = []
    for name, script, situation in ((b"twin start", _twin_start, BOX_KEY_SITUATIONS[0]),
                                    (b"taken box key", _taken_box_key, BOX_KEY_SITUATIONS[1])):
        told = Told()
        run = await _table(command, game_timeout, step, name, told, script)
        out.append(_judged(run, told, situation, step))
    return out


async def _table(command: list[str], game_timeout: float, step: float, name: bytes,
                 told: Told, script: Script) -> Run:
    """The client and three kit peers; ``script`` tells the client the bad word, and the table
    ends once the client has answered it (`told_then_answered`) or ended before it was told."""
    rnd = seeded(b"conformance kit " + name)
    host = Host(HostConfig(players=PLAYERS, preset="davis", rules=dict(SEAT_RULES), random=rnd))

    async def setup(game: KitGame) -> None:
        game.start_client(command, ends_the_game=False)
        for i in range(1, PLAYERS):
            game.nursery.start_soon(our_peer, game.port, rnd, i, step)
        game.nursery.start_soon(told_then_answered, game, told, script, step)

    return await kit_game(host, game_timeout, step, setup)


async def _twin_start(game: KitGame, told: Told) -> None:
    """The relay gives the client a `start_game` in which the seat two after the client's has
    the box key of the seat after it, and holds back all of the host's after it."""
    run = game.run
    relay = run.relay

    def twin(message: dict) -> dict | None:
        seats = message.get("seats")
        hello = relay.hello or {}
        if message.get("type") != "start_game" or told.left is not None \
                or not isinstance(seats, list):
            return None
        mine = next((e["seat"] for e in seats if e.get("sign_key") == hello.get("sign_key")), 0)
        given, twin_of = (mine + 2) % len(seats), (mine + 1) % len(seats)
        twinned = [dict(entry) for entry in seats]
        twinned[given]["box_key"] = seats[twin_of]["box_key"]
        told.left, told.seats, relay.held = relay.current.left, (twin_of, given), True
        return {**message, "seats": twinned}

    relay.rewrite = twin


async def _taken_box_key(game: KitGame, told: Told) -> None:
    """Once a move of round 1 reached the client, the relay holds the host's frames back and
    sends the client the host's ``replace``, signed with the host's key and chained after the
    last message it was sent, proposing for the seat after the client's (a new sign key) the
    box key of the seat two after it."""
    run = game.run
    relay, host = run.relay, run.host
    await relay.first_move(1)
    await relay.hold()
    seq, chain, seat = relay.forwarded, host.public.chain, client_seat(run) or 0
    proposed, taken = (seat + 1) % PLAYERS, (seat + 2) % PLAYERS
    fresh = seeded(b"conformance kit newcomer")
    newcomer = Identity(fresh(32), fresh(32))
    body = Replace(seat=proposed, name="kit newcomer", role="player",
                   sign_key=newcomer.sign_public, box_key=host.start.seats[taken].box_key)
    replace = sign_game(host.identity.sign_key, chain.start, HOST_AUTHOR,
                        chain.next_counter(HOST_AUTHOR), body, (seq, chain.links[seq]))
    await relay.inject(encode_frame({**replace.to_wire(), "seq": seq + 1}))
    told.left, told.seats, told.seq = relay.current.left, (proposed, taken), seq + 1


def _judged(run: Run, told: Told, situation: tuple[str, str], step: float) -> Outcome:
    """Passes when the client left the connection it was told on (said ``bye`` or closed
    it) within ``step`` seconds, having signed nothing after the twin start, or approved no
    replace."""
    if told.left is None:
        return Outcome(*situation, False, f"not reached: {run.stopped or client_tail(run.done)}")
    what = (f"seats {told.seats[0]} and {told.seats[1]} were given one box key" if told.seq < 0
            else f"the host's replace at seq {told.seq} proposes for seat {told.seats[0]} the "
                 f"box key of seat {told.seats[1]}")
    kinds = [kind for kind, _ in run.relay.sent.values()]
    played = kinds if told.seq < 0 else [kind for kind in kinds if kind == "approve"]
    left = told.left.is_set()
    return Outcome(*situation, left and not played, "; ".join([
        what, f"it signed {', '.join(sorted(set(played)))} ({len(played)} in all)" if played
        else "it signed nothing of that game" if told.seq < 0 else "it approved nothing",
        "it left" if left else f"it was still there {step:g} s later", client_tail(run.done)]))
