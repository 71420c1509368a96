"""Framing: length-prefixed msgpack maps, the size cap, and recovery after a bad frame."""

import struct

import msgpack
import pytest
from hypothesis import given, settings, strategies as st

from shanghai_net.wire import (DEFAULT_MAX_FRAME, FrameDecoder, LocalProtocolError,
                               RemoteProtocolError, encode_frame)
from shanghai_net.wire.framing import MAX_DEPTH

GOOD = {"type": "ping", "nonce": 7}


def frame_of(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def raw_frame(value) -> bytes:
    return frame_of(msgpack.packb(value, use_bin_type=True))


def nested(depth: int):
    """A map whose innermost array sits at ``depth`` (the top-level map is depth 1)."""
    value: list = []
    for _ in range(depth - 2):
        value = [value]
    return {"type": "ping", "x": value}


def test_frame_layout_is_big_endian_length_then_msgpack():
    frame = encode_frame(GOOD)
    assert frame[:4] == len(frame[4:]).to_bytes(4, "big")
    assert msgpack.unpackb(frame[4:]) == GOOD


def test_bytes_arriving_one_at_a_time_give_one_frame_at_the_end():
    frame = encode_frame(GOOD)
    decoder = FrameDecoder()
    for byte in frame[:-1]:
        decoder.receive_data(bytes([byte]))
        assert decoder.next_frame() is None
    decoder.receive_data(frame[-1:])
    assert decoder.next_frame() == GOOD
    assert decoder.next_frame() is None


def test_several_frames_in_one_chunk_come_out_in_order():
    frames = [{"type": "ping", "nonce": n} for n in range(5)]
    decoder = FrameDecoder()
    decoder.receive_data(b"".join(encode_frame(f) for f in frames))
    assert [decoder.next_frame() for _ in frames] == frames
    assert decoder.next_frame() is None


def test_bytes_after_the_end_of_the_stream_are_a_local_error():
    decoder = FrameDecoder()
    decoder.receive_data(b"")
    with pytest.raises(LocalProtocolError, match="data received after the end of the stream") as e:
        decoder.receive_data(encode_frame(GOOD))
    assert e.value.code == "wrong_state"


def test_bin_and_str_stay_apart():
    value = {"type": "x", "b": b"\x00\xff", "s": "\u00e9"}
    decoder = FrameDecoder()
    decoder.receive_data(encode_frame(value))
    assert decoder.next_frame() == value


MALFORMED = {
    "array at top level": raw_frame([1, 2]),
    "integer at top level": raw_frame(5),
    "no type": raw_frame({"nonce": 1}),
    "type not a string": raw_frame({"type": 3}),
    "ext type": frame_of(b"\x81\xa4type\xd4\x05\x00"),
    "timestamp ext": frame_of(msgpack.packb({"type": "x", "t": msgpack.Timestamp(1, 0)})),
    "trailing bytes": frame_of(msgpack.packb(GOOD) + b"\x00"),
    "never-used byte 0xc1": frame_of(b"\xc1"),
    "cut inside the map": frame_of(msgpack.packb(GOOD)[:-1]),
    "empty frame": frame_of(b""),
    "bin map key": raw_frame({"type": "x", "m": {b"k": 1}}),
    "integer map key": frame_of(b"\x82\xa4type\xa1x\x01\x02"),
    "nesting too deep": raw_frame(nested(MAX_DEPTH + 1)),
    "invalid utf-8": frame_of(b"\x81\xa4type\xa2\xff\xfe"),
    "nesting beyond msgpack's stack": frame_of(b"\x81\xa4type" + b"\x91" * 5000 + b"\xc0"),
}


@pytest.mark.parametrize("frame", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_frame_is_reported_and_the_next_frame_still_decodes(frame):
    decoder = FrameDecoder()
    decoder.receive_data(frame + encode_frame(GOOD))
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_frame()
    assert info.value.code == "malformed_frame"
    assert not info.value.fatal
    assert decoder.next_frame() == GOOD


def test_a_malformed_frame_s_reason_says_what_is_wrong():
    """The error a peer gets back names the fault, for a client author to find it by."""
    unpacked = "frame of {} bytes is not one msgpack value: "
    for name, reason in (("type not a string", "'type' is 3, not a string"),
                         ("cut inside the map", unpacked), ("integer map key", unpacked)):
        reason = reason.format(len(MALFORMED[name]) - 4)
        decoder = FrameDecoder()
        decoder.receive_data(MALFORMED[name])
        with pytest.raises(RemoteProtocolError) as info:
            decoder.next_frame()
        assert info.value.reason.startswith(reason), (name, info.value.reason)
    with pytest.raises(LocalProtocolError) as info:
        encode_frame({"type": "chat", "text": "x" * 200}, max_frame=100)
    assert info.value.reason == "a 'chat' frame of 218 bytes is over the cap of 100"


def test_nesting_at_the_limit_is_accepted():
    decoder = FrameDecoder()
    decoder.receive_data(raw_frame(nested(MAX_DEPTH)))
    assert decoder.next_frame() == nested(MAX_DEPTH)


def test_oversize_length_is_fatal_at_once_without_waiting_for_the_body():
    decoder = FrameDecoder(max_frame=100)
    decoder.receive_data(struct.pack(">I", 101))
    for _ in range(2):
        with pytest.raises(RemoteProtocolError) as info:
            decoder.next_frame()
        assert info.value.code == "frame_too_large" and info.value.fatal


def test_frame_exactly_at_the_cap_is_accepted():
    body = msgpack.packb({"type": "x", "pad": ""})
    pad = 100 - len(body)
    value = {"type": "x", "pad": "a" * (pad - 1)}  # one more byte goes to the str8 header
    frame = raw_frame(value)
    assert len(frame) == 104
    decoder = FrameDecoder(max_frame=100)
    decoder.receive_data(frame)
    assert decoder.next_frame() == value


def test_default_cap_is_one_mebibyte():
    assert DEFAULT_MAX_FRAME == 1 << 20
    assert FrameDecoder().room == (1 << 20) + 4


def test_encoding_over_the_cap_is_a_local_error():
    with pytest.raises(LocalProtocolError) as info:
        encode_frame({"type": "chat", "text": "x" * 200}, max_frame=100)
    assert info.value.code == "frame_too_large"


def test_feeding_more_than_the_room_is_refused():
    decoder = FrameDecoder(max_frame=100)
    decoder.receive_data(b"\x00" * 50)
    with pytest.raises(LocalProtocolError):
        decoder.receive_data(b"\x00" * 55)
    decoder.receive_data(b"\x00" * 54)
    assert decoder.room == 0


def test_stream_ending_inside_a_frame_is_malformed_then_ended():
    decoder = FrameDecoder()
    decoder.receive_data(encode_frame(GOOD)[:-2])
    decoder.receive_data(b"")
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_frame()
    assert info.value.code == "malformed_frame"
    assert decoder.ended and decoder.next_frame() is None


def test_stream_ending_between_frames_is_clean():
    decoder = FrameDecoder()
    decoder.receive_data(encode_frame(GOOD))
    decoder.receive_data(b"")
    assert not decoder.ended
    assert decoder.next_frame() == GOOD
    assert decoder.ended


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=200))
def test_any_frame_body_decodes_or_is_malformed_and_the_stream_goes_on(body):
    decoder = FrameDecoder()
    decoder.receive_data(frame_of(body) + encode_frame(GOOD))
    try:
        value = decoder.next_frame()
    except RemoteProtocolError as exc:
        assert exc.code == "malformed_frame"
    else:
        assert isinstance(value, dict) and isinstance(value["type"], str)
    assert decoder.next_frame() == GOOD


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=300), st.lists(st.integers(1, 64), min_size=1, max_size=20))
def test_random_streams_raise_only_protocol_errors_and_never_overfill(data, chunks):
    """Fed at most ``room`` bytes at a time and drained each time, the decoder holds exactly
    the bytes of the frame not yet whole (as the test's own reading of the stream finds them),
    so ``room`` is what is left of the cap and never 0 once drained: a reader that reads
    ``room`` bytes never stalls and never overfills."""
    decoder = FrameDecoder(max_frame=64)
    pos = consumed = 0  # bytes fed; bytes of the whole frames in them, by the test's reading
    for size in chunks * 20:
        piece = data[pos:pos + min(size, decoder.room)]
        if not piece:
            break
        decoder.receive_data(piece)
        pos += len(piece)
        too_large = False
        while pos - consumed >= 4:  # the whole frames fed so far, each cut off the stream
            (length,) = struct.unpack(">I", data[consumed:consumed + 4])
            too_large = length > 64
            if too_large or pos - consumed < 4 + length:
                break
            consumed += 4 + length
        while True:
            try:
                if decoder.next_frame() is None:
                    break
            except RemoteProtocolError as exc:
                assert exc.code in ("malformed_frame", "frame_too_large")
                if exc.fatal:
                    assert too_large and exc.code == "frame_too_large"
                    return
        assert not too_large, "a frame over the cap was not refused"
        held = pos - consumed
        assert held < 4 + 64 and decoder.room == 4 + 64 - held > 0
