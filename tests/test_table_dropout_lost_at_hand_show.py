"""R1 at the round's end (docs/dealing.md, "The round's end"), in process over our real classes:
the round shows every hand, and a seat lost this round is vacant then (lost before the round
ended, or while the hands were shown) with no one to seat in it (a host without a stand-in,
``HostConfig.stand_in = None``, and no person arriving).  Its hand is shown without it: every
other seat reveals its own key of each hidden card of the lost hand, as of a card turned up, and
every party takes the lost seat's key from its rebuilt seed; the hand is scored as the seat's,
nobody is named, and the round stands, audited clean at every party and by `verify`.

Before (session 19): nobody owed the lost hand's keys (they were its holder's to show, and a
vacant seat owes nothing), neither the host's timer nor any seat's vote was due, and the table
waited at the hand show for good: "stalled for good at the scoring of round 1: owed {}, seat 2
vacant True, reveals asked of [(0, 4), (0, 16), (0, 67), (0, 71)] (held by {2})".  The net
layer's part is played by its own pure parts on a simulated clock (`dropout_helpers.NetClock`),
as the sweep plays it, with no stand-in proposed.  A stand-in seated before the round's end
still shows the hand itself; a seat that withholds its key is voted gone, one that shows a
wrong key is named by the audit.
"""

from __future__ import annotations

import dataclasses
import functools

import pytest

from shanghai_net.deal.messages import KeyReveal
from shanghai_net.engine import Phase, RoundVoided, SeatLost
from shanghai_net.table.bodies import parse_deal
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Deal

from dropout_helpers import NetClock, changing, dies_at, kind_of, step_one
from test_net_complaints import assert_no_hidden_card_opened_to
from test_table_dropout_silent import parties, seat_playing, shared
from test_table_roster import vote_gone

VOID_AFTER = 180.0
"""The reference bots' ``void_after``."""


@functools.cache
def going_out(round_no: int) -> tuple[int, int]:
    """The honest game's round ``round_no``: (a seat that owes the deal its key share of the
    last card drawn by the seat that then goes out, and moves no more in the round; the index
    in the stream of that key share)."""
    t, ended = shared(4, 3), []
    plain = t.deliver

    def deliver(msg):
        msg = plain(msg)
        if not ended and t.host.public.phase is Phase.SCORING and t.host.round == round_no:
            ended.append(len(t.stream))
        return msg

    t.deliver = deliver
    while not ended:
        assert t.step()
    end = ended[0]
    winner = next(msg.author for msg in reversed(t.stream[:end])
                  if not kind_of(msg).startswith("deal "))
    draw = max(k for k, msg in enumerate(t.stream[:end]) if msg.author == winner and
               kind_of(msg) == "DrawStock")
    shares = [k for k in range(draw, end) if t.stream[k].author != winner and
              kind_of(t.stream[k]) == "deal shares"]
    assert shares, "the one going out drew from the stock at its last turn"
    return t.stream[shares[-1]].author, shares[-1]


def lost_before_the_end(round_no: int, **kinds):
    """4 seats, t = 3: the seat of `going_out` dies owing its key share of the last card drawn
    in round ``round_no``; the three others vote it gone (R1), and it is rebuilt as they play
    on.  (the table, the lost seat, the index of the first message after it died)."""
    lost, k = going_out(round_no)
    t = shared(4, 3, **kinds)
    assert dies_at(t, lambda msg: msg.author == lost and len(t.stream) == k) == lost
    died = len(t.stream)
    vote_gone(t, lost, sorted({0, 1, 2, 3} - {lost}))
    return t, lost, died


def lost_at_its_reveal(round_no: int):
    """4 seats, t = 3: round ``round_no`` ends and the first seat to show its hand dies at it
    (the host never sees its reveal); the others show theirs, and the table waits on it alone;
    it is voted gone (R1).  (the table, the lost seat, the index of its first message lost)."""
    t = shared(4, 3)
    lost = dies_at(t, lambda msg: isinstance(msg.body, Deal) and msg.body.step == "reveal" and
                   t.host.round == round_no and t.host.public.phase is Phase.SCORING)
    died = len(t.stream)
    while t.step(play=False):  # the others show their hands: the table waits on the lost seat
        pass
    assert set(t.host.owed()) == {lost} and t.host.public.phase is Phase.SCORING
    assert "every key of its card" in t.host.owed()[lost]
    vote_gone(t, lost, sorted({0, 1, 2, 3} - {lost}))
    return t, lost, died


def play_without_stand_in(t, lost: int, until) -> None:
    """Play on with ``lost`` dark and no one proposed for its seat, the host's timer and the
    seats' votes due as the reference net layer has them, until ``until()``: a table that
    waits with nothing due from anyone fails, saying what it waits on."""
    t.last_sender = -1
    clock = NetClock(t, void_after=VOID_AFTER)
    for _ in range(20000):
        if until():
            return
        if step_one(t):
            continue
        live = set(range(len(t.seats))) - t.gone
        due = clock.next(live)
        assert due, (f"stalled for good at the {t.host.public.phase.name.lower()} of round "
                     f"{t.host.round}: owed {t.host.owed()}, seat {lost} vacant "
                     f"{lost in t.host.vacant}, reveals asked of {sorted(t.host._publics)} "
                     f"(held by { {t.host.holder_of(tok) for tok in t.host._publics} }); "
                     "no host timer and no vote is due")
        clock.act(*due[0])
    raise AssertionError("the game did not get there")


def hand_of(t, seat) -> tuple[dict, set]:
    """The cards of ``seat``'s hand as its player knows them (hidden, or shown to all), and
    the tokens of those still hidden from the table."""
    participant, hand = t.seats[seat].participant, t.host.public.hands[seat]
    return ({token: t.host.public.faces[token] if token[0] < 0 else
             participant.generation(token[0]).mine.get(token[1]) or
             participant.public_card(*token) for token in hand},
            {token for token in hand if token[0] >= 0 and token not in t.host._revealed})


def reveals_of(t, tokens, since: int) -> dict:
    """Who showed each of ``tokens`` after message ``since``, and with whose keys: token ->
    [(author, the seats whose keys it sent)]."""
    shown: dict = {}
    for msg in t.stream[since:]:
        if kind_of(msg) == "deal reveal":
            for reveal in parse_deal(msg.body, t.host.game_id, msg.author).messages:
                token = (reveal.context.generation, reveal.position)
                if token in tokens:
                    shown.setdefault(token, []).append(
                        (msg.author, tuple(seat for seat, _ in reveal.keys)))
    return shown


def assert_round_stood(t, lost, hand, round_no) -> None:
    """The round is scored with exactly the lost hand at every party and stands there,
    audited clean, the seat charged once, nobody named, and no card opened to anyone that
    another seat holds."""
    result = t.host.public.results[round_no - 1]
    assert result.hands[lost] == tuple(hand.values()), "the lost hand was scored"
    for party in parties(t):
        assert party.fault is None and party.verdict is None, (party.fault, party.verdict)
        assert party.lost == [(round_no, lost)] and party.left == []
        assert not any(isinstance(e, RoundVoided) for e in party.public.log)
        assert [e.seat for e in party.public.log if isinstance(e, SeatLost)] == [lost]
        assert party.public.results[round_no - 1] == result
    for seat in set(range(4)) - {lost}:
        assert t.seats[seat].verdicts[round_no].clean
        assert t.seats[seat].game.results[round_no - 1] == result
    for seat in range(4):
        assert_no_hidden_card_opened_to(t, seat)


def assert_shown_by_the_others(t, lost, hidden, since) -> None:
    """Every hidden card of the lost hand was shown after message ``since`` by each other seat,
    once, with its own key only (the lost seat's came from its seed), by no one else."""
    others = [(seat, (seat,)) for seat in sorted({0, 1, 2, 3} - {lost})]
    assert {token: sorted(shown) for token, shown in reveals_of(t, hidden, since).items()} == \
        {token: others for token in hidden}, "each hidden card once by each other seat"


def assert_the_game_ended_well(t, round_no) -> None:
    """Round 1: the next deal waits for someone to play the vacant seat (a table without
    stand-ins waits for a person, protocol.md 11.8); the last round: the game is over, and
    `verify` accepts the record."""
    if round_no == 1:
        assert t.host.round == 1 and t.host.public.round_no == 2 and t.host.owed() == {}, \
            "the next deal waits for someone to play the vacant seat"
        return
    assert t.host.finished
    report = verify([t.host.start_game, *t.stream])
    assert report.ok, report.summary()


ROUNDS = pytest.mark.parametrize("round_no", [1, 2], ids=["round 1", "the last round"])


@ROUNDS
def test_a_round_that_ends_while_a_lost_seat_is_vacant_shows_its_hand_without_a_stand_in(
        round_no):
    """The seat is lost and rebuilt before the round ends; its hand is shown at the round's
    end from the others' keys and its rebuilt seed, with no stand-in."""
    t, lost, died = lost_before_the_end(round_no)
    hand, hidden = hand_of(t, lost)
    assert hidden, "the lost seat holds hidden cards at the round's end"
    play_without_stand_in(t, lost, lambda: t.host.audited >= round_no)
    assert lost in t.host.vacant and t.host._shown_without_holder == set(hidden)
    assert_shown_by_the_others(t, lost, hidden, died)
    assert_round_stood(t, lost, hand, round_no)
    assert_the_game_ended_well(t, round_no)


@ROUNDS
def test_a_seat_lost_before_it_shows_its_hand_at_the_round_s_end_is_shown_by_the_others(
        round_no):
    """The seat dies at its own reveal of its hand; from the vote that loses it the others owe
    their own keys of its cards (before: the table waited for its stand-in).  The lost player's
    own table, alive (a link down, not a crash), takes the stream quietly and sends nothing
    (before, it sent its seeds at the audit, refused): its replica, which knows every card, has
    scored the round already; and every party's replay of the round at its audit, which scored
    it at its last move, replays no loss after that (before session 19, at the last round, it
    raised IllegalMoveError, the host's too)."""
    t, lost, died = lost_at_its_reveal(round_no)
    hand, hidden = hand_of(t, lost)
    assert {step.seat for step in t.host.owed_steps()} == {0, 1, 2, 3} - {lost} and \
        all(step.keys == "own" for step in t.host.owed_steps() if step.step == "reveal")
    t.gone.discard(lost)  # its player's table is alive: it must send nothing of its seat
    play_without_stand_in(t, lost, lambda: t.host.audited >= round_no)
    assert_shown_by_the_others(t, lost, hidden, died)
    assert_round_stood(t, lost, hand, round_no)
    assert_the_game_ended_well(t, round_no)


def test_a_stand_in_seated_before_the_round_s_end_shows_the_lost_hand_itself():
    """The seat is lost and rebuilt before the round ends, and the host's stand-in takes it
    while the round goes on: at the round's end the stand-in shows the hand, every key of each
    card, as any holder does, and nobody else shows it."""
    t, lost, died = lost_before_the_end(1)
    t.run_until(lambda: t.host.rebuilt_lost() == {lost}, play=False)
    hand, hidden = hand_of(t, lost)
    t.seat_newcomer(lost)
    seated = len(t.stream)
    t.run_until(lambda: t.host.audited >= 1)
    assert hidden and not t.host._shown_without_holder
    every = tuple(range(4))
    assert reveals_of(t, hidden, seated) == {token: [(lost, every)] for token in hidden}
    assert_round_stood(t, lost, hand, 1)


class Withholding(PeerTable):
    """A seat that never shows its own key of a lost seat's card at the hand show (it plays on
    otherwise, and votes)."""

    def _reveal_public(self, token):
        if token not in self._shown_without_holder:
            super()._reveal_public(token)


def wrong_key(self, reveal):
    """A seat's own key of a lost seat's card at the hand show, swapped for its key of another
    position."""
    g = self.generation(reveal.context.generation)
    if len(reveal.keys) != 1 or g.given.get(reveal.position) not in self._lost:
        return reveal
    wrong = g.keys.card_keys[(reveal.position + 1) % g.size]
    return dataclasses.replace(reveal, keys=((self.seat, wrong),))


WRONG_KEY = seat_playing(changing(KeyReveal, wrong_key))


def adversary(lost: int) -> int:
    """The seat after the lost one."""
    return (lost + 1) % 4


def test_a_seat_that_withholds_its_key_of_the_lost_hand_is_voted_gone_and_pays():
    """One of the others never shows its key of the lost hand: the table waits on it alone
    (the owed notice names it), the host times it out and the others vote it gone.  A second
    seat lost in the round (at 4 seats, t = 3, not rebuildable) voids the round as without
    sharing: it pays its leave, the lost seat's charge stands, nobody else pays, nobody is
    named a cheat, and no card of the lost hand opened to anyone."""
    lost, _ = going_out(1)
    withholder = adversary(lost)
    t, lost, died = lost_before_the_end(1, kinds={withholder: Withholding})
    hand, hidden = hand_of(t, lost)
    while t.host.public.phase is not Phase.SCORING or t.host.owed().keys() - {withholder}:
        assert t.step()
    owed = t.host.owed()
    assert set(owed) == {withholder} and f"seat {lost}'s card" in owed[withholder], owed
    play_without_stand_in(t, lost, lambda: t.host.left)
    for party in parties(t):
        assert party.fault is None and party.verdict is None, party.fault
        assert party.left == [(1, withholder)] and party.lost == [(1, lost)]
        charged = [e for e in party.public.log if isinstance(e, RoundVoided)]
        assert [(e.leaver, e.penalty > 0) for e in charged] == [(withholder, True)]
    penalty = t.host.rules.leave_penalty
    assert t.host.public.scores == [penalty if seat in (lost, withholder) else 0
                                    for seat in range(4)]
    for seat in set(range(4)) - {lost}:
        assert not set(hidden) & t.seats[seat].game.faces.keys()


def test_a_wrong_key_of_the_lost_hand_is_named_by_the_audit():
    """One of the others shows, for a card of the lost hand, a key that is not its own of that
    position: once every key is in the card opens to nothing, the round stops for its audit,
    and every party names that seat (its reveal's key is off its seed), the lost seat never."""
    lost, _ = going_out(1)
    liar = adversary(lost)
    t, lost, died = lost_before_the_end(1, kinds={liar: WRONG_KEY})
    t.run_until(lambda: t.host.finished)
    for party in parties(t):
        assert party.finished and party.fault is None, party.fault
        assert party.verdict is not None and party.verdict.culprit == liar, party.verdict
        assert f"seat {liar}: reveal of position" in party.verdict.reason
        assert party.voided == party.round == 1 and party.lost == [(1, lost)]
    penalty = t.host.rules.leave_penalty  # the round void after the loss: the loss still paid
    assert t.host.public.result.totals == tuple(penalty if seat == lost else 0 for seat in range(4))
    report = verify([t.host.start_game, *t.stream])
    assert not report.ok and f"seat {liar}" in report.summary()
