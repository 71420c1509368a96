"""Who plays a seat, and with which secrets: the part of `Peer` that follows the seat's life
from the game's start as it changes hands.

At the start (`_on_start`) the seat plays from the secret of this join, or from the ones kept on
disk after a crash (`GameSecrets`).  A player hands the seat over (`hand_over`, protocol.md
11.9): its secrets go sealed to a successor watching the game, which opens them
(`_handed_to_us`), joins again as the seat (`Reseat`) and replays it from the first message.
A seat the table gave to another key (voted gone and replaced, or handed over) stops playing
(`Unseated`); one that comes back to a seat others played since follows the game and takes it
back from the deal the stream gives its keys the seat (`_holder_changed`).
"""

from __future__ import annotations

import trio

from ..deal.randomness import RandomBytes
from ..identity import fingerprint
from ..table.outbox import Outbox
from ..table.public import PublicTable
from ..table.seat import PeerTable
from ..table.secret import SeatSecret, open_secrets, seal_secrets
from ..table.start import check_claim_timeout, check_fresh, check_keys, check_sharing
from ..table.watch import HostWatch
from ..wire.messages import HandOver, StartGame
from ..wire.signing import start_digest
from .peer_link import PeerError

__all__ = ["Holding", "Unseated", "Reseat"]


class Unseated(Exception):
    """The stream gave our seat to another key: our game is over, the table's goes on."""


class Reseat(Exception):
    """A seat was handed to us while we watched: join again as its holder, and replay the game
    as the seat from its first message with the secrets we were handed."""



class Holding:
    """The part of `Peer` that says which keys and secrets play its seat, as the stream changes
    who holds it (`Peer` sets the attributes these read)."""

    started_by_host: bool = False
    """This client runs in its host's own process (its bot or stand-in): only then may
    start_game mark its seat ``host_run`` (docs/dealing.md, "The host's word")."""

    @property
    def box_public(self) -> bytes:
        """The box key of our hello: what a holder seals its seat's secrets to for us."""
        return self._own.box_public

    def hand_over(self, name: str, role: str, sign_key: bytes, box_key: bytes) -> bool:
        """Hand our seat to a successor watching the game (its hello's keys): our secrets go
        sealed to its ``box_key``, and from that message's seq it signs for the seat with
        ``sign_key`` while we stop (protocol.md 11.9).  False if we play no seat now, or
        keep no secrets (no store: our draws do not come from them)."""
        table, outbox = self.table, self.outbox
        if outbox is None or self._store is None or not isinstance(table, PeerTable) \
                or table.finished:
            return False
        sealed = seal_secrets(self._secrets, box_key, table.game_id, table.seat, sign_key,
                              self._random(32))
        outbox.push([HandOver(name=name[:32] or "?", role=role, sign_key=sign_key,
                              box_key=box_key, sealed=sealed)])
        self.nudge()
        return True

    def _on_start(self, start: StartGame) -> None:
        if self.table is not None:
            if start.game_id != self.table.game_id:
                raise PeerError("the host rejoined us to another game")
            return
        joined = self.welcome is not None and self.welcome.challenge is None
        # a seat the host let us in to take, or one whose keys the table changed, and a game
        # under way when we came to watch it: the lobby shows who plays each seat now (a seat
        # handed over or replaced since the start too), the chain vouches for the start
        before = joined and not self.welcome.table.get("started")
        shown = {s.seat: s.fingerprint for s in self.lobby.seats} if self.lobby and before else {}
        replacing = not joined and self.seat is not None and (
            start.seats[self.seat].sign_key != self.identity.sign_public
            or self.welcome.table.get("replacing") is True)  # ours, played by others since
        timeout = self.welcome.table.get("claim_timeout") if self.welcome is not None else None
        try:
            check_fresh(start, self.seat if joined else None, self._nonce)
            check_claim_timeout(start, float(timeout) if isinstance(timeout, (int, float))
                                else None)
            check_sharing(start, None if replacing else self.seat, self.started_by_host,
                          self.lobby if before else None)
        except ValueError as error:
            raise PeerError(f"refusing the game {self._host()} started: {error}") from None
        keep = False
        if self.seat is not None:
            kept = self._kept_secrets(start, fresh=self._quiet_until == 0 or replacing)
            # our seat, played by other keys since: we follow the game and play it again with
            # the keys of this join from the deal the stream gives them the seat; but a secret
            # kept since we came back for it (not the start's) is the one the table's replace
            # gave the seat to: we follow with it, and play from that replace on
            afresh = replacing and kept is not None and len(kept) == 1 and kept != [self._own] \
                and kept[0].box_public == start.seats[self.seat].box_key
            keep = kept is None or afresh
            self._secrets = [self._own] if afresh else kept or self._secrets
        try:
            check_keys(start, None if replacing else self.seat, self.identity.sign_public,
                       {s.box_public for s in self._secrets}, shown)
        except ValueError as error:
            raise PeerError(str(error)) from None
        if keep and self._store is not None:  # only for a start we play: its id is the host's
            self._store.keep(start.game_id, start_digest(start.to_wire()), self._secrets)
        self.start = start
        # a seat played by other keys since the start follows the game, unless it was handed
        # to us: then the secrets we hold replay it (our own after those we were handed)
        follows = self.seat is None or (replacing and len(self._secrets) == 1)
        first = None if follows else self._secret_of(start.seats[self.seat].box_key)
        self._seat_holder = None  # the seat's first holder is the first this table shows
        if first is None:  # a spectator, or a seat our keys take later: the public table
            table = self.table = self.result.table = PublicTable(start)
            table.audit_elsewhere = self.worker_threads
            self._set("playing", self._following())
            return
        table = self.table = self._seated(
            self.table_type(start, self.seat, first.box_key, self._randomness(first)), first)
        self._sit(table, table.start())

    def _following(self) -> str:
        """What we do while our table is the public one: watch, or wait to take our seat."""
        return "watching" if self.seat is None else \
            f"waiting to take seat {self.seat} at the next round's deal"

    def _kept_secrets(self, start: StartGame, fresh: bool) -> list[SeatSecret] | None:
        """The seat's secrets kept on disk for the game of ``start`` (a seat that crashed, or
        was handed to us), or None: ours play (``fresh``: nothing of ours is in the game yet),
        to be kept once the start is checked.  Without a store only ``fresh`` ones can play: a
        crash loses the game's deal."""
        if self._store is None:
            if not fresh:
                raise PeerError("cannot rejoin a running game without its secrets (no store "
                                "given)")
            return None
        try:
            kept = self._store.kept(start.game_id, start_digest(start.to_wire()))
        except ValueError as error:
            raise PeerError(f"refusing the game {self._host()} started: {error}") from None
        if kept is None and not fresh:
            raise PeerError(f"refusing the game {self._host()} started: no secret of game "
                            f"{start.game_id.hex()} on this machine: it cannot rejoin the "
                            "game's deal")
        return kept

    def _secret_of(self, box_key: bytes) -> SeatSecret | None:
        """Our secret of the seat whose shares are sealed to ``box_key``, if we hold it."""
        return next((s for s in self._secrets if s.box_public == box_key), None)

    def _randomness(self, secret: SeatSecret) -> RandomBytes:
        """The seat's deal randomness from ``secret``, bound to the chain of the table we
        follow (a seat's table and the public one it was forked from share it).  With no
        store our own draws are the injected randomness itself: such a seat can neither
        rejoin after a crash nor be handed over, and a test's seeded game plays the same
        whatever order the host sequenced the seats' steps in."""
        if self._store is None and secret is self._own:
            return self._random
        return secret.randomness(self.start.game_id, start_digest(self.start.to_wire()),
                                 lambda: self.table.chain.head)

    def _seated(self, table: PeerTable, secret: SeatSecret) -> PeerTable:
        """``table`` playing from ``secret``, and from the keys we hold after it as the
        table seals the seat's shares to them."""
        later = self._secrets[self._secrets.index(secret) + 1:]
        if self._own not in self._secrets:  # started again: a ``replace`` of the seat may
            later.append(self._own)  # give it this join's box key (`_came_back`)
        for after in later:
            table.hold(after.box_key, self._randomness(after))
        return table

    def _sit(self, table: PeerTable, first: list) -> None:
        """Play ``table``'s seat from here; ``first``: the bodies it owes now."""
        self.table = self.result.table = table
        table.audit_elsewhere = self.worker_threads
        table.yields_seat = self.role == "bot"  # a stand-in hands its seat on
        old = self.outbox  # of the table we took the seat over from: its trail, its counters
        trail = old.trail if old is not None else \
            self._store.trail(table.game_id) if self._store is not None else None
        self.outbox = Outbox(table, self.identity.sign_key, trail,
                             old.reserve() if old is not None else 0)
        if old is not None:  # sent on this connection by the table we leave, and the host may
            self.outbox.unplaced.update(old.unplaced)  # place them yet: its `Placed` names them
        self._watch = HostWatch(table, self.outbox)
        self._watch.behind()  # a seat taken mid-stream: live once its inbox runs dry
        self.outbox.push(first)
        self._set("playing")
        if self._on_table is not None:
            self._on_table(table)

    def _holder_changed(self) -> None:
        """After a message: take the seat the table gave our keys (a replacement following
        until now, or a successor the seat was just handed to), or stop playing one the table
        gave to someone else.  A seat that changed hands is no longer away as its old holder
        was: the host's next `lobby_state` says whether the new one is here, unless the latest
        already shows the new holder's key, not connected yet (it can come before the message
        that changed hands reaches our replica: a successor joins again as the seat).  That
        absence is the new holder's, from now (issue 41: dropped, it was heard as the seat's
        connection lost, then back)."""
        table = self.table
        keys = tuple(h.sign_key for h in table.holders)
        changed = {s for s, (a, b) in enumerate(zip(self._keys_seen or keys, keys)) if a != b}
        self._keys_seen = keys
        if changed:
            shown = {s.seat: s.fingerprint for s in self.lobby.seats} if self.lobby else {}
            gone = {s for s in changed if shown.get(s) != fingerprint(keys[s])}
            now = trio.current_time()
            self.absent = {s: now if s in changed else t for s, t in self.absent.items()
                           if s not in gone}
            self.left = self.left - gone
        if table.finished:
            return
        if self.seat is None:
            if self.waiting:
                self._handed_to_us(table)
            return
        holder = table.holders[self.seat]
        reseated = self._seat_holder is not None and self._seat_holder is not holder
        self._seat_holder = holder
        if reseated and holder.box_key == self._own.box_public:
            self._came_back()
        ours = holder.sign_key == self._sign_public
        self._held = self._held or (ours and self.outbox is not None)
        # the box keys of our secrets are looked up only when the seat changed hands, not
        # after every message (each is an X25519 key derived from its seed); and when the
        # table seated the seat we play again mid-round (sharing on, R1): it was lost this
        # round, and our table, which played it until then, holds a deal that lost it
        afresh = reseated and self.outbox is not None and self.seat in table.rekey_due
        secret = self._secret_of(holder.box_key) if afresh or (
            self.outbox is None and self.seat in changed) else None
        if secret is not None:
            self._take_over(table, secret)
        elif not ours and self._held and self.outbox is not None:
            how = f"we handed seat {self.seat} over: it" if self.seat in table.handovers \
                else f"the table voted us gone: seat {self.seat}"
            raise Unseated(f"{how} is played by {holder.describe()} now")

    def _came_back(self) -> None:
        """A ``replace`` gave our seat the box key of this join's hello: we came back to it
        after a crash (the kept secrets are the seat's until then).  This join's secret plays
        it from the deal that seals to it (`_seated` holds it), and is kept after the others:
        a crash from here replays the seat to this point and takes it again."""
        if self._own in self._secrets:
            return
        self._secrets = [*self._secrets, self._own]
        if self._store is not None:
            self._store.keep(self.table.game_id, start_digest(self.start.to_wire()),
                             self._secrets)

    def _take_over(self, table: PublicTable | PeerTable, secret: SeatSecret) -> None:
        """Play our seat from here as a replacement does (`PeerTable.taking_over`), from the
        game as ``table`` has it: a follower's table whose keys the stream just gave the seat,
        or our own seat's, seated again mid-round after its loss this round (its first player
        coming back: the same process, or one started again).  Then it holds no share of the
        round's seeds, and takes its hand from the boxes the others hand it (protocol.md
        11.10)."""
        seated = self._seated(self.table_type.taking_over(
            table, self.seat, secret.box_key, self._randomness(secret)), secret)
        self._sit(seated, seated.start())

    def _handed_to_us(self, table: PublicTable) -> None:
        """A successor watching: if a ``hand_over`` names our key, open the secrets it seals
        to us, keep them, and join again as the seat (`Reseat`)."""
        seat, body = next(((s, b) for s, b in table.handovers.items()
                           if b.sign_key == self._sign_public), (None, None))
        if body is None:
            return
        try:
            handed = open_secrets(body.sealed, self._own.box_key, table.game_id, seat,
                                  body.sign_key)
        except ValueError as error:
            raise PeerError(str(error)) from None
        self._secrets = [*handed, self._own]
        if self._store is not None:
            self._store.keep(table.game_id, start_digest(self.start.to_wire()), self._secrets)
        self.waiting, self.seat, self.result.seat = False, seat, seat
        raise Reseat(f"seat {seat} was handed to us: joining as its holder")
