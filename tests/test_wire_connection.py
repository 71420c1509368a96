"""The connection state machine: handshake, lobby, game, close; wrong-state and bad input."""

import struct

import msgpack
import pytest
from hypothesis import given, settings, strategies as st

from shanghai_net.wire import (BODY_KINDS, CLIENT, HOST, MESSAGE_TYPES, NEED_DATA, Bye, Chat,
                               Connection, ConnectionClosed, Error, GameMessage, Hello,
                               LocalProtocolError, Ping, Pong, Ready, Refused, RemoteProtocolError,
                               State, Welcome)
from shanghai_net.wire.messages import PROTOCOL_VERSION
from shanghai_net.wire.examples import example_messages

EX = {m.TYPE: m for m in example_messages()}
HELLO, WELCOME, LOBBY_STATE, START, GAME, PROOF = (
    EX[t] for t in ("hello", "welcome", "lobby_state", "start_game", "game", "proof"))


def deliver(sender: Connection, receiver: Connection, msg):
    receiver.receive_data(sender.send(msg))
    event = receiver.next_event()
    assert receiver.next_event() is NEED_DATA
    return event


def remote_error(conn: Connection) -> RemoteProtocolError:
    with pytest.raises(RemoteProtocolError) as info:
        conn.next_event()
    return info.value


def local_error(conn: Connection, msg) -> LocalProtocolError:
    with pytest.raises(LocalProtocolError) as info:
        conn.send(msg)
    return info.value


def pair(until: str = "lobby", hello=HELLO):
    client, host = Connection(CLIENT), Connection(HOST)
    if until == "hello":
        return client, host
    deliver(client, host, hello)
    if until == "answer":
        return client, host
    deliver(host, client, WELCOME)
    if until == "lobby":
        return client, host
    deliver(host, client, START)
    return client, host


def states(client, host):
    """Both connections' view of (client state, host state), which must agree once quiet."""
    seen = (client.our_state, client.their_state)
    assert seen == (host.their_state, host.our_state)
    return seen


def test_handshake_lobby_game_and_goodbye():
    client, host = Connection(CLIENT), Connection(HOST)
    assert states(client, host) == (State.HELLO, State.HELLO)
    assert deliver(client, host, HELLO) == HELLO
    assert states(client, host) == (State.ANSWER, State.ANSWER)
    assert deliver(host, client, WELCOME) == WELCOME
    assert states(client, host) == (State.LOBBY, State.LOBBY)
    assert deliver(client, host, Ready(ready=True)) == Ready(ready=True)
    assert deliver(host, client, LOBBY_STATE) == LOBBY_STATE
    assert deliver(host, client, START) == START
    assert states(client, host) == (State.GAME, State.GAME)
    assert deliver(client, host, GAME) == GAME
    assert deliver(host, client, GAME) == GAME
    assert deliver(client, host, Chat(text="gg")) == Chat(text="gg")
    assert deliver(client, host, Bye(reason="done")) == Bye(reason="done")
    assert states(client, host) == (State.CLOSED, State.GAME)
    deliver(host, client, Bye(reason="done"))
    assert states(client, host) == (State.CLOSED, State.CLOSED)


WRONG_SENDS = {
    "client ready before hello": ("hello", CLIENT, Ready(ready=True)),
    "client chat before hello": ("hello", CLIENT, Chat(text="hi")),
    "client second hello": ("answer", CLIENT, HELLO),
    "client ping while waiting for the answer": ("answer", CLIENT, Ping(nonce=1)),
    "client game move in the lobby": ("lobby", CLIENT, GAME),
    "client ready in the game": ("game", CLIENT, Ready(ready=False)),
    "client sends a welcome": ("lobby", CLIENT, WELCOME),
    "client sends a start": ("lobby", CLIENT, START),
    "host welcome before hello": ("hello", HOST, WELCOME),
    "host lobby state before welcome": ("answer", HOST, LOBBY_STATE),
    "host second welcome": ("lobby", HOST, WELCOME),
    "host game move in the lobby": ("lobby", HOST, GAME),
    "host sends a hello": ("lobby", HOST, HELLO),
    "host refuses in the game": ("game", HOST, Refused(code="table_full", reason="")),
    "client proof before the answer": ("answer", CLIENT, PROOF),
    "client proof in the game": ("game", CLIENT, PROOF),
    "host sends a proof": ("lobby", HOST, PROOF),
}


@pytest.mark.parametrize("case", WRONG_SENDS.values(), ids=WRONG_SENDS.keys())
def test_sending_in_the_wrong_state_is_a_local_error_and_changes_nothing(case):
    until, role, msg = case
    client, host = pair(until)
    conn = client if role is CLIENT else host
    before = states(client, host)
    assert local_error(conn, msg).code == "wrong_state"
    assert states(client, host) == before


def raw_frame(msg) -> bytes:
    """The frame of ``msg`` without the sender's state checks, as a misbehaving peer sends it."""
    return raw_frame_of(msg.to_wire())


@pytest.mark.parametrize("case", WRONG_SENDS.values(), ids=WRONG_SENDS.keys())
def test_receiving_in_the_wrong_state_is_a_remote_error_and_changes_nothing(case):
    until, role, msg = case
    client, host = pair(until)
    receiver = host if role is CLIENT else client
    before = (receiver.our_state, receiver.their_state)
    receiver.receive_data(raw_frame(msg))
    assert remote_error(receiver).code == "wrong_state"
    assert (receiver.our_state, receiver.their_state) == before


def test_after_a_wrong_state_message_the_next_message_is_read():
    client, host = pair("lobby")
    host.receive_data(raw_frame(GAME) + raw_frame(Ready(ready=True)))
    error = remote_error(host)
    assert (error.code, error.ref_seq, error.ref_counter) == ("wrong_state", GAME.seq,
                                                                GAME.counter)
    assert GAME.counter is not None and host.next_event() == Ready(ready=True)


def test_ready_crossing_start_game_in_flight_is_answered_not_fatal():
    """Documented race: the host has sent StartGame when the client's Ready arrives."""
    client, host = pair("lobby")
    in_flight = client.send(Ready(ready=False))
    host.send(START)
    host.receive_data(in_flight + raw_frame(Ping(nonce=1)))
    assert remote_error(host).code == "wrong_state"
    assert host.next_event() == Ping(nonce=1)


def test_unsupported_version_must_be_refused():
    client, host = pair("hello")
    host.receive_data(client.send(Hello(**{**vars_of(HELLO), "version": 1})))  # the old one
    error = remote_error(host)
    assert error.code == "version" and "version 1" in error.reason
    assert local_error(host, WELCOME).code == "wrong_state"
    deliver(host, client, Refused(code="version", reason=error.reason))
    assert states(client, host) == (State.CLOSED, State.CLOSED)


def test_a_version_9_hello_is_refused_naming_both_versions():
    """Version 10 is the dropout-tolerant deal (docs/dealing.md): ``start_game`` carries
    ``host_run`` and ``share_threshold``, and every party hashes the start_game map it received;
    a v9 peer would hash the map it decoded and part from the chain at seq 0, so it is refused,
    told both versions."""
    assert PROTOCOL_VERSION == 10
    client, host = pair("hello")
    host.receive_data(client.send(Hello(**{**vars_of(HELLO), "version": 9})))
    error = remote_error(host)
    assert error.code == "version"
    assert error.reason.startswith("protocol version 9 is not spoken here: this host speaks "
                                   "version 10"), error.reason


def test_another_protocol_must_be_refused():
    client, host = pair("hello")
    host.receive_data(client.send(Hello(**{**vars_of(HELLO), "protocol": "gin-rummy"})))
    assert remote_error(host).code == "version"


def test_host_speaking_several_versions_accepts_any_of_them():
    client, host = Connection(CLIENT), Connection(HOST, versions=frozenset({1, 2}))
    hello = Hello(**{**vars_of(HELLO), "version": 2})
    assert deliver(client, host, hello) == hello
    deliver(host, client, Welcome(version=2, seat=0, table={}))
    assert states(client, host) == (State.LOBBY, State.LOBBY)


def test_welcome_with_another_version_is_a_remote_error():
    client, host = pair("answer")
    client.receive_data(host.send(Welcome(version=PROTOCOL_VERSION + 1, seat=0, table={})))
    assert remote_error(client).code == "version"


def test_host_may_refuse_before_any_hello():
    client, host = pair("hello")
    client.receive_data(host.send(Refused(code="table_full", reason="8 seats taken")))
    assert client.next_event() == Refused(code="table_full", reason="8 seats taken")
    assert host.our_state is State.CLOSED


def test_a_rejoin_proof_is_sent_in_the_lobby_and_may_be_refused():
    """A seat rejoining a running game answers the welcome's challenge before its start_game;
    a proof that does not verify is refused there, after the welcome."""
    client, host = pair("lobby")
    assert deliver(client, host, PROOF) == PROOF
    assert states(client, host) == (State.LOBBY, State.LOBBY)
    refusal = Refused(code="bad_signature", reason="the proof does not verify")
    assert deliver(host, client, refusal) == refusal
    assert host.our_state is State.CLOSED


def test_spectator_may_chat_but_not_play_or_ready():
    spectator = Hello(**{**vars_of(HELLO), "role": "spectator"})
    client, host = pair("game", hello=spectator)
    assert local_error(client, GAME).code == "wrong_state"
    assert local_error(client, Ready(ready=True)).code == "wrong_state"
    assert local_error(client, PROOF).code == "wrong_state"
    assert deliver(client, host, Chat(text="nice")) == Chat(text="nice")
    host.receive_data(raw_frame(GAME))
    assert remote_error(host).code == "wrong_state"
    assert deliver(host, client, GAME) == GAME


def test_ping_pong_error_and_lobby_updates_during_the_game():
    client, host = pair("game")
    assert deliver(host, client, Ping(nonce=5)) == Ping(nonce=5)
    assert deliver(client, host, Pong(nonce=5)) == Pong(nonce=5)
    assert deliver(client, host, Error(code="bad_signature", reason="seq 4")) is not None
    assert deliver(host, client, LOBBY_STATE) == LOBBY_STATE
    assert deliver(host, client, START) == START  # the next game at the same table


def test_invalid_outgoing_message_is_a_local_bad_message():
    client, host = pair("lobby")
    assert local_error(client, Chat(text="x" * 501)).code == "bad_message"
    assert local_error(host, Welcome(version=2, seat=0, table={"f": object()})).code == \
        "bad_message"


def test_bad_game_message_is_answered_with_its_counter_and_the_game_goes_on():
    client, host = pair("game")
    wire = GAME.to_wire()
    wire["body"] = {"kind": "discard", "card": 999, "shanghai": False}
    host.receive_data(raw_frame_of(wire) + client.send(GAME))
    error = remote_error(host)
    assert (error.code, error.ref_counter) == ("bad_message", GAME.counter)
    assert isinstance(host.next_event(), GameMessage)


def test_garbage_frame_mid_game_does_not_poison_the_stream():
    client, host = pair("game")
    host.receive_data(struct.pack(">I", 3) + b"\xc1\xc1\xc1" + client.send(Chat(text="ok")))
    assert remote_error(host).code == "malformed_frame"
    assert host.next_event() == Chat(text="ok")


def test_unknown_message_type_is_answered_and_the_stream_goes_on():
    client, host = pair("lobby")
    host.receive_data(raw_frame_of({"type": "teleport", "to": "Paris"}) +
                      client.send(Ready(ready=True)))
    assert remote_error(host).code == "unknown_message"
    assert host.next_event() == Ready(ready=True)


def test_oversize_frame_is_fatal_but_we_may_still_say_why():
    client, host = Connection(CLIENT), Connection(HOST, max_frame=1000)
    host.receive_data(client.send(HELLO))
    host.next_event()
    host.receive_data(struct.pack(">I", 1001))
    for _ in range(2):
        assert remote_error(host).code == "frame_too_large"
    assert host.their_state is State.ERROR
    assert host.send(Refused(code="frame_too_large", reason="over 1000 bytes"))


def test_stream_end_is_an_event_and_closes_their_side():
    client, host = pair("lobby")
    host.receive_data(b"")
    assert host.next_event() == ConnectionClosed()
    assert host.their_state is State.CLOSED
    assert host.next_event() == ConnectionClosed()
    assert host.send(Bye(reason="you left"))


def test_stream_end_inside_a_frame_is_malformed_then_closed():
    client, host = pair("lobby")
    host.receive_data(client.send(Chat(text="half"))[:-1])
    host.receive_data(b"")
    assert remote_error(host).code == "malformed_frame"
    assert host.next_event() == ConnectionClosed()


def test_nothing_may_be_sent_after_bye():
    client, host = pair("lobby")
    client.send(Bye(reason="leaving"))
    assert local_error(client, Chat(text="one more thing")).code == "wrong_state"


def vars_of(msg):
    return {name: getattr(msg, name) for name in msg.__dataclass_fields__}


MSGPACK_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats(allow_nan=False)
    | st.text(max_size=40) | st.binary(max_size=70),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20)
FIELD_NAMES = sorted({name for cls in [*MESSAGE_TYPES.values(), *BODY_KINDS.values()]
                      for name in cls.__dataclass_fields__} | {"kind", "type"})


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(sorted(MESSAGE_TYPES) + ["nonsense"]),
       st.dictionaries(st.sampled_from(FIELD_NAMES), MSGPACK_VALUES, max_size=8),
       st.sampled_from(sorted(BODY_KINDS) + ["nonsense"]),
       st.dictionaries(st.sampled_from(FIELD_NAMES), MSGPACK_VALUES, max_size=5))
def test_any_map_in_the_game_state_is_a_message_or_a_remote_error(type_name, fields, kind, body):
    client, host = pair("game")
    wire = {**fields, "type": type_name}
    if type_name == "game" and "body" not in fields:
        wire["body"] = {**body, "kind": kind}
    host.receive_data(raw_frame_of(wire) + raw_frame_of({"type": "ping", "nonce": 3}))
    try:
        host.next_event()
    except RemoteProtocolError as exc:
        assert exc.code in ("malformed_frame", "unknown_message", "bad_message", "wrong_state")
    assert host.next_event() == Ping(nonce=3)
    assert host.our_state is State.GAME


def raw_frame_of(value) -> bytes:
    body = msgpack.packb(value, use_bin_type=True)
    return struct.pack(">I", len(body)) + body
