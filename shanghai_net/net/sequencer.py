"""The host's one authority over the game: `Sequencer` gives each good game message the next seq.

A seat's game message is checked (chain, author, the public replica's rules; `PublicTable.admit`)
and, if good, sequenced: kept in the `History`, appended to the transcript, and woken out to
every connection.  Bad input gets an ``error`` with its code, and the game goes on.  The one
timer the host runs is here too: a claim window that stays open past the ``claim_timeout`` of
``start_game`` (the agreed one, not a resumed host's own setting) gets a
``timeout`` signed by the host for each silent seat; a round stopped by a complaint whose seeds
do not all come within ``audit_timeout`` names the first seat that did not open them; a table
that sequences nothing for ``audit_timeout`` while it waits for a seat names the first such seat
silent (protocol.md 11.5).

The host holds no secret of any seat: no `Participant`, only a `PublicTable` (a replica with
``viewer=-1``) fed the same stream.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Callable

import msgpack
import trio

from ..table.bodies import parse_deal, step_body
from ..table.public import PublicTable
from ..wire import ProtocolError, RemoteProtocolError, encode_frame
from ..wire.messages import (HOST_AUTHOR, Bye, Deal, GameMessage, Replace,
                             StartGame, Timeout)
from .client import Client
from .config import HostConfig
from .history import History
from .transcript import Transcript

__all__ = ["Sequencer", "check_body"]

log = logging.getLogger("shanghai_net.host")

HEAVY_STEPS = frozenset({"pass", "seeds"})
"""Deal steps whose checks take the host milliseconds (a pass's points; the last seeds of a round
start its whole audit): checked in a worker thread, so that the other tables of this process,
and this table's readers and writers, go on meanwhile (the curve arithmetic releases the GIL).
This table's sequencer waits for the answer, so nothing else changes its state meanwhile."""


@dataclass(frozen=True)
class _Proposal:
    body: Replace
    sequenced: trio.Event


class Sequencer:
    def __init__(self, config: HostConfig, host_key: Any, history: History,
                 clients: set[Client], transcript: Transcript,
                 public: PublicTable | None = None) -> None:
        self.config = config
        self._host_key = host_key
        self.history = history
        self.clients = clients
        self.transcript = transcript
        self.public = public
        self.timeouts = 0
        self.done = trio.Event()
        """The game is over, or stopped by a fault: the byes are on their way."""
        self.keeps_table = False
        """The seats stay connected once the game is over, to ask for a rematch (`Host`)."""
        self._inbox_send, self._inbox = trio.open_memory_channel[Any](math.inf)
        """Game messages for the sequencer (each connection has at most ``in_flight`` in it)
        and the claim timer's windows."""
        self._vacancies, self.vacancies = trio.open_memory_channel[int](math.inf)
        """Each seat the table votes gone, as the vote is sequenced (`Host` seats a stand-in)."""
        self._vacant: set[tuple[int, int]] = set()
        """The seats vacant after the last message, with the round each was voted gone in: a
        seat is announced each time it falls vacant, so a stand-in voted gone in the round its
        seat was lost (R1) is replaced again (soak 11-5)."""
        self.on_roster: Callable[[], None] = lambda: None
        """Called when a seat changes hands (everyone hears who plays it now)."""
        self._keys: tuple[bytes, ...] = ()
        self._window: tuple | None = None
        """What the host's one timer runs for (`_track_window`): ``("claim", seq)``, a claim
        window, ``("seeds", round)``, ``("shares" or "vote", round, seat)``, ``("silent",
        round)``."""
        self._deadline = math.inf
        self._window_changed = trio.Event()

    def begin(self, start: StartGame) -> None:
        """The game starts: its public replica, and the transcript's first frame."""
        self.public = PublicTable(start)
        self.transcript.write(encode_frame(start.to_wire()))

    async def submit(self, client: Client, msg: GameMessage) -> None:
        """Queue ``client``'s game message for sequencing, once its size is known to be fair;
        waits while the client has ``in_flight`` messages queued already."""
        check_body(msg, self.public.game_id if self.public else b"", self.config.max_body,
                   self.config.max_unknown)
        await client.in_flight.acquire()
        self._inbox_send.send_nowait((client, msg))

    def propose(self, body: Replace) -> trio.Event:
        """Sequence the host's proposal of who plays a seat (protocol.md 11.8), in turn with
        the seats' messages; set once it is sequenced."""
        proposal = _Proposal(body, trio.Event())
        self._inbox_send.send_nowait((None, proposal))
        return proposal.sequenced

    def note_owed(self) -> None:
        self.history.note_owed(self.public, any(c.wants_owed and c.connected
                                                for c in self.clients))

    async def run(self) -> None:
        """Sequence and time windows until cancelled."""
        if self.public is not None:  # resumed: a claim window may be open
            self._track_window()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._claim_timer)
            await self._sequence_all()

    async def _sequence_all(self) -> None:
        async for client, item in self._inbox:
            try:
                if client is None and isinstance(item, _Proposal):
                    try:
                        why = self._proposal_refused(item.body)
                        if why is None:
                            await self._sign(item.body)
                        else:
                            log.warning("not proposing a holder for seat %d: %s", item.body.seat,
                                        why)
                    finally:  # or refused: whoever waits for it goes on
                        item.sequenced.set()
                elif client is None:
                    await self._timeout(item)
                else:
                    await self._sequence(client, item)
            except (trio.Cancelled, KeyboardInterrupt):
                raise
            except Exception:  # a bug must not stop the table: log it and go on
                log.exception("sequencing failed")
                if client is not None:
                    client.error(RemoteProtocolError("illegal_move", "refused: the host could "
                                                     "not check this message", None, item.counter))
            finally:
                if client is not None:
                    client.in_flight.release()

    async def _sequence(self, client: Client, msg: GameMessage) -> None:
        public = self.public
        if public is None or client.seat is None:
            client.strike(RemoteProtocolError("wrong_state", "no game of yours is running",
                                              None, msg.counter))
            return
        if msg.author != client.seat:
            client.strike(RemoteProtocolError(
                "bad_signature", f"author {msg.author} is not your seat {client.seat}", None,
                msg.counter))
            return
        holder = public.holders[client.seat]
        if client.hello.sign_key != holder.sign_key:
            # the seat changed hands while this was on its way (voted gone and given to a
            # stand-in, or handed over): a key that plays no more, not a forgery
            client.strike(RemoteProtocolError(
                "wrong_state", f"seat {client.seat} is played with another key now "
                f"({holder.describe()}), not with this connection's", None, msg.counter))
            return
        try:
            if self.config.worker_threads and isinstance(msg.body, Deal) and \
                    msg.body.step in HEAVY_STEPS:
                msg = await trio.to_thread.run_sync(public.admit, msg)
            else:
                msg = public.admit(msg)
        except ProtocolError as error:
            if error.code == "stale" and not client.budget.stale(trio.current_time()):
                client.error(error)  # peers race: a few are normal
            else:
                client.strike(error)
            return
        await self._publish(msg, client.number)

    async def _publish(self, msg: GameMessage, origin: int | None = None) -> None:
        self.transcript.write(self.history.append(msg, origin))
        self.note_owed()
        for client in list(self.clients):
            if client.in_game:
                client.wake.set()
        public = self.public
        if public.fault is not None:
            log.error("the game stopped: %s", public.fault)
        self._track_window(sequenced=True)
        keys = tuple(h.sign_key for h in public.holders)
        if keys != self._keys:
            self._keys = keys
            self.on_roster()
        vacant = set(public.vacant.items())
        for seat, _ in sorted(vacant - self._vacant):
            self._vacancies.send_nowait(seat)
        self._vacant = vacant
        if public.finished or public.fault is not None:
            for client in list(self.clients):  # a table that stays keeps its seats for a rematch
                if not (public.finished and self.keeps_table and client.seat is not None):
                    client.finish(Bye(reason="game over" if public.finished
                                      else str(public.fault)[:500]))
            self.done.set()
        await trio.lowlevel.checkpoint()

    def seats_changed(self) -> None:
        """A seat's connection dropped or came back: a seat to move whose link is down may be
        timed out as silent (`_silence_due`), from now, or when the silence clock already
        running from the last message runs out (a change of a link starts no clock again)."""
        if self.public is not None and not self.public.finished:
            self._track_window()

    def _silence_due(self) -> set[int]:
        """The seats the host may time out as silent now (protocol.md 11.5): those the table
        waits for a deal step or an approval from, and a seat to move whose connection is
        down (a person thinking about a move is never timed out), not timed out already; once
        every seat the table waits on is, the seats whose connection is down that owe
        nothing (v10: else one of them, still a voter, kept the seats left from the bar)."""
        public = self.public
        waiting = public.waiting_for()
        linked = {c.seat for c in self.clients if c.seat is not None and c.connected}
        movers = public.moving() - waiting - linked
        timed_out = public.silenced.keys() - public.idle_silenced
        due = (waiting | movers) - timed_out
        stalled = public.stalled_by()
        if due or not stalled or stalled - timed_out:
            return due
        return set(range(public.players)) - linked - stalled - public.vacant.keys() - \
            public.silenced.keys()

    def _rebuild_due(self) -> tuple[str, int, int] | None:
        """Sharing on, R1 (docs/dealing.md, "When a seat is rebuilt"): ``("shares", round,
        holder)``, the lowest holder whose ``share_reveal`` the first lost seat's rebuild waits
        for; else ``("vote", round, seat)``, the first seat whose votes reached protocol.md
        11.5's bar and wait for ``t`` holders' (a seat carried, still rebuildable, not lost
        yet), but not one to move whose silence is due (`_unheard_mover`); else None.  Each
        waits from the last message sequenced (so from the last vote, for a table that waits
        on one): the shares the table's ``audit_timeout``, as the seeds clock does, the vote
        `_vote_wait`."""
        public = self.public
        if public.share_threshold is None or public.accusation is not None:
            return None
        owing = next((r.owing() for _, r in sorted(public.rebuilds.items()) if r.owing()), [])
        if owing:
            return "shares", public.round, owing[0]
        round_no = public.void_target
        seat = next((s for s in sorted({s for r, s in public.gone_votes if r == round_no})
                     if s not in public.vacant and public.carried(round_no, s) and
                     public.rebuildable(s)), None)
        if seat is None or _unheard_mover(public, self.clients, seat):
            return None
        return "vote", public.round, seat

    def _vote_wait(self, seat: int) -> float:
        """How long the votes that ``seat`` left wait for ``t`` holders' votes, from the last
        message sequenced, before the host times the vote out (docs/dealing.md, "When the host
        times the vote out"): no time at all when fewer than ``t`` holders other than ``seat``
        are left, for those votes can never come (soak 13-5: the table waited 90 s for a vote
        only the host's stand-in, no holder, was left to give); the table's ``audit_timeout``
        when they can come only from a holder whose link is down (lost with ``seat`` at once,
        say); else ``audit_timeout`` and the clients' own wait to vote
        (`HostConfig.holder_votes_wait`), so that a bot holder's vote, cast ``BOT_VOID_AFTER``
        after the stall, comes in time though quicker voters reached the seat majority long
        before (soak 14-7)."""
        public = self.public
        holders = set(public.share_holders(public.share_threshold,
                                           public.start_game.host_run)) - {seat}
        if len(holders) < public.share_threshold:
            return 0.0
        voted = public.holder_votes.get((public.void_target, seat), set())
        if len(holders & (voted | _linked(self.clients))) < public.share_threshold:
            return public.audit_timeout
        return public.audit_timeout + self.config.holder_votes_wait

    def _track_window(self, sequenced: bool = False) -> None:
        """Keep the one timer the host runs: a claim window (from when it opened), a round's
        seeds, a lost seat's rebuild or the table's silence (these from the last message
        sequenced: ``sequenced`` says one just was).  A connection that drops or comes back
        (`seats_changed`) starts none of them again, only one that falls due by it or that ran
        out with no timeout signed (its seat came back meanwhile): else a seat that owes the
        table a step could hold it for good by reconnecting within each ``audit_timeout``
        (protocol.md 11.5: the clock starts again with each message)."""
        public = self.public
        if public.waiting_audit:
            current = ("seeds", public.round)
        else:
            current = _open_claim(public)
            if current is None and not public.finished and public.fault is None:
                current = self._rebuild_due()
                if current is None and self._silence_due():
                    current = ("silent", public.round)
        from_last = current is not None and current[0] != "claim"  # the last message's clock
        ran_out = self._deadline == math.inf
        if current != self._window or from_last and (sequenced or ran_out):
            self._window = current
            wait = public.claim_timeout if not from_last else \
                self._vote_wait(current[2]) if current[0] == "vote" else public.audit_timeout
            self._deadline = trio.current_time() + wait if current is not None else math.inf
            self._window_changed.set()

    async def _claim_timer(self) -> None:
        while True:
            self._window_changed = trio.Event()
            with trio.move_on_at(self._deadline):
                await self._window_changed.wait()
                continue
            window = self._window
            if window is not None:
                self._deadline = math.inf  # before the send yields: a new window sets its own
                await self._inbox_send.send((None, window))

    async def _timeout(self, window: tuple) -> None:
        public = self.public
        if window[0] == "silent":  # the lowest seat, then the next after a full wait more
            due = self._silence_due()
            if due and not public.waiting_audit and public.open_window() is None:
                await self._sign(Timeout(seat=min(due), what="silent"))
            return
        if window[0] in ("shares", "vote"):
            if not public.waiting_audit and public.open_window() is None and \
                    self._rebuild_due() == window:  # still due, as the timer began it
                await self._sign(Timeout(seat=window[2], what=window[0]))
            return
        if window[0] == "seeds":  # a round's seeds: the first seat they did not come from
            if window == ("seeds", public.round) and public.waiting_audit:  # (each after it
                # has a full wait more: the timer starts again with each message)
                silent = set(range(public.players)) - public.seeds_from - public.missing_seeds
                await self._sign(Timeout(seat=min(silent), what="seeds"))
            return
        current = public.open_window()
        if current is None or _open_claim(public) != window:  # closed, or another one
            return
        for seat in current[1]:
            await self._sign(Timeout(seat=seat))
            if public.open_window() is None or public.fault is not None:
                break

    def _proposal_refused(self, body: Replace) -> str | None:
        """Why the host does not sign ``body``: the game is over or stopped, or the proposal
        breaks the table's rule (`Roster.replace_refused`), for which every party would name
        the host (and the host's own table would stop at it)."""
        public = self.public
        if public is None or public.finished or public.fault is not None:
            return "no game is running"
        return public.replace_refused(body)

    async def _sign(self, body: Timeout | Replace) -> None:
        """Sign, apply and sequence a message of the host's own."""
        msg = self.public.chain.sign(self._host_key, HOST_AUTHOR, body)
        self.public.take_host(msg)
        self.timeouts += isinstance(body, Timeout)
        await self._publish(msg)


def _unheard_mover(public: PublicTable, clients, seat: int) -> bool:
    """Whether ``seat``, whose votes wait for ``t`` holders', is one the table waits on to move
    (it owes the deal no step), its link down, that the host has not timed out as silent: then
    `Sequencer._rebuild_due` lets the silence clock run first, as if no vote stood.  The
    reference clients vote against a seat to move only after that timeout (docs/dealing.md,
    "What the reference clients vote on"): a ``"vote"`` timeout before it left all their votes
    out."""
    timed_out = public.silenced.keys() - public.idle_silenced
    return seat in public.moving() - public.waiting_for() - _linked(clients) - timed_out


def _linked(clients) -> set[int]:
    """The seats whose connection is up."""
    return {c.seat for c in clients if c.seat is not None and c.connected}


def _open_claim(public: PublicTable) -> tuple[str, int] | None:
    """The claim window open now, if any, as the host's timer names it: ``("claim", seq)``,
    ``seq`` the message that opened it (the table's `moment_seq`: claims answer it side by
    side and change no moment), so that a window is told from the next by value, as the
    other clocks are, and not by the claims and passes that change it."""
    return ("claim", public.moment_seq) if public.open_window() is not None else None


def check_body(msg: GameMessage, game_id: bytes, max_body: int, max_unknown: int) -> None:
    """Refuse a game body the host would not relay and keep: over ``max_body`` bytes, or with
    more than ``max_unknown`` bytes its kind does not need (protocol.md 9.1).  Checked before
    the message reaches the sequencer, on the sender's own reader."""
    size = len(msgpack.packb(msg.body_wire, use_bin_type=True))
    if size > max_body:
        raise RemoteProtocolError("bad_message", f"game.body: {size} bytes, over the host's "
                                  f"cap of {max_body}", None, msg.counter)
    unknown = size - _known_size(msg, game_id)
    if unknown > max_unknown:
        raise RemoteProtocolError(
            "bad_message", f"game.body: {unknown} bytes more than its known fields need, "
            f"over the host's cap of {max_unknown}", None, msg.counter)


def _known_size(msg: GameMessage, game_id: bytes) -> float:
    """The packed size of what ``msg``'s body holds in fields its kind defines: the body as
    the wire writes it again from its decoded fields (a deal step from the deal messages it
    carries, `step_body`)."""
    body = msg.body
    if isinstance(body, Deal):
        try:
            body = step_body(parse_deal(body, game_id, msg.author))
        except (ValueError, TypeError):
            return math.inf  # malformed: the sequencer names what is wrong with it
    return len(msgpack.packb(body.to_wire(), use_bin_type=True))
