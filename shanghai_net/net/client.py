"""One connection to the host, as the host keeps it: `Client`.

What is due to it (its own queue, then the game from its cursor in the `History`, the ``owed``
notice, the last word), its budget, and what it has been told.  No I/O: the host's connection
tasks (`link.Connections`) read and write its stream.
"""

from __future__ import annotations

import logging
from collections import deque

import trio

from ..wire import HOST, Connection, ProtocolError, RemoteProtocolError
from ..wire.messages import Chat, Error, Hello, LobbyState, Message, Owed, Placed, Pong, Refused
from .budget import Budget, Limits, TokenBucket, Verdict
from .config import HostConfig
from .history import History

__all__ = ["Client", "DROPPABLE"]

log = logging.getLogger("shanghai_net.host")

DROPPABLE = (Chat, LobbyState, Pong)
"""What a peer that does not keep up may miss: chat, a lobby state (a newer one follows) and a
pong (it pings again)."""


class Client:
    """One connection.  Game messages are not queued per connection: its writer sends the host's
    history from ``cursor`` on, so a seat that rejoins simply starts from an earlier cursor, and
    a slow one lags (until ``send_timeout``) without holding the sequencer up."""

    def __init__(self, number: int, stream: trio.abc.Stream, config: HostConfig, limits: Limits,
                 history: History, barred: set[bytes], chats: TokenBucket | None = None) -> None:
        self.number = number
        """This connection's own number: a seat that comes back is another connection."""
        self.stream = stream
        self.config = config
        self.history = history
        self.barred = barred
        """The table's seats closed for abuse (this client adds its own if it is)."""
        self.conn = Connection(HOST, config.max_frame)
        self.budget = Budget(limits, chats)
        self.in_flight = trio.Semaphore(config.in_flight)
        """Taken for each game message passed to the sequencer, given back once it is handled."""
        self.outq: deque[Message] = deque()
        """Messages other than sequenced game messages, sent before the history."""
        self.answers: deque[tuple[int, Error]] = deque()
        """Refusals of its game messages in the game, each with how many game messages were
        sequenced when it was refused: sent once those are (protocol.md 6.4), so that the
        client judges a refusal on the stream the host refused it on."""
        self.last: Message | None = None
        """Sent once the history is through (the game's ``bye``)."""
        self.wake = trio.Event()
        self.hello: Hello | None = None
        self.seat: int | None = None
        self.ready = False
        self.connected = True
        self.strikes = 0
        self.in_game = False
        """``start_game`` is queued: the history follows, from ``cursor``."""
        self.cursor = 0
        self.errors_sent: list[Error] = []
        self.sending = False
        """The writer has taken frames off the queues and is sending them."""
        self.closing = False
        self.left = False
        """It said `bye` during the game: its seat is shown as left, not as a lost link."""
        self.rejoining: tuple[int, bytes] | None = None
        """(seat, challenge): the Hello named this seat of the running game; waiting for the
        `Proof` that this connection holds its key."""
        self.replacing = False
        """The hello's key comes (back) to a seat that other keys played: its client follows
        the game from its start until its keys take the seat (``welcome.table.replacing``)."""
        self.owed_sent: Owed | None = None
        """The last ``owed`` notice sent (only to a client whose hello asked for it)."""

    @property
    def wants_owed(self) -> bool:
        return self.hello is not None and "owed" in self.hello.notices

    def _owed_due(self) -> bool:
        """The latest ``owed`` notice is for this client now: it asked for notices, has been
        sent every game message the notice reflects, and was last sent another list (a client
        that fell behind may have missed the notices in between, back to the same)."""
        history = self.history
        if not self.wants_owed or history.owed is None or self.owed_sent is history.owed or \
                self.cursor < history.owed_after:
            return False
        if self.owed_sent is not None and self.owed_sent.owes == history.owed.owes:
            self.owed_sent = history.owed  # nothing new to say
            return False
        return True

    @property
    def name(self) -> str:
        return self.hello.name if self.hello else "?"

    def queue(self, msg: Message) -> bool:
        """Queue ``msg`` without waiting; False if it was not queued.  A lobby state replaces
        one still queued; a peer too far behind misses chat, lobby states and pongs, and is
        dropped only for what it must not miss."""
        if not self.connected:
            return False
        if isinstance(msg, LobbyState):
            for i, queued in enumerate(self.outq):
                if isinstance(queued, LobbyState):
                    self.outq[i] = msg
                    return True
        if len(self.outq) >= self.config.queue:
            if not isinstance(msg, DROPPABLE):
                self.drop("its queue is full")
            return False
        self.outq.append(msg)
        self.wake.set()
        return True

    def refuse(self, code: str, reason: str) -> None:
        """Refuse what the hello asked for, and close once that is sent."""
        self.queue(Refused(code=code, reason=reason))
        self.closing = True

    def finish(self, msg: Message) -> None:
        """Send ``msg`` after the rest of the history, then close."""
        self.last = msg
        self.wake.set()

    def error(self, error: ProtocolError) -> None:
        msg = Error(code=error.code, reason=error.reason[:500], ref_seq=error.ref_seq,
                    ref_counter=error.ref_counter)
        self.errors_sent.append(msg)
        if msg.ref_counter is None or not self.in_game or (
                self.cursor >= len(self.history) and not self.answers):
            self.queue(msg)  # (it has been sent every game message sequenced so far)
        elif len(self.outq) + len(self.answers) >= self.config.queue:
            self.drop("its queue is full")
        elif self.connected:
            self.answers.append((len(self.history), msg))
            self.wake.set()

    def strike(self, error: ProtocolError) -> None:
        """Answer bad input; past ``abuse_limit`` bad messages the connection is closed."""
        self.error(error)
        self.strikes += 1
        if self.strikes > self.config.abuse_limit:
            self.abuse("too many bad messages")

    def over_budget(self, verdict: Verdict, what: str) -> bool:
        """Whether input is dropped for being over budget (the sender is told once, and closed
        if it keeps on)."""
        if verdict is Verdict.PASS:
            return False
        if verdict is Verdict.TELL:
            self.error(RemoteProtocolError(
                "rate_limited", f"{what}: over this connection's budget; dropped until it slows "
                "down (see docs/protocol.md, section 9.1)"))
        elif verdict is Verdict.ABUSE:
            self.abuse(f"{self.budget.dropped} messages over budget")
        return True

    def abuse(self, why: str) -> None:
        """Tell the peer it is being closed for abuse, and close once that is sent.  A seat of
        the running game closed for abuse has left it: its key may not come back (a replacement
        with keys of its own may play the seat on), and the table votes it gone at once (a seat that floods holds the table up as one that left
        does: every card needs its keys)."""
        self.outq.extend(answer for _, answer in self.answers)  # the refusals that led here
        self.answers.clear()
        self.queue(Error(code="abuse", reason=why))
        self.closing = True
        if self.seat is not None and self.in_game:
            self.left = True
            self.barred.add(self.hello.sign_key)

    def drop(self, why: str) -> None:
        if self.connected:
            log.info("dropping %s (seat %s): %s", self.name, self.seat, why)
        self.connected = False
        self.wake.set()

    @property
    def next_due(self) -> bool:
        """Something is still to be sent, or on its way out (the writer's last batch)."""
        return self.sending or bool(self.outq) or bool(self.answers) or \
            self.last is not None or (
            self.in_game and (self.cursor < len(self.history) or self._owed_due()))

    def next_message(self) -> tuple[Message | None, bytes | None]:
        """What the writer sends next, if anything is due, and its frame if the host encoded it
        once for every client (a game message)."""
        if self.outq:
            return self.outq.popleft(), None
        if self.answers and (self.answers[0][0] <= self.cursor or self.closing
                             or not self.in_game):
            return self.answers.popleft()[1], None
        history = self.history
        if self.in_game and not self.closing and self._owed_due():
            self.owed_sent = history.owed
            return history.owed, history.owed_frame
        if self.in_game and not self.closing and self.cursor < len(history):
            self.cursor += 1
            msg = history.messages[self.cursor - 1]
            if history.origins[self.cursor - 1] == self.number:  # it holds the message: seq is news
                return Placed(seq=msg.seq, counter=msg.counter), None
            return msg, history.frames[self.cursor - 1]
        last, self.last = self.last, None
        return last, None
