"""The three tables at which a kit seat cheats at version 10's seed sharing (docs/dealing.md):
the host shares seeds (``HostConfig.sharing``: `SHARE_THRESHOLD` of `SHARING_PLAYERS`
holders), the client and four kit peers play, and one kit peer

- deals the client a seed share whose box does not open (its commit of round 1): the client
  must complain of it, naming the dealer, and send no pass of that generation;
- or, at round 1's audit, with the seat after the client silent at its seeds (the host drops
  them and times them out), puts a wrong share of that seat's seed in its own seeds, the last
  that come: the client must take the audit's verdict, that the share's author cheated, and
  play no more (a client that checks no share rebuilds the seat from the first ``t``, which are
  good, and deals on);
- or commits to another seed than the one it shares and is that silent seat: the seat rebuilt
  from its shares is off its commitment, and the client must take that verdict and play no more.

After the message that completes the audit the relay holds back all of the host's, so that the
client's next word can only be its own reading of the audit."""

from __future__ import annotations

import dataclasses
from typing import Callable

import trio

from ..deal import seeded
from ..deal.messages import SharedCommitment, SharedSeedReveal
from ..deal.participant import Participant
from ..net.host import Host, HostConfig
from ..table.seat import PeerTable
from ..wire.messages import Complaint, Deal, Timeout
from .kit import KitGame, Run, Told, client_tail, kit_game, kit_peer, told_then_answered
from .report import client_seat
from .situations import SEAT_RULES, SHARING_PLAYERS, SHARE_THRESHOLD, SHARING_SITUATIONS, Outcome

__all__ = ["sharing_tables"]

Cheat = Callable[[Participant, object, int], object]
"""How a kit seat changes one of its outgoing deal messages, given the client's seat."""


def _cheating_table(cheat: Cheat, client: Callable[[], int | None]) -> type[PeerTable]:
    """A kit seat's table whose deal sends each outgoing message as ``cheat`` changes it."""

    class Changed(Participant):
        def outgoing(self, message):
            seat = client()
            return message if seat is None else cheat(self, message, seat)

    class CheatingTable(PeerTable):
        def _participant(self, round_no: int) -> Participant:
            return Changed(self.seat, self.roster, self.game_id, round_no, self._box_key,
                           self._random, self.rules.shuffle_proof, self.share_threshold)

    return CheatingTable


def _silent(seat: int) -> int:
    """The seat silent at its seeds, and the dealer of a bad share: the one after the client."""
    return (seat + 1) % SHARING_PLAYERS


def _liar(seat: int) -> int:
    """The seat whose seeds carry a wrong share of the silent seat's: two after the client."""
    return (seat + 2) % SHARING_PLAYERS


def _bad_box(participant: Participant, message, client: int):
    """The dealer's round-1 commit seals the client a box that does not open."""
    if not isinstance(message, SharedCommitment) or participant.seat != _silent(client) \
            or message.context.round != 1 or message.context.generation != 0:
        return message
    return dataclasses.replace(message, shares=tuple(
        (holder, epk, box[:-1] + bytes([box[-1] ^ 1]) if holder == client else box)
        for holder, epk, box in message.shares))


def _wrong_share(participant: Participant, message, client: int):
    """The liar's seeds carry its share of the silent seat's seed plus one."""
    if not isinstance(message, SharedSeedReveal) or participant.seat != _liar(client):
        return message
    return dataclasses.replace(message, shares=tuple(
        (dealer, share if dealer != _silent(client) or share is None else
         (int.from_bytes(share, "little") + 1).to_bytes(32, "little"))
        for dealer, share in message.shares))


def _other_digest(participant: Participant, message, client: int):
    """The silent seat commits to another seed than the one it shares."""
    if not isinstance(message, SharedCommitment) or participant.seat != _silent(client):
        return message
    return dataclasses.replace(message, digest=bytes(32))


async def sharing_tables(command: list[str], game_timeout: float, step: float) -> list[Outcome]:
    """The three situations of the seed sharing: one table each."""
    out = []
    for name, cheat, situation in ((b"bad share box", _bad_box, SHARING_SITUATIONS[0]),
                                   (b"wrong share", _wrong_share, SHARING_SITUATIONS[1]),
                                   (b"other digest", _other_digest, SHARING_SITUATIONS[2])):
        told = Told()
        run = await _table(command, game_timeout, step, name, cheat, told)
        out.append(_judged(run, told, cheat, situation, step))
    return out


async def _table(command: list[str], game_timeout: float, step: float, name: bytes,
                 cheat: Cheat, told: Told) -> Run:
    """The client and four kit peers at a table that shares seeds; the kit peers' tables play
    ``cheat``.  With a bad box the game ends at the complaint's audit; else the relay tells the
    client the audit's last message and then nothing (`told_then_answered`)."""
    rnd = seeded(b"conformance kit sharing " + name)
    host = Host(HostConfig(players=SHARING_PLAYERS, preset="davis", rules=dict(SEAT_RULES),
                           random=rnd, audit_timeout=step / 4, sharing=SHARE_THRESHOLD))

    async def setup(game: KitGame) -> None:
        game.start_client(command, ends_the_game=cheat is _bad_box)
        table = _cheating_table(cheat, lambda: client_seat(game.run))
        for i in range(1, SHARING_PLAYERS):
            peer = kit_peer(game.port, rnd, i, step)
            peer.table_type = table
            game.nursery.start_soon(peer.run)
        if cheat is not _bad_box:
            _seeds_in_order(game.run)
            game.nursery.start_soon(told_then_answered, game, told, _told_the_audit, step)

    return await kit_game(host, game_timeout, step, setup)


def _seeds_in_order(run: Run) -> None:
    """The host never sequences the silent seat's seeds, and times them out (the seeds clock)
    only once every other seat's are in; the liar's it sequences only once every other seat's
    are in: its wrong share comes after ``t`` good ones."""
    sequencer = run.host.sequencer
    submit, timeout = sequencer.submit, sequencer._timeout

    def others_in(*but: int) -> bool:
        return set(range(SHARING_PLAYERS)) - set(but) <= sequencer.public.seeds_from

    async def ordered(client, msg) -> None:
        seat = client_seat(run)
        if seat is not None and isinstance(msg.body, Deal) and msg.body.step == "seeds":
            if msg.author == _silent(seat):
                return
            while msg.author == _liar(seat) and not others_in(_silent(seat), _liar(seat)):
                await trio.sleep(0.05)
        await submit(client, msg)

    async def patient(window) -> None:
        seat = client_seat(run)
        if isinstance(window, tuple) and window[0] == "seeds" and seat is not None \
                and not others_in(_silent(seat)):
            return  # the clock starts again with the next seeds sequenced
        await timeout(window)

    sequencer.submit, sequencer._timeout = ordered, patient


async def _told_the_audit(game: KitGame, told: Told) -> None:
    """The relay sends the client the message that completes round 1's audit (the last seeds
    in, or the host's timeout of the silent seat's) and holds back everything after it."""
    run = game.run
    relay = run.relay

    def audit_done(message: dict) -> None:
        seat = client_seat(run)
        if told.left is None and seat is not None and message.get("type") in ("game", "placed") \
                and message.get("seq") == _audit_completed(run.host):
            told.left, told.seq, relay.held = relay.current.left, message["seq"], True
            told.seats = (_silent(seat), _liar(seat))

    relay.rewrite = audit_done


def _audit_completed(host: Host) -> int | None:
    """The seq of the message at which every seat's round-1 seeds are in or timed out."""
    seats: set[int] = set()
    for message in host.history.messages:
        body = message.body
        if isinstance(body, Deal) and body.step == "seeds" and body.data.get("round") == 1:
            seats.add(message.author)
        elif isinstance(body, Timeout) and body.what == "seeds":
            seats.add(body.seat)
        if len(seats) == SHARING_PLAYERS:
            return message.seq
    return None


def _judged(run: Run, told: Told, cheat: Cheat, situation: tuple[str, str],
            step: float) -> Outcome:
    if cheat is _bad_box:
        return _judged_complaint(run, situation)
    if told.left is None:
        return Outcome(*situation, False, f"not reached: {run.stopped or client_tail(run.done)}")
    seat, liar = told.seats
    culprit = liar if cheat is _wrong_share else seat
    public = run.host.public
    named = getattr(public and public.verdict, "culprit", None)
    return named_and_left(run, told, situation, step, named == culprit,
                          f"seat {seat}'s seeds timed out, the audit at seq {told.seq} names "
                          f"seat {named}")


def named_and_left(run: Run, told: Told, situation: tuple[str, str], step: float, named: bool,
                   what: str) -> Outcome:
    """Passes when the table ``named`` the cheat, and the client, told it at ``told.seq``,
    signed nothing after it and left within ``step`` seconds."""
    signed = [kind for kind, seq in run.relay.sent.values() if seq >= told.seq]
    left = told.left.is_set() or run.client_ended.is_set()  # (the host may close first)
    return Outcome(*situation, named and left and not signed, "; ".join([
        what, f"it signed {', '.join(sorted(set(signed)))} after it" if signed else
        "it signed nothing after it",
        "it left" if left else f"it was still there {step:g} s later", client_tail(run.done)]))


def _judged_complaint(run: Run, situation: tuple[str, str]) -> Outcome:
    """Passes when the client's complaint naming the dealer's share of generation 0 was
    sequenced, and the client sent no pass of that generation."""
    seat = client_seat(run)
    if seat is None:
        return Outcome(*situation, False, f"not reached: {run.stopped or client_tail(run.done)}")
    dealer, history = _silent(seat), run.host.history.messages
    complaints = [m.body for m in history if m.author == seat and isinstance(m.body, Complaint)]
    named = [c for c in complaints if _names(c, dealer)]
    passes = [m for m in history if m.author == seat and isinstance(m.body, Deal)
              and m.body.step == "pass" and m.body.data.get("round") == 1
              and m.body.data.get("generation") == 0]
    return Outcome(*situation, bool(named) and not passes, "; ".join([
        f"seat {dealer} dealt the client a share box that does not open",
        f"its complaint names seat {dealer}'s share" if named else
        f"{len(complaints)} complaints of it, none naming seat {dealer}'s share",
        f"it sent {len(passes)} passes of that generation" if passes else "no pass of it",
        client_tail(run.done)]))


def _names(complaint: Complaint, dealer: int) -> bool:
    """Whether ``complaint`` names ``dealer``'s seed share of generation 0."""
    share = complaint.share
    shares = share if isinstance(share, (list, tuple)) else [share]
    return any(s is not None and s.dealer == dealer and s.generation == 0 for s in shares)
