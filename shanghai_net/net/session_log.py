"""The seat's log in words: what the `NetSession` adds to it as the peer changes: the game's
events as this seat may know them, chat, the connection (lost, back, a seat handed to us),
seats that dropped, came back or changed hands, the table waiting for a seat, the vote the
seat cast for its person who pressed no key, and each round's audit, complaint, protest and
verdict."""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Event, Phase, RoundEnded
from ..session import redact
from ..table.public import PublicTable
from ..table.seat import PeerTable
from ..wire.messages import HOST_AUTHOR

__all__ = ["SeatLog", "events_of"]


class SeatLog:
    """The log part of `NetSession` (it sets the attributes these read, and ``_add``s)."""

    def _take_events(self, events: Sequence[Event]) -> None:
        seat = self.seat
        new = events[self._seen_events:]
        names = self._holders() if new else None
        for event in new:
            seen = redact(event, seat)
            self._add(str(seen), seen, names=names)
            if isinstance(event, RoundEnded) and self.table.game.phase is not Phase.OVER:
                self._hold = True
        self._seen_events = len(events)

    def _holders(self) -> tuple[str, ...]:
        """Who plays each seat at the message the table has just taken: "you" where our keys
        do, else as the table shows its holder ("bot for carl").  A log entry keeps them, so
        that a seat taken back does not take the stand-in's moves with it (issue 42)."""
        ours = self._sign_public
        names = tuple("you" if h.sign_key == ours else h.describe() for h in self.table.holders)
        if names != self._names_seen:  # one tuple for the entries alike
            self._names_seen = names
        return self._names_seen

    def _take_chat(self, chat) -> None:
        by_name = {name: seat for seat, name in reversed([(s.seat, s.name) for s in self.seats])}
        for line in chat[self._seen_chat:]:
            seat = by_name.get(line.name)
            if seat is None:  # a spectator, or a name the table does not know
                self._add(f"{line.name or '?'} says: {line.text}")
            else:
                self._add(line.text, chat_from=seat)
        self._seen_chat = len(chat)

    def _note_status(self, peer) -> None:
        status = peer.status
        if status == self._status_seen:
            return
        before, self._status_seen = self._status_seen, status
        if self._handed_to is not None and status != "failed":
            return  # our own spectator's connection: only its failure is news
        if status == "reconnecting" and "handed to us" in peer.detail:
            self._taking = True
            self._add(f"seat {peer.seat} was handed to you: your program replays the game as "
                      "that seat, then you play on")
        elif status == "reconnecting":  # the countdown and the attempts are the status line's
            self._add(peer.detail.partition("; retrying")[0] or "connection lost")
        elif status == "playing" and before == "reconnecting":
            if not self._taking:
                self._add("reconnected")
        elif status == "lobby" and before in ("", "connecting"):
            self._add(f"joined the table as seat {peer.seat}" if peer.seat is not None else
                      "joined the table as a watcher")
        elif status == "playing" and before in ("", "connecting", "lobby"):
            self._add("the game starts")
        elif status == "failed":
            self._add(self.status)

    def _note_waiting(self, peer, table: PeerTable) -> None:
        """Seats that dropped or came back, and a dropped seat the table is waiting for."""
        absent = frozenset(peer.absent)
        for seat in sorted(absent - self._absent_seen):
            taker = self._taker(seat, peer, table)
            if taker is not None:  # its successor replays the game first, then plays on
                self._passing.add(seat)
                self._add(f"seat {seat} passes to {taker}")
            else:
                self._add(f"{self._name(seat)} " + ("left the game" if seat in peer.left
                                                   else "lost connection"))
        for seat in sorted(self._absent_seen - absent):
            if seat in self._passing:
                self._passing.discard(seat)
                self._arrived.add(table.holders[seat].sign_key)
                self._add(f"{self._name(seat)} takes seat {seat}")
            else:
                self._add(f"{self._name(seat)} is back")
        self._absent_seen = absent
        owed = table.owed()
        waiting = frozenset(absent & (set(table.game.to_move()) | set(owed)) - self._passing)
        for seat in sorted(waiting - self._waiting_seen):
            what = f": {owed[seat]}" if seat in owed else ""
            self._add(f"waiting for {self._name(seat)}{what} (V votes to void the round if "
                      "they do not come back)")
        self._waiting_seen = waiting

    def _note_votes_for_you(self, peer) -> None:
        """The votes the seat cast by itself for its person, who pressed no key while ``V``
        was offered (`Voting.person_vote_at`)."""
        for seat in peer.votes_for_person[self._votes_for_you_seen:]:
            after = peer.person_vote_after
            wait = f"{after / 60:g} min" if after >= 60 else f"{after:g} s"
            self._add(f"nobody pressed a key for {wait} while the table waited for "
                      f"{self._name(seat)}: your seat voted that they left, as V does")
        self._votes_for_you_seen = len(peer.votes_for_person)

    def _note_audits(self, table: PeerTable | PublicTable) -> None:
        for round_no in sorted(set(getattr(table, "verdicts", {})) - self._seen_verdicts):
            self._seen_verdicts.add(round_no)
            self._audits[round_no] = self.audit(round_no)
            self._add(f"round {self._round(round_no)} audited: {self.audit(round_no)}")
        audited = getattr(table, "rounds_audited", 0)  # a watcher's: its rounds audited clean
        if audited > self._audits_counted:
            self._audits_counted = audited
            self._audits[table.round] = "clean"
            self._add(f"round {self._round(table.round)} audited: clean")
        if table.fault is not None and not self._fault_seen:
            self._fault_seen = True
            self._add(f"the game stopped: {table.fault}")
        if getattr(table, "complaint", None) is not None and not self._complained:
            self._complained = True
            self._add(f"the deal went wrong for you ({table.complaint}): you complained, and "
                      "the round is audited now")
        for protest in table.protests[self._protests_seen:]:
            self._add(f"{self._name(protest.seat)} protests the host's timeout: {protest.reason}"
                      + (" (its signed claim shows it)" if protest.claim is not None else ""))
        self._protests_seen = len(table.protests)
        if table.verdict is not None and not self._verdict_seen:
            self._verdict_seen = True
            self._add(self.cheat_line(table.verdict))

    def _round(self, deal: int) -> int:
        """The deal ``deal`` (a ``round_no``) as the table counts rounds (`round_numbers`)."""
        return self.round_numbers.get(deal, deal)

    def cheat_line(self, verdict) -> str:
        """Whom a round's audit named, in words for the table (the culprit ranks last)."""
        culprit = verdict.culprit
        who = "no one" if culprit is None else "the host" if culprit == HOST_AUTHOR else \
            f"seat {culprit} ({self._name(culprit)})"
        return (f"{who} cheated in the deal: {verdict.reason}; the round is void and the game "
                "over")


def events_of(table) -> Sequence[Event]:
    """The events of a table shown: the seat's replica's, or a watcher's public game's."""
    events = getattr(table, "events", None)
    return events if events is not None else table.game.log

