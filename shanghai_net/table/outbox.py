"""What one seat sends, and when: `Outbox`."""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import Iterable, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..engine.moves import Move
from ..wire import messages as wm
from ..wire.messages import HOST_AUTHOR, Body, Deal, GameMessage
from ..wire.signing import sign_game
from .fault import Fault
from .seat import PeerTable
from .stream import moment_passed


class Trail(Protocol):
    """Where a seat keeps the seq and chain head of each of its messages the stream sequenced,
    out of the host's reach (on its own disk: `net.resume.KeptTrail`)."""

    last: int

    def head_at(self, seq: int) -> bytes | None: ...
    def keep(self, seq: int, head: bytes) -> None: ...
    def flush(self) -> None: ...


def _due_in_audit(body: Body) -> bool:
    """A body a seat still sends once its round is stopped for the audit (a complaint of seed
    shares is valid until the seat's seeds)."""
    return isinstance(body, (wm.VoidRound, wm.Approve, wm.HandOver)) or (
        isinstance(body, Deal) and body.step == "seeds") or (
        isinstance(body, wm.Complaint) and bool(body.share))


def decided_at(table: PeerTable) -> tuple[int, int]:
    """Where the seat's game stands as a move is chosen: the moves applied so far, and the
    round (a vote that carries voids the round and deals the next with no move applied)."""
    return table.version, table.game.round_no


def passed_since(table: PeerTable, decided: tuple[int, int], move: Move,
                 window: object) -> str | None:
    """Why ``move``, chosen at ``decided`` (`decided_at`) while the claim window was
    ``window``, is no longer to be made (None: it still is, or the game has not moved since):
    never in another round than its own, voided meanwhile (a move of it may be legal in the
    next deal, which nobody chose it for), else as `moment_passed` says."""
    if decided == decided_at(table):
        return None
    if decided[1] != table.game.round_no:
        return "the round it was chosen in is over: choose again"
    return moment_passed(table.game, move, window)


class Outbox:
    """What one seat has to send, each message signed with the seat's next counter.

    Deal bodies (and votes, complaints, protests, approvals) commute with everyone else's
    messages: they go out in order as soon as they are due, several on their way at once (at
    most ``MAX_FLYING``), and are never stale; but nothing follows a vote of ours to void the
    round until the stream shows it (or the host refuses it): it may end the round (`_voted`).
    A move waits until the deal bodies before it are on their way and the deal is settled; it
    names the chain's head it was decided on, and if the host answers ``stale`` (a turn move
    came first) it is checked again and, if still to be made, signed on the new head: dropped if
    it is no longer legal, if it answers a claim window that has closed (a claim meant for one
    discard must not land on the next), or if its round was voided meanwhile (`passed_since`).
    After a reconnection, what was on its way is signed again with new counters; a message of
    ours found in the stream is taken as sent, so the deal body or move it carries is not sent
    again.  What became of each move: `take_outcomes`.
    """

    MAX_FLYING = 8

    def __init__(self, table: PeerTable, sign_key: Ed25519PrivateKey,
                 trail: Trail | None = None, counter: int = 0) -> None:
        """``counter``: the lowest counter to give (a seat's table taken over from another
        of ours goes on above the counters that one gave: the host's answer to one of them,
        a refusal, say, names no message of this outbox)."""
        self.table = table
        self.trail = trail
        """Where this seat's sequenced messages are kept (None: nowhere; a seat whose
        randomness is not bound to a kept secret draws fresh values after any rollback)."""
        self.sign_key = sign_key
        """The seat's signing key: everything the seat sends is signed here."""
        self.deal: deque[Body] = deque()
        """Deal bodies not yet sent."""
        self.flying: deque[GameMessage] = deque()
        """Deal bodies sent, not yet sequenced (in order)."""
        self.move: tuple[Move | None, Body, int, object] | None = None
        self.in_flight: GameMessage | None = None
        """The move on its way."""
        self.refused_stale: GameMessage | None = None
        """The move the host last refused as ``stale``, until the stream reaches the seq the
        refusal named: still this seat's answer to its moment (a host ``timeout`` there took a
        claim the host had in hand, and the seat protests with it)."""
        self.dropped: list[Body] = []
        self._forked_at: int | None = None
        """The seq at which the stream showed another message than the one the trail kept."""
        self.unplaced: dict[int, GameMessage] = {}
        """Every message of ours sent on this connection and neither sequenced nor refused yet,
        by counter (a move dropped here after it left among them): the host's `Placed` names
        one."""
        self.sent = 0
        self._counter = counter
        self._hold = -1
        """A stale move is signed again once the stream has brought this seq (the message
        after which the game moved on: the host's error may come before it)."""
        self._outcomes: list[tuple[Move | None, str | None]] = []

    def push(self, bodies: Iterable[Body], move: Move | None = None) -> None:
        for body in bodies:
            if isinstance(body, wm.Complaint):  # before anything else: the round must stop
                queued = next((b for b in self.deal if isinstance(b, wm.Complaint)), None)
                if queued is not None and queued.share and body.share:  # one names them all
                    self.deal.remove(queued)
                    body = dataclasses.replace(queued, share=queued.share + body.share)
                self.deal.appendleft(body)
                if self.move is not None:
                    self._drop_move("the deal went wrong: this seat complained")
            elif isinstance(body, (Deal, wm.VoidRound, wm.Protest, wm.Approve, wm.HandOver)):
                self.deal.append(body)  # in order, settled or not
            else:
                self.move = (move, body, decided_at(self.table), self.table.game.window)

    @property
    def busy(self) -> bool:
        """A move of this seat is on its way: do not choose another."""
        return self.move is not None

    @property
    def idle(self) -> bool:
        return not self.deal and not self.flying and self.move is None

    def reserve(self) -> int:
        """This seat's next counter, taken (for a message signed outside the outbox too): above
        every counter of ours the chain holds, and every one given out before."""
        table = self.table
        counter = max(self._counter, table.chain.next_counter(table.seat))
        self._counter = counter + 1
        return counter

    def _sign(self, body: Body, basis: tuple[int, bytes] | None = None) -> GameMessage:
        self.sent += 1
        msg = sign_game(self.sign_key, self.table.chain.start, self.table.seat, self.reserve(),
                        body, basis)
        self.unplaced[msg.counter] = msg
        return msg

    def sent_past(self, msg: GameMessage) -> None:
        """``msg``, which this seat signed and sent without the outbox (a test's cheat), is on
        its way too."""
        self.unplaced[msg.counter] = msg

    def poll(self) -> GameMessage | None:
        """The next message to send, if any may be sent now (call until None)."""
        table = self.table
        if table.accusation is not None:  # the round stopped: only its audit's seeds are due
            kept = [body for body in self.deal if _due_in_audit(body)]
            self.dropped.extend(body for body in self.deal if not _due_in_audit(body))
            self.deal = deque(kept)
            if self.move is not None:
                self._drop_move("the round was stopped for its audit")
        if self.trail is not None:
            self._check_trail()
        if any(isinstance(msg.body, wm.HandOver) for msg in self.flying):
            return None  # from its seq the seat is signed for with the successor's key
        if any(isinstance(msg.body, wm.VoidRound) for msg in self.flying):
            return None  # it may void the round: nothing more of it until it is in (`_voted`)
        if self.deal:
            if len(self.flying) >= self.MAX_FLYING:
                return None
            msg = self._sign(self.deal.popleft())
            self.flying.append(msg)
            return msg
        if self.move is None or self.in_flight is not None or not table.settled or \
                table.chain.next_seq <= self._hold:
            return None
        move, body, decided, window = self.move
        if move is not None:
            why = passed_since(table, decided, move, window)
            if why is not None:
                self._drop_move(why)
                return None
            self.move = (move, body, decided_at(table), window)
        self.in_flight = self._sign(body, table.chain.basis)
        return self.in_flight

    @property
    def answer(self) -> GameMessage | None:
        """This seat's signed answer to the game's moment, if one is on its way or was refused
        as ``stale`` naming a seq the stream has not reached yet."""
        return self.in_flight or self.refused_stale

    def sequenced(self, msg: GameMessage) -> None:
        """Call after the table took ``msg``."""
        table = self.table
        kept = self.trail.head_at(msg.seq) if self.trail is not None else None
        if kept is not None and kept != table.chain.head and self._forked_at is None:
            self._forked_at = msg.seq  # refused at the next poll, before anything leaves
        if self.refused_stale is not None and table.chain.next_seq > self._hold:
            self.refused_stale = None  # the stream reached what the refusal named
        if msg.author != table.seat:
            if self.in_flight is not None and table.moment_seq > self.in_flight.basis_seq:
                # the game moved on without the move on its way: the host can no longer
                # sequence it (it would be stale), so it was lost or dropped; `poll` checks it
                # again rather than wait for an answer that may never come
                self.in_flight = None
            return
        self.unplaced.pop(msg.counter, None)
        if self.trail is not None:
            self.trail.keep(msg.seq, table.chain.head)
        flown = next((m for m in self.flying if m.counter == msg.counter), None)
        if flown is not None:  # not always the first: one before it may never be sequenced
            self.flying.remove(flown)
        elif self.deal and self.deal[0] == msg.body:  # sent before a reconnection
            self.deal.popleft()
        elif self.move is not None and self.move[1] == msg.body:
            self._outcomes.append((self.move[0], None))
            self.move = None
            self.in_flight = None
        if isinstance(msg.body, wm.VoidRound):
            self._voted()

    def _voted(self) -> None:
        """Our vote to void the round is sequenced (what we would sign after it waited for
        it: `poll`): the deal steps it has ended are dropped.  The votes sequenced before it
        may carry with it, and a seat that signed a step of the round after its own vote that
        voided it could know the step was owed no more: the host refused it (`out_of_turn`,
        the deal over), as no race of the stream explains (protocol.md 9; soak-like CI load,
        issue 38).  A move chosen meanwhile is dropped at `poll` (`passed_since`)."""
        kept: deque[Body] = deque()
        for body in self.deal:
            ended = isinstance(body, Deal) and self.table.deal_over(body)
            (self.dropped if ended else kept).append(body)
        self.deal = kept

    def _check_trail(self) -> None:
        """Before anything leaves: the stream this seat decides on is the one its trail was kept
        in.  A stream that shows another message at a seq where ours was sequenced (a fork), or
        asks us to send before it has reached our last sequenced message (a rollback), would
        have us draw again from chain heads we drew from in the other history: the same seed,
        the same permutation, which that history may have seen used or opened.  Fault naming
        the host; else the trail is flushed to disk, so that it vouches for what we send."""
        table, trail = self.table, self.trail
        seq = table.chain.next_seq - 1
        if self._forked_at is not None:
            raise Fault(HOST_AUTHOR, f"the host forked the game: at seq {self._forked_at} it "
                                     "shows another history than the one a message of ours was "
                                     "sequenced in")
        if trail.last > seq:
            raise Fault(HOST_AUTHOR, f"the host rolled the game back: a message of ours was "
                                     f"sequenced at seq {trail.last}, and its stream now ends "
                                     f"at seq {seq} and asks us to go on from there (drawing "
                                     "again what another history has seen)")
        trail.flush()

    def forget(self, msg: GameMessage) -> None:
        """``msg``, ours, will never be sequenced (the host timed out our seeds, or keeps our
        complaint from the table): nothing waits on it, and it is not sent again."""
        if msg in self.flying:
            self.flying.remove(msg)
        self.unplaced.pop(msg.counter, None)

    def reconnected(self) -> None:
        """A new connection: what was on its way may be lost; sign it again when it is due (it
        is recognised if the host had sequenced it after all)."""
        self.deal.extendleft(reversed([msg.body for msg in self.flying]))
        self.flying.clear()
        self.in_flight = None
        self.unplaced.clear()  # the host sends what the old connection sent in full

    def error(self, error: wm.Error) -> None:
        """The host refused a message of ours: a ``stale`` move is checked and signed again; a
        refused move is dropped (the player chooses again); a refused deal step (``seeds``
        too) is dropped, in ``dropped``, and never sent again: the host refuses a step for
        what the body is (over its caps, soak 14-3) or what the stream it sequenced makes of
        it (not due, a deal over), which a copy would not change, and each copy would count
        among the connection's bad messages (protocol.md 9.1).  Seeds that never come are
        the host's to time out: the seat is audited from its holders' shares (sharing on,
        R2) or named absent, which is no evidence against it."""
        ref = error.ref_counter
        if ref is None:
            return
        self.unplaced.pop(ref, None)
        mine = self.in_flight
        if mine is not None and mine.counter == ref:
            self.in_flight = None
            if error.code != "stale":
                self._drop_move(f"{error.code}: {error.reason}")
            elif error.ref_seq is not None:
                self._hold = error.ref_seq
                self.refused_stale = mine
            return
        for msg in self.flying:
            if msg.counter == ref:
                self.flying.remove(msg)
                if error.code == "stale":
                    self.deal.appendleft(msg.body)
                else:
                    self.dropped.append(msg.body)
                return

    def _drop_move(self, reason: str) -> None:
        move, body = self.move[:2]
        self.dropped.append(body)
        self._outcomes.append((move, reason))
        self.move = None
        self.in_flight = None

    def take_outcomes(self) -> list[tuple[Move | None, str | None]]:
        """The moves sequenced (reason None) or refused/dropped (the reason) since last asked."""
        out, self._outcomes = self._outcomes, []
        return out
