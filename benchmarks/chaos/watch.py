"""How far a game of the chaos evening has come, read from the host's record as it grows: the
moments its faults wait for, and the seats the table lost mid-round."""

from __future__ import annotations

from pathlib import Path

from shanghai_net.engine.events import SeatLost
from shanghai_net.table.fault import Fault as TableFault
from shanghai_net.table.public import PublicTable
from shanghai_net.wire import FrameDecoder, decode_message
from shanghai_net.wire.messages import GameMessage, StartGame

from .draw import Fault


class RecordWatch:
    """The record's messages, followed by a `PublicTable` as ``shanghai verify`` follows them:
    the deal (1 + rounds audited + deals voided; a seat lost mid-round at a table sharing seeds
    voids nothing, docs/dealing.md R1), the discards in it, and whether its audit began (a
    seat's seeds are in: which seats').  A resumed host may cut a torn frame: the record is
    then read again from its start."""

    def __init__(self, path: Path, players: int, rounds: int) -> None:
        self.path, self.players, self.rounds = path, players, rounds
        self._reset()

    def _reset(self) -> None:
        self._decoder, self._offset = FrameDecoder(), 0
        self.table: PublicTable | None = None
        self.broken = ""
        """Why the table stopped following the record (a fault: `shanghai verify` says it too)."""
        self.audited, self.discards, self.in_deal = 0, 0, 0
        self.seeds_from: set[int] = set()
        """The seats whose seeds of this deal are in."""
        self.ended: list[tuple[int, int]] = []
        """(round, seat) of each vote that carried against a seat: its round voided, or the
        seat lost and the round going on."""
        self.void_causes: list[str] = []
        """For each deal voided, the message that voided it: ``void_round`` (the votes), or
        the host's ``timeout`` (``vote``: at a table sharing seeds, ``t`` holders' votes never
        came, and ``(fewer than t other holders)`` if they never could: `_cause`; ``shares``: a
        rebuild's shares; ``seeds``: a seat silent at the audit)."""
        self.deal = 1
        self.started = False
        self.last_seq = -1
        """The seq of the last game message read (-1: none yet)."""
        self.signed: dict[int, int] = {}
        """Seat -> the seq of the last message its first player's key signed for it."""

    def poll(self) -> None:
        try:
            size = self.path.stat().st_size
        except OSError:
            return
        if size < self._offset:
            self._reset()
        with open(self.path, "rb") as stream:
            stream.seek(self._offset)
            while self._offset < size:  # at most the decoder's room at once: a record read
                # again from its start after a resume is over a megabyte in a long game
                data = stream.read(min(self._decoder.room, size - self._offset))
                if not data:  # no news (empty data would tell the decoder the stream ended)
                    return
                self._offset += len(data)
                self._decoder.receive_data(data)
                while (frame := self._decoder.next_frame()) is not None:
                    self._read(decode_message(frame))

    def _read(self, msg) -> None:
        self.started = True
        if isinstance(msg, StartGame) and self.table is None:
            self.table = PublicTable(msg)
            return
        if not isinstance(msg, GameMessage) or self.table is None:
            return
        self.last_seq = msg.seq
        if self.broken:
            return
        table = self.table
        cause = self._cause(msg.body)
        try:
            table.receive(msg)
        except (TableFault, ValueError) as fault:
            self.broken = f"seq {msg.seq}: {fault}"
            return
        if msg.author < len(table.holders) and \
                table.holders[msg.author].sign_key == table.start_game.seats[msg.author].sign_key:
            self.signed[msg.author] = msg.seq
        if type(msg.body).__name__ == "Discard":
            self.discards += 1
            self.in_deal += 1
        self.void_causes += [cause] * (len(table.left) - len(self.void_causes))
        for ended in table.left + table.lost:
            if ended not in self.ended:
                self.ended.append(ended)
        self.audited = table.rounds_audited
        self.seeds_from = set(table.seeds_from) if table.waiting_audit else set()
        deal = 1 + table.rounds_audited + len(table.left)
        if deal != self.deal:
            self.deal, self.in_deal, self.seeds_from = deal, 0, set()

    def _cause(self, body) -> str:
        """What a void at ``body`` (read before the table takes it) is called in the tally:
        ``VoidRound`` (the votes), or ``timeout`` and its ``what``; a ``vote`` timeout of a
        seat whose other holders were fewer than ``t`` says so: bar (2) of docs/dealing.md's
        vote could never be met, no vote could have spared the round, and a host that waits
        its audit_timeout for it waits for nothing (soak 13-5, 15-21, 15-26, 16-10, each 90 to
        130 s, before the host timed such a vote out at once: Sequencer._vote_wait)."""
        if type(body).__name__ != "Timeout":
            return type(body).__name__
        table = self.table
        if body.what == "vote" and table.share_threshold is not None and len(
                set(table.share_holders(table.share_threshold, table.start_game.host_run))
                - {body.seat}) < table.share_threshold:
            return "timeout vote (fewer than t other holders)"
        return f"timeout {body.what}"

    def reached(self, fault: Fault) -> bool:
        """The fault's moment has come (or passed)."""
        if not self.started or self.deal < fault.deal:
            return False
        if self.deal > fault.deal:
            return True
        return bool(self.seeds_from) if fault.audit else self.in_deal >= fault.discards

    def at_last_audit(self) -> bool:
        """Whether the game's last round is played and its audit has begun (or is over): a
        seat that leaves now has no round left to play, and owes only its seeds, which its
        program sends on its way out (soak 8-2, twice: once before the bye, once after)."""
        return self.audited >= self.rounds or (self.audited == self.rounds - 1
                                               and bool(self.seeds_from))

    def signed_since(self, seats: set[int], seq: int) -> bool:
        """Whether one of ``seats`` signed a message with its first player's key after ``seq``
        (a program started again is back in the game)."""
        return any(self.signed.get(seat, -1) > seq for seat in seats)

    def voids_of(self, seats: set[int]) -> int:
        """Votes that carried against one of ``seats``: a round voided, or the seat lost."""
        return sum(seat in seats for _, seat in self.ended)

    def losses(self) -> list[SeatLost]:
        """The seats lost mid-round, their rounds going on (R1), each with what it paid (0: the
        host's stand-in, or a seat charged for its silence since)."""
        if self.table is None:
            return []
        return [e for e in self.table.public.log if isinstance(e, SeatLost)]

    def waiting(self) -> str:
        """Where the record stands and what the table waits for there, as the host's public
        table reads it: a game over its time bound says whether it stalled, and on whom."""
        table = self.table
        if table is None:
            return "no game message yet"
        if table.finished and not self.broken:  # the host then waits for the seats to leave
            return f"the last message seq {self.last_seq}, the game over (its host waits for " \
                   "the seats still connected to leave or ask for a rematch)"
        if self.broken:
            return f"the last message seq {self.last_seq}, the table stopped at {self.broken}"
        owed = table.owed()
        owed.update({seat: "its approval of a replacement" for seat in table.approvals_due()
                     if seat not in owed})
        if owed:
            waits = "; ".join(f"seat {seat}: {why}" for seat, why in sorted(owed.items()))
        else:
            moving = table.moving()
            waits = f"the move of seat {', '.join(map(str, sorted(moving)))}" if moving else \
                "nothing the stream names"
        return f"the last message seq {self.last_seq}, the table owed {waits}" + "".join(
            f"; seat {seat} vacant since round {round_no}"
            for seat, round_no in sorted(table.vacant.items())) + self._votes()

    def _votes(self) -> str:
        """The votes standing in the round the table may void, and the seats the host timed
        out as silent: a table that waits for the host's ``silent`` or ``vote`` timeout (a full
        audit_timeout after the last message) is no stall (soak 13-4: two seats of four voted
        seat 0 gone, no majority, and its approval of seat 2's replacement owed)."""
        table = self.table
        votes = sorted((seat, voters) for (round_no, seat), voters in table.gone_votes.items()
                       if round_no == table.void_target and voters)
        said = "".join(
            f"; votes that seat {seat} left: seats {', '.join(map(str, sorted(voters)))}"
            + ("" if table.carried(table.void_target, seat) else " (not carried)")
            for seat, voters in votes)
        silent = sorted(table.silenced)
        return said + (f"; timed out as silent: seat {', '.join(map(str, silent))}"
                       if silent else "")

    def where(self) -> str:
        return f"deal {self.deal}, " + (f"audit ({len(self.seeds_from)} seeds in)"
                                        if self.seeds_from else f"discard {self.in_deal}")
