"""What a seat checks of its host's one authority, the claim ``timeout`` (protocol.md 11.4).

The host's clock cannot be seen, only compared: a seat notes when each claim window opened for
it (by its own clock, when the stream made the window open and the deal settled), and when a
``timeout`` names it, judges it.  A timeout that came in less than half the agreed
``claim_timeout`` after the window opened here is early (the half leaves room for the
network's delays and a busy machine); a timeout that came while this seat's answer to the
window was on its way, before the agreed time was up here, took the seat's claim from it.
Either way the seat protests, publicly, with the claim it signed as evidence.  Sans IO: the
caller passes the time.

A seat judges only the windows it saw open in real time.  One that (re)joins -- a rejoin, a
seat handed to it, a host resumed -- replays the stream to where the welcome said it was
sequenced, then takes in a burst what the host sequenced meanwhile: a window that opened
before it caught up looks, timed by when the seat took it, to have lasted no time.  So the
caller marks the seat `behind` when it is welcomed (or handed a seat) and `caught_up` when,
the replay done, its inbox runs dry; a window that opened in between is never judged, even
when the host times it out at once.  (The inbox is filled frame by frame, so it may run dry
before the backlog is all in: a window opened after the welcome is still judged, wrongly if
the seat took its opening over half the agreed claim time late.)  What a host can do with
this: time out early, without protest, a window that opens while a seat it just let in
catches up -- every window already open at the welcome, and those sequenced while the seat
takes in its backlog.  It cannot make a live seat look behind: the seat itself says when it
caught up, and only a new connection puts it behind again, which the host forces only by
dropping the seat (every seat sees it away).
"""

from __future__ import annotations

from ..wire import messages as wm
from ..wire.messages import HOST_AUTHOR, GameMessage
from .outbox import Outbox
from .seat import PeerTable

__all__ = ["HostWatch", "EARLY"]

EARLY = 0.5
"""A timeout sooner than this share of the agreed claim time after the window opened is early."""


class HostWatch:
    """One seat's watch on the host's timeouts of it."""

    def __init__(self, table: PeerTable, outbox: Outbox | None = None) -> None:
        self.table = table
        self.outbox = outbox
        """What this seat sent and the host has not sequenced (its seeds among them)."""
        self._window: object | None = None
        self._opened: float | None = None
        """When ``_window`` opened here; None if it opened while this seat was behind."""
        self._live = True

    def behind(self) -> None:
        """The seat is (re)joining: the windows that open until it is `caught_up` are not
        judged (it takes them in a burst, not as they open)."""
        self._live = False

    def caught_up(self) -> None:
        """The seat has replayed the stream and taken what arrived meanwhile: it is live."""
        self._live = True

    def seen(self, now: float) -> None:
        """Call after each message the table took (replayed too): a newly open window starts
        its clock here, if this seat is live."""
        window = self.table.claim_window()
        if window is not None and window is not self._window:
            self._window, self._opened = window, now if self._live else None

    def judge(self, msg: GameMessage, answer: GameMessage | None, now: float) -> wm.Protest | None:
        """The protest ``msg`` deserves, if it is the host's timeout of this seat's claim;
        ``answer``: this seat's signed answer to the window that was on its way when it came."""
        body = msg.body
        if msg.author != HOST_AUTHOR or not isinstance(body, wm.Timeout) or \
                body.seat != self.table.seat:
            return None
        if body.what == "seeds":
            return self._silenced(msg)
        if body.what == "silent":
            return self._idle(msg)
        if body.what != "claim" or self._opened is None:
            return None
        agreed = self.table.claim_timeout
        waited = now - self._opened
        claim = answer if answer is not None and isinstance(answer.body, (wm.MayI, wm.PassClaim)) \
            else None
        # a claim on its way is the plainer evidence: it is said first, early or not (which
        # of the two a timeout was depends on when the window opened here, a busy seat's clock)
        if claim is not None and waited < agreed:
            reason = (f"timed out while its {claim.body.KIND} was on its way, {waited:.1f} s "
                      f"after the window opened here (agreed: {agreed:g} s)")
        elif waited < EARLY * agreed:
            reason = (f"timed out {waited:.1f} s after the claim window opened here; the table "
                      f"agreed on {agreed:g} s")
        else:
            return None
        return wm.Protest(seq=msg.seq, reason=reason,
                          claim=claim.to_wire() if claim is not None else None)

    def _idle(self, msg: GameMessage) -> wm.Protest | None:
        """The protest of a ``silent`` timeout of this seat while it owed the table nothing
        (v10: the host says its link is down, protocol.md 11.5): it is here, and its protest,
        a message of its own, ends that silence, so that it counts as a voter again.  None for
        a timeout of a seat the table waits on (what it owes says it is here) or one the
        round's void forgot."""
        if self.table.seat not in self.table.idle_silenced:
            return None
        return wm.Protest(seq=msg.seq, reason="timed out as silent while we owed the table "
                          "nothing: we are here, and vote", claim=None)

    def _silenced(self, msg: GameMessage) -> wm.Protest | None:
        """The protest of a timeout of this seat's seeds that it had sent (on their way, never
        sequenced): the seats then charge it as a seat that left, and its signed seeds, shown
        to every party, are its evidence (protocol.md 11.6).  None if it never sent them."""
        sent = [m for m in (self.outbox.flying if self.outbox is not None else ())
                if isinstance(m.body, wm.Deal) and m.body.step == "seeds"]
        if not sent:
            return None
        seeds = sent[-1]
        self.outbox.forget(seeds)
        return wm.Protest(seq=msg.seq, reason=f"timed out our seeds, which we sent (our message "
                          f"{seeds.counter}) and the host never sequenced", claim=seeds.to_wire())
