"""A seat's player quits: the part of `Peer` that says so, to the table and to the host.

In a running game with sharing on the seat first signs its ``leave`` into the chain (version
10, docs/dealing.md, "Version 10 messages"): the seat's own word that it is gone, its last
message, on which the other seats vote at once; the lobby's ``left``, which the host sets when
it hears the ``bye`` that follows, is only the host's word, on which no seat votes with sharing
on.  With sharing off the seats vote on the lobby's word as in version 9, and the seat sends
no ``leave``: such a table's bytes stay version 9's, which a client of version 9 (the
reference simple_bot) follows.  Then the run ends, and connects no more."""

from __future__ import annotations

import trio

from ..wire.messages import Bye, GameMessage, Leave
from ..wire.signing import sign_game
from ..wire.state import State
from .peer_link import PeerLink, PeerResult

__all__ = ["Quitting"]


class Quitting:
    """The quitting part of `Peer` (it sets the attributes these read)."""

    async def leave(self) -> None:
        """The player quits: the seat's signed ``leave`` goes to the table if it plays a
        running game with sharing on (`_signed_leave`), then the host hears ``bye``, so that the table sees the
        seat has left for good rather than lost its link (with no connection there is no one
        to tell).  The run then ends with its result, and connects no more."""
        self._quit = True
        leave = self._signed_leave()
        with trio.move_on_after(2):
            if leave is not None:
                await self._tell(leave)
            await self._tell(Bye(reason="the player left"))
        self.nudge()  # wake the run, which plays no more

    def _signed_leave(self) -> GameMessage | None:
        """The seat's ``leave``, signed with its next counter, if this peer plays a seat of a
        game with sharing on still going on, on a connection the host has taken into the game
        (not while it replays the stream after a rejoin: its counters are not known yet); else
        None."""
        table, outbox, link = self.table, self.outbox, self._link
        if outbox is None or link is None or link.conn.our_state is not State.GAME or \
                table.share_threshold is None or \
                self.replaying or table.finished or table.fault is not None or \
                table.seat in table.vacant or table.seat in table.quitters():
            return None
        msg = sign_game(outbox.sign_key, table.chain.start, table.seat, outbox.reserve(),
                        Leave())
        outbox.sent_past(msg)
        return msg

    async def _part(self, link: PeerLink) -> None:
        """The player left: its bye goes out on this connection (said already by `leave`, or
        not, if it found none to say it on) before the run closes it."""
        if link.conn.our_state in (State.LOBBY, State.GAME):
            await link.send(Bye(reason="the player left"))
        await link.sent()

    def _left_table(self) -> PeerResult:
        """The run's end after the player left (`leave`)."""
        if self._store is not None and self.table is not None and self.table.finished:
            self._store.forget(self.table.game_id)  # the game is over: its secret has no use
        self._set("over", "you left the table")
        return self.result
