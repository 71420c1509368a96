"""The implementation against protocol/: golden vectors, JSON Schemas, generated tables."""

import hashlib
import importlib.util
import json
import re
import struct
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from shanghai_net.identity import fingerprint
from shanghai_net.wire import (BODY_KINDS, MESSAGE_TYPES, Chain, FrameDecoder, GameMessage,
                               RemoteProtocolError, decode_message, encode_frame, signed_bytes,
                               start_digest)
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
                  "minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems",
                  "items", "required", "properties", "additionalProperties", "maxProperties",
                  "anyOf", "prefixItems"}


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
    if "minItems" in schema and len(value) < schema["minItems"]:
        errors.append(f"{path}: fewer than {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(f"{path}: more than {schema['maxItems']} items")
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        errors.append(f"{path}: more than {schema['maxProperties']} entries")
    for i, item in enumerate(value if "items" in schema else []):
        errors += schema_errors(schema["items"], item, f"{path}[{i}]")
    for i, (item, item_schema) in enumerate(zip(value if "prefixItems" in schema else [],
                                                schema.get("prefixItems", []))):
        errors += schema_errors(item_schema, item, f"{path}[{i}]")
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
    assert {p.stem for p in (PROTOCOL / "schema").glob("*.json")} == set(MESSAGE_TYPES) | {"rules"}
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


@pytest.mark.parametrize("vector", FRAMES, ids=[v["name"] for v in FRAMES])
def test_frame_vector_encodes_from_its_json_alone(vector):
    """protocol/vectors/README.md: a reader that keeps 10.0 a float and 10 an integer, and the
    maps' keys in the file's order, writes the frame's bytes from its JSON value."""
    assert encode_frame(from_hex_json(vector["value"])).hex() == vector["hex"]


def test_every_float_in_the_vectors_is_written_with_a_fraction_and_is_float_64_on_the_wire():
    floats = []

    def number(text):
        floats.append(text)
        return float(text)

    for path in sorted((PROTOCOL / "vectors").glob("*.json")):
        json.loads(path.read_text(), parse_float=number)
    # README.md lists them: start_game's claim_timeout and audit_timeout, in frames.json and
    # signing.json; a JSON integer never has a fraction or an exponent
    assert sorted(floats) == ["10.0", "10.0", "60.0", "60.0"]
    readme = (PROTOCOL / "vectors" / "README.md").read_text()
    assert "`10.0` is `cb 40 24 00 00 00 00 00 00`" in readme
    start = next(v for v in FRAMES if v["name"] == "start_game")
    for field, value in [("claim_timeout", 10.0), ("audit_timeout", 60.0)]:
        packed = msgpack.packb(field) + b"\xcb" + struct.pack(">d", value)
        assert packed.hex() in start["hex"]
        assert msgpack.packb(field).hex() + msgpack.packb(int(value)).hex() not in start["hex"]


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


def sorted_maps(value):
    """Every map with its keys in order: the canonical form, written here from the spec."""
    if isinstance(value, dict):
        return {key: sorted_maps(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sorted_maps(item) for item in value]
    return value


def test_signing_vectors_verify_with_plain_cryptography():
    game_id = bytes.fromhex(SIGNING["game_id"])
    keys = {}
    for seat in SIGNING["seats"]:
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seat["sign_seed"]))
        keys[seat["seat"]] = Ed25519PublicKey.from_public_bytes(bytes.fromhex(seat["sign_key"]))
        assert private.public_key() == keys[seat["seat"]]
    # the chain starts at the start_game's digest: SHA-256 over msgpack([domain, canonical map])
    start = from_hex_json(SIGNING["start_game"])
    packed = msgpack.packb(["shanghai-net/v1/start", sorted_maps(start)], use_bin_type=True)
    prev = start_digest_of_json = hashlib.sha256(packed).digest()
    assert prev.hex() == SIGNING["start_digest"] and start["game_id"] == game_id
    links = []
    for vector in SIGNING["messages"]:
        data = bytes.fromhex(vector["signed_bytes"])
        sig = bytes.fromhex(vector["sig"])
        assert bytes.fromhex(vector["prev"]) == prev
        # [domain, start digest, author, counter, basis_seq, basis_head, body]: seq and prev are not
        # signed; a move's basis names a link of the chain
        assert data[:22] == b"\x97\xb4" + b"shanghai-net/v4/game"
        assert data[22:56] == b"\xc4\x20" + start_digest_of_json
        fields = msgpack.unpackb(data)
        assert fields[2:4] == [vector["author"], vector["counter"]]
        if vector["basis_seq"] is None:
            assert fields[4:6] == [None, None]
        else:
            assert fields[5] == links[vector["basis_seq"]] == bytes.fromhex(vector["basis_head"])
        keys[vector["author"]].verify(sig, data)
        link = msgpack.packb(["shanghai-net/v4/chain", vector["seq"], prev], use_bin_type=True)
        prev = hashlib.sha256(link + data + sig).digest()
        links.append(prev)
        assert prev.hex() == vector["chain_hash"]
    assert any(vector["basis_seq"] is not None for vector in SIGNING["messages"])


def test_signing_vectors_match_the_implementation():
    start = decode_message(from_hex_json(SIGNING["start_game"]))
    assert start_digest(start.to_wire()).hex() == SIGNING["start_digest"]
    chain = Chain({s["seat"]: bytes.fromhex(s["sign_key"]) for s in SIGNING["seats"]},
                  start_digest(start.to_wire()))
    for vector in SIGNING["messages"]:
        body = from_hex_json(vector["body"])
        head = vector["basis_head"] and bytes.fromhex(vector["basis_head"])
        assert signed_bytes(chain.start, vector["author"], vector["counter"], vector["basis_seq"],
                            head, body).hex() == vector["signed_bytes"]
        decoder = FrameDecoder()
        decoder.receive_data(bytes.fromhex(vector["sent_frame"]) + bytes.fromhex(vector["frame"]))
        sent, msg = decode_message(decoder.next_frame()), decode_message(decoder.next_frame())
        assert sent.seq is None  # the host fills it in
        assert "prev" not in sent.to_wire() and "prev" not in msg.to_wire()  # each peer knows it
        assert chain.place(sent) == msg
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


# -- the deal's cryptography, from docs/security.md "Byte layouts" alone -------------------------

DEAL = load("vectors/deal.json")
H = bytes.fromhex


def u16(n):
    return n.to_bytes(2, "big")


def u32(n):
    return n.to_bytes(4, "big")


def test_deal_context_is_its_documented_bytes():
    c = DEAL["context"]
    game_id = H(c["game_id"])
    assert H(c["ctx"]) == u16(len(game_id)) + game_id + u32(c["round"]) + u32(c["generation"])


@pytest.mark.parametrize("vector", DEAL["card_points"], ids=lambda v: str(v["card"]))
def test_card_point_vector_is_the_hash_to_the_curve_of_its_id(vector):
    from nacl.bindings import crypto_core_ed25519_from_uniform
    data = b"shanghai-net v1 card" + u16(vector["card"])
    assert H(vector["hash_input"]) == data
    assert H(vector["uniform"]) == hashlib.sha512(data).digest()[:32]
    assert crypto_core_ed25519_from_uniform(H(vector["uniform"])).hex() == vector["point"]


def test_seed_commitment_vector():
    v, ctx = DEAL["seed_commitment"], H(DEAL["context"]["ctx"])
    digest = hashlib.sha256(b"shanghai-net v1 seed commitment" + ctx + bytes([v["seat"]])
                            + H(v["seed"])).digest()
    assert digest.hex() == v["digest"]
    assert "sig" not in v  # a deal step is signed only as the game message that carries it


def derivation_input(v, label, index, attempt=0):
    return (b"shanghai-net v1 key" + H(DEAL["context"]["ctx"]) + bytes([v["seat"], len(label)])
            + label + u16(index) + bytes([attempt]) + H(v["seed"]))


def test_key_derivation_vectors_are_shake_256_reduced_mod_l():
    from nacl.bindings import crypto_core_ed25519_scalar_reduce
    v = DEAL["derivation"]
    named = [(b"pass key", 0, v["pass_key"])] + [(b"card key", k["index"], k)
                                                 for k in v["card_keys"]]
    assert len(v["card_keys"]) == v["cards"]
    for label, index, vector in named:
        data = derivation_input(v, label, index)
        assert H(vector["input"]) == data
        wide = hashlib.shake_256(data).digest(64)
        assert crypto_core_ed25519_scalar_reduce(wide).hex() == vector["scalar"]


def test_permutation_vector_is_fisher_yates_over_the_shake_256_words():
    v = DEAL["derivation"]
    data = derivation_input(v, b"permutation", 0)
    assert H(v["permutation"]["input"]) == data
    stream = hashlib.shake_256(data).digest(4 * 64)
    words = iter(int.from_bytes(stream[k:k + 4], "big") for k in range(0, len(stream), 4))
    order = list(range(v["cards"]))
    for i in reversed(range(1, v["cards"])):
        w = next(w for w in words if w < 2**32 - 2**32 % (i + 1))
        order[i], order[w % (i + 1)] = order[w % (i + 1)], order[i]
    assert order == v["permutation"]["order"]


def test_pass_1_vector_keys_the_permuted_card_points():
    from nacl.bindings import crypto_scalarmult_ed25519_noclamp
    v = DEAL["derivation"]
    inputs = [H(p) for p in v["pass_1"]["in"]]
    assert [p["point"] for p in DEAL["card_points"]] == v["pass_1"]["in"]
    a = H(v["pass_key"]["scalar"])
    assert [crypto_scalarmult_ed25519_noclamp(a, inputs[i]).hex()
            for i in v["permutation"]["order"]] == v["pass_1"]["out"]


def test_sealed_share_vector_opens_with_x25519_hkdf_and_chacha20_poly1305():
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    v, c, d = DEAL["sealed_share"], DEAL["context"], DEAL["derivation"]
    assert d["seat"] == v["sender"]  # the sender's seed is the derivation's
    box_input = (b"shanghai-net v1 key" + H(c["ctx"]) + bytes([v["sender"]]) + bytes([3]) + b"box"
                 + bytes([v["recipient"]]) + u16(len(v["positions"]))
                 + b"".join(u16(p) for p in v["positions"]) + H(d["seed"]))
    assert box_input.hex() == v["box_secret_input"]
    assert hashlib.shake_256(box_input).digest(32).hex() == v["box_secret"]
    raw = (Encoding.Raw, PublicFormat.Raw)
    ephemeral = X25519PrivateKey.from_private_bytes(H(v["box_secret"]))
    assert ephemeral.public_key().public_bytes(*raw).hex() == v["epk"]
    recipient = X25519PrivateKey.from_private_bytes(H(v["recipient_box_seed"]))
    assert recipient.public_key().public_bytes(*raw).hex() == v["recipient_box_key"]
    shared = recipient.exchange(ephemeral.public_key())  # the recipient's side of the exchange
    assert shared.hex() == v["shared_secret"]
    info = b"shanghai-net v2 box" + H(v["epk"]) + H(v["recipient_box_key"])
    assert info.hex() == v["hkdf_info"]
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"", info=info).derive(shared)
    assert key.hex() == v["key"]
    ad = (b"shanghai-net v2 box" + H(c["ctx"]) + bytes([v["sender"], v["recipient"]])
          + u16(len(v["positions"])) + b"".join(u16(p) for p in v["positions"]))
    assert ad.hex() == v["associated_data"]
    assert v["nonce"] == "00" * 12
    plaintext = ChaCha20Poly1305(key).decrypt(H(v["nonce"]), H(v["box"]), ad)
    assert plaintext.hex() == v["plaintext"]
    # the sender's 32-byte key of each position, in the header's order
    card_keys = d["card_keys"]
    assert plaintext.hex() == "".join(card_keys[p]["scalar"] for p in v["positions"])


def test_pick_vectors_are_the_documented_hashes():
    v, ctx = DEAL["pick"], H(DEAL["context"]["ctx"])
    header = ctx + u32(v["pick"]) + u32(v["n"])
    for c in v["commitments"]:
        data = (b"shanghai-net v1 pick commitment" + header
                + bytes([len(v["parties"]), *v["parties"], c["author"]]) + H(c["nonce"]))
        assert H(c["input"]) == data and hashlib.sha256(data).hexdigest() == c["digest"]
    r = v["result"]
    data = (b"shanghai-net v1 pick result" + header
            + b"".join(H(c["nonce"]) for c in v["commitments"]) + u32(r["counter"]))
    assert H(r["input"]) == data and hashlib.sha256(data).hexdigest() == r["hash"]
    w = int.from_bytes(H(r["hash"])[:8], "big")
    assert w < 2**64 - 2**64 % v["n"] and w % v["n"] == r["value"]


def test_the_byte_layouts_name_the_deal_vectors():
    layouts = (PROTOCOL.parent / "docs" / "security.md").read_text()
    assert "protocol/vectors/deal.json" in layouts and "protocol/vectors/deal.json" in DOC


@pytest.mark.parametrize("name", sorted(load("presets.json")))
def test_every_preset_satisfies_the_rules_schema(name):
    """presets.json, read by the checker written from JSON Schema, not by the RuleSet's own."""
    assert schema_errors(load("schema/rules.json"), load("presets.json")[name]) == []


def test_the_rules_schema_refuses_a_v1_string():
    errors = schema_errors(load("schema/rules.json"), {"final_round_meld_all": "false"})
    assert errors and "final_round_meld_all" in errors[0]


# -- every deal step's data against protocol/schema/body/deal.json --------------------------------

def deal_bodies_in_the_vectors():
    """Every deal body of protocol/: the example bodies, the frame and signing vectors, and every
    message of the sample game, in the JSON form."""
    bodies = [make_vectors.to_json(b.to_wire()) for b in EXAMPLE_BODIES]
    bodies += [v["value"]["body"] for v in FRAMES if v["name"] == "game"]
    bodies += [v["body"] for v in SIGNING["messages"]]
    decoder = FrameDecoder()
    decoder.receive_data((PROTOCOL / "sample_game.bin").read_bytes())
    while (value := decoder.next_frame()) is not None:
        if value["type"] == "game":
            bodies.append(make_vectors.to_json(value["body"]))
    return [b for b in bodies if b["kind"] == "deal"]


DEAL_BODIES = deal_bodies_in_the_vectors()


def test_the_vectors_hold_every_deal_step():
    assert {b["step"] for b in DEAL_BODIES} == {"commit", "pass", "shares", "reveal", "seeds",
                                                "pick_commit", "pick_reveal"}


@pytest.mark.parametrize("body", DEAL_BODIES,
                         ids=[f"{i}-{b['step']}" for i, b in enumerate(DEAL_BODIES)])
def test_every_deal_step_in_the_vectors_satisfies_its_step_schema(body):
    schema = load("schema/body/deal.json")
    assert schema_errors(schema, body) == []
    (step,) = [s for s in schema["anyOf"] if s["properties"]["step"]["const"] == body["step"]]
    assert schema_errors(step["properties"]["data"], body["data"]) == []


def mangled(body):
    """Versions of a deal body that parse_deal refuses (the host answers bad_message)."""
    data = body["data"]
    yield {**body, "step": "deal"}  # no such step
    yield {**body, "data": {k: v for k, v in data.items() if k != "round"}}
    yield {**body, "data": {**data, "round": -1}}
    for key, value in data.items():
        if isinstance(value, dict) and len(value["$bin"]) == 64 and key != "nonce":
            # a 32-byte field of 31 (a nonce of any length parses: it fails its commitment)
            yield {**body, "data": {**data, key: {"$bin": value["$bin"][2:]}}}
        if isinstance(value, list) and value and isinstance(value[0], dict) and "$bin" in value[0]:
            yield {**body, "data": {**data, key: [{"$bin": "00"}]}}  # points of 1 byte
        if key == "phase":
            yield {**body, "data": {**data, key: 3}}
        if key == "boxes":
            box = value[0]
            yield {**body, "data": {**data, key: [{**box, "box": {"$bin": box["box"]["$bin"][2:]}}]}}
        if key == "reveals":
            item = value[0]
            yield {**body, "data": {**data, key: [{**item, "keys": [item["keys"][0][:1]]}]}}


@pytest.mark.parametrize("step", ["commit", "pass", "shares", "reveal", "seeds", "pick_commit",
                                  "pick_reveal"])
def test_the_deal_schema_and_parse_deal_agree(step):
    """What the schema accepts, parse_deal accepts, and the other way round (but a box's
    length, which the schema states only in words)."""
    from shanghai_net.table.bodies import parse_deal
    from shanghai_net.wire.messages import Deal
    schema = load("schema/body/deal.json")
    body = next(b for b in DEAL_BODIES if b["step"] == step)
    cases = [(body, True)] + [(bad, False) for bad in mangled(body)]
    assert len(cases) > 2
    for case, good in cases:
        try:
            parse_deal(Deal(case["step"], from_hex_json(case["data"])), bytes(16), 0)
            parsed = True
        except ValueError:
            parsed = False
        assert parsed is good, case
        box_length_only = "boxes" in case["data"] and case is not body and \
            case["data"]["boxes"][0]["box"] != body["data"]["boxes"][0]["box"]
        if not box_length_only:
            assert (schema_errors(schema, case) == []) is good, case


# -- protocol version 10's dropout-tolerant deal (protocol.md 11.10, protocol/vectors/sharing.json):
# each derivation recomputed here from its documented bytes with plain hashlib, libsodium and
# cryptography, and each wire body read back by our own parse_deal --------------------------------

SHARING = load("vectors/sharing.json")
L = int(SHARING["order"], 16)


def scalar_int(hex_scalar):
    return int.from_bytes(H(hex_scalar), "little")


def le32(value):
    return (value % L).to_bytes(32, "little")


def sharing_dealer(seat):
    (dealer,) = [d for d in SHARING["dealers"] if d["dealer"] == seat]
    return dealer


def test_the_sharing_order_and_base_point_are_ed25519_s():
    from nacl.bindings import crypto_scalarmult_ed25519_base_noclamp
    assert L == 2**252 + 27742317777372353535851937790883648493
    assert crypto_scalarmult_ed25519_base_noclamp(le32(1)).hex() == SHARING["base_point"]
    assert SHARING["context"]["ctx"] == DEAL["context"]["ctx"]


@pytest.mark.parametrize("dealer", SHARING["dealers"], ids=lambda d: f"dealer-{d['dealer']}")
def test_a_seed_is_64_random_bytes_reduced_mod_l(dealer):
    from nacl.bindings import crypto_core_ed25519_scalar_reduce
    assert crypto_core_ed25519_scalar_reduce(H(dealer["random_64"])).hex() == dealer["seed"]
    assert le32(int.from_bytes(H(dealer["random_64"]), "little")).hex() == dealer["seed"]
    digest = hashlib.sha256(b"shanghai-net v1 seed commitment" + H(SHARING["context"]["ctx"])
                            + bytes([dealer["dealer"]]) + H(dealer["seed"])).digest()
    assert digest.hex() == dealer["digest"]


@pytest.mark.parametrize("dealer", SHARING["dealers"], ids=lambda d: f"dealer-{d['dealer']}")
def test_the_coefficients_shares_and_feldman_commitments_are_the_seed_s(dealer):
    from nacl.bindings import crypto_scalarmult_ed25519_base_noclamp
    t, d = SHARING["share_threshold"], dealer["dealer"]
    data = (b"shanghai-net v1 key" + H(SHARING["context"]["ctx"]) + bytes([d, 17])
            + b"share coefficient" + bytes([t]) + H(dealer["seed"]))
    assert H(dealer["coefficient_stream_input"]) == data
    stream = hashlib.shake_256(data).digest(64 * (t - 1))
    assert [H(c) for c in dealer["coefficient_chunks"]] == \
        [stream[i:i + 64] for i in range(0, len(stream), 64)]
    coefficients = [scalar_int(dealer["seed"])] + [
        int.from_bytes(stream[i:i + 64], "little") % L for i in range(0, len(stream), 64)]
    assert all(coefficients) and [le32(a).hex() for a in coefficients] == dealer["coefficients"]
    assert [crypto_scalarmult_ed25519_base_noclamp(le32(a)).hex() for a in coefficients] == \
        dealer["feldman"]
    holders = [h for h in range(SHARING["seats"]) if h != d]
    assert [s["holder"] for s in dealer["shares"]] == holders
    for share in dealer["shares"]:
        x = share["holder"] + 1
        assert share["x"] == x
        assert le32(sum(a * x**k for k, a in enumerate(coefficients))).hex() == share["share"]


@pytest.mark.parametrize("dealer", SHARING["dealers"], ids=lambda d: f"dealer-{d['dealer']}")
def test_each_share_box_opens_to_its_holder_s_share(dealer):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    raw = (Encoding.Raw, PublicFormat.Raw)
    ctx, t, d = H(SHARING["context"]["ctx"]), SHARING["share_threshold"], dealer["dealer"]
    shares = {s["holder"]: s["share"] for s in dealer["shares"]}
    assert [b["holder"] for b in dealer["boxes"]] == sorted(shares)
    for box in dealer["boxes"]:
        j = box["holder"]
        data = (b"shanghai-net v1 key" + ctx + bytes([d, 9]) + b"share box" + bytes([j])
                + H(dealer["seed"]))
        assert H(box["box_secret_input"]) == data
        assert hashlib.shake_256(data).digest(32).hex() == box["box_secret"]
        ephemeral = X25519PrivateKey.from_private_bytes(H(box["box_secret"]))
        assert ephemeral.public_key().public_bytes(*raw).hex() == box["epk"]
        holder = X25519PrivateKey.from_private_bytes(H(SHARING["box_keys"][j]["box_seed"]))
        assert holder.public_key().public_bytes(*raw).hex() == box["holder_box_key"] == \
            SHARING["box_keys"][j]["box_key"]
        shared = holder.exchange(ephemeral.public_key())  # the holder's side
        assert shared.hex() == box["shared_secret"]
        info = b"shanghai-net v8 seed share" + H(box["epk"]) + H(box["holder_box_key"])
        assert info.hex() == box["hkdf_info"]
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"", info=info).derive(shared)
        assert key.hex() == box["key"]
        ad = b"shanghai-net v8 seed share" + ctx + bytes([d, j, t])
        assert ad.hex() == box["associated_data"] and box["nonce"] == "00" * 12
        assert len(H(box["box"])) == 48
        assert ChaCha20Poly1305(key).decrypt(bytes(12), H(box["box"]), ad).hex() == shares[j]


@pytest.mark.parametrize("dealer", SHARING["dealers"], ids=lambda d: f"dealer-{d['dealer']}")
def test_the_commit_body_carries_the_digest_the_commitments_and_the_boxes_and_parses(dealer):
    from shanghai_net.deal.messages import SharedCommitment
    from shanghai_net.table.bodies import parse_deal
    from shanghai_net.wire.messages import Deal
    body = dealer["commit_body"]
    assert body["kind"] == "deal" and body["step"] == "commit"
    assert from_hex_json(body["data"]) == {
        "round": SHARING["context"]["round"], "generation": 0, "digest": H(dealer["digest"]),
        "feldman": [H(c) for c in dealer["feldman"]],
        "shares": [{"to": b["holder"], "epk": H(b["epk"]), "box": H(b["box"])}
                   for b in dealer["boxes"]]}
    step = parse_deal(Deal("commit", from_hex_json(body["data"])), H(SHARING["context"]["game_id"]),
                      dealer["dealer"])
    (commit,) = step.messages
    assert isinstance(commit, SharedCommitment)
    assert [h for h, _, _ in commit.shares] == [b["holder"] for b in dealer["boxes"]]
    assert check_against_schema({"type": "game", "author": dealer["dealer"], "counter": 0,
                                 "body": body, "sig": {"$bin": "00" * 64}}) == []


def test_the_holder_s_check_passes_on_its_share_and_fails_one_off_the_commitments():
    from nacl.bindings import (crypto_core_ed25519_add, crypto_scalarmult_ed25519_base_noclamp,
                               crypto_scalarmult_ed25519_noclamp)
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from shanghai_net.deal.errors import CheatDetected
    from shanghai_net.deal.messages import Context
    from shanghai_net.deal.sharing import SealedSeedShare, open_share, share_fits
    v = SHARING["holder_check"]
    dealer = sharing_dealer(v["dealer"])
    assert v["feldman"] == dealer["feldman"] and v["x"] == v["holder"] + 1
    assert v["x_powers"] == [le32(v["x"] ** k).hex() for k in range(len(v["feldman"]))]
    right = H(v["feldman"][0])
    for power, point in zip(v["x_powers"][1:], v["feldman"][1:]):
        right = crypto_core_ed25519_add(right, crypto_scalarmult_ed25519_noclamp(H(power), H(point)))
    assert right.hex() == v["commitments_sum"]
    feldman = [H(c) for c in v["feldman"]]
    (good,) = [s["share"] for s in dealer["shares"] if s["holder"] == v["holder"]]
    assert [c["case"] for c in v["cases"]] == ["passes", "fails"] and v["cases"][0]["share"] == good
    assert v["cases"][1]["share"] == le32(scalar_int(good) + 1).hex()
    for case in v["cases"]:
        left = crypto_scalarmult_ed25519_base_noclamp(H(case["share"]))
        assert left.hex() == case["share_times_base"]
        assert (left == right) is case["fits"] is (case["case"] == "passes")
        assert share_fits(feldman, v["holder"], H(case["share"])) is case["fits"]
    # our holder opens its box and checks it; against other commitments it names the dealer
    (box,) = [b for b in dealer["boxes"] if b["holder"] == v["holder"]]
    context = Context(H(SHARING["context"]["game_id"]), SHARING["context"]["round"], 0)
    sealed = SealedSeedShare(context, v["dealer"], v["holder"], H(box["epk"]), H(box["box"]))
    own = X25519PrivateKey.from_private_bytes(H(SHARING["box_keys"][v["holder"]]["box_seed"]))
    assert open_share(own, sealed, feldman, SHARING["share_threshold"]).hex() == good
    with pytest.raises(CheatDetected) as named:
        open_share(own, sealed, feldman[:1] + feldman[2:] + feldman[1:2],
                   SHARING["share_threshold"])
    assert named.value.culprit == v["dealer"]


def test_a_seeds_body_carries_the_shares_its_author_holds_by_generation_then_dealer():
    from shanghai_net.deal.messages import SharedSeedReveal
    from shanghai_net.table.bodies import parse_deal
    from shanghai_net.wire.messages import Deal
    v, author = SHARING["seeds"], SHARING["seeds"]["author"]
    data = from_hex_json(v["body"]["data"])
    assert v["body"]["step"] == "seeds"
    assert data == {"round": 1, "seeds": [{"generation": 0,
                                           "seed": H(sharing_dealer(author)["seed"])}],
                    "shares": [{"generation": 0, "dealer": d["dealer"],
                                "share": H(next(s["share"] for s in d["shares"]
                                                if s["holder"] == author))}
                               for d in SHARING["dealers"] if d["dealer"] != author]}
    (reveal,) = parse_deal(Deal("seeds", data), H(SHARING["context"]["game_id"]), author).messages
    assert isinstance(reveal, SharedSeedReveal)
    assert [dealer for dealer, _ in reveal.shares] == [0, 1, 3]
    shuffled = {**data, "shares": data["shares"][::-1]}  # not by dealer ascending: refused
    with pytest.raises(ValueError):
        parse_deal(Deal("seeds", shuffled), bytes(16), author)
    assert check_against_schema({"type": "game", "author": author, "counter": 0,
                                 "body": v["body"], "sig": {"$bin": "00" * 64}}) == []


def test_a_share_reveal_publishes_one_share_a_rebuilt_generation_and_parses():
    from shanghai_net.deal.messages import ShareReveal
    from shanghai_net.table.bodies import parse_deal
    from shanghai_net.wire.messages import Deal
    body, holder = SHARING["share_reveal"], SHARING["holder_check"]["holder"]
    lost = SHARING["rebuild"]["seat"]
    (share,) = [s["share"] for s in sharing_dealer(lost)["shares"] if s["holder"] == holder]
    assert body["step"] == "share_reveal"
    assert from_hex_json(body["data"]) == {"round": 1, "seat": lost,
                                           "shares": [{"generation": 0, "share": H(share)}]}
    (reveal,) = parse_deal(Deal("share_reveal", from_hex_json(body["data"])), bytes(16),
                           holder).messages
    assert isinstance(reveal, ShareReveal) and reveal.seat == lost
    assert reveal.shares == ((0, H(share)),)
    assert check_against_schema({"type": "game", "author": holder, "counter": 0,
                                 "body": body, "sig": {"$bin": "00" * 64}}) == []


def test_t_shares_rebuild_the_seed_by_lagrange_at_zero_and_it_is_on_the_seat_s_digest():
    from shanghai_net.deal.errors import CheatDetected
    from shanghai_net.deal.messages import Context
    from shanghai_net.deal.sharing import seed_from_shares
    v = SHARING["rebuild"]
    dealer = sharing_dealer(v["seat"])
    shares = {s["holder"]: s["share"] for s in dealer["shares"]}
    assert len(v["published"]) == SHARING["share_threshold"]
    xs = [p["x"] for p in v["published"]]
    total = 0
    for p in v["published"]:
        assert p["x"] == p["holder"] + 1 and p["share"] == shares[p["holder"]]
        weight = 1
        for xm in xs:
            if xm != p["x"]:
                weight = weight * xm * pow(xm - p["x"], -1, L) % L
        assert le32(weight).hex() == p["lagrange"]
        total += weight * scalar_int(p["share"])
    assert le32(total).hex() == v["seed"] == dealer["seed"]
    assert v["digest"] == dealer["digest"]
    context = Context(H(SHARING["context"]["game_id"]), 1, 0)
    used = {p["holder"]: H(p["share"]) for p in v["published"]}
    assert seed_from_shares(context, v["seat"], H(v["digest"]), used).hex() == v["seed"]
    wrong = {**used, v["published"][0]["holder"]: le32(scalar_int(v["published"][0]["share"]) + 1)}
    with pytest.raises(CheatDetected) as named:  # a seed off the digest names the seat
        seed_from_shares(context, v["seat"], H(v["digest"]), wrong)
    assert named.value.culprit == v["seat"]


def test_a_handed_box_is_a_key_share_box_whose_secret_is_read_under_handed_box():
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from nacl.bindings import crypto_core_ed25519_scalar_reduce
    from shanghai_net.table.bodies import parse_deal
    from shanghai_net.wire.messages import Deal
    raw = (Encoding.Raw, PublicFormat.Raw)
    v, ctx = SHARING["handed_box"], H(SHARING["context"]["ctx"])
    assert v["sender_seed"] == sharing_dealer(v["sender"])["seed"]
    replacement = X25519PrivateKey.from_private_bytes(H(v["replacement_box_seed"]))
    assert replacement.public_key().public_bytes(*raw).hex() == v["replacement_box_key"]
    positions = b"".join(u16(p) for p in v["positions"])
    data = (b"shanghai-net v1 key" + ctx + bytes([v["sender"], 10]) + b"handed box"
            + bytes([v["seat"]]) + H(v["replacement_box_key"]) + u16(len(v["positions"]))
            + positions + H(v["sender_seed"]))
    assert H(v["box_secret_input"]) == data
    assert hashlib.shake_256(data).digest(32).hex() == v["box_secret"]
    ephemeral = X25519PrivateKey.from_private_bytes(H(v["box_secret"]))
    assert ephemeral.public_key().public_bytes(*raw).hex() == v["epk"]
    shared = replacement.exchange(ephemeral.public_key())
    assert shared.hex() == v["shared_secret"]
    info = b"shanghai-net v2 box" + H(v["epk"]) + H(v["replacement_box_key"])
    assert info.hex() == v["hkdf_info"]
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"", info=info).derive(shared)
    assert key.hex() == v["key"]
    ad = (b"shanghai-net v2 box" + ctx + bytes([v["sender"], v["seat"]])
          + u16(len(v["positions"])) + positions)
    assert ad.hex() == v["associated_data"]
    plaintext = ChaCha20Poly1305(key).decrypt(bytes(12), H(v["box"]), ad)
    assert plaintext.hex() == v["plaintext"]
    # the sender's own per-card key of each position (seeds.py's "card key" derivation)
    for p, key_input in zip(v["positions"], v["card_key_inputs"]):
        assert H(key_input) == (b"shanghai-net v1 key" + ctx + bytes([v["sender"], 8])
                                + b"card key" + u16(p) + bytes([0]) + H(v["sender_seed"]))
    assert plaintext == b"".join(crypto_core_ed25519_scalar_reduce(
        hashlib.shake_256(H(i)).digest(64)) for i in v["card_key_inputs"])
    body = v["body"]
    assert from_hex_json(body["data"]) == {"round": 1, "generation": 0, "boxes": [
        {"to": v["seat"], "positions": v["positions"], "epk": H(v["epk"]), "box": H(v["box"])}]}
    (sealed,) = parse_deal(Deal("shares", from_hex_json(body["data"])), bytes(16),
                           v["sender"]).sealed
    assert (sealed.recipient, sealed.positions) == (v["seat"], tuple(v["positions"]))


def test_a_pick_nonce_is_read_from_the_seed_of_its_nonce_generation():
    from shanghai_net.deal.messages import Context
    from shanghai_net.deal.picks import seed_nonce
    v = SHARING["pick_nonce"]
    game_id = H(SHARING["context"]["game_id"])
    ctx = u16(len(game_id)) + game_id + u32(v["round"]) + u32(v["generation"])
    assert v["generation"] != 0 and H(v["ctx"]) == ctx  # the generation's ctx, not the pick's
    data = (b"shanghai-net v1 key" + ctx + bytes([v["seat"], 10]) + b"pick nonce"
            + u32(v["pick"]) + H(v["seed"]))
    assert H(v["input"]) == data and hashlib.shake_256(data).digest(32).hex() == v["nonce"]
    context = Context(game_id, v["round"], v["generation"])
    assert seed_nonce(context, v["seat"], v["pick"], H(v["seed"])).hex() == v["nonce"]


def test_every_labelled_derivation_protocol_md_writes_is_a_registered_label_of_its_length():
    """protocol.md writes each derivation as ``u8 len(label) || "label"``: each length is its
    label's, and each label is one deal/sharing.py registers (and derives under)."""
    from shanghai_net.deal.sharing import DERIVATION_LABELS
    written = re.findall(r'u8 (\d+) \|\| "([a-z ]+)"', DOC)
    assert {label for _, label in written} >= {"share coefficient", "share box", "handed box",
                                               "pick nonce"}
    for length, label in written:
        assert int(length) == len(label) and label.encode() in dict(DERIVATION_LABELS), label
