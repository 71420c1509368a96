"""A seat lost at any point of a round, sharing on (docs/dealing.md, R1 and R2), in process over
our real classes: the round must finish.  Session 17 found three points where a round with a
seat SIGKILLed in it stalled (at a move, at its pass, at its own key of a card turned up), each
by the luck of a kill's timing; this sweep makes such a gap impossible to miss.

4 seats, ``t = 3``, two rounds.  An honest game is played once, one message at a time, and each
message of it is a point: the seat that sent it goes dark just before it (it sends nothing
more).  The other parties then do what the real net layer does, with the same pure parts: the
host's one timer (`Sequencer._rebuild_due`, `_silence_due`: claim, seeds, shares, vote and
silent timeouts), the reference seats' votes (`Voting._vote_due`, `vote_target`), and the host's
stand-in proposed once the seat is vacant; the stand-in takes the seat and plays on.  For every
point: the table never stalls (whenever no live party has anything to send, the table owes
something only from the dark seat, and the host's timer or a vote moves it on), the round is not
void (the three other seats are the lost seat's holders and vote), the stand-in holds exactly
the lost hand, every party's audit is clean, the lost seat pays once and nobody else does, and
no card opened to the stand-in or the dark seat that another seat holds.

The points are every KIND of point of the round (each commit, each pass of the shuffle, each
seat's own key of the card turned up, key shares, a holder's keys of its card shown, each kind
of move, the seeds of the audit, and the second round's deal and hands shown at the game's
end), for the dealer and a seat that is not, and a fixed-seed sample of other indices.
``SWEEP_EVERY=1`` sweeps every index of the two rounds as well (939 points, an hour)."""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
import random

import pytest

from shanghai_net.cards import deck
from shanghai_net.deal import seeded
from shanghai_net.engine import Game, Phase, RoundVoided, SeatLost
from shanghai_net.rules import preset

from dropout_helpers import NetClock, kind_of, step_one
from test_table_dropout_silent import parties, shared
from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_roster import newcomer

VOID_AFTER = (30.0, 180.0)
"""A bot's ``void_after``, drawn for each point: shorter than the table's ``audit_timeout`` (60 s
here), its seats vote before the host times a seat out; the reference bots' (180 s), after."""

SEED = 8
"""The table's: its game has two rounds, the second with a reshuffle of the discards."""


@dataclasses.dataclass(frozen=True)
class Point:
    """Message ``k`` of the honest game (0: the first of the stream): its author goes dark
    just before it.  ``kind``: what it is (a deal step with what the table owed, or a move)."""
    k: int
    seat: int
    kind: str
    round: int
    dealer: int


def table():
    """The sweep's table, fresh: 4 seats, ``t = 3``, sent one message at a time."""
    t = shared(4, 3, seed=SEED)
    t.last_sender = -1
    return t


def kind_owed(t, msg) -> str:
    """``msg``'s kind, a deal step told apart by what its author owed: a commit or a pass of
    which shuffle (and phase), a key of a card turned up (``own``), every key of its card the
    table asked it to show (``all``) or shown with a move of its own (``with a move``), key
    shares of the hands dealt or of a draw."""
    kind = kind_of(msg)
    if not kind.startswith("deal "):
        return kind
    step = msg.body.step
    owed = [s for s in t.host.owed_steps() if s.seat == msg.author and s.step == step]
    if step == "reveal":
        return f"{kind} {owed[0].keys}" if owed else f"{kind} with a move"
    if step == "shares":
        return f"{kind} of " + ("the hands" if any(len(s.positions or ()) > 2 for s in owed)
                                else "a draw")
    if step == "pass":
        return f"{kind} {owed[0].generation}.{owed[0].phase}"
    if step == "commit":
        return f"{kind} {owed[0].generation}"
    return kind


@functools.cache
def reference() -> tuple[Point, ...]:
    """The honest game's points, from round 1's first commit to its end (the last round's
    audit): each seat's message, with what it was and where."""
    t, points = table(), []
    plain = t.deliver

    def deliver(msg):
        if t.host.round >= 1:
            points.append(Point(len(t.stream), msg.author, kind_owed(t, msg), t.host.round,
                                t.host.public.dealer_seat))
        return plain(msg)

    t.deliver = deliver
    while not t.host.finished:
        assert step_one(t), "the honest game stalled"
    dealers = {}  # each round's, as its deal begins (the next one's is known at its end)
    for point in points:
        dealers.setdefault(point.round, point.dealer)
    return tuple(dataclasses.replace(point, dealer=dealers[point.round]) for point in points)


class Honest:
    """The honest game, played forward once for all the points (a later point goes on from the
    last one, an earlier one starts again: the tests come in the stream's order, nearly)."""
    table = None


def honest_until(k: int):
    """A copy of the honest game at its first ``k`` messages, each seat's randomness from here
    drawn afresh from ``k`` (a copy would share the generator with the game it came from)."""
    if Honest.table is None or len(Honest.table.stream) > k:
        Honest.table = table()
    while len(Honest.table.stream) < k:
        assert step_one(Honest.table), f"the honest game stalled before message {k}"
    t = copy.deepcopy(Honest.table)
    for seat in t.seats:
        seat._random = seat.participant._random = seeded(b"sweep %d %d" % (k, seat.seat))
    return t


@dataclasses.dataclass
class Loss:
    """The game played with ``point``'s seat dark from it: the table, the seat's old table,
    the hand it held when its stand-in took the seat (its participant's), and what the
    stand-in opened of it when it first could move."""
    t: object
    old: object
    lost_hand: dict | None = None
    handed: dict | None = None
    hand: dict | None = None
    broke: Exception | None = None
    shown: dict | None = None
    """The lost seat's hidden cards (as its old player opened them) that the round's end asked
    shown with the seat vacant: the others show it with their own keys (docs/dealing.md, "The round's
    end"), and no stand-in need hold it."""

    def dark(self, receive):
        """The old player's table goes on taking the stream (to show what it learns), but it
        is dead to the table: what it would raise is kept in ``broke`` and it takes no more
        (a seat voted gone while it was alive raised so: the findings)."""
        def taking(msg, own=False):
            if self.broke is None:
                try:
                    return receive(msg, own)
                except Exception as error:  # noqa: BLE001 - its own, not the table's
                    self.broke = error
            return []
        return taking

    def hold(self, point: Point) -> None:
        """Once the stand-in may move (or, seated while the round's hands are shown, has opened
        every card of the seat's hand: it moves no more this round): what it opened of the
        seat's hand (the host's public hand), and no other seat knows a hidden card of it
        (nothing before)."""
        t, seat = self.t, point.seat
        stand_in, tokens = t.seats[seat], list(t.host.public.hands[seat])
        if stand_in.settled:
            game = stand_in.game
            self.handed = dict(stand_in.participant.hand())
            self.hand = {token: game.faces.get(token) for token in game.hands[seat]}
            assert list(game.hands[seat]) == tokens, point
        elif t.host.public.phase is Phase.SCORING and stand_in.round == t.host.round and \
                None not in (shown := {token: opened(stand_in, token) for token in tokens
                                       if token[0] >= 0}).values():
            self.handed, self.hand = shown, shown  # (its replica has scored the round)
        else:
            return
        hidden = {token for token in self.handed if token[0] >= 0}
        for other in set(range(len(t.seats))) - {seat}:
            assert not hidden & t.seats[other].game.faces.keys(), (point, other)


def opened(table, token):
    """The card at ``token`` as ``table``'s deal has it, opened to its seat or shown to all
    (None: neither)."""
    generation, position = token
    return table.participant.generation(generation).mine.get(position) or \
        table.participant.public_card(generation, position)


def lose_at(point: Point, seed: int = 0) -> Loss:
    """Play the honest game to ``point``, then on with its seat dark, the net layer's part
    played as the reference host and seats play it (the module), until the round it was lost
    in (or, dark at its seeds, the next one, which loses it at its commit) is audited with its
    stand-in seated, or the game is over.  When no live party has anything to send, the table
    must owe something of the dark seat alone; the host's timer and the seats' votes due then
    are taken in an order drawn from ``seed``, and the stand-in is proposed at once, or once
    the table waits for it."""
    t, rng = honest_until(point.k), random.Random(seed)
    lost = point.seat
    loss = Loss(t, t.seats[lost])
    loss.old.receive = loss.dark(loss.old.receive)
    t.gone.add(lost)
    clock = NetClock(t, void_after=rng.choice(VOID_AFTER))
    proposed, at_once = False, rng.random() < 0.5
    for _ in range(20000):
        seated = t.seats[lost] is not loss.old
        if seated and lost in t.gone:
            t.gone.discard(lost)
            loss.lost_hand = dict(loss.old.participant.hand())
        if seated and loss.handed is None:
            loss.hold(point)
        if loss.shown is None and t.host._shown_without_holder and not seated:
            loss.shown = {token: opened(loss.old, token) for token in
                          t.host._shown_without_holder}
        if t.host.finished or (seated or loss.shown is not None) and \
                t.host.audited >= max(point.round, t.host.lost[0][0]):
            return loss
        if lost in t.host.vacant and not proposed and at_once:
            proposed = propose(t, lost)
            continue
        if step_one(t):
            continue
        live = set(range(len(t.seats))) - t.gone
        owing = {seat: t.host.owed().get(seat, "its move") for seat in t.host.stalled_by()}
        window = t.host.open_window()
        assert not owing.keys() & live and not (window and set(window[1]) & live), \
            f"{point}: stalled: live seats owe {owing} (claim window {window})"
        if lost in t.host.vacant and not proposed:
            proposed = propose(t, lost)
            continue
        due = clock.next(live)
        assert due, f"{point}: stalled: the table owes {owing} of the dark seat, and neither " \
                    f"the host's timer nor any seat's vote is due (silenced {t.host.silenced}, " \
                    f"votes {t.host.gone_votes}, lost {t.host.lost})"
        clock.act(*rng.choice(due))
    raise AssertionError(f"{point}: the game did not end")


def propose(t, seat) -> bool:
    """The host's stand-in for vacant ``seat``: it follows the stream and is proposed."""
    who = newcomer(seat)
    t.follow(seat, who, yields=True)
    t.propose(seat, who)
    return True


def assert_finished_well(point: Point, loss: Loss) -> None:
    """The round stood at every party, its audit clean; the dark seat was lost once and paid
    once (unless it went dark at the last round's seeds: rebuilt, R2, and charged nothing),
    its stand-in opened exactly the hand the seat holds (every card the old player had opened
    among them, and those dealt to the seat since), or, the seat vacant when the round's end
    asked its hand shown, the others showed it and it was scored (the stand-in, if any, seated
    after), and neither learned another's card."""
    t, lost = loss.t, point.seat
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (point, party.fault,
                                                               party.verdict)
        assert party.left == [] and not any(isinstance(e, RoundVoided) for e in party.public.log)
    charged = [(e.seat, e.penalty) for e in t.host.public.log if isinstance(e, SeatLost)]
    if t.host.finished and not t.host.lost:  # dark at the last round's seeds
        assert point.kind == "deal seeds" and charged == [], (point, charged)
    else:
        assert [seat for _, seat in t.host.lost] == [lost] and \
            charged == [(lost, t.host.rules.leave_penalty)], (point, t.host.lost, charged)
    if loss.shown is not None:  # vacant at the round's end: the others showed its hand
        scored = t.host.public.results[t.host.lost[0][0] - 1].hands[lost]
        assert loss.shown and None not in loss.shown.values() and \
            set(loss.shown.values()) <= set(scored), (point, loss.shown)
    elif charged:
        assert t.seats[lost] is not loss.old and loss.handed is not None, point
        assert None not in loss.hand.values() and loss.handed.items() <= loss.hand.items(), \
            (point, "the stand-in opened", loss.handed, "of its hand", loss.hand)
        assert loss.lost_hand.items() <= loss.handed.items(), (point, loss.lost_hand)
    for seat in t.seats:
        assert all(verdict.clean for verdict in seat.verdicts.values()), (point, seat.seat)
    assert_no_hidden_card_opened_to(t, lost)
    for seat in range(len(t.seats)):  # nor the dark seat's old player
        if seat != lost:
            known = set(loss.old.participant.hand()) | \
                {token for token in loss.old.game.faces if token[0] >= 0}
            assert not known & set(t.seats[seat].participant.hand()), (point, seat)


def case(round_no, kind, who):
    """The sweep's point of ``kind`` in round ``round_no`` of ``who`` (`point_of`)."""
    short = kind[5:] if kind.startswith("deal ") else kind
    return pytest.param(round_no, kind, who,
                        id=f"r{round_no}-{short}-{who}".replace(" ", "_"))


MOVES = ("PassClaim", "DrawStock", "Discard", "TakeDiscard", "MayI", "GoDown", "LayOff")

KINDS = [
    *[case(1, "deal commit 0", who) for who in ("dealer", "other")],
    *[case(1, f"deal pass 0.{phase}", seat) for phase in (1, 2) for seat in range(4)],
    *[case(1, "deal reveal own", seat) for seat in range(4)],
    *[case(1, name, who) for name in ("deal shares of the hands", "deal shares of a draw",
                                      "deal reveal with a move", *MOVES)
      for who in ("dealer", "other")],
    case(1, "deal reveal all", "other"),
    *[case(1, "deal seeds", who) for who in ("dealer", "other")],
    case(2, "deal commit 0", "dealer"), case(2, "deal pass 0.1", "other"),
    case(2, "deal pass 0.2", "dealer"), case(2, "deal pass 0.2", 3),
    case(2, "deal reveal own", "other"),
    case(2, "deal shares of the hands", "dealer"),
    case(2, "deal commit 1", "other"), case(2, "deal pass 1.2", "dealer"),
    case(2, "deal pass 1.2", 1), case(2, "deal reveal all", "other"),
    case(2, "deal seeds", "other"),
]
"""Every kind of point of a round, each for the dealer and a seat that is not (each pass and
each seat's own key of the card turned up, for every seat), as (round, kind, who)."""

SAMPLES = 4
"""Further points of round 1 drawn with a fixed seed from all of them."""


def point_of(round_no, kind, who) -> Point:
    """The first point of ``kind`` in round ``round_no`` of ``who``'s (a seat, the round's
    dealer, or another seat; if the dealer made none, another's)."""
    points = [p for p in reference() if p.round == round_no and p.kind == kind]
    assert points, f"the honest game has no {kind} in round {round_no}"
    if isinstance(who, int):
        return next(p for p in points if p.seat == who)
    dealer = [p for p in points if p.seat == p.dealer]
    return (dealer if who == "dealer" and dealer else
            [p for p in points if p.seat != p.dealer] or points)[0]


def sampled(n: int) -> Point:
    """The ``n``-th of the sample (in the stream's order)."""
    points = [p for p in reference() if p.round == 1]
    return sorted(random.Random(38).sample(points, SAMPLES), key=lambda p: p.k)[n]


def check(point: Point) -> None:
    assert_finished_well(point, lose_at(point, seed=point.k))


@pytest.mark.parametrize("n", range(SAMPLES))
def test_a_seat_lost_at_a_point_drawn_at_random_is_rebuilt_and_the_round_finishes(n):
    check(sampled(n))


@pytest.mark.parametrize("round_no, name, who", KINDS)
def test_a_seat_lost_at_a_point_of_this_kind_is_rebuilt_and_the_round_finishes(round_no, name,
                                                                                who):
    check(point_of(round_no, name, who))


@pytest.mark.skipif(not os.environ.get("SWEEP_EVERY"), reason="SWEEP_EVERY=1: every point")
@pytest.mark.parametrize("point", reference() if os.environ.get("SWEEP_EVERY") else [],
                         ids=str)
def test_a_seat_lost_at_every_point_is_rebuilt_and_the_round_finishes(point):
    check(point)


def test_a_game_copied_while_it_waits_for_a_card_answers_its_own_request():
    """A replacement seated mid-round takes a copy of the public game (`PeerTable.taking_over`)
    while it may wait for a card turned up, or for the hands shown at the round's end (a seat
    lost there: ``r1-reveal_all-other``): the copy's answer must move the copy on, not the
    original, which a callback of the original's (a closure) did: the stand-in's game never
    scored the round, and the public one raised KeyError on a face it does not know."""
    game = Game(preset("davis"), 4, None, viewer=-1)
    game.fulfil_pick(0)
    game.fulfil_shuffle(0)
    (turned_up,) = game.awaiting
    copied = copy.deepcopy(game)
    card = deck(2, 4)[0]
    copied.learn(turned_up.token, card)
    assert copied.discard == [card] and copied.window is not None and not copied.awaiting
    assert game.discard == [] and game.window is None and game.awaiting == [turned_up]
