"""How far a game of the chaos evening has come, read from the host's record as it grows: the
moments its faults wait for."""

from __future__ import annotations

from pathlib import Path

from shanghai_net.wire import FrameDecoder, decode_message
from shanghai_net.wire.messages import GameMessage

from .draw import Fault


class RecordWatch:
    """The record's frames (decoded, not verified: cheap): the deal (1 + rounds whose seeds every
    seat showed + rounds voided by a vote), the discards in it, and whether its audit began
    (a seat's seeds are in: which seats').  A resumed host may cut a torn frame: the record is
    then read again from its start."""

    def __init__(self, path: Path, players: int, rounds: int) -> None:
        self.path, self.players, self.rounds = path, players, rounds
        self._reset()

    def _reset(self) -> None:
        self._decoder, self._offset = FrameDecoder(), 0
        self.seeds, self.discards, self.in_deal = 0, 0, 0
        self.seeds_from: set[int] = set()
        """The seats whose seeds of this deal are in."""
        self.votes: dict[tuple[int, int], set[int]] = {}
        self.voided: set[tuple[int, int]] = set()
        self.deal = 1
        self.started = False

    def poll(self) -> None:
        try:
            size = self.path.stat().st_size
        except OSError:
            return
        if size < self._offset:
            self._reset()
        with open(self.path, "rb") as stream:
            stream.seek(self._offset)
            data = stream.read(size - self._offset)
        if not data:  # no news (empty data would tell the decoder the stream ended)
            return
        self._offset += len(data)
        self._decoder.receive_data(data)
        while (frame := self._decoder.next_frame()) is not None:
            self._read(decode_message(frame))

    def _read(self, msg) -> None:
        self.started = True
        if not isinstance(msg, GameMessage):
            return
        kind = type(msg.body).__name__
        if kind == "Discard":
            self.discards += 1
            self.in_deal += 1
        elif kind == "Deal" and msg.body.step == "seeds":
            self.seeds += 1
            self.seeds_from.add(msg.author)
        elif kind == "VoidRound":
            key = (msg.body.round, msg.body.seat)
            self.votes.setdefault(key, set()).add(msg.author)
            if len(self.votes[key]) * 2 > self.players:
                self.voided.add(key)
        deal = 1 + self.seeds // self.players + len(self.voided)
        if deal != self.deal:
            self.deal, self.in_deal, self.seeds_from = deal, 0, set()

    def reached(self, fault: Fault) -> bool:
        """The fault's moment has come (or passed)."""
        if not self.started or self.deal < fault.deal:
            return False
        if self.deal > fault.deal:
            return True
        return bool(self.seeds_from) if fault.audit else self.in_deal >= fault.discards

    def over_for(self, seats: set[int]) -> bool:
        """Whether ``seats`` have shown their seeds of the game's last round: the game is over
        for them (a leave now leaves no round to void)."""
        audited = self.seeds // self.players
        return audited >= self.rounds or (audited == self.rounds - 1 and seats <= self.seeds_from)

    def voids_of(self, seats: set[int]) -> int:
        """Rounds voided by a vote naming one of ``seats``."""
        return sum(key[1] in seats for key in self.voided)

    def where(self) -> str:
        return f"deal {self.deal}, " + (f"audit ({len(self.seeds_from)} seeds in)"
                                        if self.seeds_from else f"discard {self.in_deal}")
