"""The host's parts each alone, without sockets: the lobby seats and starts a game from its
clients' hellos; a seat closed for abuse stays closed; the history answers a message's author
with ``placed`` and everyone else with the message."""

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.config import HostConfig
from shanghai_net.net.history import History
from shanghai_net.net.link import Connections
from shanghai_net.net.lobby import Lobby
from shanghai_net.table.public import PublicTable
from shanghai_net.rules.ruleset import preset
from shanghai_net.wire.messages import (PROTOCOL_NAME, PROTOCOL_VERSION, Hello, Placed, Refused,
                                        StartGame, Welcome, game_id_of)


def hello(identity: Identity, name: str, nonce: bytes | None = b"n" * 32) -> Hello:
    return Hello(protocol=PROTOCOL_NAME, version=PROTOCOL_VERSION, name=name,
                 sign_key=identity.sign_public, box_key=identity.box_public, join_code="",
                 role="player", nonce=nonce)


class Parts:
    """A lobby over connections with no stream: what each is sent stays in its queue."""

    def __init__(self, players: int = 3) -> None:
        self.config = HostConfig(players=players, random=seeded(b"parts"))
        self.history = History(self.config.max_frame)
        barred: set[bytes] = set()
        self.started: list[StartGame] = []
        self.public: PublicTable | None = None
        self.connections = Connections(self.config, self.history, barred, None, None)
        self.lobby = Lobby(self.config, Identity(bytes(32), bytes(32)), preset("davis"), players,
                           self.connections.clients, self.history, barred, None, self._begin,
                           lambda: None, lambda: self.public)

    def _begin(self, start: StartGame) -> None:
        self.started.append(start)
        self.public = PublicTable(start)

    def connect(self):
        client = self.connections.new_client(None)
        self.connections.clients.add(client)
        return client


def sent(client, kind):
    return [m for m in client.outq if isinstance(m, kind)]


def test_the_lobby_seats_lowest_first_refuses_a_second_seat_for_one_key_and_starts_when_ready():
    parts = Parts(players=3)
    people = [Identity(bytes([i]) * 32, bytes([i]) * 32) for i in range(3)]
    clients = [parts.connect() for _ in range(3)]
    for i, (client, who) in enumerate(zip(clients, people)):
        parts.lobby.on_hello(client, hello(who, f"p{i}", nonce=bytes([i]) * 32))
        assert client.seat == i and sent(client, Welcome)[0].seat == i
    twin = parts.connect()
    parts.lobby.on_hello(twin, hello(people[1], "again"))
    refused = sent(twin, Refused)
    assert twin.seat is None and twin.closing and refused[0].code == "table_full"
    assert "seat 1" in refused[0].reason and "--fresh-identity" in refused[0].reason
    for client in clients[:2]:
        parts.lobby.on_ready(client, True)
    assert parts.started == [] and parts.lobby.start is None
    parts.lobby.on_ready(clients[2], True)
    start = parts.lobby.start
    assert parts.started == [start] and start.nonces == tuple(bytes([i]) * 32 for i in range(3))
    assert start.game_id == game_id_of(start.host_nonce, start.nonces)
    assert all(sent(c, StartGame) == [start] and c.in_game for c in clients)


def a_game_of_three():
    """A lobby whose three seats sat down and started the game: the parts, the seats' keys and
    their connections."""
    parts = Parts(players=3)
    people = [Identity(bytes([i]) * 32, bytes([i]) * 32) for i in range(3)]
    clients = [parts.connect() for _ in range(3)]
    for i, (client, who) in enumerate(zip(clients, people)):
        parts.lobby.on_hello(client, hello(who, f"p{i}", nonce=bytes([i]) * 32))
        parts.lobby.on_ready(client, True)
    return parts, people, clients


def test_a_seat_closed_for_abuse_may_not_come_back_but_one_that_dropped_may():
    parts, people, clients = a_game_of_three()
    clients[1].abuse("a flood")
    assert clients[1].left and parts.lobby.barred == {people[1].sign_public}
    for client in clients[1:]:
        client.connected = False
        parts.lobby.closed(client)
    back = parts.connect()
    parts.lobby.on_hello(back, hello(people[1], "p1 again"))
    assert [(r.code, "seat 1" in r.reason) for r in sent(back, Refused)] == [("abuse", True)]
    dropped = parts.connect()
    parts.lobby.on_hello(dropped, hello(people[2], "p2 again"))
    welcome = sent(dropped, Welcome)[0]
    assert not sent(dropped, Refused) and welcome.seat == 2 and welcome.challenge is not None
    assert dropped.rejoining == (2, welcome.challenge)


def test_the_author_of_a_message_is_told_its_place_and_the_others_are_sent_it():
    from shanghai_net.wire import sign_wire
    from shanghai_net.wire.messages import GameMessage, PassClaim

    parts = Parts()
    author, other = parts.connect(), parts.connect()
    for client in (author, other):
        client.in_game = True
    key = Identity(bytes(range(32)), bytes(32)).sign_key
    msg = GameMessage.from_wire({**sign_wire(key, bytes(32), 0, 7, PassClaim().to_wire()),
                                 "seq": 0})
    parts.history.append(msg, author.number)
    assert author.next_message() == (Placed(seq=0, counter=7), None)
    assert other.next_message() == (msg, parts.history.frames[0])
    assert author.next_message() == other.next_message() == (None, None)


def test_a_refusal_of_a_game_message_comes_after_the_messages_sequenced_before_it():
    """Session 19's CI, the votes-again game: seat 0's key share of a card drawn before a vote
    that voided the round was refused after the vote, and the refusal, queued ahead of the
    history, reached the client before the vote did: the client could not see the race and
    counted it as an error.  A refusal of a game message is sent once the messages sequenced
    before it are (protocol.md 6.4); an error about no game message, at once."""
    from shanghai_net.wire import RemoteProtocolError, sign_wire
    from shanghai_net.wire.messages import Error, GameMessage, VoidRound

    parts = Parts()
    author = parts.connect()
    author.in_game = True
    key = Identity(bytes(range(32)), bytes(32)).sign_key
    vote = GameMessage.from_wire({**sign_wire(key, bytes(32), 1, 7, VoidRound(
        round=1, seat=3).to_wire()), "seq": 0})
    parts.history.append(vote, None)  # the vote that voids the round, not sent yet
    author.error(RemoteProtocolError("out_of_turn", "no key share is owed", None, 16))
    author.error(RemoteProtocolError("rate_limited", "over budget"))
    assert author.next_message()[0] == Error(code="rate_limited", reason="over budget")
    assert author.next_message() == (vote, parts.history.frames[0])
    assert author.next_message()[0] == Error(code="out_of_turn", reason="no key share is owed",
                                             ref_counter=16)
    assert author.next_message() == (None, None) and not author.next_due

def test_a_proven_key_does_not_take_a_seat_from_its_live_connection_but_from_a_gone_one():
    """Issue 24: the host's own key joining again during the game (no --fresh-identity) is
    refused, naming --fresh-identity, and the seat's player stays; once that connection is gone
    (a crash, a pulled cable the host has noticed) the same proof takes the seat back."""
    from shanghai_net.wire import sign_proof

    parts, people, clients = a_game_of_three()
    game_id = parts.lobby.start.game_id

    def rejoin(name: str):
        client = parts.connect()
        parts.lobby.on_hello(client, hello(people[0], name))
        challenge = sent(client, Welcome)[0].challenge
        parts.lobby.on_proof(client, sign_proof(people[0].sign_key, game_id, challenge))
        return client

    twin = rejoin("bea")
    refused = sent(twin, Refused)
    assert [r.code for r in refused] == ["table_full"] and twin.closing and twin.seat is None
    assert "seat 0 (p0)" in refused[0].reason and "--fresh-identity" in refused[0].reason
    assert len(refused[0].reason) <= 500
    assert parts.lobby.seats[0] is clients[0] and clients[0].connected
    assert not sent(twin, StartGame)

    clients[0].connected = False  # its program crashed: the host saw the connection end
    parts.lobby.closed(clients[0])
    back = rejoin("p0")
    assert not sent(back, Refused) and back.seat == 0 and parts.lobby.seats[0] is back
    assert sent(back, StartGame) == [parts.lobby.start]


def test_a_person_refused_a_seat_is_told_to_sit_at_another_table_or_open_one():
    """Issue 24: a full table said `refused: table_full` with no hint of what to do."""
    parts = Parts(players=3)
    for i in range(3):
        parts.lobby.on_hello(parts.connect(),
                             hello(Identity(bytes([i]) * 32, bytes([i]) * 32), f"p{i}"))
    late = parts.connect()
    parts.lobby.on_hello(late, hello(Identity(bytes([9]) * 32, bytes([9]) * 32), "late"))
    parts, _, _ = a_game_of_three()
    fresh = parts.connect()  # a --fresh-identity player whose program started again
    parts.lobby.on_hello(fresh, hello(Identity(bytes([8]) * 32, bytes([8]) * 32), "again"))
    reasons = [sent(c, Refused)[0].reason for c in (late, fresh)]
    assert reasons[0].startswith("no free seat at this table (its 3 seats are taken): ")
    assert reasons[1].startswith("the game at this table has started without you: ")
    assert all(r.endswith("(shanghai join HOST --table NAME), or open one (--table NAME --open)")
               for r in reasons)


def test_a_proposed_key_takes_no_seat_from_its_live_player_and_a_successor_takes_it():
    """A key the host proposed for a seat still played proves it holds its key: the seat's
    player keeps its connection (only a seat voted gone, or one handed to that key, is taken
    from a live connection); the successor a ``hand_over`` named takes it at once."""
    from shanghai_net.table.roster import Holder
    from shanghai_net.wire import sign_proof
    from shanghai_net.wire.messages import Replace

    parts, people, clients = a_game_of_three()
    game_id = parts.lobby.start.game_id
    newcomer = Identity(bytes([9]) * 32, bytes([9]) * 32)
    parts.public._replace(0, Replace(seat=1, name="x", role="player",
                                     sign_key=newcomer.sign_public, box_key=newcomer.box_public))

    def prove(who):
        client = parts.connect()
        parts.lobby.on_hello(client, hello(who, "x"))
        challenge = sent(client, Welcome)[0].challenge
        parts.lobby.on_proof(client, sign_proof(who.sign_key, game_id, challenge))
        return client

    waiting = prove(newcomer)  # it waits beside the seat's player until the stream seats it
    assert parts.lobby.seats[1] is clients[1] and not clients[1].closing
    assert waiting is not parts.lobby.seats[1]
    bea = Identity(bytes([10]) * 32, bytes([10]) * 32)
    held = parts.public.holders[1]  # a hand-over to bea: the seat is her key's now
    parts.public.holders[1] = Holder("bea", "player", bea.sign_public, held.box_key, 1, held)
    successor = prove(bea)
    assert not sent(successor, Refused) and parts.lobby.seats[1] is successor
    assert clients[1].closing


def test_the_lobby_offers_a_stand_in_s_seat_to_its_first_holder_or_a_late_person_one_at_a_time():
    """Issue 22, in process: seat 2 was voted gone and a stand-in bot plays it.  Seat 2's first
    holder says hello: the lobby asks the host to propose its keys for seat 2, and while that
    proposal is on its way offers the seat to no one else (a late person is refused).  Once it
    is sequenced the hello is answered as a rejoin that says the seat changed hands; the proof
    puts the connection in ``waiting`` (the stand-in plays on) with the game from its start, and
    when the stream gives seat 2 its keys at the next deal it is the seat's connection.  A key
    closed for abuse is offered nothing."""
    from shanghai_net.wire import sign_proof
    from shanghai_net.wire.messages import Replace
    from test_table_roster import Roster, newcomer, stand_in_plays

    t = Roster(3, seed=16)
    t.run_until(lambda: t.host.round == 2 and t.host.settled)
    stand_in_plays(t, 2, newcomer(12))
    config = HostConfig(players=3, random=seeded(b"parts"))
    connections = Connections(config, History(config.max_frame), set(), None, None)

    def lobby(barred=()):
        return Lobby(config, t.host_id, preset("davis"), 3, connections.clients,
                     connections.history, set(barred), t.host.start_game, None, lambda: None,
                     lambda: t.host)

    def connect():
        client = connections.new_client(None)
        connections.clients.add(client)
        return client

    closed = lobby(barred=[t.ids[2].sign_public])
    barred = connect()
    assert closed.on_hello(barred, hello(t.ids[2], "p2")) is None
    assert [r.code for r in sent(barred, Refused)] == ["abuse"]

    table, first, late = lobby(), connect(), connect()
    offer = table.on_hello(first, hello(t.ids[2], "p2"))
    assert offer == Replace(seat=2, name="p2", role="player", sign_key=t.ids[2].sign_public,
                            box_key=t.ids[2].box_public)
    assert table.offering == {2: first} and not first.outq
    assert table.on_hello(late, hello(newcomer(13), "late")) is None
    assert "started without you" in sent(late, Refused)[0].reason

    t.follow(2, t.ids[2])
    t.host_says(offer)
    table.offering.clear()  # as the host does once the proposal is sequenced
    later = connect()  # a person's proposal waits for seat 2: it is not offered again
    assert table.on_hello(later, hello(newcomer(14), "later")) is None and sent(later, Refused)
    assert table.on_hello(first, hello(t.ids[2], "p2"), offered=True) is None
    (welcome,) = sent(first, Welcome)
    assert welcome.seat == 2 and welcome.table["replacing"] is True and first.replacing
    bot = table.seats[2] = connect()  # the stand-in's live connection
    bot.seat, bot.hello = 2, hello(newcomer(12), "bot")
    table.on_proof(first, sign_proof(t.ids[2].sign_key, t.host.game_id, welcome.challenge))
    assert table.waiting == {2: first} and first.seat == 2 and first.in_game
    assert first.cursor == 0 and table.seats[2] is bot and bot.connected and not bot.closing
    t.run_until(lambda: t.host.round == 4)
    table.changed()  # the host's sequencer calls it when a seat's keys change
    assert table.waiting == {} and table.seats[2] is first and bot.seat is None
    state = table.lobby_state()
    assert [s.name for s in state.seats if s.seat == 2] == ["p2"]
