"""Who plays each seat, read from the sequenced stream alone: `Roster`, the part of
`StreamTable` that follows a seat's keys through the game (protocol.md 11.8).

A seat the table voted gone (``void_round`` naming it) is **vacant**: its round was voided, and
the next round's deal waits until the seat is played again.  The host proposes who plays it
(``replace``, host-signed: a name and fresh keys); the seats ``approve`` that message; a
replacement takes effect at the start of a round's deal (or of the first-dealer pick held again
after a void of round 0, `StreamTable._begin_first_pick`), once approved by every seat that is
not vacant, the replaced seat included when it is not vacant (nobody takes a seat from the
person playing it).  From then on every party checks that seat's messages with the new signing
key and seals its key shares to the new box key; the seat's score and money carry over.

The host may not propose a key that plays another seat, the seat's own key while it is played, a
key another seat's waiting proposal names (one key, one seat), or its own key
(`replace_refused`); nor, for a seat a ``replace`` gave to anyone but a stand-in once already
(its player coming back, or a late arrival: `given_back`), anyone but a stand-in. No box key
serves two seats either (one box key, one seat): not in ``start_game``, nor in a ``replace`` or
a ``hand_over`` that names a box key another seat has held in the game or a waiting ``replace``
for another seat names (a seat's own earlier box key may come back to it). The dropout-tolerant
deal shares a seed among the seats by their box keys (docs/dealing.md, "One box key, one seat");
this keeps a second seat from taking a second share.

**Which seats approve (the reference seats' rule, `PeerTable._proposed`).** Any ``replace`` of
a seat that is vacant or played by a bot a ``replace`` seated (a stand-in: `up_for_taking`),
whoever it names: the host chose that holder already.  So a seat's first holder takes it back
from the stand-in at a later round's start (the host proposes its keys when it says hello
again, `net.lobby`), and a person who arrives late takes a stand-in's seat.  The stand-in
approves handing its own seat on (its client is a bot: ``yields_seat``); a person's seat is
handed on only by the person's own word (the reference client never gives it), so a first
holder does not take back a seat a person plays now.

What the rule buys: a host cannot seat a key of its own choosing without every present seat's
signature, and cannot unseat a present player at all; the seat's new keys are in the chain, so
`shanghai verify` follows them too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from ..wire import messages as wm
from ..wire.messages import HOST_AUTHOR
from .fault import Fault

__all__ = ["Holder", "Roster"]


@dataclass(frozen=True)
class Holder:
    """Who plays a seat: ``since``, the deal round from which (0: from the game's start), and
    ``before``, who played it until then."""

    name: str
    kind: str
    sign_key: bytes
    box_key: bytes
    since: int = 0
    before: Holder | None = None
    replaced: bool = False
    """A ``replace`` seated it (not the start, nor a ``hand_over``)."""

    def earlier(self) -> Iterator[Holder]:
        """Who played the seat before this holder, the latest first."""
        holder = self.before
        while holder is not None:
            yield holder
            holder = holder.before

    def describe(self) -> str:
        """As the table shows the seat: "bot for ann" once a bot took ann's seat."""
        if self.before is None:
            return self.name
        first = self.before
        while first.before is not None:
            first = first.before
        return self.name if self.name == first.name else f"{self.name} for {first.name}"


@dataclass
class _Proposal:
    """A host ``replace`` waiting for its approvals: the seats that signed one so far."""

    seq: int
    body: wm.Replace
    approvals: set[int] = field(default_factory=set)


class Roster:
    """The part of `StreamTable` that knows who holds each seat (it sets ``holders``,
    ``vacant`` and ``proposals`` in `_start_roster`)."""

    def _start_roster(self, start: wm.StartGame) -> None:
        """Raises ValueError on a ``start_game`` that gives two seats one box key: a seat
        refuses to play it."""
        self.holders: list[Holder] = [Holder(s.name, "player", s.sign_key, s.box_key)
                                      for s in start.seats]
        """Who plays each seat now."""
        self.box_keys: dict[bytes, int] = {}
        """Every box key a seat has held in the game (``start_game``'s, a hand-over's, a
        replacement's) -> that seat: one box key, one seat."""
        for seat in start.seats:
            if seat.box_key in self.box_keys:
                raise ValueError(f"start_game gives seats {self.box_keys[seat.box_key]} and "
                                 f"{seat.seat} one box key: one box key, one seat")
            self.box_keys[seat.box_key] = seat.seat
        self.vacant: dict[int, int] = {}
        """Seat -> the round the table voted it gone in, until a replacement takes it."""
        self.proposals: dict[int, _Proposal] = {}
        """seq of a host ``replace`` -> its approvals so far (a later one for the same seat
        takes its place)."""
        self.handovers: dict[int, wm.HandOver] = {}
        """Seat -> its latest ``hand_over``, until the next round's deal seals the seat's
        shares to the successor's box key."""
        self.rekey_due: dict[int, bytes] = {}
        """Seat -> its box key at the running round's start, for a seat whose replacement
        was seated mid-round (sharing on, R1): every party seals to the new box key from the
        next deal, the round's own deal following the replacement itself."""
        self.unheard: set[int] = set()
        """Seats a replacement took at this deal that have signed nothing since: a newcomer
        still reading the game up to here (`net.voting` gives it time before it counts as
        holding the table up)."""

    def seat_of_key(self, sign_key: bytes) -> int | None:
        """The seat played with ``sign_key``, or proposed to be played with it."""
        for seat, holder in enumerate(self.holders):
            if holder.sign_key == sign_key:
                return seat
        return next((p.body.seat for p in self.proposals.values()
                     if p.body.sign_key == sign_key), None)

    def displaces(self, sign_key: bytes, seat: int) -> bool:
        """Whether a connection of ``sign_key`` may take ``seat`` from a live connection of
        another key: it plays the seat now, or is proposed for the seat the table voted gone."""
        return self.holders[seat].sign_key == sign_key or (
            seat in self.vacant and self.seat_of_key(sign_key) == seat)

    def played_before(self, seat: int, sign_key: bytes) -> bool:
        """Whether ``sign_key`` played ``seat`` before the holder it has now (or holds it while
        the table voted it gone): a former holder, who may take the seat back."""
        holder = self.holders[seat]
        if seat in self.vacant and holder.sign_key == sign_key:
            return True
        return any(earlier.sign_key == sign_key for earlier in holder.earlier())

    def stand_in(self, seat: int) -> bool:
        """Whether a bot a ``replace`` seated plays ``seat``, with a key new to the seat (the
        host's stand-in, or a late arrival's bot): voted gone, it costs the seat nothing, for
        its leaving is no decision of the seat's player (who paid when it left, if it did).
        A bot the player handed the seat to, or that played it before, is the player's."""
        holder = self.holders[seat]
        return holder.kind == "bot" and holder.replaced and \
            not self.played_before(seat, holder.sign_key)

    def given_back(self, seat: int) -> bool:
        """Whether a ``replace`` gave ``seat`` to anyone but a stand-in (a bot with a key new
        to the seat) in this game already: its player coming back, or a late arrival.  It may
        once a game (protocol.md 11.8): a player who left and came back again and again voided
        a deal each time, and the game never ended."""
        now = self.holders[seat]
        for holder in (now, *now.earlier()):
            came_back = any(earlier.sign_key == holder.sign_key for earlier in holder.earlier())
            if holder.replaced and (holder.kind != "bot" or came_back):
                return True
        return False

    def up_for_taking(self, seat: int) -> bool:
        """Whether the seat may go to someone else without its player's word: voted gone, or
        played by a bot a ``replace`` seated (a stand-in: the host chose it already)."""
        return seat in self.vacant or self.holders[seat].kind == "bot"

    def changed_hands(self, seat: int, sign_key: bytes) -> bool:
        """Whether ``seat`` was played by another key than ``sign_key`` at any time since the
        game's start (a client of ``sign_key`` then follows the game from its start until its
        keys take the seat, as a replacement does: it holds no secret of the other keys'
        rounds)."""
        holder: Holder | None = self.holders[seat]
        while holder is not None:
            if holder.sign_key != sign_key:
                return True
            holder = holder.before
        return False

    def share_holders(self, share_threshold: int | None,
                      host_run: Collection[int]) -> tuple[int, ...]:
        """The seats that would hold shares of the others' seeds now (the dropout-tolerant
        dealing, docs/dealing.md "Holders: who is dealt shares"), in seat order: none unless
        ``share_threshold`` is set (rule 1); none the host runs (``host_run``, rule 2); a seat
        played by its ``start_game`` keys or by a successor a chain of ``hand_over``s from them
        gave it (rule 3); not vacant, and not played since a ``replace`` unless the last
        ``replace`` gave it back both of its ``start_game`` keys, its first player coming back
        (rule 4), and then from the deal it is seated at: not while a seat given back mid-round
        (R1, ``rekey_due``) plays out that round, in which its table holds no share
        (docs/dealing-review.md, review of the code (session 18) #1).  A share holder is no
        `Holder`: rules 3 and 4 read the seat's ``Holder`` chain.  The dropout-tolerant deal's ``start_game`` will carry ``share_threshold`` and each seat's
        ``host_run`` (docs/dealing.md, "Version 10 messages"); until the dealing is wired the
        caller passes them."""
        if share_threshold is None:
            return ()
        return tuple(seat for seat in range(self.players)
                     if seat not in host_run and seat not in self.vacant
                     and seat not in self.rekey_due and self._played_as_dealt(seat))

    def _played_as_dealt(self, seat: int) -> bool:
        """Whether ``seat`` is played by its ``start_game`` keys or hand-overs from them: its
        last ``replace``, if any, gave it back both keys (rules 3 and 4 of `share_holders`)."""
        holder: Holder | None = self.holders[seat]
        while holder is not None and not holder.replaced:
            holder = holder.before
        first = self.start_game.seats[seat]
        return holder is None or (holder.sign_key, holder.box_key) == (first.sign_key,
                                                                       first.box_key)

    def needed(self, proposal: _Proposal) -> set[int]:
        """The seats whose approval ``proposal`` waits for."""
        return {s for s in range(self.players) if s not in self.vacant} - proposal.approvals

    def approvals_due(self) -> set[int]:
        """The seats the table waits for an approval from: while the next deal waits for a
        vacant seat, every seat a waiting ``replace`` of a vacant seat still needs."""
        if self.finished or self.fault is not None:
            return set()
        return {seat for p in self.proposals.values() if p.body.seat in self.vacant
                for seat in self.needed(p)}

    def _gone(self, author: int) -> str | None:
        """Why a message of seat ``author`` has no place while its seat is vacant (None: it
        has): the key of a seat voted gone plays no more, unless the table seats it again.
        Checked before any other (`StreamTable._dispatch`, `PublicTable.admit`)."""
        if author in self.vacant:
            return (f"seat {author} was voted gone in round {self.vacant[author]}: its key plays "
                    "no more until a replacement takes the seat")
        return None

    def _handover_refused(self, author: int, body: wm.HandOver) -> str | None:
        """Why seat ``author``'s ``hand_over`` has no place (None: it has): its successor's
        key must be new to the table, and its box key no other seat's."""
        for seat, holder in enumerate(self.holders):
            if body.sign_key == holder.sign_key:
                return (f"hands seat {author} over to the key seat {seat} plays with: one key, "
                        "one seat")
        if any(p.body.sign_key == body.sign_key for p in self.proposals.values()):
            return "hands the seat over to a key the host proposed for a seat: one key, one seat"
        if body.sign_key == self.start_game.host_key:
            return "hands the seat over to the host's key"
        taken = self.box_key_taken(body.box_key, author)
        if taken is not None:
            return f"hands seat {author} over to a box key {taken}: one box key, one seat"
        return None

    def box_key_taken(self, box_key: bytes, seat: int | None) -> str | None:
        """Who has ``box_key`` when ``seat`` may not take it (None: it may): another seat that
        held it in the game, or a waiting ``replace`` for another seat that names it.  A box
        key that played ``seat`` before may come back to it (``seat`` None: a box key for no
        seat yet, as the lobby asks of a hello)."""
        held = self.box_keys.get(box_key, seat)
        if held != seat:
            return f"seat {held} has held in this game"
        waiting = next((p for p in self.proposals.values()
                        if p.body.box_key == box_key and p.body.seat != seat), None)
        if waiting is not None:
            return (f"the host proposed for seat {waiting.body.seat} (seq {waiting.seq}), still "
                    "waiting")
        return None

    def _hand_over(self, author: int, body: wm.HandOver) -> None:
        """From the next message seat ``author`` signs with the successor's key; its shares
        are sealed to the successor's box key from the next round's deal (this round's are
        sealed to the box key the handed secrets open)."""
        old = self.holders[author]
        self.holders[author] = Holder(body.name, body.role, body.sign_key, old.box_key,
                                      self.round, old)
        self.handovers[author] = body
        self.box_keys[body.box_key] = author
        self.chain.rekey(author, body.sign_key)

    def replace_refused(self, body: wm.Replace) -> str | None:
        """Why the host may not propose ``body`` now (None: it may): one key, one seat, and one
        box key, one seat.  The host asks before it signs one (`net.sequencer`); every party
        names a host that sequences one anyway (`_replace`)."""
        for seat, holder in enumerate(self.holders):
            if body.sign_key == holder.sign_key and (seat != body.seat or seat not in self.vacant):
                return (f"the host proposed the key seat {seat} plays with for seat {body.seat}: "
                        "one key, one seat")
        for proposal in self.proposals.values():
            if body.sign_key == proposal.body.sign_key and proposal.body.seat != body.seat:
                return (f"the host proposed for seat {body.seat} the key it proposed for seat "
                        f"{proposal.body.seat} (seq {proposal.seq}), still waiting: one key, "
                        "one seat")
        if body.sign_key == self.start_game.host_key:
            return f"the host proposed its own key for seat {body.seat}"
        taken = self.box_key_taken(body.box_key, body.seat)
        if taken is not None:
            return (f"the host proposed for seat {body.seat} a box key {taken}: one box key, "
                    "one seat")
        if self.given_back(body.seat) and (body.role != "bot" or
                                           self.played_before(body.seat, body.sign_key)):
            return (f"the host proposed {body.name[:32]!r} for seat {body.seat}, which a replace "
                    "gave back to its player or to a late arrival once already: only a stand-in "
                    "(a bot with a key new to the seat) takes it now")
        return None

    def _replace(self, seq: int, body: wm.Replace) -> None:
        """The host's proposal (Fault on one that breaks the rule)."""
        why = self.replace_refused(body)
        if why is not None:
            raise Fault(HOST_AUTHOR, why)
        for old in [s for s, p in self.proposals.items() if p.body.seat == body.seat]:
            del self.proposals[old]
        self.proposals[seq] = _Proposal(seq, body)
        self._proposed(seq, body)

    def _proposed(self, seq: int, body: wm.Replace) -> None:
        """Hook: the host proposed ``body`` at ``seq`` (a seat says whether it approves)."""

    def _approval_refused(self, author: int, seq: int) -> str | None:
        """Why seat ``author``'s approval of the ``replace`` at ``seq`` has no place (None: it
        has)."""
        proposal = self.proposals.get(seq)
        if proposal is None:
            return f"approves seq {seq}, which is no replacement waiting for approval"
        if author in proposal.approvals:
            return f"a second approval of seq {seq}"
        return None

    def _approve(self, author: int, seq: int) -> None:
        """An approval; the one that completes a ``replace`` of a seat lost mid-round (sharing
        on, R1) seats it at this message, the round going on (`_seat_approved`)."""
        self.proposals[seq].approvals.add(author)
        self._seat_approved(seq)

    def _seat_approved(self, seq: int) -> None:
        """Seat the replacement the ``replace`` at ``seq`` proposes at this message, if every
        approval it needs is in and the table seats it now, mid-round (`_takes_seat_now`)."""
        proposal = self.proposals[seq]
        if not self.needed(proposal) and self._takes_seat_now(proposal.body.seat):
            del self.proposals[seq]
            self.rekey_due.setdefault(proposal.body.seat,
                                      self.holders[proposal.body.seat].box_key)
            self._seat(proposal.body, self.round, rekey=False)
            self._seated_now(proposal.body.seat)

    def _takes_seat_now(self, seat: int) -> bool:
        """Hook: whether an approved ``replace`` of ``seat`` seats it now, mid-round (else at a
        later message of the round, or at the next deal)."""
        return False

    def _seated_now(self, seat: int) -> None:
        """Hook: ``seat``'s replacement was seated mid-round at this message."""

    def round_box_keys(self) -> list[bytes]:
        """Every seat's box key at the running round's start: what its deal seals to, but to
        a replacement seated mid-round (the deal layer follows that one itself)."""
        return [self.rekey_due.get(seat, holder.box_key)
                for seat, holder in enumerate(self.holders)]

    def _seat_replacements(self, round_no: int) -> bool:
        """At the start of round ``round_no``'s deal: seat every approved replacement; whether
        the deal may begin (no seat left vacant)."""
        for seat, body in sorted(self.handovers.items()):
            self.holders[seat] = dataclasses.replace(self.holders[seat], box_key=body.box_key)
            self._rekeyed(seat)
        self.handovers = {}
        for seat in sorted(self.rekey_due):  # seated mid-round: sealed to from this deal on
            self._rekeyed(seat)
        self.rekey_due = {}
        return self._seats_filled(round_no)

    def _seats_filled(self, round_no: int) -> bool:
        """Seat every replacement approved by every seat it needs, in the order of its
        ``replace``; whether no seat is left vacant, so that what waits for the seats may begin:
        a round's deal, or the first-dealer pick held again after a void of round 0 (protocol.md
        11.3, 11.8), in which a stand-in takes part as every seat does."""
        for seq, proposal in sorted(self.proposals.items()):
            if self.needed(proposal):
                continue
            del self.proposals[seq]
            self._seat(proposal.body, round_no)
        return not self.vacant

    def _seat(self, body: wm.Replace, round_no: int, rekey: bool = True) -> None:
        """``body``'s keys play its seat from here (``rekey``: its shares are sealed to its box
        key from this deal on; else from the next, `rekey_due`)."""
        seat = body.seat
        self.holders[seat] = Holder(body.name, body.role, body.sign_key, body.box_key,
                                    round_no, self.holders[seat], replaced=True)
        self.box_keys[body.box_key] = seat
        self.handovers.pop(seat, None)  # the seat's box key is the replacement's from here
        self.vacant.pop(seat, None)
        self.silenced.pop(seat, None)
        self.unheard.add(seat)
        self.chain.rekey(seat, body.sign_key)
        if rekey:
            self._rekeyed(seat)

    def _rekeyed(self, seat: int) -> None:
        """Hook: ``seat`` is played with new keys (``holders[seat]``) from this deal on."""
