"""A recorded game replayed and audited by a third party: ``verify(messages) -> Report``.

The record is what the host writes with ``--record``: ``start_game``, then every sequenced game
message.  A verifier holds no key of any seat, so it sees what a spectator (and the host) sees,
and checks what every seat checks: the chain and every signature, every move with its own engine
replica, every step of the public deal in its turn, every card shown opening to a card of its
deck, and at each round's audit every step recomputed from the revealed seeds, every sealed box
opened and checked, every face confirmed and the round replayed with every card known.  All of
that is `PublicTable`, the same class the host runs, so the verifier names whom the table named.

The first fault stops the replay and is reported with the seq where it was found and the seat
it names (the host for a message it should not have relayed, or that is not in the record).  A
cheat the table caught (a round stopped by a complaint and audited, a seat that did not open its
seeds in time) is reported the same way, at the message that decided it.  A record whose last
frame was cut short (the host died while writing it) is verified as far as its frames are whole,
and the report says where it stops (``torn``).
No I/O: the caller reads the file (`shanghai_net.net.transcript.read_record`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..engine.events import round_numbers
from ..identity import fingerprint
from ..wire.errors import ProtocolError
from ..wire.messages import HOST_AUTHOR, GameMessage, Message, StartGame, game_id_of
from .fault import Fault
from .public import PublicTable
from .disputes import Protested, absence, final_result
from .roster import Holder

__all__ = ["Finding", "Report", "verify"]


@dataclass(frozen=True)
class Finding:
    """The first fault: found at game message ``seq`` (None: before any), caused by seat
    ``culprit`` (``HOST_AUTHOR``: the host; None: the record cannot tell)."""

    seq: int | None
    culprit: int | None
    reason: str
    ending: bool = False
    """The record ends before the game does (no fault of anyone's it shows): ``seq`` is the
    message the game is at, ``reason`` how far its deal got."""

    def __str__(self) -> str:
        if self.ending:  # nobody's fault: the game had got that far when the record was read
            return f"the game is still going on at message {self.seq} ({self.reason}): every " \
                   "message so far checks out"
        where = "start_game" if self.seq is None else f"seq {self.seq}"
        return f"{where}: {Fault(self.culprit, self.reason)}"


@dataclass(frozen=True)
class Report:
    """What a verification checked, and its first fault (None: the game checks out)."""

    game_id: bytes
    names: tuple[str, ...]
    preset: str
    messages: int
    """Game messages checked (up to the fault, if any)."""
    moves: int
    """Moves applied by the replica (host timeouts included)."""
    rounds: int
    """Rounds audited from their revealed seeds."""
    faces: int
    """Cards shown in play whose face the seeds confirmed."""
    replayed: int = 0
    """Moves replayed with every card known, once their round's seeds opened its decks."""
    totals: tuple[int, ...] = ()
    ranking: tuple[int, ...] = ()
    voided: int | None = None
    """The round voided because its audit named a seat, or found a fault it could pin on no seat
    (a card turned up for all that opened to nothing, every step matching its seed): the game
    ended there."""
    left: tuple[tuple[int, int], ...] = ()
    """(round, seat): the table voted that the seat left that round (the round is void, the
    seat pays the leave penalty, the game goes on)."""
    unpaid: frozenset[tuple[int, int]] = frozenset()
    """Of ``left``, the leaves that cost the seat nothing (the host's stand-in's)."""
    silent: frozenset[tuple[int, int]] = frozenset()
    """Of ``left``, the seats whose seeds never came for the round's audit (the seat, or the
    host that relays it, kept them back): charged as seats that left."""
    holders: tuple[Holder, ...] = ()
    """Who played each seat at the end (each `Holder` says who before, and from when)."""
    numbers: Mapping[int, int] = dataclasses.field(default_factory=dict)
    """Each deal's round as the table counts rounds (`round_numbers`): the summary says the
    rounds so, as the console does."""
    scored: int = 0
    """Rounds scored (a voided one is not)."""
    protests: tuple[Protested, ...] = ()
    """What seats said the host did to them (a timeout they protested)."""
    fault: Finding | None = None
    torn: int = 0
    """Bytes of a message cut short after the record's whole messages (0: none): the host
    stopped while writing it."""

    @property
    def ok(self) -> bool:
        """Every message checks out and the record holds the whole game, and nothing more."""
        return self.fault is None and not self.torn

    def summary(self) -> str:
        seats = ", ".join(f"{seat} {name}" for seat, name in enumerate(self.names))
        lines = [f"game {self.game_id.hex()}, {self.preset}, seats: {seats}",
                 f"checked {self.messages} game messages: moves {self.moves}; rounds audited "
                 f"from their seeds {self.rounds}; faces matched {self.faces}; moves replayed "
                 f"with every card known {self.replayed}"]
        for round_no, seat in self.left:
            pays = "it costs the seat nothing (the host's stand-in played it)" \
                if (round_no, seat) in self.unpaid \
                else "the leaver pays the leave penalty"
            how = f": {absence([seat])}, so {self.names[seat]} left it" \
                if (round_no, seat) in self.silent \
                else f" by the table's vote: {self.names[seat]} left it"
            lines.append(f"round {self._round(round_no)} voided{how}; not scored, {pays}, the "
                         "contract is "
                         "dealt again")
        for seat, holder in enumerate(self.holders):
            while holder.before is not None:
                lines.append(f"seat {seat} played by {holder.name} ({holder.kind}, key "
                             f"{fingerprint(holder.sign_key)}) from round "
                             f"{self._round(holder.since)}")
                holder = holder.before
        if self.voided is not None:
            why = "its audit, which named a seat" if self.fault is not None and \
                self.fault.culprit is not None else "its audit, which could name no seat"
            lines.append(f"round {self._round(self.voided)} voided by {why}: not scored; the "
                         "game ended there")
        for p in self.protests:
            shown = "seeds" if getattr(p.claim and p.claim.body, "step", None) == "seeds" \
                else "claim"
            lines.append(f"{self.names[p.seat]} protests the host's timeout at seq {p.seq}: "
                         f"{p.reason}" + (f" (with the {shown} it signed, which the host did "
                                          "not sequence)" if p.claim is not None else ""))
        if self.ranking and not self.scored:
            lines.append("no result: no round was scored, so nobody won")
        elif self.ranking:
            lines.append("result: " + ", ".join(f"{self.played_by(seat)} {self.totals[seat]}"
                                                for seat in self.ranking))
        if self.torn:
            lines.append(self._torn_line())
        else:
            lines.append(str(self.fault) if self.fault else self._ok_line())
        return "\n".join(lines)

    def played_by(self, seat: int) -> str:
        """Whose the seat's result is: its last holder, as the table shows it ("bea for ann")."""
        return self.holders[seat].describe() if self.holders else self.names[seat]

    def _ok_line(self) -> str:
        """What a record with no fault shows, and no more: a round voided by a vote was never
        audited (its seeds were not shown), so its hidden cards were never checked."""
        if not self.left:
            return "ok: every move and every deal checks out"
        *earlier, last = (self._round(round_no) for round_no, _ in self.left)
        if not self.scored:  # every round voided: there is no round scored to speak of
            rounds = f"round {last} was" if not earlier else \
                f"rounds {', '.join(earlier)} and {last} were"
            return (f"ok: every move checks out; no round was scored: {rounds} voided before "
                    "the seeds were shown, so no deal was audited")
        if not earlier:
            voided = f"round {last} voided before its seeds were shown, so its deal was"
        else:
            voided = (f"rounds {', '.join(earlier)} and {last} voided before their seeds were "
                      "shown, so their deals were")
        return f"ok: every move and the deal of every round scored check out; {voided} not audited"

    def _round(self, deal: int) -> str:
        """The deal ``deal`` (a ``round_no``) as the table counts rounds: "2", or "2 (dealt
        again)" for the deal that played a voided round's contract again."""
        number = self.numbers.get(deal, deal)
        return f"{number} (dealt again)" if self.numbers.get(deal - 1) == number else str(number)

    def _torn_line(self) -> str:
        """The verdict on a torn record: where it is torn, and what before it is kept and checks
        out (the whole messages; `read_record` leaves the torn bytes out)."""
        n = self.messages
        cut = f"{self.torn} byte{'s' if self.torn != 1 else ''}"
        if self.fault is not None and not self.fault.ending:
            return (f"{self.fault}; the record is also torn at its end: {cut} of a message cut "
                    "short (the host stopped while writing it)")
        kept = (f"the {n} whole game message{'s' if n != 1 else ''} before it "
                f"{'are' if n != 1 else 'is'} kept and check{'' if n != 1 else 's'} out")
        if self.fault is None:
            return (f"torn after the game's end: {cut} of a message cut short (the host stopped "
                    f"while writing it); {kept}, the whole game")
        return (f"torn in game message {n + 1}: the host stopped while writing it, {cut} into it; "
                f"{kept}, the game as far as it had got ({self.fault.reason})")


def verify(messages: Sequence[Message], torn: int = 0) -> Report:
    """Replay and audit a recorded game; the report says what was checked and the first fault.
    ``torn``: bytes of a message cut short after ``messages`` (`read_record`), said at the end."""
    return dataclasses.replace(_verify(messages), torn=torn)


def _verify(messages: Sequence[Message]) -> Report:
    start = messages[0] if messages else None
    if not isinstance(start, StartGame):
        return Report(game_id=b"", names=(), preset="?", messages=0, moves=0, rounds=0, faces=0,
                      fault=Finding(None, HOST_AUTHOR, "the record does not begin with start_game"))
    if len(start.nonces) != len(start.seats) or \
            game_id_of(start.host_nonce, start.nonces) != start.game_id:
        return _report(start, None, 0, Finding(None, HOST_AUTHOR, "start_game: the game id is "
                                               "not the one its nonces make (protocol.md 6.2)"))
    try:
        table = PublicTable(start)
    except (ValueError, ProtocolError) as error:
        return _report(start, None, 0, Finding(None, HOST_AUTHOR, f"start_game: {error}"))
    checked, decided = 0, None
    for msg in messages[1:]:
        if not isinstance(msg, GameMessage):
            why = ("a second start_game: another game is recorded from here (one game a file)"
                   if isinstance(msg, StartGame) else f"a {msg.TYPE} message in a game's record")
            return _report(start, table, checked, Finding(table.chain.next_seq, HOST_AUTHOR, why))
        try:
            table.receive(msg)
        except Fault as fault:
            return _report(start, table, checked, Finding(msg.seq, fault.culprit, fault.reason))
        checked += 1
        if table.verdict is not None and decided is None:
            decided = Finding(msg.seq, table.verdict.culprit, table.verdict.reason)
    if decided is not None:
        return _report(start, table, checked, decided)
    if not table.finished:
        return _report(start, table, checked, Finding(
            table.chain.next_seq, None, f"round {round_numbers(table.public.log).get(table.round, table.round)} not "
            "audited yet" if table.round
            else "no round dealt yet", ending=True))
    return _report(start, table, checked, None)


def _report(start: StartGame, table: PublicTable | None, checked: int,
            fault: Finding | None) -> Report:
    result = final_result(table, table.public) if table is not None and table.finished else None
    return Report(game_id=start.game_id, names=tuple(s.name for s in start.seats),
                  preset=start.preset, messages=checked, moves=table.version if table else 0,
                  rounds=table.rounds_audited if table else 0, faces=table.faces if table else 0,
                  totals=result.totals if result else (), ranking=result.ranking if result else (),
                  replayed=table.replay.moves if table else 0,
                  voided=table.voided if table else None, fault=fault,
                  left=tuple(table.left) if table else (),
                  unpaid=frozenset(table.unpaid) if table else frozenset(),
                  silent=frozenset(table.silent) if table else frozenset(),
                  holders=tuple(table.holders) if table else (),
                  scored=len(result.rounds) if result else 0,
                  protests=tuple(table.protests) if table else (),
                  numbers=round_numbers(table.public.log) if table else {})
