"""The tables of R1, a seat lost mid-round (protocol.md 11.10): the host shares seeds, the client
and four kit peers play; in round 1 the kit seat after the client quits (its ``leave``) and the
table votes it lost, the round going on.

- At the first, every holder of its seed publishes its shares (``share_reveal``), and the kit
  seat two after the client publishes a wrong one, the last: the client must take it that the
  share's author cheated, and play no more (a client that checks no published share rebuilds
  the lost seat from the first ``t``, which are good, and plays on).  After that
  ``share_reveal`` the relay holds back all of the host's frames, so that the client's next
  word can only be its own reading of it.
- At the second, the seat quits having drawn, and the host keeps the key share of that card of
  the kit seat two after the client until every approval of its stand-in is in; then that kit
  seat's link drops and its outbox signs the share again: the stand-in is seated at that share
  (the seating waits for the key shares owed to the seat), and the client must hand it its box
  from there (a client that seats it at the last approval sends its box before the host owes
  it one, and is refused)."""

from __future__ import annotations

import dataclasses
from functools import partial

import trio

from ..deal import seeded
from ..deal.messages import ShareReveal
from ..deal.participant import Participant
from ..net.host import Host, HostConfig
from ..net.peer import Peer, PeerError
from ..wire.messages import Approve, Deal, DrawStock, Replace
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
    """R1's situations: one table each."""
    told = Told()
    run = await _table(command, game_timeout, step, told)
    out = [_judged(run, told, step)]
    run = await _kept_share_table(command, game_timeout, step)
    return out + [_judged_seating(run)]


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


# -- the key share kept past the seating -------------------------------------------------------

async def _kept_share_table(command: list[str], game_timeout: float, step: float) -> Run:
    rnd = seeded(b"conformance kit kept share")
    host = Host(HostConfig(players=SHARING_PLAYERS, preset="davis", rules=dict(SEAT_RULES),
                           random=rnd, audit_timeout=step, sharing=SHARE_THRESHOLD))

    async def setup(game: KitGame) -> None:
        game.start_client(command)
        kit = await game.kit_peers(rnd, range(1, SHARING_PLAYERS), step)
        game.nursery.start_soon(_share_kept_past_the_seating, game, kit, step)

    return await kit_game(host, game_timeout, step, setup)


async def _share_kept_past_the_seating(game: KitGame, kit, step: float) -> None:
    """Keep the kit keeper's key share of the leaver's first draw of round 1, make the leaver
    quit, vote it gone, and once every approval of its stand-in is in, drop the keeper's link;
    then wait for the client's handed box (or ``3 * step``), and stop the game: judged."""
    run, kept = game.run, []
    host = run.host
    while client_seat(run) is None or host.public is None:
        await trio.sleep(0.05)
    seat = client_seat(run)
    leaver, keeper = _silent(seat), _liar(seat)
    peers = {peer.seat: (peer, scope) for peer, scope in kit}
    sequencer = host.sequencer
    submit = sequencer.submit

    async def keeping(client, msg) -> None:
        body = msg.body
        if not kept and msg.author == keeper and isinstance(body, Deal) \
                and body.step == "shares" and body.data.get("round") == 1 \
                and any(m.author == leaver and isinstance(m.body, DrawStock)
                        for m in host.history.messages) \
                and [box["to"] for box in body.data["boxes"]] == [leaver]:
            kept.append(msg)
            return
        await submit(client, msg)

    sequencer.submit = keeping
    while not kept:
        await trio.sleep(0.02)
    peer, scope = peers[leaver]
    await peer.leave()
    scope.cancel()
    public = host.public
    while not public.lost:
        for other, _ in kit:
            if other is not peer:
                other.vote_void(leaver)
        await trio.sleep(0.1)
    while not any(isinstance(m.body, Replace) and m.seq in public.proposals
                  and not public.needed(public.proposals[m.seq])
                  for m in host.history.messages):
        await trio.sleep(0.02)
    await peers[keeper][0]._link.stream.aclose()  # its outbox signs the kept share again
    with trio.move_on_after(3 * step):
        while not _handed(host, seat, leaver) and not _refused(host, seat):
            await trio.sleep(0.05)
    game.stop("judged")


def _handed(host: Host, seat: int, to: int) -> list:
    """``seat``'s ``shares`` bodies to ``to`` sequenced after its ``replace``."""
    replace = next((m.seq for m in host.history.messages if isinstance(m.body, Replace)), None)
    return [m for m in host.history.messages if replace is not None and m.seq > replace
            and m.author == seat and isinstance(m.body, Deal) and m.body.step == "shares"
            and any(box["to"] == to for box in m.body.data["boxes"])]


def _refused(host: Host, seat: int) -> list:
    """The host's refusals of ``seat``'s key shares and handed boxes (not, say, of a vote that
    came after the others had carried it)."""
    client = host.seats[seat]
    return [e for e in getattr(client, "errors_sent", ()) if "share" in e.reason
            or "box" in e.reason]


def _judged_seating(run: Run) -> Outcome:
    situation = LOST_SITUATIONS[1]
    seat, host = client_seat(run), run.host
    if seat is None or not host.public or not host.public.lost:
        return Outcome(*situation, False, f"not reached: {run.stopped or client_tail(run.done)}")
    leaver, keeper = _silent(seat), _liar(seat)
    approvals = [m.seq for m in host.history.messages if isinstance(m.body, Approve)]
    again = [m.seq for m in host.history.messages if m.author == keeper and approvals
             and m.seq > max(approvals) and isinstance(m.body, Deal) and m.body.step == "shares"
             and [box["to"] for box in m.body.data["boxes"]] == [leaver]]
    handed, refused = _handed(host, seat, leaver), _refused(host, seat)
    passed = bool(again) and bool(handed) and handed[0].seq > again[0] and not refused
    return Outcome(*situation, passed, "; ".join([
        f"seat {keeper}'s kept key share to seat {leaver} sequenced again at seq "
        f"{again[0]}" if again else f"seat {keeper}'s kept key share never sequenced",
        f"the client's handed box at seq {handed[0].seq}" if handed else "no handed box of it",
        f"refused: {refused[0].code}: {refused[0].reason}" if refused else "nothing refused",
        client_tail(run.done)]))
