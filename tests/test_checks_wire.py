"""Checks of the wire that the suite let through when broken by hand (issue 40): each test plays
the frame a peer would send to get past the missing check."""

from __future__ import annotations

import msgpack
import pytest

from shanghai_net.wire import FrameDecoder, RemoteProtocolError, encode_frame

GOOD = {"type": "ping", "nonce": 7}

# a map key that is bytes (msgpack's ``strict_map_key`` lets str and bytes through; the shape
# check refuses bytes) in a map that is not the first one looked at on its level
HIDDEN_KEYS = {
    "the second map of the second level": {"type": "x", "a": {"k": 1}, "b": {b"bad": 1}},
    "the second key of a map": {"type": "x", "a": {"k": 1, b"bad": 2}},
    "the second map of an array": {"type": "x", "a": [{"k": 1}, {b"bad": 1}]},
    "a map after a scalar in an array": {"type": "x", "a": [1, "s", {b"bad": 1}]},
    "the third level, under the second map": {"type": "x", "a": {"k": {"j": 1}},
                                              "b": {"k": {b"bad": 1}}},
    "the fourth level, in a second array": {"type": "x", "a": [[{"k": 1}]],
                                            "b": [[{"k": 1}, {"m": {b"bad": 1}}]]},
}


@pytest.mark.parametrize("value", HIDDEN_KEYS.values(), ids=HIDDEN_KEYS.keys())
def test_a_bad_map_key_in_a_later_map_of_its_level_is_refused_naming_it(value):
    body = msgpack.packb(value, use_bin_type=True)
    decoder = FrameDecoder()
    decoder.receive_data(len(body).to_bytes(4, "big") + body + encode_frame(GOOD))
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_frame()
    assert info.value.code == "malformed_frame" and not info.value.fatal
    assert info.value.reason == "map key b'bad' is not a string"
    assert decoder.next_frame() == GOOD
