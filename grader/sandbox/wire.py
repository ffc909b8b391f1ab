"""The byte format that carries call arguments into the sandbox and return values out of it.

Nothing in this format can execute code: structure travels as JSON, arrays as raw ``.npy`` bytes
(``numpy.lib.format`` version 1.0 headers, parsed with ``ast.literal_eval`` by NumPy and then
re-checked here), and there is no pickle anywhere. The trusted side parses what the sandbox sends
with :func:`decode_value` and :class:`FrameReader`, which reject anything not exactly well formed:
wrong lengths, unknown tags, dtypes other than bool/int/uint/float, object arrays, shapes whose
byte count does not match, values deeper or bigger than the limits below.

This module is also copied (bind-mounted read-only) into the sandbox, so it imports only the
standard library and NumPy.

Stream layout: a sequence of frames ``tag (4 ASCII bytes) | length (uint64, big endian) | body``.
A value body is ``json_length (uint32, big endian) | JSON structure | blobs``, where every blob is
``length (uint64, big endian) | .npy bytes``, referenced from the JSON structure by index.

JSON structure nodes (exactly one key each):
``{"a": k}`` array k; ``{"s": k}`` NumPy scalar stored as 0-d array k; ``{"b": true}`` Python bool;
``{"i": "12"}`` Python int (decimal string); ``{"f": "0x1.8p+1"}`` Python float (``float.hex``,
so NaN, infinities and -0.0 survive); ``{"t": [...]}`` tuple; ``{"l": [...]}`` list;
``{"n": 0}`` None (inputs only).
"""
from __future__ import annotations

import io
import json
import struct
from typing import Any, Iterator

import numpy as np
from numpy.lib import format as npy_format

FRAME_HEADER = struct.Struct("!4sQ")
BLOB_HEADER = struct.Struct("!Q")
JSON_HEADER = struct.Struct("!I")

ALLOWED_KINDS = frozenset("biuf")  # bool, signed int, unsigned int, float
MAX_DEPTH = 4
MAX_NODES = 256
MAX_ARRAYS = 64
MAX_NDIM = 8
MAX_JSON_BYTES = 64 * 1024
MAX_INT_DIGITS = 40
DEFAULT_MAX_VALUE_BYTES = 64 << 20


class WireError(ValueError):
    """Bytes that are not a well-formed frame or value (raised by the strict parsers)."""


class EncodeError(TypeError):
    """A value that cannot cross the boundary; ``str(error)`` names the offending type."""


# --------------------------------------------------------------------------------------------
# Encoding (used on both sides: trusted side for arguments, sandbox for return values)
# --------------------------------------------------------------------------------------------


def describe_type(value: Any) -> str:
    """A short learner-facing name for ``value``'s type, e.g. ``'str'`` or ``'ndarray of object'``."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"ndarray of dtype {value.dtype}"
    return type(value).__name__


def encode_value(value: Any, *, allow_none: bool = False) -> bytes:
    """Encode ``value`` (ndarray, NumPy/Python bool/int/float scalar, tuple/list of those) into a
    value body. Raises :class:`EncodeError` for anything else (dicts, strings, object arrays,
    complex numbers, ``None`` unless ``allow_none``)."""
    blobs: list[bytes] = []
    counter = [0]
    structure = _encode_node(value, blobs, 0, counter, allow_none)
    header = json.dumps(structure, separators=(",", ":")).encode("ascii")
    parts = [JSON_HEADER.pack(len(header)), header]
    for blob in blobs:
        parts.append(BLOB_HEADER.pack(len(blob)))
        parts.append(blob)
    return b"".join(parts)


def _encode_node(value: Any, blobs: list, depth: int, counter: list, allow_none: bool) -> dict:
    counter[0] += 1
    if counter[0] > MAX_NODES:
        raise EncodeError(f"more than {MAX_NODES} values in one result")
    if depth > MAX_DEPTH:
        raise EncodeError(f"values nested deeper than {MAX_DEPTH} levels")
    if value is None:
        if allow_none:
            return {"n": 0}
        raise EncodeError("None")
    if isinstance(value, (bool, np.bool_)) and not isinstance(value, np.ndarray):
        if isinstance(value, np.bool_):
            return {"s": _add_array(np.asarray(value), blobs)}
        return {"b": bool(value)}
    if isinstance(value, np.generic):
        return {"s": _add_array(np.asarray(value), blobs)}
    if isinstance(value, int):
        text = str(int(value))
        if len(text) > MAX_INT_DIGITS:
            raise EncodeError(f"an int with more than {MAX_INT_DIGITS} digits")
        return {"i": text}
    if isinstance(value, float):
        return {"f": float(value).hex()}
    if isinstance(value, np.ndarray):
        return {"a": _add_array(value, blobs)}
    if isinstance(value, (tuple, list)):
        key = "t" if isinstance(value, tuple) else "l"
        return {key: [_encode_node(item, blobs, depth + 1, counter, allow_none) for item in value]}
    raise EncodeError(describe_type(value))


def _add_array(array: np.ndarray, blobs: list) -> int:
    array = np.asarray(array)
    if type(array) is not np.ndarray:  # subclasses (matrix, masked) become plain arrays
        array = np.array(array, subok=False)
    if array.dtype.kind not in ALLOWED_KINDS or array.dtype.hasobject:
        raise EncodeError(describe_type(array))
    if array.ndim > MAX_NDIM:
        raise EncodeError(f"an array with {array.ndim} dimensions (at most {MAX_NDIM})")
    if len(blobs) >= MAX_ARRAYS:
        raise EncodeError(f"more than {MAX_ARRAYS} arrays")
    buffer = io.BytesIO()
    if not array.flags.c_contiguous:  # (np.ascontiguousarray would turn 0-d into 1-d)
        array = array.copy(order="C")
    npy_format.write_array(buffer, array, version=(1, 0), allow_pickle=False)
    blobs.append(buffer.getvalue())
    return len(blobs) - 1


# --------------------------------------------------------------------------------------------
# Strict decoding (trusted side)
# --------------------------------------------------------------------------------------------


def decode_value(body: bytes, *, allow_none: bool = False,
                 max_bytes: int = DEFAULT_MAX_VALUE_BYTES) -> Any:
    """Parse a value body produced by :func:`encode_value`.

    Returns ``np.ndarray`` (writable copies), ``tuple`` (lists become tuples), Python ``bool``,
    ``int`` or ``float`` (NumPy scalars become the matching Python scalar). Raises
    :class:`WireError` on any deviation: trailing bytes, unused or missing blobs, bad dtype,
    inconsistent shape, more than ``max_bytes`` in total.
    """
    if len(body) > max_bytes:
        raise WireError(f"value of {len(body)} bytes exceeds the limit of {max_bytes}")
    view = memoryview(body)
    if len(view) < JSON_HEADER.size:
        raise WireError("value shorter than its header")
    (json_length,) = JSON_HEADER.unpack_from(view, 0)
    if json_length > MAX_JSON_BYTES or JSON_HEADER.size + json_length > len(view):
        raise WireError("bad structure length")
    offset = JSON_HEADER.size + json_length
    try:
        structure = json.loads(bytes(view[JSON_HEADER.size:offset]).decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise WireError(f"bad structure: {error}") from None
    arrays: list[np.ndarray] = []
    while offset < len(view):
        if len(arrays) >= MAX_ARRAYS:
            raise WireError("too many arrays")
        if offset + BLOB_HEADER.size > len(view):
            raise WireError("truncated array header")
        (blob_length,) = BLOB_HEADER.unpack_from(view, offset)
        offset += BLOB_HEADER.size
        if blob_length > len(view) - offset:
            raise WireError("array length beyond the end of the value")
        arrays.append(decode_array(bytes(view[offset:offset + blob_length])))
        offset += blob_length
    used: set[int] = set()
    value = _decode_node(structure, arrays, used, 0, [0], allow_none)
    if used != set(range(len(arrays))):
        raise WireError("arrays sent but not referenced")
    return value


def decode_array(blob: bytes) -> np.ndarray:
    """Parse one ``.npy`` blob strictly: version 1.0/2.0 header, dtype kind in bool/int/uint/float,
    no object fields, at most :data:`MAX_NDIM` dimensions, data length exactly
    ``prod(shape) * itemsize``. Raises :class:`WireError`."""
    stream = io.BytesIO(blob)
    try:
        version = npy_format.read_magic(stream)
        if version == (1, 0):
            shape, fortran_order, dtype = npy_format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran_order, dtype = npy_format.read_array_header_2_0(stream)
        else:
            raise WireError(f"unsupported .npy version {version}")
    except WireError:
        raise
    except Exception as error:  # NumPy raises ValueError/SyntaxError/TypeError on bad headers
        raise WireError(f"bad array header: {error}") from None
    if not isinstance(dtype, np.dtype) or dtype.kind not in ALLOWED_KINDS or dtype.hasobject \
            or dtype.fields is not None or dtype.subdtype is not None:
        raise WireError(f"array dtype {dtype} not allowed (bool, int, uint, float only)")
    if not isinstance(shape, tuple) or len(shape) > MAX_NDIM \
            or not all(type(n) is int and n >= 0 for n in shape):
        raise WireError(f"bad array shape {shape!r}")
    count = 1
    for n in shape:
        count *= n
    data = blob[stream.tell():]
    if len(data) != count * dtype.itemsize:
        raise WireError(f"array data is {len(data)} bytes; shape {shape} of {dtype} needs "
                        f"{count * dtype.itemsize}")
    array = np.frombuffer(data, dtype=dtype, count=count)
    array = array.reshape(shape, order="F" if fortran_order else "C")
    return np.array(array, dtype=dtype.newbyteorder("="), order="C", copy=True)


def _decode_node(node: Any, arrays: list, used: set, depth: int, counter: list,
                 allow_none: bool) -> Any:
    counter[0] += 1
    if counter[0] > MAX_NODES or depth > MAX_DEPTH + 1:
        raise WireError("structure too large or too deep")
    if not isinstance(node, dict) or len(node) != 1:
        raise WireError("bad structure node")
    ((key, item),) = node.items()
    if key in ("a", "s"):
        if type(item) is not int or not 0 <= item < len(arrays) or item in used:
            raise WireError("bad array reference")
        used.add(item)
        array = arrays[item]
        if key == "a":
            return array
        if array.ndim != 0:
            raise WireError("scalar stored as a non-scalar array")
        return array.item()
    if key == "b" and type(item) is bool:
        return item
    if key == "i" and isinstance(item, str) and 0 < len(item) <= MAX_INT_DIGITS + 1:
        try:
            return int(item, 10)
        except ValueError:
            raise WireError("bad int") from None
    if key == "f" and isinstance(item, str) and len(item) <= 40:
        try:
            return float.fromhex(item)
        except ValueError:
            raise WireError("bad float") from None
    if key in ("t", "l") and isinstance(item, list):
        return tuple(_decode_node(child, arrays, used, depth + 1, counter, allow_none)
                     for child in item)
    if key == "n" and item == 0 and allow_none:
        return None
    raise WireError(f"bad structure node {key!r}")


# --------------------------------------------------------------------------------------------
# Frames
# --------------------------------------------------------------------------------------------


def frame(tag: bytes, body: bytes) -> bytes:
    """One frame: 4-byte tag, 8-byte big-endian body length, body."""
    if len(tag) != 4:
        raise ValueError("frame tags are 4 bytes")
    return FRAME_HEADER.pack(tag, len(body)) + body


def json_frame(tag: bytes, payload: dict) -> bytes:
    """A frame whose body is compact JSON (ASCII only)."""
    return frame(tag, json.dumps(payload, separators=(",", ":")).encode("ascii"))


class FrameReader:
    """Incremental strict frame parser for a byte stream from an untrusted writer.

    ``feed(data)`` returns complete ``(tag, body)`` pairs. Tags must be in ``allowed_tags``; the
    total number of bytes is capped at ``max_total`` (then :class:`WireError`). ``finish()``
    raises if the stream ended in the middle of a frame."""

    def __init__(self, allowed_tags: frozenset[bytes], max_total: int):
        self._buffer = bytearray()
        self._allowed = allowed_tags
        self._max_total = max_total
        self.total = 0

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        """Append ``data``; return the frames it completed. Raises :class:`WireError`."""
        self.total += len(data)
        if self.total > self._max_total:
            raise WireError(f"more than {self._max_total} bytes of results")
        self._buffer += data
        frames = []
        while len(self._buffer) >= FRAME_HEADER.size:
            tag, length = FRAME_HEADER.unpack_from(self._buffer, 0)
            if tag not in self._allowed:
                raise WireError(f"unknown frame tag {tag!r}")
            if length > self._max_total:
                raise WireError("frame longer than the result limit")
            end = FRAME_HEADER.size + length
            if len(self._buffer) < end:
                break
            frames.append((tag, bytes(self._buffer[FRAME_HEADER.size:end])))
            del self._buffer[:end]
        return frames

    def finish(self) -> None:
        """Call at end of stream; raises :class:`WireError` if a frame was cut off."""
        if self._buffer:
            raise WireError("stream ended inside a frame")


def read_frames(fd: int, allowed_tags: frozenset[bytes], max_total: int) -> Iterator[tuple[bytes, bytes]]:
    """Blocking helper: yield frames read from ``fd`` until end of file (used inside the sandbox
    to read the job)."""
    import os

    reader = FrameReader(allowed_tags, max_total)
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            reader.finish()
            return
        yield from reader.feed(chunk)


def parse_json_body(body: bytes, max_bytes: int = MAX_JSON_BYTES) -> dict:
    """Strictly parse a JSON frame body that must be an object. Raises :class:`WireError`."""
    if len(body) > max_bytes:
        raise WireError("JSON frame too long")
    try:
        payload = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise WireError(f"bad JSON frame: {error}") from None
    if not isinstance(payload, dict):
        raise WireError("JSON frame is not an object")
    return payload
