"""Write protocol/schema, protocol/vectors and the protocol tables from the implementation.

Run from the repository root: ``python protocol/make_vectors.py``.  Everything is deterministic
(fixed test keys, Ed25519 signatures are deterministic), so running it again changes nothing
unless the protocol changed; tests/test_wire_vectors.py checks the files are up to date.

In these JSON files a msgpack bin value is written as ``{"$bin": "<lowercase hex>"}`` (no message
has a "$bin" field) and every other value as itself.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import msgpack

from shanghai_net.identity import fingerprint
from shanghai_net.wire import (BODY_KINDS, ERROR_CODES, FATAL_CODES, MESSAGE_TYPES, Chain,
                               encode_frame, signed_bytes)
from shanghai_net.wire.examples import (EXAMPLE_BODIES, GAME_ID, example_messages, public_bytes,
                                        sign_key, fixed_seed)
from shanghai_net.wire.fields import fields_schema
from shanghai_net.wire.state import EVENT_TRIGGERED, SPECTATOR_FORBIDDEN, STATE_TRIGGERED

ROOT = Path(__file__).resolve().parent
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def to_json(value):
    """A msgpack value in the JSON form described above."""
    if isinstance(value, bytes):
        return {"$bin": value.hex()}
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value


def description(cls) -> str:
    return " ".join((cls.__doc__ or "").split())


def message_schema(cls) -> dict:
    schema = fields_schema(cls)
    schema["required"].insert(0, "type")
    schema["properties"] = {"type": {"const": cls.TYPE}, **schema["properties"]}
    return {"$schema": SCHEMA_DIALECT, "title": cls.TYPE, "description": description(cls),
            **schema}


def body_schema(cls) -> dict:
    schema = fields_schema(cls)
    schema["required"].insert(0, "kind")
    schema["properties"] = {"kind": {"const": cls.KIND}, **schema["properties"]}
    return {"$schema": SCHEMA_DIALECT, "title": f"game body {cls.KIND}",
            "description": description(cls), **schema}


def frame_vectors() -> list[dict]:
    return [{"name": msg.TYPE, "hex": encode_frame(msg.to_wire()).hex(),
             "value": to_json(msg.to_wire())} for msg in example_messages()]


def frame_of(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def raw(value) -> bytes:
    return frame_of(msgpack.packb(value, use_bin_type=True))


def bad_frame_vectors() -> list[dict]:
    """Frames a receiver must answer with an error code (and then read the next frame)."""
    hello = example_messages()[0].to_wire()
    cases = [
        ("top level is an array", raw([1, 2, 3]), "malformed_frame"),
        ("no type", raw({"nonce": 1}), "malformed_frame"),
        ("ext type", frame_of(b"\x81\xa4type\xd4\x05\x00"), "malformed_frame"),
        ("trailing byte after the map",
         frame_of(msgpack.packb({"type": "ping", "nonce": 1}) + b"\xc0"), "malformed_frame"),
        ("integer map key", frame_of(b"\x82\xa4type\xa1x\x01\x02"), "malformed_frame"),
        ("unknown type", raw({"type": "teleport"}), "unknown_message"),
        ("sign_key as str", raw({**hello, "sign_key": "k" * 32}), "bad_message"),
        ("seat 8", raw({"type": "welcome", "version": 1, "seat": 8, "table": {}}),
         "bad_message"),
        ("chat too long", raw({"type": "chat", "text": "x" * 501}), "bad_message"),
        ("length over the 1 MiB cap", struct.pack(">I", (1 << 20) + 1), "frame_too_large"),
    ]
    return [{"name": name, "hex": frame.hex(), "code": code} for name, frame, code in cases]


def signing_vectors() -> dict:
    seats = {seat: public_bytes(sign_key(seat)) for seat in range(3)}
    chain = Chain(GAME_ID, seats)
    messages = []
    for seat, body in [(0, EXAMPLE_BODIES[0]), (0, EXAMPLE_BODIES[9]), (1, EXAMPLE_BODIES[-1])]:
        msg = chain.sign(sign_key(seat), seat, body)
        head = chain.append(msg)
        messages.append({
            "seq": msg.seq, "prev": msg.prev.hex(), "author": seat,
            "body": to_json(msg.body_wire),
            "signed_bytes": signed_bytes(GAME_ID, msg.seq, msg.prev, seat, msg.body_wire).hex(),
            "sig": msg.sig.hex(), "chain_hash": head.hex(),
            "frame": encode_frame(msg.to_wire()).hex(),
        })
    return {
        "comment": "Seeds are SHA-256 of 'shanghai-net test sign <seat>'; public test keys only.",
        "game_id": GAME_ID.hex(),
        "seats": [{"seat": s, "sign_seed": fixed_seed("sign", s).hex(), "sign_key": k.hex()}
                  for s, k in seats.items()],
        "messages": messages,
    }


def fingerprint_vectors() -> list[dict]:
    keys = [bytes(32), bytes(range(32))] + [public_bytes(sign_key(s)) for s in range(3)]
    return [{"sign_key": k.hex(), "fingerprint": fingerprint(k)} for k in keys]


def state_machine() -> dict:
    return {
        "comment": "event_triggered: sender -> sender state -> message type -> sender's next "
                   "state. state_triggered: [client state, host state] -> states that follow.",
        "event_triggered": {
            role.value: {state.value: {t: new.value for t, new in table.items()}
                         for state, table in by_state.items()}
            for role, by_state in EVENT_TRIGGERED.items()},
        "state_triggered": [
            {"when": [client.value, host.value], "then": {r.value: s.value for r, s in ch.items()}}
            for (client, host), ch in STATE_TRIGGERED.items()],
        "spectator_forbidden": sorted(SPECTATOR_FORBIDDEN),
    }


def build() -> dict[str, object]:
    """Every generated file: path relative to protocol/ -> JSON value."""
    files: dict[str, object] = {}
    for name, cls in MESSAGE_TYPES.items():
        files[f"schema/{name}.json"] = message_schema(cls)
    for name, cls in BODY_KINDS.items():
        files[f"schema/body/{name}.json"] = body_schema(cls)
    files["state_machine.json"] = state_machine()
    files["error_codes.json"] = {code: {"fatal": code in FATAL_CODES, "meaning": meaning}
                                 for code, meaning in ERROR_CODES.items()}
    files["vectors/frames.json"] = frame_vectors()
    files["vectors/bad_frames.json"] = bad_frame_vectors()
    files["vectors/signing.json"] = signing_vectors()
    files["vectors/fingerprints.json"] = fingerprint_vectors()
    return files


def render(value: object) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    for relative, value in build().items():
        path = ROOT / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(value))
        print(path.relative_to(ROOT.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
