"""What one connection may cost the host: token buckets over messages, bytes, chat and stale
answers, and the verdict on each input.  Pure: every call takes ``now`` (the host passes
``trio.current_time()``), so the budgets are tested without clocks.

Bytes are paced, not dropped: the host reads a connection no faster than its byte rate (TCP then
holds the sender back).  A message over the message rate, or a chat over the chat rate, is
dropped and the sender told once (``rate_limited``); the host then reads no more of it until a
message may pass again, and one that keeps on past ``patience`` dropped inputs is closed
(``abuse``).  A stale answer over the stale rate counts as a bad message.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["TokenBucket", "Limits", "Budget", "Verdict"]


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` held; starts full."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.since: float | None = None

    def _fill(self, now: float) -> None:
        if self.since is not None and now > self.since:
            self.level = min(self.burst, self.level + (now - self.since) * self.rate)
        if self.since is None or now > self.since:
            self.since = now

    def take(self, now: float, amount: float = 1.0) -> bool:
        """Take ``amount`` tokens if there are that many; False (and nothing taken) if not."""
        self._fill(now)
        if self.level < amount:
            return False
        self.level -= amount
        return True

    def ready_at(self, now: float, amount: float = 1.0) -> float:
        """When ``amount`` tokens will be there (``now`` if they are)."""
        self._fill(now)
        return now if self.level >= amount else now + (amount - self.level) / self.rate

    def charge(self, now: float, amount: float) -> float:
        """Take ``amount`` tokens, going into debt if need be; the time at which the debt is
        paid (``now`` if there is none): the caller waits until then before spending more."""
        self._fill(now)
        self.level -= amount
        return now if self.level >= 0 else now - self.level / self.rate


@dataclass(frozen=True)
class Limits:
    """The budgets of one connection (the host's config fills them in)."""

    message_rate: float
    message_burst: float
    byte_rate: float
    byte_burst: float
    chat_rate: float
    chat_burst: float
    stale_rate: float
    stale_burst: float
    patience: int
    """Inputs dropped over budget before the connection is closed as abusive."""


class Verdict(Enum):
    PASS = "pass"
    TELL = "tell"
    """Dropped; the sender is told (``rate_limited``), once per run of drops."""
    DROP = "drop"
    """Dropped; the sender has been told already."""
    ABUSE = "abuse"
    """Dropped past patience: close the connection."""


class Budget:
    """The budgets of one connection, and how far over them it has gone."""

    def __init__(self, limits: Limits, chats: TokenBucket | None = None) -> None:
        self.limits = limits
        self.messages = TokenBucket(limits.message_rate, limits.message_burst)
        self.bytes = TokenBucket(limits.byte_rate, limits.byte_burst)
        self.chats = chats or TokenBucket(limits.chat_rate, limits.chat_burst)
        """Chat is paid from a bucket every connection from one address shares (``chats``):
        a fresh connection would otherwise bring a fresh burst."""
        self.stales = TokenBucket(limits.stale_rate, limits.stale_burst)
        self.dropped = 0
        self._told: set[str] = set()
        """The budgets whose run of drops the sender has been told of."""

    def read(self, now: float, size: int) -> float:
        """``size`` bytes were read; when the next read may start: once their cost is paid,
        and once a message may pass again (a flood is dropped, but not read faster than its
        budget, so the reading costs the host no more than the budget allows)."""
        return max(self.bytes.charge(now, size), self.messages.ready_at(now))

    def message(self, now: float) -> Verdict:
        """One message arrived."""
        return self._judge("messages", self.messages.take(now))

    def chat(self, now: float) -> Verdict:
        """One chat arrived (after its message passed)."""
        return self._judge("chats", self.chats.take(now))

    def stale(self, now: float) -> bool:
        """A stale answer was sent: True if that is one too many (count it as a bad message)."""
        return not self.stales.take(now)

    def _judge(self, budget: str, within: bool) -> Verdict:
        if within:
            self._told.discard(budget)
            return Verdict.PASS
        self.dropped += 1
        if self.dropped > self.limits.patience:
            return Verdict.ABUSE
        if budget in self._told:
            return Verdict.DROP
        self._told.add(budget)
        return Verdict.TELL
