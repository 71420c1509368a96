"""The table always finishes (protocol.md 11.5): for 3 to 5 seats, whichever seats are lost
(links down, never a message again), whichever of them hold the table up, some of them lost
only after they voted, some whose players quit (the lobby says so: the bots vote against them
at once, whether they hold the table up or not: soak 10-7), and in whatever order the host's
timeouts, the live seats' votes and the later losses come, the live seats reach a decision
with only the messages they and the host can send: every lost seat leaves, one a voided deal, and
no live seat does.  The votes are counted by the real `Disputes` (its bars, the votes counted
together, the ``silent`` timeouts and their check), the host's timeouts are the real
`Sequencer._silence_due`'s, each bot votes as the reference seats do (`Voting.vote_target`),
and each person as the console offers (`Voting.holding_up`), naming any seat it offers.

The stall is laid out over those real parts rather than played: the lost seats that owe the
table something (a deal step, a move) hold the round up; once a deal is void, the next one
waits for the stand-ins' approval from every seat not vacant (the live seats approve at once).
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from shanghai_net.net.sequencer import Sequencer
from shanghai_net.table.disputes import Disputes
from shanghai_net.wire import messages as wm

from test_table_split_votes import ReferenceVoter


class Stall(Disputes):
    """The real `Disputes` over a stall: ``lost`` seats (links down so far), of which
    ``owing`` hold the running round up; after a void, the next deal waits for the approval,
    then the commitment, of every lost seat not vacant."""

    def __init__(self, players: int, lost: set[int], owing: set[int], quit: set[int]) -> None:
        self.players, self.lost, self.owing, self.lobby_left = players, lost, owing, quit
        self.vacant, self.silenced, self.idle_silenced = {}, {}, set()
        self.gone_votes, self.void_votes, self.host_timeouts = {}, {}, {}
        self.waiting_audit = self.finished = False
        self.public = SimpleNamespace(round_no=1)
        self.left: list[tuple[int, int]] = []
        self.unheard: set[int] = set()
        self.generations, self.rebuilds, self.outstanding = set(), {}, {}
        self._shuffles, self._publics, self.audited, self.round = [], [], 0, 1
        self.seq = 0
        self.seat, self.share_threshold = None, None  # as a voter reads it: sharing off

    def quitters(self) -> set[int]:
        return set()  # no signed leave: the lost seats' links went down

    def _reset_counts(self) -> None:
        pass

    def stalled_by(self) -> set[int]:
        return (self.lost if self.left else self.owing) - self.vacant.keys()

    waiting_for = stalled_by

    def moving(self) -> set[int]:
        return set()  # a lost seat to move is among ``owing``: its link is down

    def _leave(self, seat: int, round_no: int, scored: bool) -> None:
        self.left.append((round_no, seat))
        self.public.round_no += 1  # the contract is dealt again under the next number


def host_due(t: Stall, live: set[int]) -> set[int]:
    """The seats the reference host may time out as silent now (live seats are connected)."""
    host = SimpleNamespace(public=t, clients=[SimpleNamespace(seat=s, connected=True)
                                              for s in live])
    return Sequencer._silence_due(host)


def may_vote(t: Stall, voter: int) -> bool:
    return voter not in t.void_votes.get(t.void_target, ())


def offered(t: Stall, voter: int, people: set[int]) -> list[int]:
    """The seats ``voter`` may name now: a bot its reference target among the lost seats not
    vacant, a person any seat the console offers."""
    away = t.lost - t.vacant.keys()
    if not away:
        return []
    seat = ReferenceVoter(t, away)
    seat.left = t.lobby_left & away  # their players quit: the lobby says so (sharing off)
    return sorted(seat.holding_up(1e9)) if voter in people else [seat.vote_target(away)]


def subsets(seats: set[int]):
    return st.sets(st.sampled_from(sorted(seats))) if seats else st.just(set())


def decide(data, lying: bool) -> None:
    """Lay out a stall from ``data`` and play it out to its end, checking it never stalls;
    ``lying``: the host also times out live seats as silent where every party's check lets
    it (it says their links are down; they protest or not), and a minority of the live seats
    collude with it, voting against any seat: no live seat leaves all the same, and no seat
    twice (whether the table finishes is then up to them: a host can stall any table, and a
    seat that withholds its vote where every vote is needed holds the table up)."""
    players = data.draw(st.integers(3, 5), label="seats")
    seats = range(players)
    lost = data.draw(st.sets(st.sampled_from(seats), min_size=1, max_size=players - 1),
                     label="lost")
    owing = data.draw(st.sets(st.sampled_from(sorted(lost)), min_size=1), label="owing")
    late = data.draw(subsets(lost - owing), label="lost later")
    quit = data.draw(subsets(lost), label="quit")
    people = data.draw(subsets(set(seats) - lost), label="people")
    colluders = data.draw(st.sets(st.sampled_from(sorted(set(seats) - lost - people)),
                                  max_size=(players - 1) // 2), label="colluders") \
        if lying and set(seats) - lost - people else set()
    t = Stall(players, lost - late, owing, quit)
    for step in range(12 * players * len(lost)):
        if not lost - t.vacant.keys():
            break  # every lost seat left: the stand-ins take the seats, the deal goes on
        live = set(seats) - t.lost
        actions = [("vote", v) for v in sorted(live) if may_vote(t, v) and
                   (v in colluders or offered(t, v, people))]
        actions += [("lose", s) for s in sorted(late & live)]
        due = host_due(t, live)
        if due:
            actions.append(("timeout", min(due)))
        if lying:
            actions += [("timeout", s) for s in sorted(live - colluders)
                        if t._silent_refused(s) is None]
            actions += [("protest", s) for s in sorted(live & t.idle_silenced) if s in t.silenced]
        if lying and not actions:
            break
        assert actions, (f"stalled: {players} seats, lost {lost}, owing {owing}, vacant "
                         f"{t.vacant}, silent {t.silenced}, votes {t.gone_votes}")
        kind, who = data.draw(st.sampled_from(actions), label="next")
        t.seq += 1
        if kind == "timeout":
            t._silent_timeout(t.seq, who)
        elif kind == "lose":
            t.lost.add(who)  # its link drops; a vote it cast stands
        else:
            t.silenced.pop(who, None)  # its own message ends its silence (`StreamTable._heard`)
            if kind == "vote":
                named = sorted(set(seats) - t.vacant.keys()) if who in colluders else \
                    offered(t, who, people)
                seat = data.draw(st.sampled_from(named), label="named")
                why, vote = t._any_time(who, wm.VoidRound(round=t.void_target, seat=seat))
                if why is None:
                    vote()
        assert not t.vacant.keys() - lost, "no live seat left"
    left = [s for _, s in t.left]
    assert len(left) == len(set(left)) <= players, "one voided deal a seat, at most"
    if not lying:  # the bound on deals: one void a lost seat (within rounds + seats)
        assert t.lost == lost and t.vacant.keys() == lost == set(left), "every lost seat left"


@settings(max_examples=400)
@given(st.data())
def test_any_seats_lost_at_any_point_leave_one_a_deal_and_the_live_seats_decide(data):
    decide(data, lying=False)


@settings(max_examples=400)
@given(st.data())
def test_a_host_that_times_out_live_seats_with_a_minority_removes_no_live_seat(data):
    """A host that says live seats' links are down (the table cannot tell) and a minority of
    seats voting with it: every lost seat still leaves once, and no live seat does."""
    decide(data, lying=True)
