"""Write protocol/schema, protocol/vectors and the protocol tables from the implementation.

Run from the repository root: ``python protocol/make_vectors.py``.  Everything is deterministic
(fixed test keys, Ed25519 signatures are deterministic), so running it again changes nothing
unless the protocol changed; tests/test_wire_vectors.py checks the files are up to date.

In these JSON files a msgpack bin value is written as ``{"$bin": "<lowercase hex>"}`` (no message
has a "$bin" field) and every other value as itself: a float (msgpack float 64 on the wire) as a
JSON number with a fraction or exponent (``json.dumps`` writes ``10.0``), an integer without, so a
reader tells them apart (protocol/vectors/README.md).
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from pathlib import Path

import msgpack
from nacl.bindings import crypto_core_ed25519_add, crypto_scalarmult_ed25519_noclamp

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from shanghai_net.deal.box import BOX_TAG, associated_data, seal
from shanghai_net.deal.handed import handed_box_secret
from shanghai_net.deal.picks import seed_nonce
from shanghai_net.deal.sharing import (BASE_POINT, SHARE_TAG, abscissa, coefficient_stream,
                                       deal_seed, interpolate, seed_from_shares, seed_scalar,
                                       share_box_secret, share_fits, split)
from shanghai_net.table.secret import HANDOVER_TAG, SeatSecret, seal_secrets
from shanghai_net.deal.group import ORDER, CARD_TAG, card_point, multiply_all, multiply_base
from shanghai_net.deal.messages import (Commitment, Context, ShareReveal, SharedCommitment,
                                        SharedSeedReveal)
from shanghai_net.deal.picks import (COMMIT_TAG as PICK_COMMIT_TAG, RESULT_TAG, nonce_digest,
                                     pick_index)
from shanghai_net.deal.seeds import SeedKeys, commitment_digest
from shanghai_net.identity import fingerprint
from shanghai_net.rules import PRESETS
from shanghai_net.rules.ruleset import rules_schema
from shanghai_net.table.bodies import deal_body, deal_data_schemas, seeds_body, shares_body
from shanghai_net.wire import (BODY_KINDS, ERROR_CODES, FATAL_CODES, MESSAGE_TYPES, Chain,
                               encode_frame, sign_game, signed_bytes, start_digest)
from shanghai_net.wire.examples import (EXAMPLE_BODIES, GAME_ID, box_key, example_messages, example_start,
                                        fixed_seed, public_bytes, sign_key)
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
    if cls.KIND == "deal":  # each step's data, as shanghai_net.table.bodies writes and parses it
        schema["anyOf"] = [{"properties": {"step": {"const": step}, "data": data}}
                           for step, data in deal_data_schemas().items()]
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
    lobby = next(m for m in example_messages() if m.TYPE == "lobby_state").to_wire()
    cases = [
        ("top level is an array", raw([1, 2, 3]), "malformed_frame"),
        ("no type", raw({"nonce": 1}), "malformed_frame"),
        ("ext type", frame_of(b"\x81\xa4type\xd4\x05\x00"), "malformed_frame"),
        ("trailing byte after the map",
         frame_of(msgpack.packb({"type": "ping", "nonce": 1}) + b"\xc0"), "malformed_frame"),
        ("integer map key", frame_of(b"\x82\xa4type\xa1x\x01\x02"), "malformed_frame"),
        ("unknown type", raw({"type": "teleport"}), "unknown_message"),
        ("sign_key as str", raw({**hello, "sign_key": "k" * 32}), "bad_message"),
        ("notices as a str, not an array of str", raw({**hello, "notices": "owed"}),
         "bad_message"),
        ("an offer to take a seat as a spectator, not as a player or bot",
         raw({**hello, "role": "spectator", "offer": "spectator"}), "bad_message"),
        ("an offer without its box key",
         raw({**lobby, "offers": [{k: v for k, v in lobby["offers"][0].items()
                                   if k != "box_key"}]}), "bad_message"),
        ("seat 8", raw({"type": "welcome", "version": 5, "seat": 8, "table": {}}),
         "bad_message"),
        ("chat too long", raw({"type": "chat", "text": "x" * 501}), "bad_message"),
        ("a boolean rule as the string \"false\"",
         raw({**lobby, "rules": {"final_round_meld_all": "false"}}), "bad_message"),
        ("an unknown rule", raw({**lobby, "rules": {"may_i_limit": 3}}), "bad_message"),
        ("length over the 1 MiB cap", struct.pack(">I", (1 << 20) + 1), "frame_too_large"),
    ]
    return [{"name": name, "hex": frame.hex(), "code": code} for name, frame, code in cases]


def signing_vectors() -> dict:
    seats = {seat: public_bytes(sign_key(seat)) for seat in range(3)}
    start = example_start()
    chain = Chain(seats, start_digest(start.to_wire()))
    messages = []
    # a deal step (no basis: it commutes), then two moves, each naming the head it was decided on
    for seat, body, basis in [(1, EXAMPLE_BODIES[-1], False), (0, EXAMPLE_BODIES[0], True),
                              (0, EXAMPLE_BODIES[9], True)]:
        sent = sign_game(sign_key(seat), chain.start, seat, chain.next_counter(seat), body,
                         chain.basis if basis else None)
        msg = chain.place(sent)
        head = chain.append(msg)
        messages.append({
            "seq": msg.seq, "prev": (chain.links[-2] if msg.seq else chain.start).hex(),
            "author": seat, "counter": msg.counter,
            "basis_seq": msg.basis_seq,
            "basis_head": msg.basis_head.hex() if msg.basis_head else None,
            "body": to_json(msg.body_wire),
            "signed_bytes": signed_bytes(chain.start, seat, msg.counter, msg.basis_seq,
                                         msg.basis_head, msg.body_wire).hex(),
            "sig": msg.sig.hex(), "chain_hash": head.hex(),
            "sent_frame": encode_frame(sent.to_wire()).hex(),
            "frame": encode_frame(msg.to_wire()).hex(),
        })
    return {
        "comment": "Seeds are SHA-256 of 'shanghai-net test sign <seat>'; public test keys only. "
                   "A number written with a fraction or exponent (start_game's 10.0, 60.0) is a "
                   "msgpack float 64 (cb + 8 bytes), one without an integer; {\"$bin\": hex} is a "
                   "msgpack bin (protocol/vectors/README.md).",
        "game_id": GAME_ID.hex(),
        "seats": [{"seat": s, "sign_seed": fixed_seed("sign", s).hex(), "sign_key": k.hex()}
                  for s, k in seats.items()],
        "start_game": to_json(start.to_wire()),
        "start_digest": start_digest(start.to_wire()).hex(),
        "messages": messages,
    }


def fingerprint_vectors() -> list[dict]:
    keys = [bytes(32), bytes(range(32))] + [public_bytes(sign_key(s)) for s in range(3)]
    return [{"sign_key": k.hex(), "fingerprint": fingerprint(k)} for k in keys]


DEAL_CARDS = (0, 6, 51, 58, 208)
"""Card ids of the deal vectors: A♣, 7♣ and K♠ of deck 0, 7♣ of deck 1, the first joker."""


def deal_vectors() -> dict:
    """The deal's cryptography (docs/security.md, "Byte layouts"), inputs and outputs in hex."""
    context = Context(GAME_ID, 1, 0)
    ctx = context.encode()
    seat, seed = 1, fixed_seed("deal seed", 1)
    keys = SeedKeys(context, seat, seed, len(DEAL_CARDS))
    commitment = Commitment(context, seat, commitment_digest(context, seat, seed))
    points = [card_point(card) for card in DEAL_CARDS]
    return {
        "comment": "Public test keys and seeds (fixed_seed: SHA-256 of 'shanghai-net test "
                   "<purpose> <seat>'); never use them for play. Layouts: docs/security.md.",
        "context": {"game_id": GAME_ID.hex(), "round": context.round,
                    "generation": context.generation, "ctx": ctx.hex()},
        "card_points": [{"card": card, "hash_input": (CARD_TAG + card.to_bytes(2, "big")).hex(),
                         "uniform": hashlib.sha512(CARD_TAG + card.to_bytes(2, "big"))
                         .digest()[:32].hex(), "point": point.hex()}
                        for card, point in zip(DEAL_CARDS, points)],
        "seed_commitment": {
            "seat": seat, "seed": seed.hex(), "digest": commitment.digest.hex()},
        "derivation": {
            "seat": seat, "seed": seed.hex(), "cards": len(DEAL_CARDS),
            "pass_key": {"input": keys._input(b"pass key", 0, 0).hex(),
                         "scalar": keys.pass_key.hex()},
            "card_keys": [{"index": j, "input": keys._input(b"card key", j, 0).hex(),
                           "scalar": key.hex()} for j, key in enumerate(keys.card_keys)],
            "permutation": {"input": keys._input(b"permutation", 0, 0).hex(),
                            "order": keys.permutation},
            "pass_1": {"in": [p.hex() for p in points],
                       "out": [p.hex() for p in multiply_all(
                           keys.pass_key, [points[i] for i in keys.permutation])]}},
        "sealed_share": sealed_share_vector(context, keys),
        "pick": pick_vector(context),
        "hand_over": hand_over_vector(),
    }


def hand_over_vector() -> dict:
    """Seat 1's secrets (its first holder's, then its own) sealed to a successor (protocol.md
    11.9), with the box key and the deal randomness key each secret gives, and the first chained
    draws of the first secret's randomness at the start digest (docs/security.md)."""
    secrets = [SeatSecret(fixed_seed("seat secret", i)) for i in (1, 2)]
    successor = SeatSecret(fixed_seed("seat secret", 3))
    sign = public_bytes(sign_key(3))
    ephemeral = fixed_seed("hand-over ephemeral", 1)
    sealed = seal_secrets(secrets, successor.box_public, GAME_ID, 1, sign, ephemeral)
    digest = bytes(range(32))
    epk = sealed[:32]
    shared = X25519PrivateKey.from_private_bytes(ephemeral).exchange(
        X25519PublicKey.from_public_bytes(successor.box_public))
    info = HANDOVER_TAG + epk + successor.box_public
    random = secrets[0].randomness(GAME_ID, digest, lambda: digest)
    return {
        "seat": 1, "game_id": GAME_ID.hex(), "start_digest": digest.hex(),
        "secrets": [{"secret": s.value.hex(),
                     "box_secret": hashlib.sha256(b"shanghai-net v1 seat box key" + s.value).hexdigest(),
                     "box_key": s.box_public.hex(),
                     "randomness_key": hashlib.sha256(b"shanghai-net v1 game secret" + GAME_ID
                                                      + digest + s.value).hexdigest()}
                    for s in secrets],
        "draws": [{"head": digest.hex(), "n": n, "i": i, "bytes": random(n).hex()}
                  for i, n in enumerate((32, 16))],
        "successor": {"secret": successor.value.hex(), "box_key": successor.box_public.hex(),
                      "sign_key": sign.hex()},
        "ephemeral": ephemeral.hex(),
        "epk": epk.hex(),
        "shared_secret": shared.hex(),
        "hkdf_info": info.hex(),
        "key": HKDF(algorithm=hashes.SHA256(), length=32, salt=b"", info=info).derive(shared).hex(),
        "associated_data": (HANDOVER_TAG + GAME_ID + bytes([1]) + sign).hex(),
        "plaintext": b"".join(s.value for s in secrets).hex(),
        "sealed": sealed.hex(),
    }


def sealed_share_vector(context: Context, keys: SeedKeys) -> dict:
    """Seat 1's keys of positions 3 and 4 sealed for seat 0, in a box whose secret comes from
    seat 1's seed of the generation."""
    sender, recipient, positions = 1, 0, (3, 4)
    header = (bytes([3]) + b"box" + bytes([recipient]) + len(positions).to_bytes(2, "big")
              + b"".join(p.to_bytes(2, "big") for p in positions))
    secret = keys.box_secret(recipient, positions)
    ephemeral = X25519PrivateKey.from_private_bytes(secret)
    peer = box_key(recipient).public_key()
    epk, recipient_key = public_bytes(ephemeral), public_bytes(box_key(recipient))
    info = BOX_TAG + epk + recipient_key
    shared = ephemeral.exchange(peer)
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"", info=info).derive(shared)
    plaintext = b"".join(keys.card_keys[p] for p in positions)
    sealed = seal(secret, peer, context, sender, recipient, positions, plaintext)
    assert sealed.epk == epk
    return {
        "sender": sender, "recipient": recipient, "positions": list(positions),
        "box_secret_input": (keys._prefix + header + keys._seed).hex(),
        "box_secret": secret.hex(), "epk": epk.hex(),
        "recipient_box_seed": fixed_seed("box", recipient).hex(),
        "recipient_box_key": recipient_key.hex(),
        "shared_secret": shared.hex(), "hkdf_info": info.hex(),
        "key": key.hex(),
        "associated_data": associated_data(context, sender, recipient, positions).hex(),
        "nonce": bytes(12).hex(), "plaintext": plaintext.hex(), "box": sealed.ciphertext.hex(),
    }


def pick_vector(context: Context) -> dict:
    """Pick 0 of range(3) among seats 0, 1, 2 (as the first dealer is drawn)."""
    pick, n, parties = 0, 3, (0, 1, 2)
    nonces = [fixed_seed("pick nonce", s) for s in parties]
    header = context.encode() + pick.to_bytes(4, "big") + n.to_bytes(4, "big")
    value = pick_index(context, pick, n, nonces)
    result_input = RESULT_TAG + header + b"".join(nonces) + (0).to_bytes(4, "big")
    return {
        "pick": pick, "n": n, "parties": list(parties),
        "commitments": [{"author": s, "nonce": nonce.hex(),
                         "input": (PICK_COMMIT_TAG + header + bytes([len(parties), *parties, s])
                                   + nonce).hex(),
                         "digest": nonce_digest(context, pick, n, parties, s, nonce).hex()}
                        for s, nonce in zip(parties, nonces)],
        "result": {"counter": 0, "input": result_input.hex(),
                   "hash": hashlib.sha256(result_input).hexdigest(), "value": value},
    }


SHARING_SEATS, SHARING_T, SHARING_DEALER, SHARING_HOLDER = 4, 3, 1, 2
"""The sharing vectors' table: 4 seats, every one a holder, t = 3; dealer 1's commit, and holder
2's view of it (its check, its seeds, its share_reveal when seat 1 is lost)."""
HANDED_POSITIONS = (1, 5)


def sharing_vectors() -> dict:
    """Protocol version 10's dropout-tolerant deal (protocol.md 11.10), inputs and outputs in hex:
    every seat's seed drawn as a scalar from 64 fixed bytes, its sharing (coefficients from the
    seed, Feldman commitments, one share box a holder) and its commit body; holder 2's share of
    dealer 1's seed opened and checked (and a share off the commitments, which fails the
    check); holder 2's ``seeds`` with its shares and its ``share_reveal`` of lost seat 1; seat
    1's seed rebuilt from 3 shares; seat 2's keys of seat 1's hand handed to a replacement;
    seat 2's pick nonce read from its seed."""
    context = Context(GAME_ID, 1, 0)
    t, holders = SHARING_T, range(SHARING_SEATS)
    keys = {seat: box_key(seat).public_key() for seat in holders}
    dealers = {}
    for dealer in holders:
        wide = fixed_seed("seed scalar", dealer) + fixed_seed("seed scalar high", dealer)
        seed = seed_scalar(lambda n, wide=wide: wide[:n])
        others = {h: keys[h] for h in holders if h != dealer}
        feldman, boxes = deal_seed(context, dealer, seed, t, others)
        sharing = split(seed, t, sorted(others), coefficient_stream(context, dealer, t, seed))
        assert sharing.commitments == tuple(feldman)
        commit = SharedCommitment(context, dealer, commitment_digest(context, dealer, seed),
                                  tuple(feldman), tuple((b.holder, b.epk, b.box) for b in boxes))
        dealers[dealer] = (wide, seed, sharing, boxes, commit)
    return {
        "comment": "Public test keys and seeds (fixed_seed: SHA-256 of 'shanghai-net test "
                   "<purpose> <seat>'); never use them for play. Layouts: docs/protocol.md 11.10 "
                   "and docs/dealing.md.",
        "context": {"game_id": GAME_ID.hex(), "round": context.round,
                    "generation": context.generation, "ctx": context.encode().hex()},
        "order": f"{ORDER:x}", "base_point": BASE_POINT.hex(),
        "seats": SHARING_SEATS, "share_threshold": t,
        "box_keys": [{"seat": s, "box_seed": fixed_seed("box", s).hex(),
                      "box_key": public_bytes(box_key(s)).hex()} for s in holders],
        "dealers": [_dealer_vector(context, dealer, *dealers[dealer]) for dealer in holders],
        "holder_check": _holder_check_vector(dealers[SHARING_DEALER][2]),
        "seeds": _seeds_vector(context, dealers),
        "share_reveal": to_json(deal_body(ShareReveal(
            Context(GAME_ID, 1, 0), SHARING_HOLDER, SHARING_DEALER,
            ((0, dealers[SHARING_DEALER][2].shares[SHARING_HOLDER]),))).to_wire()),
        "rebuild": _rebuild_vector(context, dealers[SHARING_DEALER]),
        "handed_box": _handed_vector(context, dealers[SHARING_HOLDER][1]),
        "pick_nonce": _pick_nonce_vector(dealers[SHARING_HOLDER][1]),
    }


def _dealer_vector(context: Context, dealer: int, wide: bytes, seed: bytes, sharing, boxes,
                   commit: SharedCommitment) -> dict:
    t = SHARING_T
    stream_input = (b"shanghai-net v1 key" + context.encode() + bytes([dealer, 17])
                    + b"share coefficient" + bytes([t]) + seed)
    chunks = hashlib.shake_256(stream_input).digest(64 * (t - 1))
    coefficients = [seed] + [seed_scalar(lambda n, c=chunks[64 * k:64 * k + 64]: c)
                             for k in range(t - 1)]
    return {
        "dealer": dealer, "random_64": wide.hex(), "seed": seed.hex(),
        "digest": commit.digest.hex(),
        "coefficient_stream_input": stream_input.hex(),
        "coefficient_chunks": [chunks[i:i + 64].hex() for i in range(0, len(chunks), 64)],
        "coefficients": [a.hex() for a in coefficients],
        "feldman": [c.hex() for c in commit.feldman],
        "shares": [{"holder": h, "x": abscissa(h), "share": y.hex()}
                   for h, y in sorted(sharing.shares.items())],
        "boxes": [_share_box_vector(context, dealer, seed, box) for box in boxes],
        "commit_body": to_json(deal_body(commit).to_wire()),
    }


def _share_box_vector(context: Context, dealer: int, seed: bytes, box) -> dict:
    holder = box.holder
    secret = share_box_secret(context, dealer, holder, seed)
    ephemeral = X25519PrivateKey.from_private_bytes(secret)
    holder_key = public_bytes(box_key(holder))
    shared = ephemeral.exchange(box_key(holder).public_key())
    info = SHARE_TAG + box.epk + holder_key
    assert public_bytes(ephemeral) == box.epk
    return {
        "holder": holder,
        "box_secret_input": (b"shanghai-net v1 key" + context.encode() + bytes([dealer, 9])
                             + b"share box" + bytes([holder]) + seed).hex(),
        "box_secret": secret.hex(), "epk": box.epk.hex(), "holder_box_key": holder_key.hex(),
        "shared_secret": shared.hex(), "hkdf_info": info.hex(),
        "key": HKDF(algorithm=hashes.SHA256(), length=32, salt=b"", info=info).derive(shared).hex(),
        "associated_data": (SHARE_TAG + context.encode()
                            + bytes([dealer, holder, SHARING_T])).hex(),
        "nonce": bytes(12).hex(), "box": box.box.hex(),
    }


def _holder_check_vector(sharing) -> dict:
    """``y·B == C_0 + Σ_{k>=1} (x^k mod L)·C_k`` for holder 2's share, and for that share
    plus one, which is off the commitments (the holder's complaint)."""
    holder, feldman = SHARING_HOLDER, sharing.commitments
    x = abscissa(holder)
    powers = [(x ** k % ORDER).to_bytes(32, "little") for k in range(len(feldman))]
    good = sharing.shares[holder]
    bad = ((int.from_bytes(good, "little") + 1) % ORDER).to_bytes(32, "little")
    right = feldman[0]
    for power, point in zip(powers[1:], feldman[1:]):
        right = crypto_core_ed25519_add(right, crypto_scalarmult_ed25519_noclamp(power, point))
    cases = []
    for name, share in (("passes", good), ("fails", bad)):
        left = multiply_base([share])[0]
        fits = share_fits(feldman, holder, share)
        assert fits == (left == right) == (name == "passes")
        cases.append({"case": name, "share": share.hex(), "share_times_base": left.hex(),
                      "fits": fits})
    return {"dealer": SHARING_DEALER, "holder": holder, "x": x,
            "x_powers": [p.hex() for p in powers], "feldman": [c.hex() for c in feldman],
            "commitments_sum": right.hex(), "cases": cases}


def _seeds_vector(context: Context, dealers: dict) -> dict:
    """Holder 2's ``seeds`` of the round: its seed, and its share of each other dealer's."""
    seat = SHARING_HOLDER
    reveal = SharedSeedReveal(context, seat, dealers[seat][1], tuple(
        (d, dealers[d][2].shares[seat]) for d in sorted(dealers) if d != seat))
    return {"author": seat, "body": to_json(seeds_body(context.round, [reveal]).to_wire())}


def _rebuild_vector(context: Context, dealer_state) -> dict:
    """Seat 1's seed from the shares of holders 3, 0 and 2, published in that order (the first
    ``t`` in stream order): Lagrange at zero over their abscissas, then checked against the
    seat's seed digest."""
    _, seed, sharing, _, commit = dealer_state
    order = (3, 0, 2)
    used = {h: sharing.shares[h] for h in order}
    xs = [abscissa(h) for h in order]
    lambdas = []
    for xj in xs:
        weight = 1
        for xm in xs:
            if xm != xj:
                weight = weight * xm * pow(xm - xj, -1, ORDER) % ORDER
        lambdas.append(weight)
    rebuilt = seed_from_shares(context, SHARING_DEALER, commit.digest, used)
    assert rebuilt == seed == interpolate({abscissa(h): int.from_bytes(y, "little")
                                           for h, y in used.items()}, 0).to_bytes(32, "little")
    return {"seat": SHARING_DEALER,
            "published": [{"holder": h, "x": abscissa(h), "share": used[h].hex(),
                           "lagrange": lam.to_bytes(32, "little").hex()}
                          for h, lam in zip(order, lambdas)],
            "seed": rebuilt.hex(), "digest": commit.digest.hex()}


def _handed_vector(context: Context, seed: bytes) -> dict:
    """Seat 2's keys of lost seat 1's hidden positions 1 and 5, sealed to seat 1's replacement
    (a ``shares`` body to seat 1, its box secret read under ``"handed box"``)."""
    sender, seat, positions = SHARING_HOLDER, SHARING_DEALER, HANDED_POSITIONS
    replacement = X25519PrivateKey.from_private_bytes(fixed_seed("replacement box", seat))
    new_key = public_bytes(replacement)
    secret = handed_box_secret(context, sender, seed, seat, new_key, positions)
    header = (bytes([seat]) + new_key + len(positions).to_bytes(2, "big")
              + b"".join(p.to_bytes(2, "big") for p in positions))
    sender_keys = SeedKeys(context, sender, seed, 8)
    plaintext = b"".join(sender_keys.card_keys[p] for p in positions)
    sealed = seal(secret, replacement.public_key(), context, sender, seat, positions, plaintext)
    shared = X25519PrivateKey.from_private_bytes(secret).exchange(replacement.public_key())
    info = BOX_TAG + sealed.epk + new_key
    return {
        "sender": sender, "seat": seat, "positions": list(positions),
        "sender_seed": seed.hex(),
        "card_key_inputs": [sender_keys._input(b"card key", p, 0).hex() for p in positions],
        "replacement_box_seed": fixed_seed("replacement box", seat).hex(),
        "replacement_box_key": new_key.hex(),
        "box_secret_input": (b"shanghai-net v1 key" + context.encode() + bytes([sender, 10])
                             + b"handed box" + header + seed).hex(),
        "box_secret": secret.hex(), "epk": sealed.epk.hex(), "shared_secret": shared.hex(),
        "hkdf_info": info.hex(),
        "key": HKDF(algorithm=hashes.SHA256(), length=32, salt=b"", info=info).derive(shared).hex(),
        "associated_data": associated_data(context, sender, seat, positions).hex(),
        "plaintext": plaintext.hex(), "box": sealed.ciphertext.hex(),
        "body": to_json(shares_body(context.round, context.generation, [sealed]).to_wire()),
    }


def _pick_nonce_vector(seed: bytes) -> dict:
    """Seat 2's nonce of pick 1 of round 1, read from its seed of generation 1, the pick's nonce
    generation (a reshuffle's: the ``ctx`` is that generation's, not the pick's own, which has
    generation 0)."""
    seat, pick, context = SHARING_HOLDER, 1, Context(GAME_ID, 1, 1)
    data = (b"shanghai-net v1 key" + context.encode() + bytes([seat, 10]) + b"pick nonce"
            + pick.to_bytes(4, "big") + seed)
    return {"seat": seat, "pick": pick, "round": context.round, "generation": context.generation,
            "ctx": context.encode().hex(), "seed": seed.hex(), "input": data.hex(),
            "nonce": seed_nonce(context, seat, pick, seed).hex()}


RULES_DESCRIPTION = (
    "The rules map of start_game and lobby_state: house rules over the preset, each value in its "
    "field's own type (a boolean is true or false, never a string); protocol/presets.json holds "
    "every field of every preset. Generated from shanghai_net.rules.RuleSet.")


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
    files["schema/rules.json"] = {"$schema": SCHEMA_DIALECT, "title": "rules",
                                  "description": RULES_DESCRIPTION, **rules_schema()}
    files["presets.json"] = {name: rules.as_wire() for name, rules in PRESETS.items()}
    files["state_machine.json"] = state_machine()
    files["error_codes.json"] = {code: {"fatal": code in FATAL_CODES, "meaning": meaning}
                                 for code, meaning in ERROR_CODES.items()}
    files["vectors/frames.json"] = frame_vectors()
    files["vectors/bad_frames.json"] = bad_frame_vectors()
    files["vectors/signing.json"] = signing_vectors()
    files["vectors/fingerprints.json"] = fingerprint_vectors()
    files["vectors/deal.json"] = deal_vectors()
    files["vectors/sharing.json"] = sharing_vectors()
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
