"""A seat's side of the rematch: once the game is over at a table that stays, its `Peer` asks for
the next game (or lets the front end ask, or says bye and goes), and `play_on` runs each next
game with a fresh peer of the same keys; its `NetSession` offers the rematch on the console and
shows the next game.  The host counts the votes (net/rematch.py).
"""

from __future__ import annotations

import trio

from ..table.seat import PeerTable
from ..wire.messages import Bye, Rematch
from .peer_link import Lost, PeerLink, PeerResult

__all__ = ["PeerRematch", "SessionRematch", "play_on"]


class PeerRematch:
    """The rematch part of `Peer` (it sets the attributes these read)."""

    @property
    def may_rematch(self) -> bool:
        """The game is over, our seat's table stays, and the next game is not settled yet: we
        may ask for a rematch."""
        return self.welcome is not None and self.welcome.table.get("rematch") is True and \
            isinstance(self.table, PeerTable) and self.table.finished and \
            self.next_game is None and self._link is not None

    async def ask_rematch(self) -> bool:
        """The player wants the next game at this table with the same seats: ask the host
        (once).  False if there is no game over to ask it of (or no connection)."""
        self.rematch = True
        if self._asked or not self.may_rematch:
            return self._asked
        self._asked = await self._tell(Rematch())
        self._changed()
        return self._asked

    def next_peer(self) -> PeerRematch:
        """A peer for the next game at the table the host named (`next_game`): the same keys,
        player and options (the host's own bot stays the host's); a fresh secret, box key and
        nonce, as for any game; ready at once (it asked for this game)."""
        peer = type(self)(**{**self._options, "table": self.next_game.table,
                             "open_table": False, "successor": False, "auto_ready": True,
                             "secret": None})
        peer.started_by_host = self.started_by_host
        return peer

    async def _stay(self, link: PeerLink) -> bool:
        """The game is over: stay at a table that stays for a rematch (asking for one, if the
        player wants it at once), or say bye and go (False)."""
        if self.next_game is not None:
            return False  # the host closes: the next game is at the table it named
        if self.rematch is False or not self.may_rematch:
            with trio.move_on_after(2):
                await link.send(Bye(reason="game over"))
            return False
        if self.rematch and not self._asked:
            self._asked = True
            try:
                await link.send(Rematch())
            except Lost:
                return False  # the host closed the table meanwhile: nothing is lost
        return True



class SessionRematch:
    """The rematch part of `NetSession` (it sets the attributes these read)."""

    def _rematch(self) -> None:
        """The host opened the next game at the table: the same seat plays it, with a fresh
        peer (a fresh secret and nonce), from its lobby."""
        game = self.peer.next_game
        self.peer = self.peer.next_peer()
        self._new_game()
        self._add(f"game {game.game} at this table: the same seats, a fresh deal")
        self._changed()

    @property
    def rematch_line(self) -> str | None:
        peer = self.peer
        if peer is None or not getattr(peer, "may_rematch", False):
            return None
        lobby = peer.lobby
        asked = set(lobby.rematch or ()) if lobby is not None else set()
        here = [s.seat for s in lobby.seats if s.connected] if lobby is not None else []
        if peer.rematch:
            waiting = [self._name(s) for s in here if s not in asked and s != peer.seat]
            return "you asked for a rematch" + (
                f": waiting for {', '.join(waiting)}" if waiting else "")
        others = [self._name(s) for s in sorted(asked) if s != peer.seat]
        return "r: play again, the same seats" + (
            f" ({', '.join(others)} asked)" if others else "")

    async def ask_rematch(self) -> str:
        peer = self.peer
        if peer is None or not getattr(peer, "may_rematch", False):
            await trio.lowlevel.checkpoint()
            return "no rematch here: the game is not over, or this host closes its table after it"
        if not await peer.ask_rematch():
            return "not connected to the host: no rematch"
        self._notify()
        return "you asked for a rematch: the next game starts once everyone at the table has"


async def play_on(peer: PeerRematch) -> PeerResult:
    """Run ``peer``'s game, then each next game at the table it goes on to (`next_game`); the
    last game's result."""
    while True:
        result = await peer.run()
        if peer.next_game is None:
            return result
        peer = peer.next_peer()
