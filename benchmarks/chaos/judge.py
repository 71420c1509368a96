"""The chaos evening's judge: a game's outcome, read from its verified record, held to the
invariants (it finished within its bounds, nobody named, each leave charged once and no one
charged who did not leave).  At a table sharing seeds (docs/dealing.md, protocol.md 11.10) a
seat voted gone by ``t`` holders is lost and rebuilt and its round goes on (R1): the loss is
the seat's one charge and voids nothing; a seat silent at its seeds is rebuilt and audited (R2):
no leave, no charge."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .draw import ABSENT_MAYBE, ABSENT_ONCE, GameSpec, Seat


@dataclass
class Outcome:
    spec: GameSpec
    work: Path
    seconds: float = 0.0
    finished: bool = False
    verified: bool = False
    deals: int = 0
    charges: dict[str, int] = field(default_factory=dict)
    """Seat name (as it started) -> leave penalties charged to the seat."""
    voids: dict[str, int] = field(default_factory=dict)
    """Seat name, or "audit" -> rounds voided for it."""
    lost: dict[str, int] = field(default_factory=dict)
    """Seat name -> times the table lost it mid-round and its round went on (R1)."""
    lingered: list[str] = field(default_factory=list)
    """The seats whose program still ran 30 s after a game that ended well (soak 9-1: a seat
    stuck waiting to be seated again, retrying the host's closed connection)."""
    void_causes: list[str] = field(default_factory=list)
    """What voided each deal voided (`RecordWatch.void_causes`)."""
    sharing: int | None = None
    """The table's ``t`` (its start_game's ``share_threshold``), or None: sharing off."""
    named: list[str] = field(default_factory=list)
    taken_back: list[str] = field(default_factory=list)
    """The seats whose player took them back from a stand-in."""
    protests: int = 0
    failures: list[str] = field(default_factory=list)
    verdict: str = ""

    @property
    def record(self) -> Path:
        return self.work / "record.bin"

    def count_leaves(self, report) -> None:
        """Each leave in the verified record (`Report.left`) voids a round of its seat, and
        charges the seat unless it cost the seat nothing (`Report.unpaid`: the host's stand-in
        voted gone, say one that died with the host, or a seat charged for its silence voted
        gone before it signed again)."""
        for leave in report.left:
            name = report.names[leave[1]]
            self.voids[name] = self.voids.get(name, 0) + 1
            if leave not in report.unpaid:
                self.charges[name] = self.charges.get(name, 0) + 1

    def count_losses(self, report, losses) -> None:
        """Each seat lost mid-round (`SeatLost`, R1) voids nothing, and charges the seat unless
        it paid nothing (the host's stand-in, or a seat charged for its silence since)."""
        for loss in losses:
            name = report.names[loss.seat]
            self.lost[name] = self.lost.get(name, 0) + 1
            if loss.penalty:
                self.charges[name] = self.charges.get(name, 0) + 1

    def judge(self, start, report, losses=()) -> None:
        """Hold the game to the invariants, from the verified record's `Report` (``start``:
        its `start_game`, whose keys tell a seat taken back by its own player; ``losses``: its
        `SeatLost` events, R1)."""
        spec, names = self.spec, report.names
        self.sharing = start.share_threshold
        if spec.sharing != (start.share_threshold is not None):
            self.failures.append(f"the host was {'' if spec.sharing else 'not '}asked to share "
                                 f"seeds, and its start_game's t is {start.share_threshold}")
        for seat, holder in enumerate(report.holders):
            if holder.before is not None and holder.sign_key == start.seats[seat].sign_key:
                self.taken_back.append(names[seat])
        self.count_leaves(report)
        self.count_losses(report, losses)
        if report.voided is not None:
            self.voids["audit"] = 1
        self.deals = report.scored + len(report.left) + (report.voided is not None)
        fault = report.fault
        if fault is not None and not fault.ending and fault.culprit is not None:
            who = "the host" if fault.culprit >= len(names) else names[fault.culprit]
            self.named.append(who)
            self.failures.append(f"{who} named: {fault}")
        self.protests = len(report.protests)
        if self.deals > spec.deal_bound:
            self.failures.append(f"{self.deals} deals, over the bound of {spec.deal_bound}")
        for seat in spec.seats + ([Seat("bot1", False)] if spec.host_bots else []):
            self._charged(seat.name)

    def _charged(self, name: str) -> None:
        """A seat pays once for each fault after which it left for good or was voted gone
        (`ABSENT_ONCE`), and at most once more for each it was away a while (`ABSENT_MAYBE`) or
        left at the last round's audit (`Fault.over`); only faults that struck count."""
        faults = [f for f in self.spec.faults if f.target == name and f.injected]
        struck = [f.kind for f in faults]
        paid = self.charges.get(name, 0)
        must = sum(f.kind in ABSENT_ONCE and not f.over for f in faults)
        may = sum(f.kind in ABSENT_ONCE or f.kind in ABSENT_MAYBE for f in faults)
        if paid > may:
            why = ", ".join(struck) or "no fault of its own"
            self.failures.append(f"{name} charged {paid} times ({why})")
        elif paid < must and self.finished:
            self.failures.append(f"{name} left ({', '.join(struck)}) and was charged {paid} "
                                 f"times")
