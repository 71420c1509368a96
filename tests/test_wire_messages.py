"""Messages: every type round-trips; every field is checked; unknown fields are ignored."""

import dataclasses

import pytest

from shanghai_net.wire import (BODY_KINDS, MESSAGE_TYPES, GameMessage, RemoteProtocolError,
                               decode_frame_body, decode_message, encode_frame)
from shanghai_net.wire.examples import EXAMPLE_BODIES, example_messages
from shanghai_net.wire.fields import Float

MESSAGES = {m.TYPE: m for m in example_messages()}
BODIES = {b.KIND: b for b in EXAMPLE_BODIES}


def wire_fields(cls):
    return [f for f in dataclasses.fields(cls) if "wire" in f.metadata]


def required_fields(cls):
    return [f.name for f in wire_fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]


def game_with_body(body_wire):
    wire = MESSAGES["game"].to_wire()
    wire["body"] = body_wire
    return wire


def bad_message(wire):
    with pytest.raises(RemoteProtocolError) as info:
        decode_message(wire)
    assert info.value.code == "bad_message", info.value
    return info.value.reason


def test_examples_cover_the_whole_catalogue():
    assert set(MESSAGES) == set(MESSAGE_TYPES)
    assert set(BODIES) == set(BODY_KINDS)


@pytest.mark.parametrize("msg", MESSAGES.values(), ids=MESSAGES.keys())
def test_every_message_round_trips_through_a_frame(msg):
    decoded = decode_message(decode_frame_body(encode_frame(msg.to_wire())[4:]))
    assert decoded == msg
    assert type(decoded) is type(msg)


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_every_game_body_round_trips(body):
    wire = game_with_body(body.to_wire())
    decoded = decode_message(decode_frame_body(encode_frame(wire)[4:]))
    assert decoded.body == body


@pytest.mark.parametrize("msg", MESSAGES.values(), ids=MESSAGES.keys())
def test_unknown_fields_are_ignored(msg):
    wire = msg.to_wire()
    wire["from_the_future"] = {"x": [1]}
    assert decode_message(wire) == msg


FIELD_CASES = [(m.TYPE, f.name) for m in MESSAGES.values() for f in wire_fields(type(m))]
NUMBERS = {(m.TYPE, f.name) for m in MESSAGES.values() for f in wire_fields(type(m))
           if isinstance(f.metadata["wire"], Float)}
"""The fields that take a float (seconds): a string is their wrong type."""
BODY_FIELD_CASES = [(b.KIND, f.name) for b in BODIES.values() for f in wire_fields(type(b))]


@pytest.mark.parametrize("type_name,field", FIELD_CASES)
def test_a_wrong_type_in_any_field_names_the_field_and_quotes_the_value(type_name, field):
    wire = MESSAGES[type_name].to_wire()
    wire[field] = "0.25" if (type_name, field) in NUMBERS else 0.25
    reason = bad_message(wire)
    assert reason.startswith(f"{type_name}.{field}: ") and "0.25" in reason


def test_a_long_value_is_quoted_cut_to_sixty_characters():
    """An error quotes what it refused, but never more than 60 characters of it (a peer's error
    message is bounded, and a huge value is no use to read)."""
    for value, shown in (("x" * 58, repr("x" * 58)), ("x" * 59, repr("x" * 59)[:57] + "...")):
        wire = MESSAGES["game"].to_wire()
        wire["seq"] = value
        assert bad_message(wire).endswith(f", got {shown}") and len(shown) == 60


FIELDED = {name: m for name, m in [*MESSAGES.items(), *BODIES.items()] if wire_fields(type(m))}


@pytest.mark.parametrize("msg", FIELDED.values(), ids=FIELDED.keys())
def test_a_decoded_message_cannot_be_changed_after_its_checks(msg):
    """What was checked (and signed) stays what it was: messages and bodies are frozen."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(msg, wire_fields(type(msg))[0].name, None)


@pytest.mark.parametrize("kind,field", BODY_FIELD_CASES)
def test_a_wrong_type_in_any_body_field_names_the_path(kind, field):
    body = BODIES[kind].to_wire()
    body[field] = 0.25
    assert bad_message(game_with_body(body)).startswith(f"game.body.{field}: ")


@pytest.mark.parametrize("type_name,field",
                         [(t, f) for t, m in MESSAGES.items() for f in required_fields(type(m))])
def test_a_missing_required_field_is_reported(type_name, field):
    wire = MESSAGES[type_name].to_wire()
    del wire[field]
    assert bad_message(wire) == f"{type_name}.{field}: missing"


RANGE_CASES = {
    "seat 8": ("welcome", "seat", 8),
    "negative seq": ("game", "seq", -1),
    "bool for an int": ("game", "seq", True),
    "int for a bool": ("ready", "ready", 1),
    "str for bytes": ("hello", "sign_key", "a" * 32),
    "31-byte key": ("hello", "sign_key", b"\x00" * 31),
    "empty name": ("hello", "name", ""),
    "33-char name": ("hello", "name", "n" * 33),
    "unknown role": ("hello", "role", "dealer"),
    "long chat": ("chat", "text", "x" * 501),
    "nonce over 64 bits": ("ping", "nonce", 2**64),
    "15-byte game id": ("start_game", "game_id", b"\x00" * 15),
    "nested rules": ("lobby_state", "rules", {"a": [1]}),
    "long rule value": ("lobby_state", "rules", {"a": "x" * 201}),
    "nine seats": ("start_game", "seats", [MESSAGES["start_game"].to_wire()["seats"][0]] * 9),
    "table not a map": ("welcome", "table", [1]),
}


@pytest.mark.parametrize("case", RANGE_CASES.values(), ids=RANGE_CASES.keys())
def test_out_of_range_values_are_bad_messages(case):
    type_name, field, value = case
    wire = MESSAGES[type_name].to_wire()
    wire[field] = value
    assert bad_message(wire).startswith(f"{type_name}.{field}")


def test_a_bool_field_takes_only_true_or_false_and_says_so():
    assert bad_message({"type": "ready", "ready": 1}) == \
        "ready.ready: expected true or false, got 1"


def test_an_array_of_exactly_its_bound_is_fine_and_one_more_is_refused_saying_the_bound():
    """hello.notices holds at most 16 names."""
    wire = MESSAGES["hello"].to_wire()
    wire["notices"] = ["owed"] * 16
    assert decode_message(wire).notices == ("owed",) * 16
    wire["notices"].append("owed")
    assert bad_message(wire).startswith("hello.notices: expected an array of at most 16 "
                                        "items, got ['owed', ")


def test_chat_of_exactly_500_characters_is_fine():
    assert decode_message({"type": "chat", "text": "x" * 500}).text == "x" * 500


def test_nested_paths_are_named():
    wire = MESSAGES["lobby_state"].to_wire()
    wire["seats"][1]["name"] = 5
    assert bad_message(wire).startswith("lobby_state.seats[1].name: ")
    body = {"kind": "go_down", "melds": [[1, 2, 3], [4, 5, 216]]}
    assert bad_message(game_with_body(body)).startswith("game.body.melds[1][2]: expected an "
                                                         "integer 0..215, got 216")


def test_card_ids_span_every_physical_card():
    assert decode_message(game_with_body({"kind": "discard", "card": 215,
                                          "shanghai": False})).body.card == 215


def test_a_bad_game_message_carries_its_authors_counter():
    wire = game_with_body({"kind": "discard", "card": "7H", "shanghai": False})
    wire["counter"] = 41
    with pytest.raises(RemoteProtocolError) as info:
        decode_message(wire)
    assert info.value.ref_counter == 41


def test_unknown_type_and_unknown_body_kind():
    with pytest.raises(RemoteProtocolError) as info:
        decode_message({"type": "teleport"})
    assert info.value.code == "unknown_message" and "'teleport'" in info.value.reason
    with pytest.raises(RemoteProtocolError) as info:
        decode_message(game_with_body({"kind": "steal_hand"}))
    assert info.value.code == "unknown_message" and "'steal_hand'" in info.value.reason


def test_game_message_keeps_the_body_exactly_as_received():
    body = {**BODIES["discard"].to_wire(), "note": "from a newer peer"}
    decoded = decode_message(game_with_body(body))
    assert decoded.signed_body == body and decoded.to_wire()["body"] == body
    assert decoded.body == BODIES["discard"]


def test_locally_built_game_message_sends_its_typed_body():
    msg = GameMessage(author=2, counter=0, body=BODIES["draw_stock"], sig=bytes(64))
    assert msg.to_wire()["body"] == {"kind": "draw_stock"}
