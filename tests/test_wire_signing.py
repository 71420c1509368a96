"""Signatures and the chain: tampering, reordering, dropping and replaying are all detected."""

import dataclasses
import hashlib

import msgpack
import pytest
from hypothesis import given, settings, strategies as st

from shanghai_net.wire import (DOMAIN, GENESIS, Chain, sign_game, Discard, DrawStock, GoDown,
                               RemoteProtocolError, canonical, chain_hash, check_proof,
                               decode_frame_body, decode_message, encode_frame, proof_bytes,
                               sign_proof, sign_wire, signed_bytes)
from shanghai_net.wire.signing import CHAIN_DOMAIN
from shanghai_net.wire.examples import CHALLENGE, GAME_ID, public_bytes, sign_key

SEATS = {seat: public_bytes(sign_key(seat)) for seat in range(3)}
MOVES = [(0, DrawStock()), (0, Discard(card=51, shanghai=False)), (1, DrawStock()),
         (1, GoDown(melds=((6, 58, 110), (20, 21, 22, 23)))), (2, DrawStock())]


def over_the_wire(msg):
    return decode_message(decode_frame_body(encode_frame(msg.to_wire())[4:]))


def signed_history():
    """The moves signed by their authors, each against the head the host's chain had."""
    chain = Chain(SEATS)
    history = []
    for seat, body in MOVES:
        msg = chain.sign(sign_key(seat), seat, body)
        chain.append(msg)
        history.append(over_the_wire(msg))
    return history


def replay(messages):
    chain = Chain(SEATS)
    for msg in messages:
        chain.append(msg)
    return chain


def rejected(messages):
    with pytest.raises(RemoteProtocolError) as info:
        replay(messages)
    return info.value


def with_body(msg, body_wire):
    return decode_message({**msg.to_wire(), "body": body_wire})


def test_a_body_digest_is_its_canonical_body_whatever_the_counter_or_field_order():
    """`Chain.body_digest`, a deal body's identity word for word (protocol.md 8.3), hashes the
    bytes `check` computed: the same for a copy signed again with another counter and its
    fields in another order, or with an unknown field beside its kind (left out, as the body
    decoded has none), and the same as the body's canonical bytes taken afresh, for a message
    not checked last."""
    body = {"kind": "deal", "step": "seeds", "data": {"round": 0, "seeds": [{"g": 1, "s": b"x"}]}}
    reordered = {"data": {"seeds": [{"s": b"x", "g": 1}], "round": 0}, "step": "seeds",
                 "kind": "deal"}
    expected = hashlib.sha256(msgpack.packb(canonical(body), use_bin_type=True)).digest()
    chain = Chain(SEATS)
    for counter, wire in enumerate([body, reordered, {**body, "note": "again"}]):
        msg = chain.place(decode_message(sign_wire(sign_key(1), chain.start, 1, counter, wire)))
        chain.check(msg)
        assert chain.body_digest(msg) == expected
        chain.append(msg)
        assert chain.body_digest(msg) == Chain(SEATS).body_digest(msg) == expected
    other = {**body, "data": {**body["data"], "round": 1}}
    msg = chain.place(decode_message(sign_wire(sign_key(1), chain.start, 1, 3, other)))
    chain.check(msg)
    assert chain.body_digest(msg) != expected


def test_canonical_form_sorts_keys_recursively_and_ignores_insertion_order():
    a = {"kind": "deal", "data": {"b": 1, "a": [{"y": 2, "x": 1}]}, "step": "s"}
    b = {"step": "s", "data": {"a": [{"x": 1, "y": 2}], "b": 1}, "kind": "deal"}
    assert signed_bytes(GENESIS, 0, 0, None, None, a) == signed_bytes(GENESIS, 0, 0, None, None, b)
    assert list(canonical(b)) == ["data", "kind", "step"]
    assert list(canonical(b)["data"]["a"][0]) == ["x", "y"]


def test_keys_sort_by_utf8_bytes():
    assert list(canonical({"\u00e9": 1, "z": 2, "Z": 3})) == ["Z", "z", "\u00e9"]


def test_signed_bytes_are_the_documented_array():
    body = Discard(card=51, shanghai=True).to_wire()
    start = bytes(range(32))
    data = signed_bytes(start, 2, 9, 5, b"\x11" * 32, body)
    assert msgpack.unpackb(data) == [DOMAIN, start, 2, 9, 5, b"\x11" * 32,
                                     {"card": 51, "kind": "discard", "shanghai": True}]
    assert data[:2] == b"\x97\xb4"  # a fixarray of 7, then the 20-byte domain as a fixstr
    assert msgpack.unpackb(signed_bytes(start, 2, 9, None, None, body))[4:6] == [None, None]


def test_honest_history_verifies_on_every_peer_and_heads_agree():
    history = signed_history()
    peer = replay(history)
    assert peer.next_seq == len(MOVES)
    heads = [GENESIS]
    for msg in history:
        heads.append(chain_hash(GENESIS, heads[-1], msg))
    assert peer.links == heads[1:] and peer.head == heads[-1]
    assert [m.seq for m in history] == list(range(len(MOVES)))


def test_chain_hash_is_sha256_of_the_link_the_signed_bytes_and_signature():
    msg = signed_history()[1]
    data = signed_bytes(GENESIS, msg.author, msg.counter, msg.basis_seq, msg.basis_head,
                        msg.body_wire)
    prev = replay(signed_history()[:1]).head
    link = msgpack.packb([CHAIN_DOMAIN, 1, prev])
    assert chain_hash(GENESIS, prev, msg) == hashlib.sha256(link + data + msg.sig).digest()
    assert replay(signed_history()[:2]).head == chain_hash(GENESIS, prev, msg)


def test_flipped_body_byte_is_a_bad_signature():
    history = signed_history()
    history[1] = with_body(history[1], {"kind": "discard", "card": 50, "shanghai": False})
    error = rejected(history)
    assert error.code == "bad_signature" and error.ref_seq == 1


def test_flipped_signature_byte_is_a_bad_signature():
    history = signed_history()
    sig = bytearray(history[2].sig)
    sig[10] ^= 0x01
    history[2] = dataclasses.replace(history[2], sig=bytes(sig))
    assert rejected(history).code == "bad_signature"


def test_reordered_messages_break_the_chain():
    history = signed_history()
    history[1], history[2] = history[2], history[1]
    error = rejected(history)
    assert error.code == "broken_chain" and error.ref_seq == 2


def test_dropped_message_breaks_the_chain():
    history = signed_history()
    del history[2]
    assert rejected(history).code == "broken_chain"


def test_replayed_message_is_stale():
    history = signed_history()
    error = rejected(history[:3] + [history[1]])
    assert error.code == "stale" and error.ref_seq == 1  # the seq its author re-signs


def test_a_message_sequenced_again_in_a_new_place_does_not_rise():
    history = signed_history()
    chain = replay(history[:3])
    again = chain.place(history[1])  # seat 0's counter 1, shown again at seq 3
    with pytest.raises(RemoteProtocolError) as info:
        chain.append(again)
    assert info.value.code == "stale" and info.value.ref_counter == 1
    assert "does not rise" in info.value.reason


def test_a_basis_must_be_a_link_of_the_chain():
    history = signed_history()
    chain = replay(history[:2])
    forked = sign_game(sign_key(1), GENESIS, 1, 0, DrawStock(), (1, bytes(32)))
    with pytest.raises(RemoteProtocolError) as info:
        chain.append(chain.place(forked))
    assert info.value.code == "broken_chain" and "basis" in info.value.reason
    ahead = sign_game(sign_key(1), GENESIS, 1, 0, DrawStock(), (2, chain.head))
    with pytest.raises(RemoteProtocolError):
        chain.append(chain.place(ahead))
    chain.append(chain.place(sign_game(sign_key(1), GENESIS, 1, 0, DrawStock(), chain.basis)))


def test_a_commuting_step_needs_no_basis_and_survives_any_order():
    chain = Chain(SEATS)
    steps = [sign_game(sign_key(seat), GENESIS, seat, 0, DrawStock()) for seat in (2, 0, 1)]
    for msg in steps:
        chain.append(chain.place(msg))
    assert chain.counters == {0: 0, 1: 0, 2: 0}


def test_claiming_another_author_is_a_bad_signature():
    history = signed_history()
    history[0] = dataclasses.replace(history[0], author=1)
    assert rejected(history).code == "bad_signature"


def test_author_without_a_seat_is_a_bad_signature():
    chain = Chain(SEATS)
    msg = chain.sign(sign_key(5), 5, DrawStock())
    with pytest.raises(RemoteProtocolError) as info:
        chain.append(msg)
    assert info.value.code == "bad_signature" and "no seat" in info.value.reason


def test_a_move_signed_for_another_game_does_not_verify():
    msg = Chain(SEATS, b"\x01" * 32).sign(sign_key(0), 0, DrawStock())
    ours = Chain(SEATS)
    with pytest.raises(RemoteProtocolError) as info:
        ours.append(ours.place(msg))  # even placed right, it is signed for another start
    assert info.value.code == "bad_signature"


def test_failed_append_leaves_the_chain_where_it_was():
    history = signed_history()
    chain = replay(history[:2])
    head = chain.head
    with pytest.raises(RemoteProtocolError):
        chain.append(history[3])
    assert (chain.head, chain.next_seq) == (head, 2)
    chain.append(history[2])


def test_unknown_body_fields_are_covered_by_the_signature():
    chain = Chain(SEATS)
    author_view = {"kind": "draw_stock", "hint": "from a newer peer"}
    data = signed_bytes(GENESIS, 0, 0, None, None, author_view)
    msg = decode_message({"type": "game", "seq": 0, "author": 0, "counter": 0,
                          "body": author_view, "sig": sign_key(0).sign(data)})
    chain.check(over_the_wire(msg))
    stripped = dataclasses.replace(msg, signed_body=None)
    with pytest.raises(RemoteProtocolError) as info:
        chain.check(stripped)
    assert info.value.code == "bad_signature"


def test_a_seat_key_that_is_not_a_key_is_refused():
    with pytest.raises(RemoteProtocolError) as info:
        Chain({0: b"\x00" * 31})
    assert info.value.code == "bad_signature"


def test_append_verifies_what_check_did_not():
    """`append` takes the hash `check` just computed for the same message object, and verifies
    any other message itself: a forgery is not appended on the strength of an earlier check."""
    history = signed_history()
    chain = Chain(SEATS)
    head = chain.check(history[0])
    assert chain.append(history[0]) == head and chain.next_seq == 1
    chain.check(history[1])
    forged = dataclasses.replace(history[1], sig=bytes(64))
    with pytest.raises(RemoteProtocolError) as info:
        chain.append(forged)
    assert info.value.code == "bad_signature" and chain.next_seq == 1


def test_a_message_of_ones_own_skips_only_its_signature_check():
    """`check(own=True)` (a message this side signed, that the host placed) takes it without
    checking the signature again, but still refuses a wrong seq, a counter that does not rise
    and a basis that is not a link; and it chains to the same head as the full check."""
    history = signed_history()
    chain = replay(history[:2])
    own = history[2]
    assert chain.check(dataclasses.replace(own, sig=bytes(64)), own=True)  # not re-checked
    for wrong, code in ((dataclasses.replace(own, seq=3), "broken_chain"),
                        (dataclasses.replace(own, counter=0, author=0), "stale"),
                        (dataclasses.replace(own, basis_head=bytes(32)), "broken_chain")):
        with pytest.raises(RemoteProtocolError) as info:
            chain.check(wrong, own=True)
        assert info.value.code == code
    assert chain.check(own, own=True) == replay(history[:3]).head


def test_rejoin_proof_bytes_are_the_documented_concatenation():
    data = proof_bytes(GAME_ID, CHALLENGE)
    assert data == b"shanghai-net v1 rejoin" + GAME_ID + CHALLENGE and len(data) == 70
    with pytest.raises(ValueError):
        proof_bytes(GAME_ID, CHALLENGE[:16])


@settings(max_examples=30)
@given(game_id=st.binary(min_size=16, max_size=16), challenge=st.binary(min_size=32, max_size=32),
       other_game=st.binary(min_size=16, max_size=16),
       other_challenge=st.binary(min_size=32, max_size=32))
def test_a_rejoin_proof_holds_only_for_its_key_game_and_challenge(
        game_id, challenge, other_game, other_challenge):
    """A proof is not replayable: to another challenge, another game or another seat's key."""
    proof = over_the_wire(sign_proof(sign_key(1), game_id, challenge))
    check_proof(SEATS[1], game_id, challenge, proof)
    wrong = [(SEATS[0], game_id, challenge)]
    if other_game != game_id:
        wrong.append((SEATS[1], other_game, challenge))
    if other_challenge != challenge:
        wrong.append((SEATS[1], game_id, other_challenge))
    for key, game, nonce in wrong:
        with pytest.raises(RemoteProtocolError) as info:
            check_proof(key, game, nonce, proof)
        assert info.value.code == "bad_signature"


def test_a_rejoin_proof_against_a_key_that_is_no_ed25519_key_is_a_bad_signature():
    proof = sign_proof(sign_key(0), GAME_ID, CHALLENGE)
    with pytest.raises(RemoteProtocolError) as info:
        check_proof(b"\xff" * 32, GAME_ID, CHALLENGE, proof)
    assert info.value.code == "bad_signature"


def test_a_relayed_message_without_its_place_or_with_half_a_basis_is_refused():
    chain = replay(signed_history()[:1])
    unplaced = sign_game(sign_key(1), GENESIS, 1, 0, DrawStock(), chain.basis)
    with pytest.raises(RemoteProtocolError) as info:
        chain.append(unplaced)  # seq nil: as its author sent it, not as relayed
    assert info.value.code == "bad_message" and "needs its seq" in info.value.reason
    half = dataclasses.replace(chain.place(unplaced), basis_head=None)
    with pytest.raises(RemoteProtocolError) as info:
        chain.append(half)
    assert info.value.code == "bad_message" and info.value.ref_counter == 0
    assert chain.next_seq == 1
