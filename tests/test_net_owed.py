"""What each seat owes, as structured entries (`StreamTable.owed_steps`) and as the host's
``owed`` notice to the clients that ask for it (docs/protocol.md 6.5 and 11.7)."""

from __future__ import annotations

import pytest
import trio

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net import peer as peer_module
from shanghai_net.table.bodies import parse_deal
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import Peer
from shanghai_net.table.public import PublicTable
from shanghai_net.wire import (CLIENT, NEED_DATA, Connection, ConnectionClosed, Hello, Owed,
                               OwedStep, Refused, Welcome, decode_frame_body, encode_frame)
from shanghai_net.wire.framing import HEADER_SIZE
from shanghai_net.wire.messages import DEAL_STEPS, PROTOCOL_VERSION

from test_net_rejoin import HeldBot
from test_net_table import Table

# -- the entries, from the stream ------------------------------------------------------------------


def answered(steps, msg, game_id):
    """Check that the deal body ``msg`` answers what ``steps`` (owed before it was sequenced)
    asked of its author, field by field; the step kind it answered, or None for a reveal its
    author made of its own accord (the cards a move shows)."""
    step = parse_deal(msg.body, game_id, msg.author)
    mine = [s for s in steps if s.seat == msg.author and s.step == step.step]
    assert all(s.round == step.round for s in mine)
    if step.step in ("commit", "pass"):
        (message,) = step.messages
        (owed,) = [s for s in mine if s.generation == step.generation]
        assert step.step == "commit" or owed.phase == message.phase
    elif step.step == "shares":
        for sealed in step.sealed:
            (owed,) = [s for s in mine if (s.generation, s.to) == (step.generation,
                                                                  sealed.recipient)]
            assert set(sealed.positions) <= set(owed.positions)
    elif step.step == "reveal":
        asked = {(s.generation, s.position): s.keys for s in mine}
        made = {(r.context.generation, r.position): "own" if [k for k, _ in r.keys] ==
                [msg.author] else "all" for r in step.messages}
        if not asked:
            return None
        assert made == {token: asked[token] for token in made}
    elif step.step == "seeds":
        (owed,) = mine
        assert owed.generations == tuple(m.context.generation for m in step.messages)
    else:
        (message,) = step.messages
        (owed,) = [s for s in mine if s.pick == message.pick]
        if step.step == "pick_commit":
            assert (owed.n, owed.parties) == (message.n, message.parties)
    return step.step


def test_every_deal_message_of_a_round_answers_an_entry_every_table_reads_alike():
    """A round dealt, played and audited in process: before each message, every seat's table
    and the host's list the same entries, and each deal message answers one of its author's,
    to the field: every step kind, both passes, shares with their recipient and positions."""
    t = Table(3, seed=7)
    first = t.host.owed_steps()
    assert [(s.seat, s.step, s.pick, s.n, s.parties) for s in first] == \
        [(seat, "pick_commit", 0, 3, (0, 1, 2)) for seat in range(3)]
    assert t.host.owed() == {seat: "its commitment to pick 0" for seat in range(3)}
    kinds, phases = set(), set()
    deliver = t.deliver

    def checked(msg):
        steps = t.host.owed_steps()
        assert all(table.owed_steps() == steps for table in t.seats)
        if msg.body.KIND == "deal":
            kinds.add(answered(steps, msg, t.host.game_id))
            if msg.body.step == "pass":
                phases.add(msg.body.data["phase"])
        else:
            assert steps == [], f"a {msg.body.KIND} while the deal owed {steps}"
        return deliver(msg)

    t.deliver = checked
    t.run_until(lambda: t.host.audited >= 1)
    assert kinds - {None} == set(DEAL_STEPS) and phases == {1, 2}


class OwedModel:
    """What protocol.md 11.3 and 11.7 say each seat owes of the first round's picks, shuffles
    and seeds, from the deal messages sequenced so far: written here, not read from
    `StreamTable.owed_steps`, so that the host's list is checked against the protocol rather
    than against itself.  It knows the first-dealer pick and generation 0; a run that needs
    another pick or shuffle says so (the test's seed is chosen so that the round needs none),
    and, once the round is audited, the next round's commitments."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.picked: dict[str, set[int]] = {"pick_commit": set(), "pick_reveal": set()}
        self.commits: set[int] = set()
        self.passes: list[tuple[int, int]] = []  # (phase, seat) in stream order
        self.seeds: set[int] = set()
        self.next_commits: set[int] = set()  # round 2's, once round 1's seeds are all in

    def saw(self, author: int, step) -> None:
        if step.step in self.picked:
            assert step.messages[0].pick == 0, "a second pick: the model knows only pick 0"
            self.picked[step.step].add(author)
        elif step.step == "commit" and step.round == 2 and len(self.seeds) == self.players:
            self.next_commits.add(author)
        elif step.step in ("commit", "pass", "seeds"):
            assert step.round == 1 and all(m.context.generation == 0 for m in step.messages), \
                "a second shuffle: the model knows only generation 0"
            if step.step == "commit":
                self.commits.add(author)
            elif step.step == "pass":
                self.passes.append((step.messages[0].phase, author))
            else:
                self.seeds.add(author)

    def expected(self, auditing: bool) -> set[tuple]:
        """(seat, step, round, generation, phase, pick, n, parties) of every entry owed of
        those kinds; ``auditing``: the round's end has asked for the seeds."""
        seats = range(self.players)
        if len(self.seeds) == self.players:  # audited: round 2 starts with its shuffle
            return {(s, "commit", 2, 0, None, None, None, (), ()) for s in seats
                    if s not in self.next_commits}
        if auditing:  # only seeds, one entry a seat that has not sent them, every generation
            return {(s, "seeds", 1, None, None, None, None, (), (0,)) for s in seats
                    if s not in self.seeds}
        everyone = tuple(seats)
        if len(self.picked["pick_commit"]) < self.players:
            return {(s, "pick_commit", 0, None, None, 0, self.players, everyone, ())
                    for s in seats if s not in self.picked["pick_commit"]}
        if len(self.picked["pick_reveal"]) < self.players:
            return {(s, "pick_reveal", 0, None, None, 0, None, (), ()) for s in seats
                    if s not in self.picked["pick_reveal"]}
        if len(self.commits) < self.players:
            return {(s, "commit", 1, 0, None, None, None, (), ()) for s in seats
                    if s not in self.commits}
        turns = [(phase, seat) for phase in (1, 2) for seat in seats]  # pass 1 of seat 0 first
        assert self.passes == turns[:len(self.passes)], f"passes out of turn: {self.passes}"
        if len(self.passes) < len(turns):
            phase, seat = turns[len(self.passes)]
            return {(seat, "pass", 1, 0, phase, None, None, (), ())}
        return set()


def test_the_host_owes_what_the_protocol_says_of_picks_shuffles_and_seeds():
    """Before each message of a round, the host's entries of the picks, the shuffle and the
    seeds are what `OwedModel` (the protocol, read by this test) expects: pick_commit by every
    party, then pick_reveal, then each seat's commit, then the 2n passes in turn, and at the
    round's end only the seeds of each seat that has not sent them."""
    t = Table(3, seed=7)
    model = OwedModel(3)
    deliver, checked_points = t.deliver, set()
    kinds = {"pick_commit", "pick_reveal", "commit", "pass", "seeds"}

    def checked(msg):
        listed = {(s.seat, s.step, s.round, s.generation, s.phase, s.pick, s.n, s.parties,
                   s.generations) for s in t.host.owed_steps() if s.step in kinds}
        auditing = t.host.waiting_audit
        expected = model.expected(auditing)
        assert listed == expected, (msg.seq, listed, expected)
        if auditing:
            assert all(s.step == "seeds" for s in t.host.owed_steps())
        checked_points.add(next(iter(expected))[1] if expected else None)
        if msg.body.KIND == "deal":
            model.saw(msg.author, parse_deal(msg.body, t.host.game_id, msg.author))
        return deliver(msg)

    t.deliver = checked
    t.run_until(lambda: t.host.audited >= 1)
    assert checked_points == kinds | {None}, checked_points


def test_shares_name_each_recipient_and_exactly_the_positions_still_owed():
    t = Table(4, seed=3)
    t.run_until(lambda: t.host.outstanding, play=False)
    steps = [s for s in t.host.owed_steps() if s.step == "shares"]
    owed = {(s.generation, p, s.to, s.seat) for s in steps for p in s.positions}
    assert owed == {(g, p, o.to, seat) for (g, p), o in t.host.outstanding.items()
                    for seat in o.owing}
    assert all(s.seat != s.to and s.why == f"key shares for seat {s.to}" for s in steps)
    assert len({(s.generation, s.seat, s.to) for s in steps}) == len(steps)  # one box each


def test_the_card_turned_up_is_owed_every_seats_own_key():
    t = Table(3, seed=7)
    t.run_until(lambda: any(s.step == "reveal" for s in t.host.owed_steps()), play=False)
    reveals = [s for s in t.host.owed_steps() if s.step == "reveal"]
    (token,) = t.host._publics  # nothing is in a hand yet but the dealt cards: the one turned up
    assert {(s.generation, s.position, s.keys, s.why) for s in reveals} == \
        {(*token, "own", "its key of a card turned up")}
    assert {s.seat for s in reveals} == set(range(3)) - t.host._own_keys.get(token, set())


def test_a_card_a_hand_shows_is_owed_every_key_by_its_holder_alone():
    """A move that shows a card of a hand (a discard, a meld) owes that card's every key from
    its holder, and from no one else: the entry says so to the field."""
    t = Table(3, seed=7)
    t.run_until(lambda: any(s.keys == "all" for s in t.host.owed_steps()))
    shown = [s for s in t.host.owed_steps() if s.keys == "all"]
    for step in shown:
        token = (step.generation, step.position)
        assert (step.seat, step.step, step.round, step.why) == \
            (t.host.holder_of(token), "reveal", t.host.round,
             f"every key of its card at position {step.position}")
        assert [s for s in t.host.owed_steps() if (s.generation, s.position) == token] == [step]


def test_the_round_end_asks_one_seeds_body_of_each_seat_with_every_generation():
    t = Table(3, seed=7)
    t.run_until(lambda: t.host.waiting_audit)
    steps = t.host.owed_steps()
    assert {s.seat for s in steps} == set(range(3)) - t.host.seeds_from != set()
    assert {s.step for s in steps} == {"seeds"}
    assert all(s.generations == tuple(sorted(t.host.generations)) for s in steps)
    assert t.host.owed() == {s.seat: "its seeds" for s in steps}


def test_the_wire_leaves_off_what_does_not_apply():
    notice = Owed(seq=4, owes=(OwedStep(seat=1, step="pass", round=1, why="its pass of shuffle 0",
                                        generation=0, phase=2),))
    wire = notice.to_wire()
    assert wire["owes"] == [{"seat": 1, "step": "pass", "round": 1,
                             "why": "its pass of shuffle 0", "generation": 0, "phase": 2}]
    frame = encode_frame(wire)
    assert Owed.from_wire(decode_frame_body(frame[HEADER_SIZE:])) == notice


# -- the notice, over sockets ----------------------------------------------------------------------


class Watcher(Peer):
    """A peer that keeps every ``owed`` notice with what its own table read at that moment."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.notices: list[tuple[Owed, int, list[OwedStep]]] = []
        self.welcomed = trio.Event()
        self.noticed = trio.Event()

    async def _on_message(self, link, msg) -> None:
        await super()._on_message(link, msg)
        if isinstance(msg, Welcome):
            self.welcomed.set()
        if isinstance(msg, Owed):
            self.notices.append((msg, self.table.chain.next_seq, self.table.owed_steps()))
            self.noticed.set()


ASKING = {"seat0", "early", "late"}


def hello_asking(**fields):
    """The peers' hello: the ones named in ``ASKING`` ask for the owed notice."""
    return Hello(**fields, notices=("owed", "telepathy") if fields["name"] in ASKING else ())


def assert_each_notice_is_its_replicas_reading(watcher):
    assert watcher.notices, watcher.name
    for notice, next_seq, steps in watcher.notices:
        assert next_seq == (0 if notice.seq is None else notice.seq + 1)  # right after it
        assert list(notice.owes) == steps, notice.seq
    owes = [notice.owes for notice, _, _ in watcher.notices]
    assert all(a != b for a, b in zip(owes, owes[1:]))  # only when what is owed changed


async def test_who_asked_is_sent_what_its_own_replica_reads_and_no_one_else(monkeypatch):
    monkeypatch.setattr(peer_module, "Hello", hello_asking)
    rnd = seeded(b"owed notices")
    host = Host(HostConfig(players=3, rules={"contracts": [[2, 0]]}, claim_timeout=2,
                           random=rnd))
    go = trio.Event()
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)

            def watcher(name, role="player", bot=None):
                return Watcher(("127.0.0.1", port), Identity(rnd(32), rnd(32)), bot, name=name,
                               role=role, random=seeded(name.encode()), timeout=20)

            early, quiet = watcher("early", "spectator"), watcher("quiet", "spectator")
            for spectator in (early, quiet):
                nursery.start_soon(spectator.run)
                await spectator.welcomed.wait()
            seats = [watcher(f"seat{i}", bot=HeldBot(i, go)) for i in range(3)]
            for seat in seats:  # in order: seat i is seats[i]
                nursery.start_soon(seat.run)
                await seat.welcomed.wait()
            await host.started.wait()
            late = watcher("late", "spectator")
            nursery.start_soon(late.run)
            await late.noticed.wait()  # mid-game, it is sent the latest notice once caught up
            go.set()
    assert host.public.finished and host.public.fault is None
    for asked in (early, seats[0], late):
        assert asked.welcome.table["notices"] == ["owed"]
        assert_each_notice_is_its_replicas_reading(asked)
    assert isinstance(early.table, PublicTable) and early.table.finished
    for unasked in (quiet, seats[1], seats[2]):
        assert unasked.notices == [] and "notices" not in unasked.welcome.table


async def hello_answer(port, notices):
    """Send a hello whose ``notices`` is ``notices`` (as given, unchecked); the host's answer."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = Connection(CLIENT)
    me = Identity(bytes(range(32)), bytes(range(1, 33)))
    hello = Hello(protocol="shanghai-net", version=PROTOCOL_VERSION, name="raw",
                  sign_key=me.sign_public, box_key=me.box_public, join_code="",
                  role="spectator")
    conn.send(hello)  # the state it moves to; the bytes sent are ours
    async with stream:
        await stream.send_all(encode_frame({**hello.to_wire(), "notices": notices}))
        while (event := conn.next_event()) is NEED_DATA:
            conn.receive_data(await stream.receive_some(conn.room))
    assert not isinstance(event, ConnectionClosed)
    return event


@pytest.mark.parametrize("notices", ["owed", [1], ["x" * 33], [None]])
async def test_notices_that_are_not_an_array_of_names_are_refused_bad_message(notices):
    host = Host(HostConfig(players=3, random=seeded(b"bad notices")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            refused = await hello_answer(port, notices)
            welcome = await hello_answer(port, ["telepathy"])  # unknown: ignored
            nursery.cancel_scope.cancel()
    assert isinstance(refused, Refused) and refused.code == "bad_message"
    assert refused.reason.startswith("hello.notices")
    assert isinstance(welcome, Welcome) and welcome.table["notices"] == []
