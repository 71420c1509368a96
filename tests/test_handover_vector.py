"""protocol/vectors/deal.json's ``hand_over``, checked against docs/security.md's byte layouts
("Seat secret", "Chained draws", "Hand-over sealing") with nothing but SHA-256, SHAKE-256,
X25519, HKDF-SHA256 and ChaCha20-Poly1305: no shanghai_net code."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ROOT = Path(__file__).resolve().parent.parent
V = json.loads((ROOT / "protocol" / "vectors" / "deal.json").read_text())["hand_over"]
H = bytes.fromhex
RAW = (Encoding.Raw, PublicFormat.Raw)


def public(secret: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(*RAW)


@pytest.mark.parametrize("entry", V["secrets"])
def test_a_secret_gives_its_box_key_and_its_randomness_key(entry):
    s = H(entry["secret"])
    box_secret = hashlib.sha256(b"shanghai-net v1 seat box key" + s).digest()
    assert box_secret.hex() == entry["box_secret"]
    assert public(box_secret).hex() == entry["box_key"]  # X25519 clamps the scalar itself
    key = hashlib.sha256(b"shanghai-net v1 game secret" + H(V["game_id"]) + H(V["start_digest"])
                         + s).digest()
    assert key.hex() == entry["randomness_key"]


@pytest.mark.parametrize("draw", V["draws"])
def test_a_chained_draw_is_shake_256_over_the_key_the_head_and_its_place(draw):
    key = H(V["secrets"][0]["randomness_key"])
    data = (b"shanghai-net v1 chained random" + key + H(draw["head"])
            + draw["n"].to_bytes(4, "big") + draw["i"].to_bytes(4, "big"))
    assert hashlib.shake_256(data).digest(draw["n"]).hex() == draw["bytes"]


def test_the_sealed_secrets_open_with_the_successors_box_key():
    successor = hashlib.sha256(b"shanghai-net v1 seat box key" + H(V["successor"]["secret"])).digest()
    assert public(successor).hex() == V["successor"]["box_key"]
    sealed = H(V["sealed"])
    epk, ciphertext = sealed[:32], sealed[32:]
    assert epk == public(H(V["ephemeral"])) == H(V["epk"])
    shared = X25519PrivateKey.from_private_bytes(successor).exchange(
        X25519PublicKey.from_public_bytes(epk))
    assert shared.hex() == V["shared_secret"]
    info = b"shanghai-net v1 hand-over" + epk + H(V["successor"]["box_key"])
    assert info.hex() == V["hkdf_info"]
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"", info=info).derive(shared)
    assert key.hex() == V["key"]
    ad = (b"shanghai-net v1 hand-over" + H(V["game_id"]) + bytes([V["seat"]])
          + H(V["successor"]["sign_key"]))
    assert ad.hex() == V["associated_data"]
    plaintext = ChaCha20Poly1305(key).decrypt(bytes(12), ciphertext, ad)
    assert plaintext.hex() == V["plaintext"] == "".join(e["secret"] for e in V["secrets"])
    assert len(ciphertext) == 32 * len(V["secrets"]) + 16
