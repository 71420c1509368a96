"""The sans-IO game protocol without sockets: seats' `PeerTable`s and the host's `PublicTable`
fed one sequenced stream by an in-process sequencer."""

from __future__ import annotations

import dataclasses
import random

import pytest

from shanghai_net.bots import make_bot
from shanghai_net.deal import seeded
from shanghai_net.engine import Discard, Phase, view_of
from shanghai_net.errors import IllegalMoveError
from shanghai_net.identity import Identity
from shanghai_net.engine.moves import DrawStock, PassClaim, TakeDiscard
from shanghai_net.table.bodies import move_to_body, reveals_body, shares_body
from shanghai_net.table.fault import Fault
from shanghai_net.table.outbox import Outbox
from shanghai_net.table.seat import PeerTable
from shanghai_net.table.public import PublicTable
from shanghai_net.wire import DealerPick, PlayerSeat, RemoteProtocolError, StartGame, sign_game
from shanghai_net.wire import messages as wm
from shanghai_net.wire.messages import HOST_AUTHOR


class Table:
    """A host's PublicTable and every seat's PeerTable, fed by an in-process sequencer;
    ``kinds``: seat -> the PeerTable class that seat runs (a cheat, in tests)."""

    def __init__(self, players=4, preset="davis", seed=1, kinds=None, rules=None):
        rnd = seeded(b"table test %d" % seed)
        self.ids = [Identity(rnd(32), rnd(32)) for _ in range(players)]
        self.host_id = Identity(rnd(32), rnd(32))
        """The host's identity: it signs ``timeout`` bodies (`time_out`)."""
        start = StartGame(game_id=rnd(16), host_nonce=bytes(32), nonces=(), preset=preset,
                          rules=rules or {}, claim_timeout=10.0, audit_timeout=60.0,
                          seats=tuple(PlayerSeat(seat=i, name=f"p{i}", sign_key=x.sign_public,
                                                 box_key=x.box_public)
                                      for i, x in enumerate(self.ids)),
                          first_dealer_pick=DealerPick(method="coin_flip"),
                          host_key=self.host_id.sign_public)
        self.host = PublicTable(start)
        kinds = kinds or {}
        self.seats = [kinds.get(i, PeerTable)(start, i, x.box_key,
                                              seeded(b"seat %d %d" % (seed, i)))
                      for i, x in enumerate(self.ids)]
        self.boxes = [Outbox(t, x.sign_key) for t, x in zip(self.seats, self.ids)]
        rng = random.Random(seed)
        self.bots = [make_bot("basic", random.Random(rng.random())) for _ in range(players)]
        for table, box in zip(self.seats, self.boxes):
            box.push(table.start())

    def deliver(self, msg):
        """Sequence ``msg`` at the host and bring it to every seat; the message as placed."""
        msg = self.host.admit(msg)
        for table, box in zip(self.seats, self.boxes):
            box.push(table.receive(msg))
            box.sequenced(msg)
        return msg

    def time_out(self, seat, what="claim"):
        """The host's timeout of ``seat``, sequenced and delivered; the message."""
        from shanghai_net.wire.messages import HOST_AUTHOR, Timeout
        msg = self.host.chain.sign(self.host_id.sign_key, HOST_AUTHOR, Timeout(seat=seat, what=what))
        self.host.take_host(msg)
        for table, box in zip(self.seats, self.boxes):
            box.push(table.receive(msg))
            box.sequenced(msg)
        return msg

    def move_for(self, seat):
        """The move ``seat``'s player makes now (its bot's; a test's players override it)."""
        table = self.seats[seat]
        return self.bots[seat].choose(view_of(table.game, seat), table.legal_moves())

    def play(self):
        """Each seat with a decision to make and nothing on its way makes its move."""
        for i, table in enumerate(self.seats):
            if not self.boxes[i].busy and table.can_move():
                move = self.move_for(i)
                self.boxes[i].push(table.submit(move), move)

    def step(self, play=True) -> bool:
        if play:
            self.play()
        sent = False
        for box in self.boxes:  # one at a time: no stale answers in process
            msg = box.poll()
            if msg is not None:
                self.deliver(msg)
                sent = True
        return sent

    def run_until(self, done, play=True):
        for _ in range(20000):
            if done():
                return
            assert self.step(play), "stuck"
        raise AssertionError("too long")


def test_a_round_gives_every_seat_the_same_public_game_and_only_its_own_cards():
    t = Table(4)
    t.run_until(lambda: t.host.audited >= 1)
    host = t.host.public
    assert host.round_no == 2
    for seat, table in enumerate(t.seats):
        assert table.fault is None and table.verdicts[1].clean
        assert [repr(e) for e in table.public.log] == [repr(e) for e in host.log]
        assert table.chain.head == t.host.chain.head
    result = host.results[0]
    assert all(table.game.results[0] == result for table in t.seats)


def test_the_deal_settles_before_a_move_and_only_the_holder_knows_a_card():
    t = Table(3, seed=2)
    t.run_until(lambda: t.host.settled and t.host.public.phase is Phase.DRAW, play=False)
    for seat, table in enumerate(t.seats):
        mine = set(table.game.hands[seat])
        known = {tok for tok in table.game.faces if tok[0] >= 0}
        assert mine <= known
        others = {tok for s, hand in enumerate(table.game.hands) if s != seat for tok in hand}
        assert not known & others
        assert {tok for tok in t.host.public.faces if tok[0] >= 0}.isdisjoint(mine)


def play_to_own_turn(t):
    t.run_until(lambda: any(tab.can_move() and tab.game.phase is Phase.PLAY for tab in t.seats))
    return next(tab for tab in t.seats if tab.can_move() and tab.game.phase is Phase.PLAY)


def test_submit_refuses_an_illegal_move_and_reveals_nothing():
    t = Table(3, seed=3)
    table = play_to_own_turn(t)
    seat = table.seat
    other = next(c for s, tab in enumerate(t.seats) if s != seat for c in tab.game.hand(s))
    hand_before = dict(table.participant.hand())
    with pytest.raises(IllegalMoveError):
        table.submit(Discard(seat, other))
    assert table.participant.hand() == hand_before


def test_a_forged_reveal_key_is_caught_and_names_its_author():
    t = Table(3, seed=4)
    table = play_to_own_turn(t)
    seat = table.seat
    card = table.game.hand(seat)[0]
    token = next(tok for tok, c in table.participant.hand().items() if c == card)
    honest = table.participant.reveal(*token)
    keys = list(honest.keys)
    keys[0] = (keys[0][0], keys[1][1])  # another seat's key: valid, but it opens no card
    forged = dataclasses.replace(honest, keys=tuple(keys))
    msg = table.chain.sign(t.ids[seat].sign_key, seat, reveals_body(table.round, [forged]))
    for other in t.seats:
        if other.seat != seat:
            with pytest.raises(Fault) as info:
                other.receive(msg)
            assert info.value.culprit == seat


def test_a_deal_step_altered_on_the_way_names_the_host_not_its_author():
    """A deal step has no signature of its own: the game message's covers every field, so a
    key changed in a relayed reveal is the relay's doing, and no card opens from it."""
    t = Table(3, seed=4)
    table = play_to_own_turn(t)
    seat = table.seat
    token = next(iter(table.participant.hand()))
    msg = table.chain.sign(t.ids[seat].sign_key, seat,
                           reveals_body(table.round, [table.participant.reveal(*token)]))
    data = dict(msg.body.data)
    reveal = dict(data["reveals"][0])
    reveal["keys"] = [[s, bytes(32)] if s != seat else [s, k] for s, k in reveal["keys"]]
    data["reveals"] = [reveal]
    altered = dataclasses.replace(msg, body=dataclasses.replace(msg.body, data=data))
    for other in t.seats:
        if other.seat != seat:
            with pytest.raises(Fault) as info:
                other.receive(altered)
            assert info.value.culprit == HOST_AUTHOR and "bad_signature" in info.value.reason
            assert other.public.faces.keys().isdisjoint({token})


def test_the_host_refuses_a_share_no_one_owes_and_a_move_before_the_deal_settles():
    t = Table(3, seed=5)
    t.run_until(lambda: t.host.outstanding, play=False)
    # a move while key shares are still owed
    seat = t.host.public.turn
    msg = t.seats[seat].chain.sign(t.ids[seat].sign_key, seat, move_to_body(DrawStock(seat)))
    with pytest.raises(RemoteProtocolError) as info:
        t.host.admit(msg)
    assert info.value.code == "out_of_turn"
    assert info.value.reason == "'draw': the deal is not settled"
    # a share for a position no one asked of this seat
    t.run_until(lambda: t.host.settled, play=False)
    table = t.seats[0]
    generation = max(table.generations)
    sealed = table.participant.share_keys(generation, 1, [100])
    msg = table.chain.sign(t.ids[0].sign_key, 0, shares_body(table.round, generation, [sealed]))
    with pytest.raises(RemoteProtocolError) as info:
        t.host.admit(msg)
    assert info.value.code == "out_of_turn"
    # a box whose length is not a key a position and the tag, as a seat could pad one
    padded = dataclasses.replace(sealed, ciphertext=sealed.ciphertext + bytes(32))
    msg = table.chain.sign(t.ids[0].sign_key, 0, shares_body(table.round, generation, [padded]))
    with pytest.raises(RemoteProtocolError) as info:
        t.host.admit(msg)
    assert info.value.code == "bad_message" and "data.box: expected 48 bytes" in info.value.reason


def test_a_start_game_that_differs_for_one_peer_breaks_the_chain_at_seq_0():
    """The chain starts at the start_game digest: a peer given another seat's box key (so that
    the host could read what is sealed for that seat) cannot take the first message."""
    from shanghai_net.table.fault import Fault
    from shanghai_net.wire.messages import HOST_AUTHOR, DealerPick, PlayerSeat, StartGame

    keys = [Identity(bytes([s] * 32), bytes([s + 10] * 32)) for s in range(3)]
    start = StartGame(game_id=bytes(16), host_nonce=bytes(32), nonces=(), preset="davis",
                      rules={}, first_dealer_pick=DealerPick(method="coin_flip"),
                      claim_timeout=10.0, audit_timeout=60.0,
                      seats=tuple(PlayerSeat(seat=s, name=f"p{s}", sign_key=k.sign_public,
                                             box_key=k.box_public) for s, k in enumerate(keys)))
    host_box = Identity(bytes(32), bytes([99] * 32)).box_public
    forged = dataclasses.replace(start, seats=(start.seats[0], dataclasses.replace(
        start.seats[1], box_key=host_box), start.seats[2]))
    honest = PeerTable(start, 0, keys[0].box_key, seeded(b"0"))
    fooled = PeerTable(forged, 2, keys[2].box_key, seeded(b"2"))
    first = honest.chain.sign(keys[0].sign_key, 0, honest.start()[0])
    with pytest.raises(Fault) as info:
        fooled.receive(first)
    assert info.value.culprit == HOST_AUTHOR


# -- what commutes, and what goes stale (protocol.md 8.2) ----------------------------------------

def open_window(t):
    """Play until a claim window is open, the deal settled, with two claimers still to decide."""
    def ready():
        game = t.host.public
        return t.host.settled and game.phase is Phase.DRAW and game.window is not None and \
            len(game.window.undecided()) >= 2
    t.run_until(ready)
    return t.host.public


def signed(t, seat, move, basis):
    """``move`` of ``seat`` signed with its next counter on ``basis``, as its author sends it."""
    return signed_body(t, seat, move_to_body(move), basis)


def signed_body(t, seat, body, basis):
    """A game body of ``seat``'s, signed with its next counter on ``basis``."""
    return sign_game(t.ids[seat].sign_key, t.seats[seat].chain.start, seat,
                     t.boxes[seat].reserve(), body, basis)


def refusal(t, msg):
    """The host's refusal of ``msg``: (its code, its reason)."""
    with pytest.raises(RemoteProtocolError) as info:
        t.host.admit(msg)
    return info.value.code, info.value.reason


def test_the_host_refuses_a_body_no_move_stands_for_or_a_call_on_no_discard():
    """A discard of a card no deck holds is an illegal move; so is a SHANGHAI call on the top
    discard once the pile is empty (the first seat took the only card): the host answers, and
    the game goes on."""
    t = Table(3, seed=8)
    t.run_until(lambda: t.host.settled and t.host.public.phase is Phase.DRAW, play=False)
    seat = t.host.public.turn
    basis = t.host.chain.basis
    assert refusal(t, signed_body(t, seat, wm.Discard(card=500, shanghai=False), basis)) == \
        ("illegal_move", "no card 500: no card has id 500")
    t.deliver(signed(t, seat, TakeDiscard(seat), basis))
    assert not t.host.public.discard
    call = wm.CallShanghai(card=0, meld=0, end=None)  # any card: the pile is empty
    assert refusal(t, signed_body(t, seat, call, t.host.chain.basis)) == \
        ("illegal_move", "the top discard is None")
    assert t.host.fault is None and t.host.public.turn == seat


def test_the_host_refuses_a_move_once_the_game_is_over_while_its_audit_runs():
    t = Table(3, seed=9, rules={"contracts": [[2, 0]]})  # a game of one round
    t.run_until(lambda: t.host.public.phase is Phase.OVER)
    assert not t.host.finished  # the last round's seeds are still to come
    for seat in range(3):
        move = signed(t, seat, DrawStock(seat), t.host.chain.basis)
        assert refusal(t, move) == ("illegal_move", "the game is over")
    t.run_until(lambda: t.host.finished)
    assert t.host.fault is None


def test_claims_decided_on_one_discard_never_make_each_other_stale():
    t = Table(4, seed=6)
    game = open_window(t)
    first, second = game.window.undecided()[:2]
    basis, before = t.host.chain.basis, t.host.version
    for seat in (first, second):  # both decided before either is sequenced: both are taken
        t.deliver(signed(t, seat, PassClaim(seat), basis))
    assert t.host.version == before + 2
    assert all(table.fault is None and table.version == before + 2 for table in t.seats)


def test_a_claim_decided_before_the_turn_moved_on_is_stale_and_names_where():
    t = Table(4, seed=6)
    game = open_window(t)
    claimer = game.window.undecided()[0]
    late = signed(t, claimer, PassClaim(claimer), t.host.chain.basis)
    taker = game.turn
    took = t.deliver(signed(t, taker, TakeDiscard(taker), t.host.chain.basis))
    with pytest.raises(RemoteProtocolError) as info:
        t.host.admit(late)
    assert info.value.code == "stale"
    assert (info.value.ref_seq, info.value.ref_counter) == (took.seq, late.counter)
    # a host that sequences it all the same is named by every seat
    for table in t.seats:
        with pytest.raises(Fault) as fault:
            table.receive(table.chain.place(late))
        assert fault.value.culprit == HOST_AUTHOR and "stale" in fault.value.reason


def test_a_move_without_a_basis_is_refused():
    t = Table(4, seed=6)
    game = open_window(t)
    seat = game.turn
    with pytest.raises(RemoteProtocolError) as info:
        t.host.admit(signed(t, seat, TakeDiscard(seat), None))
    assert info.value.code == "stale" and "basis" in info.value.reason


def test_a_reveal_and_the_move_it_shows_go_out_back_to_back():
    t = Table(3, seed=3)
    table = play_to_own_turn(t)
    seat, box = table.seat, t.boxes[table.seat]
    card = table.game.hand(seat)[0]
    box.push(table.submit(Discard(seat, card)), Discard(seat, card))
    reveal, move = box.poll(), box.poll()  # nothing sequenced in between
    assert reveal.body.KIND == "deal" and move.body.KIND == "discard"
    assert reveal.basis_seq is None and move.basis_seq == table.chain.next_seq - 1
    assert move.counter == reveal.counter + 1
    t.deliver(reveal)
    t.deliver(move)
    assert t.host.public.discard[-1] == card and box.idle


def test_what_each_seat_owes_is_read_from_the_stream():
    t = Table(3, seed=7)
    assert t.host.owed() == {seat: "its commitment to pick 0" for seat in range(3)}
    t.run_until(lambda: t.host.outstanding, play=False)  # the deal: every card's key shares
    owes = t.host.owed()
    assert set(owes) == {s for o in t.host.outstanding.values() for s in o.owing}
    assert all(what.startswith("key shares for seat") for what in owes.values())
    assert all(table.owed() == owes for table in t.seats)  # every seat reads the same
    t.run_until(lambda: t.host.settled, play=False)
    assert t.host.owed() == {}


def test_a_seat_may_run_its_round_audit_apart_and_go_on_from_its_outcome():
    """`audit_elsewhere`: the round's last seeds leave the table waiting (``audit_due``, not
    settled) until the caller hands back `run_audit`'s outcome; then it goes on exactly as a
    table that audited inline."""
    seen = []

    class Apart(Table):
        def deliver(self, msg):
            msg = self.host.admit(msg)
            for table, box in zip(self.seats, self.boxes):
                box.push(table.receive(msg))
                if table.audit_due:
                    seen.append((table.round, table.settled))
                    box.push(table.finish_audit(table.run_audit()))
                box.sequenced(msg)
            return msg

    t = Apart(3, seed=9)
    t.seats[0].audit_elsewhere = True
    t.run_until(lambda: t.host.audited >= 1 and t.host.public.round_no == 2
                and t.host.settled)
    assert seen == [(1, False)]
    assert t.seats[0].verdicts[1].clean and t.seats[0].audit_due is False
    assert t.seats[0].chain.head == t.seats[1].chain.head == t.host.chain.head
    assert t.seats[0].game.round_no == t.seats[1].game.round_no == 2


def test_seeds_the_host_times_out_void_the_round_naming_no_one():
    """In process: one seat's seeds never reach the host (its box empties: the host dropped
    them, or the seat never sent them) and the host times them out.  Every party audits what
    came and names no one a cheat (a missing message proves nothing of its author); the absent
    seat pays the leave penalty as a seat that left, the round is void (its score taken back)
    and dealt again, alike at every party, and the game goes on (issue 42: it used to end,
    nobody paying)."""
    from shanghai_net.engine.events import RoundVoided

    t = Table(3, seed=10)
    t.run_until(lambda: t.host.waiting_audit)
    missing = next(seat for seat in range(3) if seat not in t.host.seeds_from)
    t.boxes[missing].deal.clear()
    t.run_until(lambda: t.host.seeds_from == set(range(3)) - {missing}, play=False)
    t.time_out(missing, what="seeds")
    for party in (t.host, *t.seats):
        assert party.fault is None and not party.finished and party.verdict is None
        assert party.left == [(1, missing)] and party.silent == {(1, missing)}
        assert party.public.results == [] and party.public.round_no == 3
    for seat in t.seats:
        (voided,) = [e for e in seat.events if isinstance(e, RoundVoided)]
        assert voided.leaver == missing and voided.penalty == seat.rules.leave_penalty > 0
    t.run_until(lambda: t.host.round == 3 and t.host.settled)
    assert all(seat.round == 3 and seat.fault is None for seat in t.seats)
