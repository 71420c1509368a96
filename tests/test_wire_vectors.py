"""The implementation against protocol/: golden vectors, JSON Schemas, generated tables."""

import hashlib
import importlib.util
import json
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from shanghai_net.identity import fingerprint
from shanghai_net.wire import (BODY_KINDS, MESSAGE_TYPES, Chain, FrameDecoder, GameMessage,
                               RemoteProtocolError, decode_message, encode_frame, signed_bytes)
from shanghai_net.wire.examples import EXAMPLE_BODIES

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
spec = importlib.util.spec_from_file_location("make_vectors", PROTOCOL / "make_vectors.py")
make_vectors = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_vectors)


def load(relative):
    return json.loads((PROTOCOL / relative).read_text())


FRAMES = load("vectors/frames.json")
BAD_FRAMES = load("vectors/bad_frames.json")
SIGNING = load("vectors/signing.json")
PING = encode_frame({"type": "ping", "nonce": 1})


def from_hex_json(value):
    """Undo the JSON form of protocol/: {"$bin": hex} back to bytes."""
    if isinstance(value, dict):
        if set(value) == {"$bin"}:
            return bytes.fromhex(value["$bin"])
        return {key: from_hex_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_hex_json(item) for item in value]
    return value


# -- a checker for the subset of JSON Schema that protocol/schema uses ----------------------------

JSON_TYPES = {
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}
KNOWN_KEYWORDS = {"$schema", "$comment", "title", "description", "type", "const", "enum",
                  "minimum", "maximum", "minLength", "maxLength", "pattern", "maxItems",
                  "items", "required", "properties", "additionalProperties", "maxProperties",
                  "anyOf"}


def schema_errors(schema, value, path="$"):
    unknown = set(schema) - KNOWN_KEYWORDS
    assert not unknown, f"checker does not know {unknown}"
    errors = []
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(JSON_TYPES[t](value) for t in types):
            return [f"{path}: {value!r:.40} is not {types}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{path}: {value} < {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        errors.append(f"{path}: {value} > {schema['maximum']}")
    if "minLength" in schema and len(value) < schema["minLength"]:
        errors.append(f"{path}: shorter than {schema['minLength']}")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        errors.append(f"{path}: longer than {schema['maxLength']}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{path}: does not match {schema['pattern']}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(f"{path}: more than {schema['maxItems']} items")
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        errors.append(f"{path}: more than {schema['maxProperties']} entries")
    for i, item in enumerate(value if "items" in schema else []):
        errors += schema_errors(schema["items"], item, f"{path}[{i}]")
    errors += [f"{path}.{key}: missing" for key in schema.get("required", []) if key not in value]
    properties = schema.get("properties", {})
    for key, item in (value.items() if isinstance(value, dict) else []):
        if key in properties:
            errors += schema_errors(properties[key], item, f"{path}.{key}")
        elif schema.get("additionalProperties") is False:
            errors.append(f"{path}.{key}: not allowed")
        elif isinstance(schema.get("additionalProperties"), dict):
            errors += schema_errors(schema["additionalProperties"], item, f"{path}.{key}")
    if "anyOf" in schema and all(schema_errors(s, value, path) for s in schema["anyOf"]):
        errors.append(f"{path}: matches none of anyOf")
    return errors


def check_against_schema(value):
    """Errors of a message (JSON form) against its type's schema and its body's kind schema."""
    errors = schema_errors(load(f"schema/{value['type']}.json"), value)
    if value["type"] == "game":
        errors += schema_errors(load(f"schema/body/{value['body']['kind']}.json"), value["body"],
                                "$.body")
    return errors


# -- tests ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("relative", sorted(make_vectors.build()))
def test_generated_files_are_up_to_date(relative):
    expected = make_vectors.render(make_vectors.build()[relative])
    assert (PROTOCOL / relative).read_text() == expected, "run: python protocol/make_vectors.py"


def test_every_message_type_has_a_frame_vector_and_a_schema():
    assert {v["name"] for v in FRAMES} == set(MESSAGE_TYPES)
    assert {p.stem for p in (PROTOCOL / "schema").glob("*.json")} == set(MESSAGE_TYPES)
    assert {p.stem for p in (PROTOCOL / "schema/body").glob("*.json")} == set(BODY_KINDS)


@pytest.mark.parametrize("vector", FRAMES, ids=[v["name"] for v in FRAMES])
def test_frame_vector_decodes_to_its_value_and_encodes_back(vector):
    frame = bytes.fromhex(vector["hex"])
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    decoder = FrameDecoder()
    decoder.receive_data(frame)
    value = decoder.next_frame()
    assert make_vectors.to_json(value) == vector["value"]
    assert from_hex_json(vector["value"]) == value
    msg = decode_message(value)
    assert msg.TYPE == vector["name"]
    assert encode_frame(msg.to_wire()).hex() == vector["hex"]


@pytest.mark.parametrize("vector", BAD_FRAMES, ids=[v["name"] for v in BAD_FRAMES])
def test_bad_frame_vector_gets_its_code_and_the_stream_goes_on_unless_fatal(vector):
    decoder = FrameDecoder()
    decoder.receive_data(bytes.fromhex(vector["hex"]) + PING)
    with pytest.raises(RemoteProtocolError) as info:
        decode_message(decoder.next_frame())
    assert info.value.code == vector["code"]
    if not info.value.fatal:
        assert decoder.next_frame() == {"type": "ping", "nonce": 1}


@pytest.mark.parametrize("vector", FRAMES, ids=[v["name"] for v in FRAMES])
def test_every_frame_vector_satisfies_its_schema(vector):
    assert check_against_schema(vector["value"]) == []


@pytest.mark.parametrize("body", EXAMPLE_BODIES, ids=[b.KIND for b in EXAMPLE_BODIES])
def test_every_game_body_satisfies_its_schema(body):
    assert schema_errors(load(f"schema/body/{body.KIND}.json"),
                         make_vectors.to_json(body.to_wire())) == []


@pytest.mark.parametrize("vector", [v for v in BAD_FRAMES if v["code"] == "bad_message"],
                         ids=lambda v: v["name"])
def test_bad_message_vectors_fail_their_schema_too(vector):
    decoder = FrameDecoder()
    decoder.receive_data(bytes.fromhex(vector["hex"]))
    assert check_against_schema(make_vectors.to_json(decoder.next_frame())) != []


def test_signing_vectors_verify_with_plain_cryptography():
    game_id = bytes.fromhex(SIGNING["game_id"])
    keys = {}
    for seat in SIGNING["seats"]:
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seat["sign_seed"]))
        keys[seat["seat"]] = Ed25519PublicKey.from_public_bytes(bytes.fromhex(seat["sign_key"]))
        assert private.public_key() == keys[seat["seat"]]
    prev = bytes(32)
    for vector in SIGNING["messages"]:
        data = bytes.fromhex(vector["signed_bytes"])
        sig = bytes.fromhex(vector["sig"])
        assert bytes.fromhex(vector["prev"]) == prev
        assert data[:22] == b"\x96\xb4" + b"shanghai-net/v1/game"
        assert data[22:40] == b"\xc4\x10" + game_id and data[41:75] == b"\xc4\x20" + prev
        keys[vector["author"]].verify(sig, data)
        prev = hashlib.sha256(data + sig).digest()
        assert prev.hex() == vector["chain_hash"]


def test_signing_vectors_match_the_implementation():
    game_id = bytes.fromhex(SIGNING["game_id"])
    chain = Chain(game_id, {s["seat"]: bytes.fromhex(s["sign_key"]) for s in SIGNING["seats"]})
    for vector in SIGNING["messages"]:
        body = from_hex_json(vector["body"])
        prev = bytes.fromhex(vector["prev"])
        assert signed_bytes(game_id, vector["seq"], prev, vector["author"], body).hex() == \
            vector["signed_bytes"]
        decoder = FrameDecoder()
        decoder.receive_data(bytes.fromhex(vector["frame"]))
        msg = decode_message(decoder.next_frame())
        assert isinstance(msg, GameMessage) and msg.sig.hex() == vector["sig"]
        assert chain.append(msg).hex() == vector["chain_hash"]


def test_fingerprint_vectors():
    for vector in load("vectors/fingerprints.json"):
        assert fingerprint(bytes.fromhex(vector["sign_key"])) == vector["fingerprint"]
        assert re.fullmatch(r"[0-9a-f]{4}(-[0-9a-f]{4}){3}", vector["fingerprint"])


DOC = (PROTOCOL.parent / "docs" / "protocol.md").read_text()


def test_the_spec_names_every_error_code_message_type_and_body_kind():
    from shanghai_net.wire import ERROR_CODES
    for name in [*ERROR_CODES, *MESSAGE_TYPES, *BODY_KINDS]:
        assert f"`{name}`" in DOC, name


def test_the_spec_transition_table_is_the_implementation_table():
    from shanghai_net.wire.state import EVENT_TRIGGERED, Role, State
    rows = re.findall(r"^\| (client|host) \| `(\w+)` \| (.*) \|$", DOC, re.MULTILINE)
    assert len(rows) == sum(len(t) for t in EVENT_TRIGGERED.values()) - 4  # closed, error rows
    for sender, state, allowed in rows:
        documented = {}
        for group in allowed.split(";"):
            if "→" in group:
                sent, after = group.split("→")
                (next_state,) = re.findall(r"`(\w+)`", after)
                documented.update(dict.fromkeys(re.findall(r"`(\w+)`", sent), State(next_state)))
        assert documented == EVENT_TRIGGERED[Role(sender)][State(state)], (sender, state)
