"""When a seat's table is held up, and what the seat does about it: the part of `Peer` that
says whom a person may vote against (`holding_up`), when a bot seat votes by itself
(``void_after``), when a person's seat votes for its person who presses no key
(``person_vote_after``: `PERSON_VOTE_AFTER` after the console first offered V, a countdown the
console shows and ``W`` starts again, `wait_for_them`), when a seat that complained gives up
on a host keeping its complaint from the table, and what a seat does when the host times out
shares it sent.  It reads the peer's view of the table (``absent``, ``stalling``, ``left``, the
lobby, the table and its outbox); times are trio's clock, passed in or read once.

With sharing on (the table's ``share_threshold``) a vote may have a live seat's seeds rebuilt
and made public, so a seat votes only on what the signed stream shows (docs/dealing.md, "What
the reference clients vote on"): a seat that owes the deal a step, or that the host timed out
as silent while the table waits on it (its move, say), with nothing of its own sequenced for
``void_after`` (a person: `STALL_VOTE`), or whose ``leave`` is sequenced; never
on the lobby's word (``absent``, ``left``: the host's, unsigned), nor because another seat
voted.  A seat's own signed ``leave`` is a reason to vote at once, sharing on or off."""

from __future__ import annotations

import math

import trio

from ..wire.messages import HOST_AUTHOR, Deal, Timeout, VoidRound

__all__ = ["Voting", "STALL_VOTE", "NEWCOMER_GRACE", "PERSON_VOTE_AFTER"]

STALL_VOTE = 30.0
"""Seconds a connected seat may owe the deal a step without a word before a person may vote its
round void (`Peer.holding_up`): far longer than any client takes to answer the deal."""

PERSON_VOTE_AFTER = 240.0
"""Seconds the console offers V (`Voting.holding_up`) while nobody presses a key before the
person's seat votes by itself, as V would (`Voting.person_vote_at`).  Where every vote is needed
(three seats: one lost, a bot and a person) a person who walked away held the table for good;
a person who is there decides first: four minutes, longer than the bots' three
(`config.BOT_VOID_AFTER`, counted from the stall, which V's offer comes at or after), and the
console counts them down, and ``W`` (wait for them) starts them again."""

NEWCOMER_GRACE = 60.0
"""Seconds more a seat's newcomer has, from the deal it took the seat at until it first signs
(`Roster.unheard`), before it counts as away or silent: it reads the whole game up to its seat
first (every round's audit), which takes longer the longer the game; a bot that voted a
newcomer gone at its first deal would void that deal, and the next, for good (issue 42)."""


class Voting:
    """The voting part of `Peer` (it sets the attributes these read)."""

    def holding_up(self, now: float) -> set[int]:
        """The seats a person may vote against at trio time ``now``: one that left, or one the
        table cannot go on without (`stalled_by`) that is away or has owed the deal a step for
        `STALL_VOTE` seconds with nothing of its own in the stream (not a seat voted gone
        already: the table waits for its replacement), nor one timed out as idle
        (`_idle_silent`).  Not a seat whose link only blinked and that owes nothing: a vote
        lapses only when the seat it names sends what the table waits for (protocol.md 11.5),
        so one spent on such a seat stood for the round."""
        stalled = self.table.stalled_by() if self.table is not None else set()
        left, down, idle = self._left(), self._down(), self._idle_silent()
        return {seat for seat, since in self._away().items()
                if now >= since and seat not in idle and (seat in left or seat in stalled and (
                    seat in down or now - since >= STALL_VOTE))}

    def _idle_silent(self) -> set[int]:
        """The seats the host timed out as silent while they owed nothing, that still owe
        nothing: a vote against one counts only toward the table's majority, and lapsed at
        its timeout (protocol.md 11.5); it names a seat the table waits on instead."""
        table = self.table
        if table is None:
            return set()
        idle = {seat for seat in table.silenced if seat in table.idle_silenced}
        return idle - table.stalled_by() if idle else idle

    def vote_target(self, seats) -> int:
        """Of ``seats``, the one a vote names, not one timed out as idle while another is there
        (`_idle_silent`): one that quit, else the first the host timed
        out as silent (the stream's order, so that every seat names the same one, which then
        leaves first: votes split between silent seats carry together for the one named most,
        ties to the first timed out, protocol.md 11.5), else one the table cannot go on without
        (only such a seat may be timed out), else one whose link is down, else the one silent
        the longest (a seat still connected may only be slow)."""
        away = self._away()
        table = self.table
        silent = {s: seq for s, seq in table.silenced.items()  # not one timed out idle: a
                  if s not in table.idle_silenced} if table is not None else {}  # vote it wastes
        stalled = table.stalled_by() if table is not None else set()
        left, down, idle = self._left(), self._down(), self._idle_silent()
        return min(seats, key=lambda s: (s in idle, s not in left, silent.get(s, math.inf),
                                         s not in stalled, s not in down,
                                         away.get(s, math.inf), s))

    def _away(self) -> dict[int, float]:
        """The seats away, or silent while they owe the deal a step or stay timed out as silent
        (`Peer.stalling`), and since when (not a seat voted gone already; a newcomer that has
        not yet signed, `NEWCOMER_GRACE` later); a seat whose ``leave`` is sequenced, since
        ever."""
        vacant = self._vacant()
        unheard = self.table.unheard if self.table is not None else set()
        away = {s: t + NEWCOMER_GRACE if s in unheard else t
                for s, t in {**self.stalling, **self._down()}.items() if s not in vacant}
        return {**away, **dict.fromkeys(self._quitters(), -math.inf)}

    def _on_the_stream(self) -> bool:
        """Sharing on: this seat votes only on what the signed stream shows."""
        return self.table is not None and self.table.share_threshold is not None

    def _quitters(self) -> set[int]:
        """The seats whose player's signed ``leave`` is sequenced (and nobody plays yet)."""
        return self.table.quitters() - {self.seat} if self.table is not None else set()

    def _down(self) -> dict[int, float]:
        """The seats the lobby says are disconnected, and since when; none with sharing on."""
        return {} if self._on_the_stream() else self.absent

    def _left(self) -> set[int]:
        """The seats gone for good: their ``leave`` is sequenced, or (sharing off) the lobby
        says their player quit."""
        return self._quitters() | (set() if self._on_the_stream() else self.left)

    def _vacant(self) -> dict[int, int]:
        table = self.table
        return table.vacant if table is not None else {}

    def vote_void(self, seat: int | None = None) -> bool:
        """Vote to void the running round because ``seat`` is not coming back (None: the
        `vote_target` of the seats away or silent); False if there is no round to void, no seat
        away, or a vote of this seat stands or is on its way (`_may_vote`)."""
        away = self._away()
        if seat is None and away:
            seat = self.vote_target(away)
        if seat is None or not self._may_vote():
            return False
        self.outbox.push([VoidRound(round=self.table.void_target, seat=seat)])
        self.nudge()
        return True

    def _may_vote(self) -> bool:
        """A round to void, and no vote of this seat for it on its way or standing in the
        stream (after a crash the replayed stream holds it).  A vote that lapsed, its seat
        having sent a deal step, a move or an approval since (protocol.md 11.5), stands no
        more: the seat may vote again.  Not while a round's audit waits for its seeds: those
        decide it, and the host times out a seat that does not open them.  Not while the seat
        replays the stream after a rejoin (`Peer.replaying`): its table is still in an earlier
        round, and a vote pushed then sat before the deal steps the replay finds in the stream,
        so none was recognised as sent; all went out at the replay's end, every one refused,
        and the host closed the seat for abuse (soak seed 6, game 6-20)."""
        table, outbox = self.table, self.outbox
        if outbox is None or table.finished or table.waiting_audit or self.replaying:
            return False
        target = table.void_target
        on_its_way = [*outbox.deal, *(msg.body for msg in outbox.flying)]
        return self.seat not in table.void_votes.get(target, ()) and not any(
            isinstance(body, VoidRound) and body.round == target for body in on_its_way)

    def _vote_due(self) -> float:
        """When this seat votes by itself (``void_after``), on trio's clock: at once when a
        seat's ``leave`` is sequenced, or (sharing off) a player away has quit, or the host
        timed a seat whose link is down out as silent (the table sequenced nothing for its
        ``audit_timeout`` while it could not go on without the seat: at a table of bots, a
        ``void_after`` longer than that only held the game up; a newcomer too, which reads
        nothing with its link down: a stand-in that died with a resumed host), or when a
        person at the table has voted; else once a seat has been away, or silent while it
        owes the deal a step, ``void_after`` (issue 42).  With sharing on, only a stall or a
        ``leave`` counts (the module's note).  A person's seat: `_person_vote_due`."""
        if self.person_vote_after is not None:
            return self._person_vote_due(trio.current_time())
        away = self._away()
        if self.void_after is None or not away or not self._may_vote():
            return math.inf
        table = self.table
        if self._quitters():  # (each in away, since ever)
            return -math.inf
        if not self._on_the_stream():
            people = {s.seat for s in self.lobby.seats if s.kind == "player"} \
                if self.lobby else set()
            down = self.absent.keys() & away.keys()
            silent = down & table.still_silent() if table.silenced else set()
            if self.left & down - table.unheard or silent or \
                    people & table.void_votes.get(table.void_target, set()):
                return -math.inf
        return min(away.values()) + self.void_after

    def person_vote_at(self, now: float) -> float | None:
        """When this person's seat votes by itself (trio time), as V would: while V is offered
        (`holding_up`) and the seat may vote, ``person_vote_after`` from when the seat first
        found it offered, or from the person's last ``W`` (`wait_for_them`).  None: V is
        offered against nobody, a vote of ours stands, or the seat is no person's."""
        if self.person_vote_after is None or self._offered_at is None or \
                not self._may_vote() or not self.holding_up(now):
            return None
        return self._offered_at + self.person_vote_after

    def wait_for_them(self, now: float) -> float | None:
        """``W``: the person is there and waits for the seat away: the countdown starts again
        at ``now``; when it ends now (None: none runs, nothing to wait for)."""
        if self.person_vote_at(now) is None:
            return None
        self._offered_at = now
        return self.person_vote_at(now)

    def _person_vote_due(self, now: float) -> float:
        """`_vote_due` of a person's seat: when V's countdown ends (`person_vote_at`), its start
        the moment the seat first finds V offered; while V is offered against nobody, the
        next moment it may be (a seat's ``since``, or `STALL_VOTE` after it), when the seat
        looks again.  No vote at once, on a ``leave`` or a person's vote: the person at the
        keys decides first."""
        if not self._may_vote() or not self.holding_up(now):
            self._offered_at = None
            return min((t for since in self._away().values()
                        for t in (since, since + STALL_VOTE) if t > now), default=math.inf)
        if self._offered_at is None:
            self._offered_at = now
        return self._offered_at + self.person_vote_after

    def _vote_by_itself(self, now: float) -> None:
        """The moment `_vote_due` named has come: a bot's seat votes; a person's votes for its
        person once V's countdown has run out (`person_vote_at`: not when V has only just come
        on offer, nor after a ``W``), naming whom V would, and the log says so
        (``votes_for_person``)."""
        if self.person_vote_after is None:
            self.vote_void()
            return
        due = self.person_vote_at(now)
        if due is None or now < due:
            return
        seat = self.vote_target(self.holding_up(now))
        if self.vote_void(seat):
            self.votes_for_person.append(seat)
            self._changed()

    def _complaint_due(self) -> float:
        """When this seat, which complained and so plays no more, gives up on a host that has
        not sequenced its complaint (the table's ``audit_timeout`` after it saw it was due);
        never while the complaint is not outstanding, nor once it gave up on it."""
        table = self.table
        if table is None or self.outbox is None or table.complaint is None or \
                table.accusation is not None or table.finished or \
                self.kept_complaint == table.complaint:
            self._complained_at = None
            return math.inf
        if self._complained_at is None:
            self._complained_at = trio.current_time()
        return self._complained_at + table.audit_timeout

    def _shares_kept(self, msg) -> None:
        """After ``msg``: if it is the host's ``"shares"`` timeout of this seat while our
        ``share_reveal`` was on its way (sharing on, R1), the host kept it from the table: it
        is refused from now on (no use sending it again), and the player is told, as for a
        complaint the host keeps (docs/dealing.md, "The published shares of R1")."""
        body = msg.body
        if msg.author != HOST_AUTHOR or not isinstance(body, Timeout) or \
                body.what != "shares" or body.seat != self.seat:
            return
        kept = [m for m in self.outbox.flying
                if isinstance(m.body, Deal) and m.body.step == "share_reveal"]
        for sent in kept:
            self.outbox.forget(sent)
        if kept:
            self._set("playing", f"{self._host()} timed out our shares of a lost seat, which "
                                 f"we sent (our message {kept[-1].counter}): it kept them from "
                                 "the table")

    async def _kept_from_table(self) -> None:
        """The host has not sequenced our complaint within the table's audit time: it keeps it
        from the table.  We do not leave (the seats would vote a seat that left gone and charge
        it): we stay, play no more and keep answering the deal, so that no seat sees us away or
        silent, and the table waits on the host, which must sequence the complaint (its audit
        names the cheat) or drop us outright, as it may drop any seat (docs/security.md).  The
        player is told, and the table too, as far as the host relays chat; our signed
        complaint stays in our record."""
        self.kept_complaint = self.table.complaint
        for msg in [m for m in self.outbox.flying if m.body.KIND == "complaint"]:
            self.outbox.forget(msg)
        told = (f"{self._host()} has not sequenced our complaint ({self.kept_complaint}) in "
                f"{self.table.audit_timeout:g} s: it is keeping it from the table; we play no "
                "more this round and stay")
        self._set("playing", told)
        await self.say(f"seat {self.seat}: {told}")
