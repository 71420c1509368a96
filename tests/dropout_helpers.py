"""What the dropout-tolerant deal's tests share: tables with sharing on, and dealers that cheat at
it."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import pytest

from shanghai_net.cards import deck
from shanghai_net.deal import MentalTable, Participant, seeded
from shanghai_net.deal.messages import SharedCommitment
from shanghai_net.deal.sharing import coefficient_stream, seal_share, share_box_secret, split
from shanghai_net.net.sequencer import Sequencer
from shanghai_net.net.voting import Voting
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import Deal

CARDS = deck(1, 0)[:16]


def shared_table(players=4, t=3, cheats=None, seed=b"v9", cards=CARDS, **options):
    return MentalTable(players, seeded(seed), cards=cards, share_threshold=t,
                       participant_types=cheats, **options)


def changing(kind, change):
    """A participant whose outgoing messages of type ``kind`` go out as ``change(self, it)``."""

    class Changed(Participant):
        def outgoing(self, message):
            return change(self, message) if isinstance(message, kind) else message

    return Changed


def dealing(secret=None, coefficients=None, wrong_for=None):
    """A dealer whose commit carries a sharing of its own making, sealed as an honest one is:
    of ``secret(self, g)`` instead of its seed, with coefficients from ``coefficients`` instead
    of its seed's stream, or with holder ``wrong_for``'s share off the commitments."""
    def change(self, commit):
        g = self.generation(commit.context.generation)
        t, holders = g.sharing.threshold, g.sharing.commit_holders(self.seat)
        sharing = split(g.seed if secret is None else secret(self, g), t, holders,
                        coefficients or coefficient_stream(g.context, self.seat, t, g.seed))
        shares = dict(sharing.shares)
        if wrong_for is not None:
            shares[wrong_for] = (int.from_bytes(shares[wrong_for], "little") + 1).to_bytes(
                32, "little")
        boxes = [seal_share(share_box_secret(g.context, self.seat, h, g.seed), self._roster[h],
                            g.context, self.seat, h, t, shares[h]) for h in holders]
        return dataclasses.replace(commit, feldman=sharing.commitments,
                                   shares=tuple((b.holder, b.epk, b.box) for b in boxes))
    return changing(SharedCommitment, change)


def assert_only_holders_open(table):
    """Every hidden card opens to its holder alone: any other live seat lacks a key of it."""
    for participant in table._live():
        g = participant.generation(table.generation)
        for position in range(g.size):
            if position in g.mine or position in g.public:
                continue
            with pytest.raises(ValueError, match="no key yet from seats"):
                participant.open(table.generation, position)


# -- the net layer's part in a stall, played in process (the sweep of a lost seat) -------------

class ReferenceVote(Voting):
    """What a reference seat (`Peer`, a bot with ``void_after``) votes on, read off its own
    table: with sharing on, only the signed stream (``stalling``: the seats that owe the deal
    a step, or that the host timed out as silent and still hold the table up, and since when
    on the `NetClock`, as `Peer._on_game` keeps them)."""

    def __init__(self, table, outbox, stalling, void_after):
        self.table, self.seat, self.outbox = table, table.seat, outbox
        self.left, self.absent, self.lobby, self.replaying = set(), {}, None, False
        self.void_after, self.stalling = void_after, stalling
        self.person_vote_after = None  # a bot's seat

    def nudge(self):
        """(`Peer.nudge` wakes its sender; in process the outbox is polled.)"""


class NetClock:
    """The net layer's clock over a `Roster` table (test_table_roster.py) in process: no time
    passes while a party has something to send; when none has, the next thing the net layer
    does is the one due first: the host's one timer (`Sequencer._track_window`: a claim window
    ``claim_timeout`` after it opened, any other ``audit_timeout`` after the last message
    sequenced) or a live seat's vote (`Voting._vote_due`, its ``void_after`` counted from when
    its table first showed the seat stalling, as `Peer._on_game` keeps it)."""

    def __init__(self, t, void_after: float) -> None:
        self.t, self.void_after, self.now, self.last = t, void_after, 0.0, 0.0
        self.window, self.opened = None, 0.0
        self.stalling: dict[int, tuple[object, dict[int, float]]] = {}
        plain = t._after

        def after(msg):
            plain(msg)
            self.seen(msg)
        t._after = after

    def seen(self, msg) -> None:
        """After each sequenced message: the host's timer starts again, and each seat's table
        (a stand-in's from its seating) says who stalls it, since when."""
        self.last = self.now
        for seat, table in enumerate(self.t.seats):
            known, since = self.stalling.get(seat, (table, {}))
            since = since if known is table else {}
            self.stalling[seat] = (table, {
                other: self.now if msg.author == other else since.get(other, self.now)
                for other in table.waiting_for() | table.still_silent() if other != seat})
        window = self.t.host.open_window()
        window = window[0] if window else None
        if window is not self.window:
            self.window, self.opened = window, self.now

    def voter(self, seat) -> ReferenceVote:
        table = self.t.seats[seat]
        known, since = self.stalling.get(seat, (table, {}))
        return ReferenceVote(table, self.t.boxes[seat], since if known is table else {},
                             self.void_after)

    def next(self, live: set[int]) -> list[tuple[float, str, object]]:
        """What the net layer does next at a stuck table, the seats ``live`` connected: each of
        the first due, as (when, "host", its timeouts) or (when, "vote", the voter)."""
        t, due = self.t, []
        timeouts = host_timer(t, live)
        if timeouts:
            start = self.opened + t.host.claim_timeout if timeouts[0].what == "claim" else \
                self.last + t.host.audit_timeout
            due.append((start, "host", timeouts))
        due += [(when, "vote", seat) for seat in sorted(live)
                if (when := self.voter(seat)._vote_due()) < math.inf]
        first = min((when for when, _, _ in due), default=math.inf)
        return [item for item in due if item[0] == first]

    def act(self, when: float, who: str, what) -> None:
        self.now = max(self.now, when)
        if who == "host":
            time_out(self.t, what)
        else:
            self.voter(what).vote_void()


def step_one(t) -> bool:
    """One message of a `Roster` table (test_table_roster.py): the seats not ``gone`` make
    their moves, then the next seat in turn after the last sender that has something to send
    sends it (one message at a time, so that a seat can go dark at any index of the stream);
    False if none has, a move the outbox dropped chosen again.  A message of a live seat the host refuses is the table's gap, not the
    seat's: it fails, saying what the host said."""
    for seat in t.gone:
        t.boxes[seat].deal.clear()
        t.boxes[seat].move = None
    players = len(t.seats)
    for _ in range(2):  # as `Peer._act`: a move the outbox dropped (its moment passed) is
        for seat, table in enumerate(t.seats):  # chosen again at once
            if seat not in t.gone and not t.boxes[seat].busy and table.can_move():
                move = t.move_for(seat)
                t.boxes[seat].push(table.submit(move), move)
        after = getattr(t, "last_sender", -1)
        for seat in [(after + 1 + i) % players for i in range(players)]:
            msg = None if seat in t.gone else t.boxes[seat].poll()
            if msg is not None:
                t.last_sender = seat
                try:
                    t.deliver(msg)
                except RemoteProtocolError as error:
                    raise AssertionError(f"the host refused live seat {seat}'s {kind_of(msg)} "
                                         f"at seq {t.host.chain.next_seq}: {error}") from None
                return True
    return False


def kind_of(msg) -> str:
    """A sequenced message's kind, as the sweep names the points of a round."""
    body = msg.body
    return f"deal {body.step}" if isinstance(body, Deal) else type(body).__name__


def host_timer(t, live: set[int]) -> list:
    """The timeouts the reference host's one timer signs when it runs out on a stuck table
    (`Sequencer._track_window` and `_timeout`, its choice of seat by the same pure parts:
    `_rebuild_due`, `_silence_due`), the seats ``live`` connected: a round's seeds, else the
    claim window's silent seats, else a lost seat's rebuild (``shares``, ``vote``), else the
    first seat due as silent; [] if none is due."""
    public = t.host
    host = SimpleNamespace(public=public, clients=[SimpleNamespace(seat=seat, connected=True)
                                                   for seat in live])
    if public.waiting_audit:
        silent = set(range(public.players)) - public.seeds_from - public.missing_seeds
        return [wm.Timeout(seat=min(silent), what="seeds")]
    window = public.open_window()
    if window is not None:
        return [wm.Timeout(seat=seat) for seat in window[1]]
    rebuild = Sequencer._rebuild_due(host)
    if rebuild is not None:
        return [wm.Timeout(seat=rebuild[2], what=rebuild[0])]
    silent = Sequencer._silence_due(host)
    return [wm.Timeout(seat=min(silent), what="silent")] if silent else []


def time_out(t, timeouts) -> None:
    """The host signs ``timeouts`` one by one while each still has its place (a claim window's
    timeouts stop once the window closes)."""
    for body in timeouts:
        if body.what == "claim" and t.host.open_window() is None:
            break
        t.host_says(body)


def dies_at(t, when, play=True) -> int:
    """Play the `Roster` table ``t`` (test_table_roster.py) until the first message for which
    ``when(msg)`` holds: its author dies at it (the host never sees it, it sends nothing more);
    that seat."""
    plain, dead = t.deliver, []

    def dying(msg):
        if not dead and when(msg):
            dead.append(msg.author)
            t.gone.add(msg.author)
            return msg
        return plain(msg)

    t.deliver = dying
    try:
        t.run_until(lambda: dead, play=play)
    finally:
        t.deliver = plain
    return dead[0]
