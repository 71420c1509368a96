"""A recorded game replayed and audited by a third party: ``verify(messages) -> Report``.

The record is what the host writes with ``--record``: ``start_game``, then every sequenced game
message.  A verifier holds no key of any seat, so it sees what a spectator sees, and checks what
every seat checks: the chain and every signature, every move with its own engine replica, every
step of the public deal in its turn, and every card shown opening to a card of its deck (all of
that is `PublicTable`).  At each round's end every seat's ``seeds`` body shows its seeds and the
key shares it received; with them the verifier recomputes the round as a seat's audit does
(`shanghai_net.deal.audit`), checks that every key share sealed in the stream was shown, and
opens every position of every deck from the seeds, matching the faces the game showed.

The first fault stops the replay and is reported with the seq where it was found and the seat
it names (the host for a message it should not have relayed, or that is not in the record).
No I/O: the caller reads the file (`shanghai_net.net.host.read_transcript`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..deal.audit import audit, opened_deck
from ..deal.generation import Generation
from ..deal.messages import Context, KeyShare, SeedReveal, verify as verify_signature
from ..engine.dealer import Shuffle
from ..wire.errors import ProtocolError
from ..wire.messages import HOST_AUTHOR, GameMessage, Message, StartGame
from .bodies import DealStep
from ..engine.moves import Move
from .replay import FullReplay
from .table import Fault, PublicTable, rules_of

__all__ = ["Finding", "Report", "verify"]

OBSERVER = -1
"""The seat a third party's record of a generation carries: it is no seat (as ``viewer=-1`` is
the engine's public replica), and has no seed of its own."""


@dataclass(frozen=True)
class Finding:
    """The first fault: found at game message ``seq`` (None: before any), caused by seat
    ``culprit`` (``HOST_AUTHOR``: the host; None: the record cannot tell)."""

    seq: int | None
    culprit: int | None
    reason: str

    def __str__(self) -> str:
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
    """The round the table voted void, where the game ended (it is not audited)."""
    fault: Finding | None = None

    @property
    def ok(self) -> bool:
        return self.fault is None

    def summary(self) -> str:
        seats = ", ".join(f"{seat} {name}" for seat, name in enumerate(self.names))
        lines = [f"game {self.game_id.hex()}, {self.preset}, seats: {seats}",
                 f"checked {self.messages} game messages: moves {self.moves}; rounds audited "
                 f"from their seeds {self.rounds}; faces matched {self.faces}; moves replayed "
                 f"with every card known {self.replayed}"]
        if self.voided is not None:
            lines.append(f"round {self.voided} voided by the table's vote: not scored, not "
                         "audited; the game ended there")
        if self.ranking:
            lines.append("result: " + ", ".join(f"{self.names[seat]} {self.totals[seat]}"
                                                for seat in self.ranking))
        lines.append(str(self.fault) if self.fault else
                     "ok: every move and every deal checks out")
        return "\n".join(lines)


class _AuditingTable(PublicTable):
    """The public table that also keeps each round's deal as a third party sees it, one
    `Generation` a shuffle, and audits it once every seat's seeds are in."""

    def __init__(self, start: StartGame) -> None:
        self.records: dict[int, Generation] = {}
        self.sealed: set[tuple[int, int, int, tuple[int, ...]]] = set()
        """(generation, author, recipient, positions) of every key share sealed this round."""
        self.shown: set[KeyShare] = set()
        """The key shares the seats' ``seeds`` bodies showed this round (each once)."""
        self.rounds_audited = 0
        self.faces = 0
        self.replay = FullReplay(rules_of(start), len(start.seats))
        super().__init__(start)

    def _applied(self, author: int, move: Move) -> None:
        self.replay.move(author, move)

    def _picked(self, value: int) -> None:
        self.replay.pick(value)

    def _new_round(self, round_no: int) -> None:
        super()._new_round(round_no)
        self.records = {}
        self.sealed = set()
        self.shown = set()

    def _start_generation(self, request: Shuffle) -> None:
        super()._start_generation(request)
        context = Context(self.game_id, self.round, request.generation)
        self.records[request.generation] = Generation(context, tuple(request.cards),
                                                      self.players, OBSERVER, b"")

    def _seat_messages(self, author: int, step: DealStep) -> None:
        super()._seat_messages(author, step)
        if step.step not in ("commit", "pass", "reveal", "seeds"):
            return  # a pick is checked whole as it runs
        for message in step.messages:
            record = self.records.get(message.context.generation)
            if record is None:
                raise Fault(author, f"seat {author}: {step.step} for generation "
                                    f"{message.context.generation}, which round {self.round} "
                                    "never shuffled")
            if step.step == "commit":
                record.commitments[author] = message
            elif step.step == "pass":
                record.passes.append(message)
            elif step.step == "reveal":
                record.reveals.append(message)
            elif isinstance(message, SeedReveal):
                self._seed(author, record, message)
            elif isinstance(message, KeyShare) and message not in self.shown:
                self.shown.add(message)
                record.evidence.append(message)

    def _seed(self, author: int, record: Generation, reveal: SeedReveal) -> None:
        try:
            verify_signature(reveal, self._signing[author])
        except ValueError as error:
            raise Fault(author, f"seat {author}: {error}") from None
        if author in record.seed_reveals:
            raise Fault(author, f"seat {author}: two seeds for generation "
                                f"{reveal.context.generation}")
        record.seed_reveals[author] = reveal

    def _seat_shares(self, author: int, step: DealStep) -> None:
        self.sealed.update((s.context.generation, s.author, s.recipient, s.positions)
                           for s in step.sealed)

    def _audit(self) -> None:
        records = [record for _, record in sorted(self.records.items())]
        verdict = audit(records, self._signing)
        if not verdict.clean:
            raise Fault(verdict.culprit, f"round {self.round} audit: {verdict.reason}")
        hidden = sorted(self.sealed - {(s.context.generation, s.author, s.recipient, s.positions)
                                       for s in self.shown})
        if hidden:
            generation, sender, recipient, positions = hidden[0]
            raise Fault(recipient, f"round {self.round} audit: seat {recipient} did not show the "
                                   f"key share seat {sender} sealed for it (generation "
                                   f"{generation}, positions {list(positions)})")
        decks = {record.context.generation: opened_deck(record) for record in records}
        for record in records:
            deck = decks[record.context.generation]
            for position, card in self.decks[record.context.generation].public.items():
                if deck[position] != card:
                    raise Fault(None, f"round {self.round} audit: generation "
                                      f"{record.context.generation} position {position} was "
                                      f"shown as {card}, its seeds make it {deck[position]}")
                self.faces += 1
        self.replay.replay(self.round, decks)
        self.rounds_audited += 1


def verify(messages: Sequence[Message]) -> Report:
    """Replay and audit a recorded game; the report says what was checked and the first fault."""
    start = messages[0] if messages else None
    if not isinstance(start, StartGame):
        return Report(game_id=b"", names=(), preset="?", messages=0, moves=0, rounds=0, faces=0,
                      fault=Finding(None, HOST_AUTHOR, "the record does not begin with start_game"))
    try:
        table = _AuditingTable(start)
    except (ValueError, ProtocolError) as error:
        return _report(start, None, 0, Finding(None, HOST_AUTHOR, f"start_game: {error}"))
    checked = 0
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
    if not table.finished:
        return _report(start, table, checked, Finding(
            table.chain.next_seq, None, f"the record ends before the game is over (round "
                                        f"{table.round} not audited)"))
    return _report(start, table, checked, None)


def _report(start: StartGame, table: _AuditingTable | None, checked: int,
            fault: Finding | None) -> Report:
    result = table.public.result if table is not None and table.finished else None
    return Report(game_id=start.game_id, names=tuple(s.name for s in start.seats),
                  preset=start.preset, messages=checked, moves=table.version if table else 0,
                  rounds=table.rounds_audited if table else 0, faces=table.faces if table else 0,
                  totals=result.totals if result else (), ranking=result.ranking if result else (),
                  replayed=table.replay.moves if table else 0,
                  voided=table.voided if table else None, fault=fault)
