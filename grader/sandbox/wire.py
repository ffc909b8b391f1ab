"""The byte format that carries call arguments into the sandbox and return values out of it.

Nothing in this format can execute code: structure travels as JSON, arrays as raw ``.npy`` bytes
(``numpy.lib.format`` version 1.0 headers: the layout NumPy writes is matched by a regular
expression, any other header is parsed by NumPy's own ``ast.literal_eval``-based reader, and
either way re-checked here), and there is no pickle anywhere. The trusted side parses what the
sandbox sends with :func:`decode_value` and :class:`FrameReader`, which reject anything not
exactly well formed: wrong lengths, unknown tags, dtypes other than bool/int/uint/float, object
arrays, shapes whose byte count does not match, values deeper or bigger than the limits below.

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
import re
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
MAX_KEY_CHARS = 64  # a key of a dict argument (``params["W_q"]``)
DEFAULT_MAX_VALUE_BYTES = 64 << 20
ALIGNMENT = 64  # array data starts at multiples of this from the start of a value body
MAX_NPY_HEADER = 64 * 1024  # a .npy header is at most this long (NumPy itself caps it lower)


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


def encode_value(value: Any, *, allow_none: bool = False, allow_dict: bool = False) -> bytes:
    """Encode ``value`` (ndarray, NumPy/Python bool/int/float scalar, tuple/list of those) into a
    value body. Raises :class:`EncodeError` for anything else (strings, object arrays, complex
    numbers, ``None`` unless ``allow_none``, dicts unless ``allow_dict``: a problem's arguments
    may hold a dict with string keys, e.g. ``params`` of an encoder block; results never do)."""
    return b"".join(encode_parts(value, allow_none=allow_none, allow_dict=allow_dict))


def encode_parts(value: Any, *, allow_none: bool = False, allow_dict: bool = False) -> list:
    """The value body of :func:`encode_value` as a list of buffers (``bytes`` and memoryviews of
    the arrays' own data), so a large array is written out without being copied first."""
    blobs: list[list] = []
    counter = [0]
    structure = _encode_node(value, blobs, 0, counter, (allow_none, allow_dict))
    header = json.dumps(structure, separators=(",", ":")).encode("ascii")
    header += b" " * (-(JSON_HEADER.size + len(header)) % ALIGNMENT)  # JSON ignores the spaces
    parts: list = [JSON_HEADER.pack(len(header)), header]
    offset = JSON_HEADER.size + len(header)
    for text, data in blobs:
        npy_header = _npy_header(text, offset + BLOB_HEADER.size)
        parts += [BLOB_HEADER.pack(len(npy_header) + len(data)), npy_header, data]
        offset += BLOB_HEADER.size + len(npy_header) + len(data)
    return parts


def encode_arrays(values: Any) -> bytes | None:
    """:func:`encode_value` of ``values`` byte for byte when it is a tuple of plain, C-ordered
    ndarrays of bool/int/uint/float dtypes (the arguments of most calls), built without the
    general walk and with each ``.npy`` header taken from :data:`_HEADERS` when it was made
    before; None for anything else (then :func:`encode_value` decides, errors included). The
    trusted side's ``sandbox`` lever (:mod:`grader.levers`); never used inside the sandbox."""
    if type(values) is not tuple or len(values) > MAX_ARRAYS:
        return None
    for array in values:
        if (type(array) is not np.ndarray or array.dtype.kind not in ALLOWED_KINDS
                or array.dtype.hasobject or array.ndim > MAX_NDIM
                or not array.flags.c_contiguous):
            return None
    header = ('{"t":[' + ",".join(['{"a":%d}' % index for index in range(len(values))])
              + ']}').encode("ascii")
    header += b" " * (-(JSON_HEADER.size + len(header)) % ALIGNMENT)
    parts: list = [JSON_HEADER.pack(len(header)), header]
    offset = JSON_HEADER.size + len(header)
    for array in values:
        data = memoryview(array.reshape(-1) if array.ndim else array.reshape(1)).cast("B")
        key = (array.dtype.str, array.shape, (offset + BLOB_HEADER.size) % ALIGNMENT)
        npy_header = _HEADERS.get(key)
        if npy_header is None:
            npy_header = _npy_header(npy_header_text(array), offset + BLOB_HEADER.size)
            if len(_HEADERS) >= MAX_REMEMBERED:  # full: start again (bounded, never pinned)
                _HEADERS.clear()
            _HEADERS[key] = npy_header
        parts += [BLOB_HEADER.pack(len(npy_header) + len(data)), npy_header, data]
        offset += BLOB_HEADER.size + len(npy_header) + len(data)
    return b"".join(parts)


#: How many ``.npy`` headers :func:`encode_arrays` and :func:`decode_value` (``remember``)
#: keep, each a pure function of its key: once full, they are forgotten and kept again from the
#: next one (bounded, and no caller can fill them for good).
MAX_REMEMBERED = 512
#: ``(descr, shape, offset % ALIGNMENT)`` -> the header :func:`_npy_header` makes for it
_HEADERS: dict[tuple, bytes] = {}


NPY_MAGIC_1_0 = b"\x93NUMPY\x01\x00"


def npy_header_text(array: np.ndarray) -> bytes:
    """The dictionary of a ``.npy`` header for a C-ordered ``array``, exactly as NumPy's
    ``numpy.lib.format.write_array_header_1_0`` writes it (``{'descr': '<f8', 'fortran_order':
    False, 'shape': (2, 3), }``) without its padding; built directly, which is several times
    cheaper than NumPy's general writer."""
    return ("{'descr': '%s', 'fortran_order': False, 'shape': %r, }"
            % (array.dtype.str, array.shape)).encode("ascii")


def _npy_header(text: bytes, offset: int) -> bytes:
    """A version 1.0 header around ``text``, padded with spaces so that the data after it
    starts at a multiple of :data:`ALIGNMENT` from the start of the value body (``offset``:
    where the header starts)."""
    pad = -(offset + len(NPY_MAGIC_1_0) + 2 + len(text) + 1) % ALIGNMENT
    return (NPY_MAGIC_1_0 + struct.pack("<H", len(text) + pad + 1) + text + b" " * pad
            + b"\n")


def _encode_node(value: Any, blobs: list, depth: int, counter: list,
                 allowed: tuple[bool, bool]) -> dict:
    allow_none, allow_dict = allowed
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
        return {key: [_encode_node(item, blobs, depth + 1, counter, allowed) for item in value]}
    if isinstance(value, dict) and allow_dict:
        if not all(isinstance(k, str) and 0 < len(k) <= MAX_KEY_CHARS for k in value):
            raise EncodeError(f"a dict whose keys are not strings of 1 to {MAX_KEY_CHARS} "
                              "characters")
        return {"d": [[k, _encode_node(item, blobs, depth + 1, counter, allowed)]
                      for k, item in value.items()]}
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
    if not array.flags.c_contiguous:  # (np.ascontiguousarray would turn 0-d into 1-d)
        array = array.copy(order="C")
    data = memoryview(array.reshape(-1) if array.ndim else array.reshape(1)).cast("B")
    blobs.append([npy_header_text(array), data])
    return len(blobs) - 1


# --------------------------------------------------------------------------------------------
# Strict decoding (trusted side)
# --------------------------------------------------------------------------------------------


def decode_value(body, *, allow_none: bool = False, allow_dict: bool = False,
                 max_bytes: int = DEFAULT_MAX_VALUE_BYTES, remember: bool = False) -> Any:
    """Parse a value body produced by :func:`encode_value` (``bytes``, ``bytearray`` or a
    ``memoryview`` of either).

    Returns ``np.ndarray`` (writable; when ``body`` is a ``bytearray`` the arrays are views of it,
    not copies, so give each value its own buffer), ``tuple`` (lists become tuples), Python
    ``bool``, ``int`` or ``float`` (NumPy scalars become the matching Python scalar), and with
    ``allow_dict`` a ``dict`` of string keys (arguments only). Raises
    :class:`WireError` on any deviation: trailing bytes, unused or missing blobs, bad dtype,
    inconsistent shape, more than ``max_bytes`` in total. With ``remember`` (the trusted
    side's ``sandbox`` lever), each ``.npy`` header's parse is kept by its exact bytes
    (:data:`_PARSED`) and reused: the same values, the same errors, fewer regular expressions.
    """
    view = memoryview(body)
    if len(view) > max_bytes:
        raise WireError(f"value of {len(view)} bytes exceeds the limit of {max_bytes}")
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
        arrays.append(decode_array(view[offset:offset + blob_length], remember=remember))
        offset += blob_length
    used: set[int] = set()
    value = _decode_node(structure, arrays, used, 0, [0], (allow_none, allow_dict))
    if used != set(range(len(arrays))):
        raise WireError("arrays sent but not referenced")
    return value


#: A version 1.0 header dictionary as :func:`npy_header_text` (and NumPy) writes it: descr of a
#: bool/int/uint/float dtype, fortran_order, shape (``()``, ``(n,)`` or ``(n, m, ...)``), then
#: spaces and the newline. Anything else goes through NumPy's own parser.
_DIM = rb"(?:0|[1-9][0-9]{0,18})"
_NPY_HEADER = re.compile(
    rb"\{'descr': '([<>|][biuf][1-9][0-9]?)', 'fortran_order': (False|True), "
    rb"'shape': \((|" + _DIM + rb",|" + _DIM + rb"(?:, " + _DIM + rb")+)\), \} *\n")
_DTYPES: dict[bytes, np.dtype] = {}


#: a header dictionary's exact bytes -> :func:`_npy_header_parse` of it (``remember``)
_PARSED: dict[bytes, tuple | None] = {}


def _npy_header_fast(view: memoryview, remember: bool = False
                     ) -> tuple[tuple, bool, np.dtype, int] | None:
    """(shape, fortran_order, dtype, data offset) of a blob whose header has exactly the layout
    :data:`_NPY_HEADER` describes; None for any other header (NumPy's parser decides)."""
    if len(view) < 10 or view[:8] != NPY_MAGIC_1_0:
        return None
    (length,) = struct.unpack_from("<H", view, 8)
    if length > 10000 or len(view) < 10 + length:  # NumPy's own header size limit
        return None
    text = bytes(view[10:10 + length])
    if not remember:
        parsed = _npy_header_parse(text)
    elif text in _PARSED:
        parsed = _PARSED[text]
    else:
        parsed = _npy_header_parse(text)
        if len(text) <= 256:  # a learner's own shapes cannot pin it: full, it starts again
            if len(_PARSED) >= MAX_REMEMBERED:
                _PARSED.clear()
            _PARSED[text] = parsed
    return None if parsed is None else parsed + (10 + length,)


def _npy_header_parse(text: bytes) -> tuple[tuple, bool, np.dtype] | None:
    """(shape, fortran_order, dtype) of a header dictionary laid out as :data:`_NPY_HEADER`
    says, else None."""
    match = _NPY_HEADER.fullmatch(text)
    if match is None:
        return None
    descr, fortran, dims = match.groups()
    dtype = _DTYPES.get(descr)
    if dtype is None:
        try:
            dtype = np.dtype(descr.decode("ascii"))
        except TypeError:
            return None
        if len(_DTYPES) < 64:
            _DTYPES[descr] = dtype
    shape = tuple(int(n) for n in dims.split(b",") if n.strip()) if dims else ()
    return shape, fortran == b"True", dtype


def decode_array(blob, *, remember: bool = False) -> np.ndarray:
    """Parse one ``.npy`` blob (``bytes`` or a ``memoryview``) strictly: version 1.0/2.0 header,
    dtype kind in bool/int/uint/float, no object fields, at most :data:`MAX_NDIM` dimensions,
    data length exactly ``prod(shape) * itemsize``. The result is always writable: a view of
    ``blob`` when ``blob`` is writable and its data native and aligned (no copy), else a native,
    aligned copy. Raises :class:`WireError`. ``remember``: see :func:`decode_value`."""
    view = memoryview(blob)
    fast = _npy_header_fast(view, remember)
    if fast is not None:
        shape, fortran_order, dtype, start = fast
    else:
        shape, fortran_order, dtype, start = _npy_header_numpy(view)
    if not isinstance(dtype, np.dtype) or dtype.kind not in ALLOWED_KINDS or dtype.hasobject \
            or dtype.fields is not None or dtype.subdtype is not None:
        raise WireError(f"array dtype {dtype} not allowed (bool, int, uint, float only)")
    if not isinstance(shape, tuple) or len(shape) > MAX_NDIM \
            or not all(type(n) is int and n >= 0 for n in shape):
        raise WireError(f"bad array shape {shape!r}")
    count = 1
    for n in shape:
        count *= n
    if len(view) - start != count * dtype.itemsize:
        raise WireError(f"array data is {len(view) - start} bytes; shape {shape} of {dtype} "
                        f"needs {count * dtype.itemsize}")
    array = np.frombuffer(view, dtype=dtype, count=count, offset=start)
    array = array.reshape(shape, order="F" if fortran_order else "C")
    if dtype.isnative and array.flags.aligned and array.flags.c_contiguous and not view.readonly:
        return array
    return np.array(array, dtype=dtype.newbyteorder("="), order="C", copy=True)


def _npy_header_numpy(view: memoryview) -> tuple[tuple, bool, np.dtype, int]:
    """(shape, fortran_order, dtype, data offset) by NumPy's own header parser (any version 1.0
    or 2.0 header). Raises :class:`WireError`."""
    header = bytes(view[:min(len(view), MAX_NPY_HEADER)])
    stream = io.BytesIO(header)
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
    return shape, fortran_order, dtype, stream.tell()


def _decode_node(node: Any, arrays: list, used: set, depth: int, counter: list,
                 allowed: tuple[bool, bool]) -> Any:
    allow_none, allow_dict = allowed
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
        return tuple(_decode_node(child, arrays, used, depth + 1, counter, allowed)
                     for child in item)
    if key == "n" and item == 0 and allow_none:
        return None
    if key == "d" and allow_dict and isinstance(item, list):
        found = {}
        for entry in item:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and 0 < len(entry[0]) <= MAX_KEY_CHARS and entry[0] not in found):
                raise WireError("bad dict entry")
            found[entry[0]] = _decode_node(entry[1], arrays, used, depth + 1, counter, allowed)
        return found
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


class FrameTooLarge(WireError):
    """A frame whose declared length exceeds what may be read for its tag (refused before its
    body is read). ``tag``, ``length`` and ``limit`` are in bytes."""

    def __init__(self, tag: bytes, length: int, limit: int):
        super().__init__(f"a {tag.decode('ascii', 'replace')} frame of {length} bytes exceeds "
                         f"its limit of {limit}")
        self.tag, self.length, self.limit = tag, length, limit


class FrameReader:
    """Incremental strict frame parser for a byte stream from an untrusted writer.

    ``feed(data)`` (or ``read_from(fd)``, which reads straight into a large frame's own buffer)
    returns complete ``(tag, body)`` pairs; every body is its own ``bytearray``, so values decoded
    from it may be views of it. Tags must be in ``allowed_tags``; each frame's declared length is
    checked against ``frame_limit(tag)`` (default: ``max_total``) as soon as its header is
    complete, before any of its body is buffered (then :class:`FrameTooLarge`); the total number
    of bytes is capped at ``max_total`` (:class:`WireError`). ``finish()`` raises if the stream
    ended in the middle of a frame. With ``sink``, each frame is handed to ``sink(tag, body)`` the
    moment it is complete, before the next frame's header is checked (so ``frame_limit`` may
    depend on what the sink has seen), and ``feed``/``read_from`` return no frames."""

    def __init__(self, allowed_tags: frozenset[bytes], max_total: int, frame_limit=None,
                 sink=None):
        self._sink = sink
        self._staging = bytearray()
        self._body: bytearray | None = None  # the frame being filled by read_from
        self._tag = b""
        self._filled = 0
        self._allowed = allowed_tags
        self._max_total = max_total
        self._limit = frame_limit or (lambda tag: max_total)
        self.total = 0

    def _count(self, n: int) -> None:
        self.total += n
        if self.total > self._max_total:
            raise WireError(f"more than {self._max_total} bytes of results")

    def feed(self, data: bytes) -> list[tuple[bytes, bytearray]]:
        """Append ``data``; return the frames it completed. Raises :class:`WireError`."""
        frames: list[tuple[bytes, bytearray]] = []
        data = memoryview(data)
        if self._body is not None:
            take = min(len(data), len(self._body) - self._filled)
            self._body[self._filled:self._filled + take] = data[:take]
            self._filled += take
            self._count(take)
            data = data[take:]
            if self._filled < len(self._body):
                return frames
            self._emit(frames, self._tag, self._body)
            self._body = None
        self._count(len(data))
        self._staging += data
        while len(self._staging) >= FRAME_HEADER.size:
            tag, length = FRAME_HEADER.unpack_from(self._staging, 0)
            if tag not in self._allowed:
                raise WireError(f"unknown frame tag {tag!r}")
            limit = min(self._limit(tag), self._max_total)
            if length > limit:
                raise FrameTooLarge(tag, length, limit)
            end = FRAME_HEADER.size + length
            if len(self._staging) >= end:
                body = bytearray(self._staging[FRAME_HEADER.size:end])
                del self._staging[:end]
                self._emit(frames, tag, body)
                continue
            # A frame longer than what is buffered: give it its own buffer and fill it in place.
            self._body = bytearray(length)
            self._tag = tag
            self._filled = len(self._staging) - FRAME_HEADER.size
            self._body[:self._filled] = self._staging[FRAME_HEADER.size:]
            self._staging.clear()
            break
        return frames

    def read_from(self, fd: int, chunk: int = 1 << 16) -> tuple[list[tuple[bytes, bytearray]], bool]:
        """Read once from ``fd`` (straight into the current frame's buffer when one is being
        filled) and return ``(frames completed, end_of_file)``. Raises :class:`WireError`."""
        import os

        if self._body is not None:
            target = memoryview(self._body)[self._filled:]
            count = os.readv(fd, [target])
            if count == 0:
                return [], True
            self._filled += count
            self._count(count)
            if self._filled < len(self._body):
                return [], False
            frames: list = []
            body, self._body = self._body, None
            self._emit(frames, self._tag, body)
            return frames, False
        data = os.read(fd, chunk)
        if not data:
            return [], True
        return self.feed(data), False

    def _emit(self, frames: list, tag: bytes, body: bytearray) -> None:
        if self._sink is not None:
            self._sink(tag, body)
        else:
            frames.append((tag, body))

    def finish(self) -> None:
        """Call at end of stream; raises :class:`WireError` if a frame was cut off."""
        if self._staging or self._body is not None:
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
