"""Who plays each seat (protocol.md 11.8), in process: a seat voted gone, the host's
``replace``, the seats' ``approve``, and the keys every party checks from the next deal on.
Each adversary is played with our own classes: a seat that signs a host body, a host that
seats a key of its own choosing, a host that relays the old key after a replacement."""

from __future__ import annotations

import dataclasses
import re

import pytest

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.table.fault import Fault
from shanghai_net.table.outbox import Outbox
from shanghai_net.table.public import PublicTable
from shanghai_net.table.seat import PeerTable
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import HOST_AUTHOR

from test_net_complaints import assert_no_hidden_card_opened_to
from test_net_table import Table


class Roster(Table):
    """`Table` that keeps the stream, so that a replacement can follow it from the start;
    ``gone``: seats whose messages are never sent (a player who left)."""

    def __init__(self, *args, **kwargs):
        self.stream = []
        self.gone: set[int] = set()
        self.followers: dict[int, tuple[PublicTable, Identity, bool]] = {}
        super().__init__(*args, **kwargs)

    def deliver(self, msg):
        msg = super().deliver(msg)
        self._after(msg)
        return msg

    def _after(self, msg):
        self.stream.append(msg)
        for seat, (follower, who, yields) in list(self.followers.items()):
            follower.receive(msg)
            if follower.holders[seat].sign_key == who.sign_public:  # our keys took the seat
                del self.followers[seat]
                table = PeerTable.taking_over(follower, seat, who.box_key,
                                              seeded(b"stand-in %d " % seat + who.sign_public))
                table.yields_seat = yields
                self.seats[seat], self.boxes[seat] = table, Outbox(table, who.sign_key)
                self.boxes[seat].push(table.start())

    def follow(self, seat, who, yields=False):
        """``who`` follows the game from its start, to take ``seat`` when the stream gives it
        its keys (after now: a first holder follows while another plays its seat); ``yields``:
        it is a bot, which hands its seat on (`PeerTable.yields_seat`)."""
        follower = PublicTable(self.host.start_game)
        for msg in self.stream:
            follower.receive(msg)
        self.followers[seat] = (follower, who, yields)

    def step(self, play=True):
        for seat in self.gone:
            self.boxes[seat].deal.clear()
            self.boxes[seat].move = None
        return super().step(play)

    def seat_newcomer(self, seat):
        """A newcomer (a bot: it yields the seat on) follows the game and takes ``seat``, lost
        mid-round (R1), at the approval the host's ``replace`` of it waits for, and plays it."""
        old, who = self.seats[seat], newcomer(seat)
        self.follow(seat, who, yields=True)
        self.propose(seat, who)
        self.gone.discard(seat)
        self.run_until(lambda: self.seats[seat] is not old, play=False)
        self.ids[seat] = who

    def host_says(self, body):
        """The host signs ``body`` as the next message; every seat takes it."""
        msg = self.host.chain.sign(self.host_id.sign_key, HOST_AUTHOR, body)
        self.host.take_host(msg)
        for table, box in zip(self.seats, self.boxes):
            box.push(table.receive(msg))
            box.sequenced(msg)
        self._after(msg)
        return msg

    def relay(self, msg):
        """A lying host: sequence ``msg`` unchecked and bring it to every seat; what each seat's
        table says (None: took it)."""
        msg = self.host.chain.place(msg)
        self.stream.append(msg)
        said = []
        for table in self.seats:
            try:
                table.receive(msg)
                said.append(None)
            except Fault as fault:
                said.append(fault)
        return said

    def propose(self, seat, who, role="bot", name="bot"):
        return self.host_says(wm.Replace(seat=seat, name=name, role=role,
                                         sign_key=who.sign_public, box_key=who.box_public))

    def sign(self, seat, key, body):
        """``body`` as seat ``seat``'s next message, signed with ``key`` (its own or not)."""
        return self.host.chain.sign(key, seat, body)


def newcomer(n=0):
    rnd = seeded(b"newcomer %d" % n)
    return Identity(rnd(32), rnd(32))


def to_next_deal(t):
    """Play on until the host's table has begun the next round's deal."""
    start = t.host.round
    t.run_until(lambda: t.host.round > start)


def test_a_replace_signed_by_a_seat_is_refused_and_a_host_relaying_it_names_that_seat():
    t = Roster(4, seed=3)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    body = wm.Replace(seat=1, name="me", role="player", sign_key=t.ids[0].sign_public,
                      box_key=t.ids[0].box_public)
    forged = t.sign(0, t.ids[0].sign_key, body)
    with pytest.raises(RemoteProtocolError, match="only the host signs a replace"):
        t.host.admit(forged)
    said = t.relay(forged)
    assert all(f is not None and f.culprit == 0 and "host's to sign" in f.reason for f in said)
    assert all(table.holders[1].sign_key == t.ids[1].sign_public for table in t.seats)


def test_a_host_cannot_seat_a_key_of_its_own_in_a_seat_still_played():
    """No seat approves a replacement of a seat still played: at the next deal its player keeps
    it, and a message of the host's key for it is refused by the host's own checks and, relayed
    anyway, names the host at every seat."""
    t = Roster(4, seed=4)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    colluder = newcomer(1)
    proposal = t.propose(2, colluder)
    assert t.host.proposals[proposal.seq].approvals == set()
    assert not any(isinstance(b, wm.Approve) for box in t.boxes for b in box.deal)
    to_next_deal(t)
    for table in [t.host, *t.seats]:
        assert table.holders[2].sign_key == t.ids[2].sign_public
        assert table.holders[2].before is None
    grab = t.sign(2, colluder.sign_key, wm.VoidRound(round=t.host.void_target, seat=0))
    with pytest.raises(RemoteProtocolError, match="does not verify"):
        t.host.admit(grab)
    said = t.relay(grab)
    assert all(f is not None and f.culprit == HOST_AUTHOR for f in said)


def test_every_other_seat_approving_does_not_unseat_a_present_player():
    t = Roster(4, seed=5)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    proposal = t.propose(3, newcomer(2))
    for seat in (0, 1, 2):  # three seats collude with the host
        t.deliver(t.sign(seat, t.ids[seat].sign_key, wm.Approve(seq=proposal.seq)))
    to_next_deal(t)
    assert all(table.holders[3].sign_key == t.ids[3].sign_public for table in [t.host, *t.seats])
    assert t.host.needed(t.host.proposals[proposal.seq]) == {3}


def test_an_approval_of_no_proposal_or_a_second_one_is_refused():
    t = Roster(4, seed=6)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    stray = t.sign(0, t.ids[0].sign_key, wm.Approve(seq=1))
    with pytest.raises(RemoteProtocolError, match="no replacement waiting"):
        t.host.admit(stray)
    proposal = t.propose(1, newcomer(3))
    t.deliver(t.sign(0, t.ids[0].sign_key, wm.Approve(seq=proposal.seq)))
    with pytest.raises(RemoteProtocolError, match="a second approval"):
        t.host.admit(t.sign(0, t.ids[0].sign_key, wm.Approve(seq=proposal.seq)))


def test_a_host_cannot_propose_a_key_that_plays_another_seat_or_its_own():
    t = Roster(4, seed=7)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    with pytest.raises(Fault, match="one key, one seat"):
        t.propose(1, t.ids[2])
    t2 = Roster(4, seed=7)
    t2.run_until(lambda: t2.host.round == 1 and t2.host.settled)
    with pytest.raises(Fault, match="its own key"):
        t2.propose(1, t2.host_id)


def vote_gone(t, seat, voters):
    """``voters`` vote that ``seat`` left the running round; the last vote's message."""
    for voter in voters:
        msg = t.deliver(t.sign(voter, t.ids[voter].sign_key,
                               wm.VoidRound(round=t.host.void_target, seat=seat)))
    return msg


def test_a_leader_who_leaves_gains_nothing_and_a_replacement_plays_the_seat_to_the_end():
    """The leader after round 1 leaves in round 2: the others vote it gone, the round is void,
    the leader's seat pays the leave penalty (its lead shrinks by it; the game does not end
    with it ahead) and waits; the host proposes a newcomer, the three approve by themselves,
    and at the next deal the newcomer plays the seat with its own keys from the score it had:
    the game ends with every contract played, at every party alike (three contracts: the
    void round's is played again)."""
    t = Roster(4, seed=8, rules={"contracts": [[2, 0], [1, 1], [0, 2]]})
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    before = list(t.host.public.scores)
    leader = min(range(4), key=lambda seat: (before[seat], seat))
    others = [seat for seat in range(4) if seat != leader]
    contract = t.host.public.contract_no
    t.gone.add(leader)
    vote_gone(t, leader, others)
    assert t.host.vacant == {leader: 2} and t.host.left == [(2, leader)]
    assert not t.host.finished and t.host.public.result is None
    # the one who left may come back to the seat it holds still; no stranger is taken for it
    first_key = t.ids[leader].sign_public
    assert t.host.played_before(leader, first_key)
    assert not t.host.played_before(leader, newcomer(4).sign_public)
    penalty = t.host.rules.leave_penalty
    assert penalty > 0 and t.host.public.scores == [
        score + penalty * (seat == leader) for seat, score in enumerate(before)]
    assert t.host.public.contract_no == contract and t.host.public.round_no == 3
    while t.step(play=False):
        pass
    assert t.host.round == 2 and not t.host.owed(), "the next deal waits for the seat"
    late = t.sign(leader, t.ids[leader].sign_key, wm.Approve(seq=0))
    with pytest.raises(RemoteProtocolError, match="voted gone"):
        t.host.admit(late)
    who = newcomer(4)
    t.follow(leader, who)
    proposal = t.propose(leader, who)
    t.gone.discard(leader)
    t.run_until(lambda: t.host.round == 3)
    holder = t.host.holders[leader]
    assert t.host.proposals == {} and holder.sign_key == who.sign_public and holder.since == 3
    assert holder.before.sign_key == first_key
    assert t.host.played_before(leader, first_key)
    assert not t.host.played_before(leader, who.sign_public)
    assert {m.author for m in t.stream if isinstance(m.body, wm.Approve)
            and m.body.seq == proposal.seq} == set(others)
    t.run_until(lambda: t.host.finished)
    result = t.host.public.result
    assert len(result.rounds) == t.host.rules.rounds and 2 not in [r.round_no for r in
                                                                   result.rounds]
    assert result.totals[leader] == sum(r.points[leader] for r in result.rounds) + penalty
    for seat, table in enumerate(t.seats):
        assert table.fault is None and table.finished and table.game.result == result, seat
        assert all(v.clean for r, v in table.verdicts.items() if r >= 3), (seat, table.verdicts)
    old = t.sign(leader, t.ids[leader].sign_key, wm.Approve(seq=0))
    assert all(f is not None and f.culprit == HOST_AUTHOR for f in t.relay(old))


def test_the_old_key_is_refused_after_its_seat_changed_hands():
    t = Roster(3, seed=9)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    t.gone.add(2)
    vote_gone(t, 2, (0, 1))
    who = newcomer(5)
    t.follow(2, who)
    t.propose(2, who)
    t.gone.discard(2)
    t.run_until(lambda: t.host.round == 3 and t.host.settled)
    stale = t.sign(2, t.ids[2].sign_key, wm.Complaint(round=3, reason="still here"))
    with pytest.raises(RemoteProtocolError, match="does not verify"):
        t.host.admit(stale)
    said = t.relay(stale)
    assert said[0].culprit == HOST_AUTHOR and said[1].culprit == HOST_AUTHOR
    assert "does not verify with seat 2's key" in said[0].reason
    for seat in range(3):  # the newcomer's cards opened to no one else, nor theirs to it
        assert_no_hidden_card_opened_to(t, seat)


def test_a_vacant_seat_s_message_is_refused_and_a_host_relaying_it_is_named():
    t = Roster(3, seed=10)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone.add(1)
    vote_gone(t, 1, (0, 2))
    vote = t.sign(1, t.ids[1].sign_key, wm.VoidRound(round=t.host.void_target, seat=0))
    with pytest.raises(RemoteProtocolError, match="seat 1 was voted gone in round 1") as info:
        t.host.admit(vote)
    assert info.value.code == "wrong_state"
    said = t.relay(vote)
    assert all(f.culprit == HOST_AUTHOR and "voted gone" in f.reason for f in said)


def vote_refused(t, author, round_no, seat, why):
    """The host refuses ``author``'s vote that ``seat`` left round ``round_no``, saying ``why``
    and naming the vote by its counter (what the author's outbox reads the refusal by)."""
    vote = t.sign(author, t.ids[author].sign_key, wm.VoidRound(round=round_no, seat=seat))
    with pytest.raises(RemoteProtocolError, match=re.escape(why)) as info:
        t.host.admit(vote)
    assert info.value.ref_counter == vote.counter


def test_a_vote_against_a_seat_gone_already_or_no_seat_is_refused():
    t = Roster(4, seed=11)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone.add(3)
    vote_gone(t, 3, (0, 1, 2))
    for seat, why in ((3, "gone already"), (7, "no seat")):
        vote_refused(t, 0, t.host.void_target, seat, why)


def test_each_vote_out_of_place_is_refused_saying_why():
    """A seat's vote that has no place (for another round, a second one, once the audit has
    begun, once the game is over) is refused with a reason that names what was wrong, so that
    the seat and its player can tell (protocol.md 11.5)."""
    t = Roster(4, seed=11, rules={"contracts": [[2, 0], [1, 1]]})
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    now = t.host.void_target
    vote_refused(t, 0, now + 1, 3, f"a vote to void round {now + 1}; the table is in round {now}")
    vote_gone(t, 3, (0,))
    vote_refused(t, 0, now, 3, f"a second vote to void round {now}")
    t.run_until(lambda: t.host.waiting_audit)
    vote_refused(t, 1, now, 3, f"a vote to void round {now} while round {t.host.round}'s audit "
                               "waits for its seeds")
    t.run_until(lambda: t.host.finished)
    vote_refused(t, 1, t.host.void_target, 3, "wrong_state: the game is over")


def test_a_host_cannot_propose_anyone_once_the_game_is_over():
    t = Roster(3, seed=12, rules={"contracts": [[2, 0]]})  # a game of one round
    t.run_until(lambda: t.host.finished)
    with pytest.raises(Fault, match="after the game's end"):
        t.propose(0, newcomer(6))


def test_one_key_proposed_for_two_vacant_seats_is_refused_and_a_host_sequencing_it_is_named():
    """Two seats voted gone, and the host proposes one newcomer's key for both: one party would
    play two hands (and the lobby could not tell which seat its key comes for).  The host's
    own check refuses it before signing; a host that sequences it anyway is named at every
    seat, and the first proposal stands."""
    t = Roster(5, seed=13)
    t.run_until(lambda: t.host.round == 1 and t.host.settled)
    t.gone |= {3, 4}
    vote_gone(t, 4, (0, 1, 2))
    vote_gone(t, 3, (0, 1, 2))
    assert set(t.host.vacant) == {3, 4}
    who = newcomer(7)
    first = t.propose(3, who)
    twice = wm.Replace(seat=4, name="bot", role="bot", sign_key=who.sign_public,
                       box_key=who.box_public)
    assert "one key, one seat" in t.host.replace_refused(twice)
    said = t.relay(t.host.chain.sign(t.host_id.sign_key, HOST_AUTHOR, twice))
    for seat in (0, 1, 2):
        assert said[seat].culprit == HOST_AUTHOR and "it proposed for seat 3" in \
            said[seat].reason, said[seat]
    assert [p.body.seat for p in t.host.proposals.values()] == [3]
    assert t.host.proposals[first.seq].body.sign_key == who.sign_public
    # another key for seat 4, or the same key for seat 3 again (it takes the first's place)
    assert t.host.replace_refused(wm.Replace(seat=4, name="bot", role="bot",
                                             sign_key=newcomer(8).sign_public,
                                             box_key=newcomer(8).box_public)) is None
    assert t.host.replace_refused(dataclasses.replace(twice, seat=3)) is None


def stand_in_plays(t, seat, bot):
    """Seat ``seat`` is voted gone by every other seat and ``bot`` (a stand-in, which hands
    its seat on) plays it from the next deal; play on until that deal is settled."""
    t.gone.add(seat)
    vote_gone(t, seat, [s for s in range(t.host.players) if s != seat])
    t.follow(seat, bot, yields=True)
    t.propose(seat, bot)
    t.gone.discard(seat)
    round_no = t.host.round
    t.run_until(lambda: t.host.round > round_no and t.host.settled)
    assert t.host.holders[seat].sign_key == bot.sign_public


def test_a_first_holder_takes_its_seat_back_from_the_stand_in_at_the_next_deal():
    """Seat 2 leaves in round 2 and a stand-in bot plays it in round 3; seat 2's first holder
    comes back with its own keys: the host proposes them, every seat approves by itself (the
    two others, and the bot, which hands its seat on), and at the next deal the first holder
    plays its seat again from the stream it followed, its score carried over; the bot's key
    is refused from then on."""
    t = Roster(3, seed=14)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    bot, first = newcomer(9), t.ids[2]
    stand_in_plays(t, 2, bot)
    assert t.host.holders[2].describe() == "bot for p2" and t.host.round == 3
    t.follow(2, first)
    proposal = t.propose(2, first, role="player", name="p2")
    t.run_until(lambda: t.host.round == 4 and t.host.settled)
    assert {m.author for m in t.stream if isinstance(m.body, wm.Approve)
            and m.body.seq == proposal.seq} == {0, 1, 2}
    for table in [t.host, *t.seats]:
        holder = table.holders[2]
        assert (holder.sign_key, holder.kind, holder.since) == (first.sign_public, "player", 4)
        assert holder.before.sign_key == bot.sign_public and holder.describe() == "p2"
        assert holder.before.before.sign_key == first.sign_public
    assert t.seats[2].seat == 2 and t.seats[2].game.viewer == 2
    t.run_until(lambda: t.host.audited == 4)
    for seat, table in enumerate(t.seats):
        assert table.fault is None and table.verdicts[4].clean, seat
        assert table.game.scores == t.host.public.scores
    late = t.sign(2, bot.sign_key, wm.Complaint(round=t.host.round, reason="still mine"))
    with pytest.raises(RemoteProtocolError, match="does not verify"):
        t.host.admit(late)
    for seat in range(3):
        assert_no_hidden_card_opened_to(t, seat)


def test_a_person_who_took_a_stand_in_s_seat_keeps_it_unless_they_agree():
    """A person who arrived late takes the stand-in's seat (the bot and the others approve);
    the seat's first holder may not come back now (a seat is given to anyone but a stand-in
    once a game, protocol.md 11.8), and a bot the host proposes for it waits with no reference
    seat approving by itself: the seat is a person's now, and only their word hands it on."""
    t = Roster(3, seed=15)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    stand_in_plays(t, 2, newcomer(10))
    late = newcomer(11)
    t.follow(2, late)
    t.propose(2, late, role="player", name="late")
    t.run_until(lambda: t.host.round == 4 and t.host.settled)
    assert t.host.holders[2].sign_key == late.sign_public
    assert t.host.holders[2].describe() == "late for p2"
    first = t.ids[2]
    assert "once already" in t.host.replace_refused(wm.Replace(
        seat=2, name="p2", role="player", sign_key=first.sign_public, box_key=first.box_public))
    bot = t.propose(2, newcomer(12))
    t.run_until(lambda: t.host.round == 5 and t.host.settled)
    assert t.host.holders[2].sign_key == late.sign_public
    assert t.host.proposals[bot.seq].approvals == set()


def test_a_seat_voted_gone_owes_nothing_so_its_newcomer_is_not_voted_out_at_once():
    """Seat 2 leaves as round 2's deal begins, before its commitment: the others vote it gone.
    While the seat is vacant no party says it owes anything (the voided round's commitment
    is due from no one): a seat that counts how long another owes a step would otherwise carry
    the old holder's silence on to the newcomer and vote it gone the moment it took the seat
    (`shanghai host` with `shanghai bot` processes voted stand-in after stand-in gone, every
    round, until the round number overflowed)."""
    t = Roster(3, seed=19)
    t.run_until(lambda: t.host.round == 2)
    assert not t.host._commits and t.boxes[2].deal, "seat 2's commitment is not sent yet"
    t.gone.add(2)
    t.run_until(lambda: set(t.host.owed()) == {2})
    assert "commitment" in t.host.owed()[2]
    vote_gone(t, 2, (0, 1))
    assert t.host.vacant == {2: 2}
    for table in [t.host, *t.seats]:
        assert table.owed() == {} and table.owed_steps() == [], table.owed()
