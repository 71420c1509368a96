"""The seat changing hands, as the console's `NetSession` offers it: a watcher who offers to
take a seat (`offers`), the seat handed to one (`hand_over`) or to a bot this program starts
(`let_bot_finish`), why it cannot be now (`hand_over_refused`), and, once ours is someone
else's, a spectator's connection of our own that shows the game to its end (`_watch`).  The
peer does the protocol's part (`Peer.hand_over`, net/handover.py)."""

from __future__ import annotations

import random as random_module

import trio

from ..bots import LEVELS
from ..identity import Identity, fingerprint
from ..table.seat import PeerTable
from ..wire.messages import Offer
from .config import BOT_VOID_AFTER
from .peer import Peer, PeerError
from .player import BotPlayer
from .resume import GameSecrets

__all__ = ["SessionHandover", "GONE"]

GONE = ("over", "failed")
"""A peer's status once it plays no more."""


class SessionHandover:
    """The hand-over part of `NetSession` (it sets the attributes these read)."""

    hands_over = True

    @property
    def watching(self) -> str | None:
        peer, table = self.peer, self.table
        if peer is None:
            return None
        if getattr(peer, "waiting", False):
            return ("you watch, and offer to take a seat: a player hands you theirs with H on "
                    f"their console, once you have read out your key {self.identity.fingerprint}")
        if self._handed_to is not None:
            bots = " · the bot runs in this program: closing it (q) stops the bot, and the " \
                "table then votes its seat gone" if any(
                    bot.status not in GONE for bot in self.successors) else ""
            return f"your seat is {self._handed_to}'s now: you watch the game to its end" + bots
        if table is not None and table.seat is None:
            if peer.seat is not None and self._taking:
                return (f"seat {peer.seat} was handed to you: your program replays the game as "
                        "that seat, then you play on")
            if peer.seat is not None:  # ours, played by another since: we take it back
                return (f"you take seat {peer.seat} back from {table.holders[peer.seat].describe()}"
                        ": your program follows the game, and you play on from the deal that "
                        "gives the seat back to your keys")
            return "you watch this game"
        return None

    @property
    def offers(self) -> tuple[Offer, ...]:
        lobby = self.peer.lobby if self.peer is not None else None
        return tuple(lobby.offers) if lobby is not None else ()

    @property
    def stand_in(self) -> str:
        welcome = self.peer.welcome if self.peer is not None else None
        level = welcome.table.get("stand_in") if welcome is not None else None
        return level if level in LEVELS else "basic"

    def hand_over_refused(self) -> str | None:
        peer, table = self.peer, self.table
        if peer is None or table is None or not self._dealt:
            return "the game has not started: you have no hand to hand over yet"
        if table.seat is None:
            return "you watch this game: you have no seat to hand over"
        if table.finished or table.fault is not None:
            return "the game is over"
        if self._handing is not None:
            return f"your seat is on its way to {self._handing} already"
        if self._store is None:
            return ("your seat keeps no secret of its game on this machine (a join with "
                    "--fresh-identity, or shanghai play): it cannot be handed over")
        if peer.status != "playing":
            return f"not now: {self.status or peer.status}"
        return None

    async def hand_over(self, offer: Offer) -> str:
        await trio.lowlevel.checkpoint()
        why = self.hand_over_refused()
        if why is not None:
            return why
        if offer.sign_key not in {o.sign_key for o in self.offers}:
            return f"{offer.name} no longer offers to take a seat"
        return self._hand_to(offer.name, offer.kind, offer.sign_key, offer.box_key,
                             offer.fingerprint)

    async def let_bot_finish(self, level: str | None = None) -> str:
        await trio.lowlevel.checkpoint()
        why = self.hand_over_refused()
        if why is not None:
            return why
        level = level or self.stand_in
        if level not in LEVELS:
            return f"there is no {level} bot: {', '.join(LEVELS)}"
        options = self._peer_options
        identity = Identity(self._random(32), self._random(32))
        following = trio.Event()

        def changed() -> None:
            if bot.table is not None or bot.status in GONE:
                following.set()

        bot = Peer(self.address, identity, BotPlayer(level, random_module.Random(
            self._random(16)), think=self._think), name="bot", role="bot", successor=True,
            store=GameSecrets(self._store.directory / "successors" / identity.fingerprint),
            join_code=options["join_code"], table=options["table"], random=self._random,
            timeout=options["timeout"], void_after=BOT_VOID_AFTER, on_change=changed)
        self.successors.append(bot)
        self._handing = f"a {level} bot"
        self.notice(f"starting a {level} bot in this program to finish your hand…")
        scope = trio.CancelScope()
        self._nursery.start_soon(self._run_bot, bot, scope)
        with trio.move_on_after(options["timeout"]):
            await following.wait()  # a spectator of the game: it will see the hand-over
        if bot.table is None:
            scope.cancel()
            self._handing = None
            self.notice(f"the bot could not join the table ({bot.detail or 'not in time'}): "
                        "you keep your seat")
            return "the bot could not join the table: you keep your seat"
        self._handing = None
        return self._hand_to("bot", "bot", identity.sign_public, bot.box_public,
                             identity.fingerprint)

    def _hand_to(self, name: str, kind: str, sign_key: bytes, box_key: bytes,
                 fingerprint: str) -> str:
        """Sign the hand-over; the hand-over's news in the log once the stream has it."""
        seat = self.table.seat
        if not self.peer.hand_over(name, kind, sign_key, box_key):
            return "your seat cannot be handed over now"
        self._handing = name
        self._errors_seen = len(self.peer.errors)
        self.notice(f"you hand seat {seat} to {name} (key {fingerprint}): they play on from "
                    "this very turn")
        return f"handing your seat to {name}…"

    async def _run_bot(self, bot: Peer, scope: trio.CancelScope) -> None:
        with scope:
            try:
                await bot.run()
            except PeerError as error:
                self.notice(f"the bot that took your hand stopped: {error}")
        self._changed()

    def _unseated(self, why: str) -> None:
        """Our seat changed hands (we handed it over, or the table voted us gone)."""
        table = self.table
        holder = table.holders[table.seat]
        self._handing, self._handed_to = None, holder.name
        self._add(f"seat {table.seat} is played by {holder.describe()} now: you watch the game "
                  "to its end" + (" (the table voted you gone)" if "voted" in why else ""))
        self._notify()

    async def _watch(self) -> None:
        """Follow the game to its end as a spectator (the seat we had is someone else's)."""
        options = self._peer_options
        self.peer = self._peer_type(
            self.address, Identity(self._random(32), self._random(32)), None,
            on_change=self._changed, name=self.name, role="spectator",
            join_code=options["join_code"], table=options["table"], random=self._random,
            timeout=options["timeout"], lobby_timeout=None, reconnect=options["reconnect"])
        self._seen_chat = 0  # its chat is its own, from what the host relays after its hello
        self._changed()
        await self._follow(self.peer)

    def _note_offers(self, peer) -> None:
        """A watcher offering to take a seat, news to a seated player; a hand-over the host
        refused."""
        if peer.seat is not None and not getattr(peer, "waiting", False):
            for offer in self.offers:
                if offer.sign_key not in self._offers_seen:
                    self._add(f"{offer.name} offers to take a seat (key {offer.fingerprint}): "
                              "H hands yours to them")
        self._offers_seen |= {o.sign_key for o in self.offers}
        if self._handing is not None and self._handed_to is None:
            for error in peer.errors[self._errors_seen:]:
                if "hands" in error.reason:  # the table's refusal of our hand_over
                    self._add(f"the host refused to hand your seat over: {error.reason}")
                    self._handing = None
            self._errors_seen = len(peer.errors)

    def _taker(self, seat: int, peer, table: PeerTable) -> str | None:
        """Who takes ``seat``, if it is changing hands rather than lost: the stream handed it
        to a key that has not come yet, or the host already lists another key for it than
        the one our replica has reached (the hand-over is on its way to us)."""
        body = table.handovers.get(seat)
        if body is not None and body.sign_key not in self._arrived:
            return self._name(seat)
        shown = next((s for s in peer.lobby.seats if s.seat == seat), None) \
            if peer.lobby is not None else None
        if shown is not None and shown.fingerprint != fingerprint(table.holders[seat].sign_key):
            return shown.name
        return None
