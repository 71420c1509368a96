"""What a host table is set up with: `HostConfig`, every timeout, budget and cap of a table,
each with why it has the value it has."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..identity import Identity
from .rematch import Previous

__all__ = ["HostConfig", "BOT_THINK", "BOT_VOID_AFTER"]

BOT_VOID_AFTER = 180.0
"""Seconds a player may be away before a bot votes to void the round: longer than a peer's
whole reconnection schedule, so a player whose link blinks is never voted out."""

BOT_THINK = 0.6
"""Seconds a bot at a table with a person waits before each decision, so the play can be
followed (a bots-only table plays at full speed)."""


@dataclass
class HostConfig:
    players: int = 4
    preset: str = "davis"
    rules: dict[str, Any] = field(default_factory=dict)
    """House-rule overrides: field -> value, each in its field's type (protocol/schema/rules.json;
    `rules.ruleset.parse_rules` reads ``--rule`` text)."""
    join_code: str = ""
    claim_timeout: float = 10.0
    """Seconds a claim window stays open for seats that have not answered."""
    audit_timeout: float = 90.0
    """Seconds every seat has to open its seeds once a complaint stopped the round (in
    ``start_game``); a seat that has not is named.  Longer than a dropped peer's first
    reconnection attempts."""
    holder_votes_wait: float = BOT_VOID_AFTER
    """Sharing on, R1: seconds more than the table's ``audit_timeout`` the host waits, from the
    last message sequenced, for the share holders' votes that lose a seat before it times the
    vote out (docs/dealing.md, "When the host times the vote out"): the clients' own wait to
    vote, which the reference bots count from the stall they read (``BOT_VOID_AFTER``); not
    while the votes still needed can come only from holders whose link is down.  With
    ``audit_timeout`` alone a bot holder's vote came after the void wherever quicker voters had
    reached the seat majority (soak 14-7)."""
    stand_in: str | None = "basic"
    """The level of the bot the host seats, with fresh keys, in a seat the table voted gone, so
    that the game goes on from the next round (None: the seat waits until someone proposes who
    plays it: `Host.propose`)."""
    worker_threads: bool = True
    """Check the heavy deal steps (passes, a round's last seeds) in a worker thread, so that the
    process's other tables go on meanwhile.  Off for tests on trio's autojump clock, to which a
    thread's work is no wait at all."""
    hello_timeout: float = 10.0
    """Seconds a new connection has for its hello (and, rejoining a running game, its proof)."""
    send_timeout: float = 10.0
    """A peer that does not take a message within this many seconds is dropped."""
    ping_interval: float = 15.0
    """Seconds between the host's pings to a quiet connection."""
    silence_timeout: float = 50.0
    """A connection that sends nothing (not even a pong) for this long is dropped: its machine
    is gone, and its seat is shown as away (so the table can vote)."""
    record: Path | None = None
    resume: Path | None = None
    """A transcript to take the game up from (players, preset and rules come from it); the
    seats rejoin with their keys.  New messages are appended to ``record``."""
    max_body: int = 64 * 1024
    """Largest game body relayed, in packed bytes: the largest honest one is a round's ``seeds``
    (24 KB at 4 seats in a long round; a ``pass`` of 108 points for 8 seats is 6 KB)."""
    max_unknown: int = 1024
    """Bytes of a game body in fields its kind does not define (protocol.md 10) that are
    relayed; a body with more is refused ``bad_message`` before it is sequenced."""
    max_frame: int = 64 * 1024 + 4096
    """Largest frame read from a client: a game message of ``max_body`` and its envelope."""
    max_spectators: int = 16
    abuse_limit: int = 25
    """Bad messages tolerated from one connection before it is closed (``abuse``)."""
    queue: int = 512
    """Messages (other than the game's) buffered per connection; past it, chat, lobby states
    and pongs to it are dropped, anything else drops the connection."""
    in_flight: int = 16
    """Game messages of one connection waiting for the sequencer; past it, the host stops
    reading that connection, so no seat's messages wait behind another's flood."""
    message_rate: float = 300.0
    """Messages per second a connection may send (any type); ``message_burst`` at once."""
    message_burst: float = 600.0
    byte_rate: float = 512 * 1024
    """Bytes per second read from a connection (``byte_burst`` at once); past it the host reads
    it more slowly, and TCP holds the sender back."""
    byte_burst: float = 1024 * 1024
    chat_rate: float = 2.0
    """Chats per second a connection may send (``chat_burst`` at once)."""
    chat_burst: float = 20.0
    stale_rate: float = 100.0
    """Stale game messages per second a connection may send (``stale_burst`` at once: peers
    race, so some are normal); beyond, each counts towards ``abuse_limit``."""
    stale_burst: float = 1000.0
    patience: int = 200
    """Messages dropped over budget before the connection is closed (``abuse``)."""
    rematch_wait: float = 600.0
    """Seconds a finished game's table waits for its seats to ask for a rematch (at a host
    that keeps its tables: `tables.TableServer`) before it closes; and a rematch's lobby for a
    kept seat's player to come back before the seat is open to anyone (protocol.md 6.6)."""
    sharing: str | int = "off"
    """The dropout-tolerant deal (docs/dealing.md, "The price"): "off", "default" (resolved
    from the holders: off up to 3, then ``t = h-1`` to 5 holders, ``h-2`` from 6), or a
    threshold ``t``.  The lobby resolves it over the seats not ``host_run``
    (`table.sharing_setting.resolve_sharing`) and start_game carries the result.  Off here, so
    that a program embedding a host shares nothing it did not ask for; ``shanghai host``'s
    ``--sharing`` is "default"."""
    host_run: set[bytes] = field(default_factory=set)
    """The signing keys of the clients this host's own process runs (its bots, its
    stand-ins): their seats are ``host_run`` in the lobby and in start_game, and hold no seed
    share.  Whoever starts such a client adds its key before its hello; a rematch's table
    shares the set."""
    previous: Previous | None = None
    """A rematch's table: the game before it (its seats kept for the same keys, its result
    shown in the lobby)."""
    random: Callable[[int], bytes] = os.urandom
    identity: Identity | None = None

    def __post_init__(self) -> None:
        from ..table.sharing_setting import check_setting  # `shanghai --help` imports this module

        check_setting(self.sharing)
