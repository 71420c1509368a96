"""What a game of the chaos evening is, drawn from its seed alone: its seats, and its faults, each
with the moment it strikes (a deal and how many discards into it, or a deal's audit).

Three draws.  ``several`` (session 17's) draws one or two *episodes* a game, each of a shape in
`SHAPES`; a seat may be struck again and again, two seats at once, and a seat or the host at the
round's audit.  ``mixed`` (the evening's own since session 18) plays a third of its games at a
table sharing seeds (``shanghai host --sharing default``, docs/dealing.md: a seat lost mid-round
is rebuilt and its round goes on) with 4 to 6 seats, drawn from a stream of their own, and the
others exactly as ``several`` draws them.  ``single`` is the draw of sessions 15 and 16 (at most
one fault a seat, one or two a game).  Each keeps the games of its seeds: ``--replay 6-20 --draw
single``, ``--replay 8-11 --draw several``."""

from __future__ import annotations

import random
from dataclasses import dataclass

from shanghai_net.net.config import HostConfig

CONTRACTS = ("2s", "1s1r", "2r")
HOUSE_RULES = ("final_round_meld_all=false", "max_turns=300")
"""Davis melds its last round all at once, which bots seldom manage with two runs: a round of
minutes; and no round goes past 300 turns (it is scored as it stands)."""
CLAIM_TIMEOUT = 1.0
VOTE_AFTER = 10.0
"""Seconds a seat is away before the bots (``--void-after``) and the persons vote."""
TURN_SECONDS = 0.75
"""A turn at 6 seats sharing seeds on a 2-core machine at load 20 (soak 13-28)."""
QUIET_TURNS = 150
"""Discards a game plays within `time_bound`'s quiet game: 75 to 180 in seed 13's games
at 3 to 5 seats, most under a minute."""
AUDIT_TIMEOUT = HostConfig.audit_timeout
"""The host's wait for a seat's seeds, and for the table's silence (its ``silent`` and
``vote`` timeouts): the harness's host keeps its default."""

KINDS = ("sigkill-rejoin", "sigterm-rejoin", "sigkill-gone", "sigstop", "bye", "hand-over-bot",
         "hand-over-person", "take-back", "host-resume")
PERSON_ONLY = {"bye", "hand-over-bot", "hand-over-person"}
ABSENT_ONCE = {"sigkill-gone", "bye", "take-back"}
"""Faults after which the seat must pay the leave penalty exactly once."""
ABSENT_MAYBE = {"sigkill-rejoin", "sigterm-rejoin", "sigstop"}
"""Faults after which the seat may pay it once (the vote may come before it is back)."""
FINAL = {"sigkill-gone", "bye", "hand-over-bot", "hand-over-person"}
"""Faults after which the seat's player is not back: the last of its seat."""
RETURNS = ("sigkill-rejoin", "sigterm-rejoin", "sigstop", "take-back")
"""Faults after which the seat's player is back (a take-back at most once a seat: protocol.md
11.8, a seat is given back once a game)."""
LOST = ("sigkill-gone", "sigkill-rejoin", "sigterm-rejoin", "bye", "take-back")
"""A seat lost, for good or for a while (two seats at once)."""
AT_AUDIT = ("sigkill-rejoin", "sigterm-rejoin", "sigkill-gone", "sigstop", "bye", "host-resume")
SHAPES = ("scattered", "again-and-again", "two-at-once", "at-the-audit")
"""An episode: one fault at a random moment; one seat that leaves and comes back three times
over the game; two seats lost at the same moment; one seat (or the host) struck when the
first seeds of a round's audit are in."""
NAMES = ("ann", "bob", "carl", "dee", "fay", "gus")
DRAWS = ("mixed", "several", "single")
SHARED = 1 / 3
"""The share of the ``mixed`` draw's games played at a table sharing seeds."""
SHARED_SEATS = (4, 5, 6)


@dataclass
class Seat:
    name: str
    person: bool


@dataclass
class Fault:
    kind: str
    target: str  # a seat's name, or "host"
    deal: int
    discards: int
    pause: float
    audit: bool = False
    """Strikes at deal ``deal``'s audit (its first seeds in) rather than after ``discards``."""
    injected: str = ""
    """Where it struck ("deal 2, discard 7"); empty: it did not (the game ended first, or the
    seat's player was no longer there: `missed` says)."""
    missed: str = ""
    over: bool = False
    """It struck at the game's last round's audit: a leave then leaves no round to play, and
    costs nothing if the seat's seeds come (else the round is void, and the seat pays)."""

    @property
    def moment(self) -> str:
        return f"deal {self.deal}'s audit" if self.audit else \
            f"deal {self.deal} + {self.discards} discards"

    def order(self) -> tuple[int, int, int]:
        return self.deal, int(self.audit), self.discards


@dataclass
class GameSpec:
    seed: str
    players: int
    host_bots: int
    seats: list[Seat]
    faults: list[Fault]
    rounds: int = len(CONTRACTS)
    sharing: bool = False
    """The host shares seeds (``--sharing default``: on when the seats it does not run are 4 or
    more, docs/dealing.md's table)."""

    @property
    def time_bound(self) -> float:
        """Seconds the game may take: a quiet game takes 20 to 60 s on a busy 2-core machine
        at 3 or 4 seats (a seat more, a turn more each time round), a vote 10 s, a rejoin after
        a host's crash up to 15 s; and a full `AUDIT_TIMEOUT` for each of the host's timeouts
        a fault may take (`host_waits`)."""
        return 150.0 + 45.0 * max(0, self.players - 4) + 90.0 * len(self.faults) + \
            AUDIT_TIMEOUT * self.host_waits

    def time_bound_at(self, turns: int) -> float:
        """`time_bound`, and `TURN_SECONDS` for each turn the game has played beyond a quiet
        game's `QUIET_TURNS`: a round may run to the house rule's 300 turns (soak 13-28, 6
        seats: round 2's 300 turns, nobody out, took 225 s, and the game was stopped at 330 s
        in round 3, its record moving)."""
        return self.time_bound + TURN_SECONDS * max(0, turns - QUIET_TURNS)

    @property
    def host_waits(self) -> int:
        """The host's timeouts, each a full `AUDIT_TIMEOUT` after the last message, that the
        game's faults may take where the votes cannot decide alone (protocol.md 11.5, 11.10):
        for each seat lost at the same moment as another, the ``silent`` timeout (the seats
        left are no majority), and at a table sharing seeds for each seat lost, the ``vote``
        timeout (``t`` holders' votes cannot come: another seat is lost too, or is a stand-in
        the host plays).  Soak 13-4, 4 seats, t 3, two take-backs at once: each seat's round
        voided in turn by a ``silent`` and a ``vote`` timeout, 190 and 220 s, the game 490 s
        where it was given 330."""
        lost = [f for f in self.faults if f.kind in LOST]
        at_once = sum(any(g.target != f.target and g.order() == f.order() for g in lost)
                      for f in lost)
        return at_once + (len(lost) if self.sharing else 0)

    @property
    def deal_bound(self) -> int:
        """Each fault voids at most one deal (a leave its own round), and a game whose
        stand-ins play on deals at most rounds + 3 x seats times (protocol.md 11.6)."""
        return self.rounds + min(len(self.faults), 3 * self.players)

    def describe(self) -> str:
        seats = ", ".join(f"{s.name} ({'person' if s.person else 'bot'})" for s in self.seats)
        if self.host_bots:
            seats += ", the host's bot1"
        faults = "; ".join(f"{f.kind} of {f.target} at {f.moment}" for f in self.faults)
        sharing = ", sharing seeds" if self.sharing else ""
        return f"{self.players} seats{sharing}: {seats}; {faults}"


def draw_game(seed: str, kinds: tuple[str, ...] = KINDS, episodes: int | None = None,
              players: int | None = None, rounds: int = len(CONTRACTS), draw: str = "mixed",
              shapes: tuple[str, ...] = SHAPES) -> GameSpec:
    """The game of ``seed``: its table (sharing seeds or not), its seats and its faults
    (``episodes`` of them, or 1 or 2), in the order they strike."""
    rng = random.Random(seed)
    table = random.Random(f"{seed} table")  # the mix's own: the rest is drawn as `several`
    sharing = draw == "mixed" and table.random() < SHARED and (players or 4) >= 4
    if sharing:
        players = players or table.choice(SHARED_SEATS)
    players = players or rng.choice((3, 4))
    host_bots = 1 if rng.random() < 0.25 else 0
    if sharing and players - host_bots < 4:  # 3 holders share nothing (docs/dealing.md)
        host_bots = 0
    count = players - host_bots
    people = [rng.random() < 0.5 for _ in range(count)]
    people[rng.randrange(count)] = True  # a person at every table, and a bot process too
    if count > 1 and all(people):
        people[rng.choice([i for i in range(count) if i != people.index(True)])] = False
    seats = [Seat(NAMES[i] if person else f"bot{i + 2}", person)  # the host's own is bot1
             for i, person in enumerate(people)]
    episodes = episodes or rng.choice((1, 1, 2))
    if draw == "single":
        chosen = _one_a_seat(rng, seats, kinds, episodes, rounds)
    else:
        chosen = Episodes(rng, seats, kinds, rounds).draw(episodes, shapes)
    chosen.sort(key=Fault.order)
    return GameSpec(seed, players, host_bots, seats, chosen, rounds, sharing)


def _pause(rng: random.Random, kind: str) -> float:
    return {"sigstop": rng.uniform(1, VOTE_AFTER * 0.4),
            "host-resume": rng.uniform(0.5, 3)}.get(kind, rng.uniform(0.5, 4))


def _one_a_seat(rng: random.Random, seats: list[Seat], kinds: tuple[str, ...], count: int,
                rounds: int) -> list[Fault]:
    """Sessions 15 and 16's draw: each fault strikes a seat (or the host) no other struck."""
    chosen: list[Fault] = []
    for _ in range(count):
        taken = {f.target for f in chosen}
        options = [k for k in kinds if (k != "host-resume" or "host" not in taken) and any(
            s.name not in taken and (s.person or k not in PERSON_ONLY) for s in seats)]
        if not options:
            break
        kind = rng.choice(options)
        target = "host" if kind == "host-resume" else rng.choice(
            [s.name for s in seats if s.name not in taken and (s.person or kind not in PERSON_ONLY)])
        pause = _pause(rng, kind)
        chosen.append(Fault(kind, target, rng.randint(1, rounds), rng.randint(0, 30), pause))
    return chosen


class Episodes:
    """The ``several`` draw: episodes of `SHAPES`, a seat's faults kept playable in their order
    (nothing after a fault whose player is not back, a take-back once a seat, one hand-over to
    a person a game: its taker is eve, the host killed at most twice)."""

    def __init__(self, rng: random.Random, seats: list[Seat], kinds: tuple[str, ...],
                 rounds: int) -> None:
        self.rng, self.seats, self.kinds, self.rounds = rng, seats, kinds, rounds
        self.chosen: list[Fault] = []

    def draw(self, count: int, shapes: tuple[str, ...]) -> list[Fault]:
        for _ in range(count):
            shape = self.rng.choice(shapes)
            getattr(self, shape.replace("-", "_"))()
        return self.chosen

    def allowed(self, kind: str, target: str) -> bool:
        if kind not in self.kinds:
            return False
        if target == "host":
            return kind == "host-resume" and sum(f.target == "host" for f in self.chosen) < 2
        seat = next(s for s in self.seats if s.name == target)
        mine = [f.kind for f in self.chosen if f.target == target]
        return (kind != "host-resume" and (seat.person or kind not in PERSON_ONLY)
                and not FINAL.intersection(mine)
                and not (kind == "take-back" and kind in mine)
                and not (kind == "hand-over-person"
                         and any(f.kind == kind for f in self.chosen)))

    def strike(self, kinds, targets, deal: int, discards: int, audit: bool = False) -> bool:
        """One fault of a kind of ``kinds`` on a target of ``targets`` allowed it, at that
        moment (a fault whose player is not back only after the seat's others); False if none
        is."""
        when = (deal, int(audit), discards)
        pairs = [(k, t) for k in kinds for t in targets if self.allowed(k, t) and (
            k not in FINAL or all(f.order() <= when for f in self.chosen if f.target == t))]
        if not pairs:
            return False
        kind, target = self.rng.choice(pairs)
        self.chosen.append(Fault(kind, target, deal, discards, _pause(self.rng, kind), audit))
        return True

    def moment(self) -> tuple[int, int]:
        return self.rng.randint(1, self.rounds), self.rng.randint(0, 30)

    def everyone(self) -> list[str]:
        return [s.name for s in self.seats] + ["host"]

    def scattered(self) -> None:
        self.strike(KINDS, self.everyone(), *self.moment())

    def again_and_again(self) -> None:
        """One seat leaves and comes back three times; its moments apart or not (a fault whose
        moment has passed strikes as soon as the one before it is done)."""
        seat = self.rng.choice(self.seats).name
        for deal, discards in sorted(self.moment() for _ in range(3)):
            self.strike(RETURNS, [seat], deal, discards)

    def two_at_once(self) -> None:
        deal, discards = self.moment()
        first, second = self.rng.sample([s.name for s in self.seats], 2)
        self.strike(LOST, [first], deal, discards)
        self.strike(LOST, [second], deal, discards)

    def at_the_audit(self) -> None:
        self.strike(AT_AUDIT, self.everyone(), self.rng.randint(1, self.rounds), 0, audit=True)
