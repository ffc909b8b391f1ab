"""The wire format: values survive a round trip exactly, and the strict parser rejects every
malformed input instead of guessing."""
from __future__ import annotations

import io
import json
import math
import struct

import numpy as np
import pytest
from numpy.lib import format as npy_format

from grader.sandbox import wire


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    npy_format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def value_body(structure, blobs) -> bytes:
    header = json.dumps(structure).encode()
    parts = [struct.pack("!I", len(header)), header]
    for blob in blobs:
        parts += [struct.pack("!Q", len(blob)), blob]
    return b"".join(parts)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int8", "uint16", "bool"])
def test_array_round_trip_keeps_dtype_shape_and_values(dtype):
    array = (np.arange(24).reshape(2, 3, 4) % 3).astype(dtype)
    decoded = wire.decode_value(wire.encode_value(array))
    assert decoded.dtype == np.dtype(dtype)
    assert decoded.shape == (2, 3, 4)
    assert np.array_equal(decoded, array)
    assert decoded.flags.writeable


def test_non_contiguous_and_fortran_arrays_round_trip():
    base = np.arange(30.0).reshape(5, 6)
    for array in (base[:, ::2], np.asfortranarray(base), base.T):
        assert np.array_equal(wire.decode_value(wire.encode_value(array)), array)


def test_scalars_come_back_as_python_scalars():
    decoded = wire.decode_value(wire.encode_value((1.5, 7, True, np.float32(0.25), np.int64(-3), np.bool_(False))))
    assert decoded == (1.5, 7, True, 0.25, -3, False)
    assert [type(v) for v in decoded] == [float, int, bool, float, int, bool]


def test_special_floats_survive_exactly():
    nan, inf, negative_zero = wire.decode_value(wire.encode_value((math.nan, -math.inf, -0.0)))
    assert math.isnan(nan) and inf == -math.inf and math.copysign(1.0, negative_zero) == -1.0


def test_lists_and_nested_tuples_become_tuples():
    value = [np.zeros(2), (1, [2.0, np.ones((1, 1))])]
    decoded = wire.decode_value(wire.encode_value(value))
    assert isinstance(decoded, tuple) and isinstance(decoded[1][1], tuple)
    assert np.array_equal(decoded[1][1][1], np.ones((1, 1)))


def test_none_only_crosses_when_allowed():
    assert wire.decode_value(wire.encode_value((None, 1), allow_none=True), allow_none=True) == (None, 1)
    with pytest.raises(wire.EncodeError, match="None"):
        wire.encode_value(None)
    with pytest.raises(wire.WireError):
        wire.decode_value(wire.encode_value(None, allow_none=True))


def test_dicts_of_string_keys_cross_only_as_arguments():
    params = {"W_q": np.eye(2), "num_heads": 2, "b": (1.5, np.zeros(3))}
    decoded = wire.decode_value(wire.encode_value((np.ones(1), params), allow_dict=True),
                                allow_dict=True)
    assert isinstance(decoded[1], dict) and list(decoded[1]) == ["W_q", "num_heads", "b"]
    assert np.array_equal(decoded[1]["W_q"], np.eye(2)) and decoded[1]["num_heads"] == 2
    assert decoded[1]["b"][0] == 1.5 and np.array_equal(decoded[1]["b"][1], np.zeros(3))
    # a result (decoded without allow_dict) never holds a dict
    with pytest.raises(wire.WireError, match="bad structure node 'd'"):
        wire.decode_value(wire.encode_value({"a": 1}, allow_dict=True))
    for keys in ({1: 0}, {"": 0}, {"k" * 65: 0}):
        with pytest.raises(wire.EncodeError, match="keys are not strings"):
            wire.encode_value(keys, allow_dict=True)


@pytest.mark.parametrize("entries", [[["a", {"i": "1"}], ["a", {"i": "2"}]], [["a"]],
                                     [[1, {"i": "1"}]], [["", {"i": "1"}]], {"a": 1}])
def test_malformed_dict_arguments_are_rejected(entries):
    header = json.dumps({"d": entries}).encode("ascii")
    body = wire.JSON_HEADER.pack(len(header)) + header
    with pytest.raises(wire.WireError):
        wire.decode_value(body, allow_dict=True)


@pytest.mark.parametrize("value, named", [
    ("text", "str"), ({"a": 1}, "dict"), (np.array([object()]), "ndarray of dtype object"),
    (np.array(["a"]), "ndarray of dtype <U1"), (1 + 2j, "complex"), (np.zeros(2, complex), "complex128"),
])
def test_values_of_other_types_are_refused_with_their_type(value, named):
    with pytest.raises(wire.EncodeError, match=named.replace("(", r"\(")):
        wire.encode_value(value)


def test_object_array_blob_is_rejected():
    blob = npy_bytes(np.array([1, "x"], dtype=object))
    with pytest.raises(wire.WireError, match="dtype"):
        wire.decode_value(value_body({"a": 0}, [blob]))


@pytest.mark.parametrize("array", [np.array(["ab"]), np.zeros(2, complex), np.zeros(2, "M8[s]"),
                                   np.zeros(2, [("a", "f8"), ("b", "i4")])])
def test_blobs_with_disallowed_dtypes_are_rejected(array):
    with pytest.raises(wire.WireError):
        wire.decode_value(value_body({"a": 0}, [npy_bytes(array)]))


def test_blob_whose_data_length_does_not_match_its_shape_is_rejected():
    blob = npy_bytes(np.zeros((3, 3)))
    with pytest.raises(wire.WireError, match="needs 72"):
        wire.decode_value(value_body({"a": 0}, [blob[:-8]]))
    with pytest.raises(wire.WireError, match="needs 72"):
        wire.decode_value(value_body({"a": 0}, [blob + b"\0" * 8]))


def test_declared_blob_length_beyond_the_value_is_rejected():
    body = wire.encode_value(np.zeros(4))
    with pytest.raises(wire.WireError):
        wire.decode_value(body[:-1])


def test_oversize_value_is_rejected():
    body = wire.encode_value(np.zeros(1000))
    with pytest.raises(wire.WireError, match="exceeds the limit"):
        wire.decode_value(body, max_bytes=1000)


def test_unreferenced_or_doubly_referenced_arrays_are_rejected():
    blob = npy_bytes(np.zeros(2))
    with pytest.raises(wire.WireError, match="not referenced"):
        wire.decode_value(value_body({"i": "1"}, [blob]))
    with pytest.raises(wire.WireError, match="reference"):
        wire.decode_value(value_body({"t": [{"a": 0}, {"a": 0}]}, [blob]))


@pytest.mark.parametrize("structure", [
    {"x": 1}, {"a": 0, "b": True}, {"i": "1e5"}, {"f": "not a float"}, {"b": 1}, [1], {"s": 5},
    {"t": [{"t": [{"t": [{"t": [{"t": [{"t": [{"b": True}]}]}]}]}]}]},
])
def test_malformed_structures_are_rejected(structure):
    with pytest.raises(wire.WireError):
        wire.decode_value(value_body(structure, []))


def test_scalar_node_must_hold_a_zero_dimensional_array():
    with pytest.raises(wire.WireError, match="scalar"):
        wire.decode_value(value_body({"s": 0}, [npy_bytes(np.zeros(2))]))


def test_frame_reader_reassembles_frames_split_anywhere():
    stream = wire.frame(b"STRT", b"abc") + wire.frame(b"DONE", b"")
    reader = wire.FrameReader(frozenset({b"STRT", b"DONE"}), 1 << 20)
    frames = []
    for index in range(len(stream)):
        frames += reader.feed(stream[index:index + 1])
    reader.finish()
    assert frames == [(b"STRT", b"abc"), (b"DONE", b"")]


def test_frame_reader_rejects_unknown_tags_oversize_streams_and_truncation():
    reader = wire.FrameReader(frozenset({b"DONE"}), 100)
    with pytest.raises(wire.WireError, match="unknown frame tag"):
        reader.feed(wire.frame(b"PASS", b""))
    with pytest.raises(wire.WireError, match="more than 100 bytes"):
        wire.FrameReader(frozenset({b"DONE"}), 100).feed(wire.frame(b"DONE", b"x" * 200))
    truncated = wire.FrameReader(frozenset({b"DONE"}), 100)
    truncated.feed(wire.frame(b"DONE", b"xyz")[:-1])
    with pytest.raises(wire.WireError, match="inside a frame"):
        truncated.finish()


def _stream(*frames) -> bytes:
    return b"".join(wire.frame(tag, body) for tag, body in frames)


def test_frame_limits_see_every_earlier_frame_whatever_the_chunk_boundaries():
    """A value frame is allowed 2 KiB only after a START frame; a stream delivered in one chunk
    or byte by byte must be judged the same (a limit read before the START frame was handed over
    once refused a correct submission's return)."""
    value = wire.encode_value(np.zeros(100))  # 800 bytes of data: over 64 bytes, under 2 KiB
    stream = _stream((b"STRT", b"{}"), (b"VALU", value), (b"DONE", b"{}"))
    for chunk in (len(stream), 1, 7, 13):
        seen = []
        limit = lambda tag: 2048 if seen and seen[-1] == b"STRT" else 64  # noqa: E731
        reader = wire.FrameReader(frozenset({b"STRT", b"VALU", b"DONE"}), 1 << 20, limit,
                                  sink=lambda tag, body: seen.append(tag))
        for start in range(0, len(stream), chunk):
            reader.feed(stream[start:start + chunk])
        reader.finish()
        assert seen == [b"STRT", b"VALU", b"DONE"], chunk


def test_an_oversized_frame_is_refused_from_its_header_alone():
    reader = wire.FrameReader(frozenset({b"VALU"}), 1 << 30, lambda tag: 1 << 10)
    header = wire.FRAME_HEADER.pack(b"VALU", 300 << 20)  # declares 300 MiB, sends none of it
    with pytest.raises(wire.FrameTooLarge) as raised:
        reader.feed(header)
    assert (raised.value.length, raised.value.limit) == (300 << 20, 1 << 10)


def test_a_large_frame_is_decoded_in_place_without_copies():
    array = np.arange(1 << 16, dtype=np.float64)
    frames = []
    reader = wire.FrameReader(frozenset({b"VALU"}), 1 << 30, sink=lambda t, b: frames.append(b))
    stream = _stream((b"VALU", wire.encode_value(array)))
    for start in range(0, len(stream), 4096):
        reader.feed(stream[start:start + 4096])
    decoded = wire.decode_value(frames[0])
    assert np.array_equal(decoded, array) and decoded.flags.writeable
    assert np.shares_memory(decoded, np.frombuffer(frames[0], dtype=np.uint8))
