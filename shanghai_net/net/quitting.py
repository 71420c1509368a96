"""A seat's player quits: the part of `Peer` that says so, to the table and to the host.

In a running game with sharing on the seat first signs its ``leave`` into the chain (version
10, docs/dealing.md, "Version 10 messages"): the seat's own word that it is gone, its last
message, on which the other seats vote at once; the lobby's ``left``, which the host sets when
it hears the ``bye`` that follows, is only the host's word, on which no seat votes with sharing
on.  With sharing off the seats vote on the lobby's word as in version 9, and the seat sends
no ``leave``: such a table's bytes stay version 9's, which a client of version 9 (the
reference simple_bot) follows.  Before either, a seat whose round is over sends what it owes
the round (its seeds): a quit does not void a round played out.  Then the run ends, and
connects no more."""

from __future__ import annotations

import trio

from ..table.fault import Fault
from ..wire import LocalProtocolError
from ..wire.messages import Bye, GameMessage, Leave
from ..wire.signing import sign_game
from ..wire.state import State
from .peer_link import Lost, PeerLink, PeerResult

__all__ = ["Quitting"]

QUIT_GRACE = 2
"""Seconds a player's quit waits for its last words to go out: quitting never hangs."""


class Quitting:
    """The quitting part of `Peer` (it sets the attributes these read)."""

    _parted: trio.Event | None = None
    """Set once the run has ended after the player left (`_left_table`)."""

    async def leave(self) -> None:
        """The player quits: the run's loop says the seat's last words (`_part`) once it has
        taken in what has arrived, then the run ends with its result and connects no more;
        this waits for that, at most ``QUIT_GRACE`` (with no connection there is no one to
        tell, and nothing to wait for)."""
        self._quit = True
        parted = self._parted = trio.Event()
        if self._link is None:
            return
        self.nudge()  # wake the run, which plays no more
        with trio.move_on_after(QUIT_GRACE):
            await parted.wait()

    def _plays_here(self, link: PeerLink) -> bool:
        """Whether this peer plays a seat of the game on ``link``, a connection the host has
        taken into the game (not while it replays the stream after a rejoin: its counters are
        not known yet), and the seat still counts at the table."""
        table, outbox = self.table, self.outbox
        return outbox is not None and link.conn.our_state is State.GAME and \
            not self.replaying and table.fault is None and table.seat not in table.vacant

    async def _send_round_s_due(self, link: PeerLink) -> None:
        """A seat whose round is over (its table waits for the round's audit) sends what it
        owes the round (its seeds) before it goes: they cost the player nothing, and without
        them the round, played out, is void for every seat (soak 13-27)."""
        if not self._plays_here(link) or not self.table.waiting_audit:
            return
        try:
            while (msg := self.outbox.poll()) is not None:
                await link.send(msg)
        except (Fault, Lost, LocalProtocolError):
            return  # nothing more to send, or nowhere to: the leaving goes on

    def _signed_leave(self, link: PeerLink) -> GameMessage | None:
        """The seat's ``leave``, signed with its next counter, if this peer plays a seat here
        (`_plays_here`) of a game with sharing on still going on; else None."""
        table, outbox = self.table, self.outbox
        if not self._plays_here(link) or table.share_threshold is None or table.finished or \
                table.seat in table.quitters():
            return None
        msg = sign_game(outbox.sign_key, table.chain.start, table.seat, outbox.reserve(),
                        Leave())
        outbox.sent_past(msg)
        return msg

    async def _part(self, link: PeerLink) -> None:
        """The player left (`leave`): the seat's last words go out on this connection, all
        within ``QUIT_GRACE``, before the run closes it: what it owes the round just over
        (`_send_round_s_due`), its signed ``leave`` (`_signed_leave`), then ``bye``.  Said by
        the run's loop alone, once it has taken in every message that arrived, so that a
        quit that comes as the table takes in the round's end still sends the seeds, and
        nothing of the seat's follows its ``leave`` or its ``bye``."""
        with trio.move_on_after(QUIT_GRACE):
            await self._send_round_s_due(link)
            leave = self._signed_leave(link)
            if leave is not None:
                await link.send(leave)
            if link.conn.our_state in (State.LOBBY, State.GAME):
                await link.send(Bye(reason="the player left"))
        await link.sent()

    def _left_table(self) -> PeerResult:
        """The run's end after the player left (`leave`, which waits for it)."""
        if self._parted is not None:
            self._parted.set()
        if self._store is not None and self.table is not None and self.table.finished:
            self._store.forget(self.table.game_id)  # the game is over: its secret has no use
        self._set("over", "you left the table")
        return self.result
