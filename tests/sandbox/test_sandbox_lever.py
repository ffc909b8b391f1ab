"""The ``sandbox`` lever of issue 29 (grader/levers.py): the trusted side's encoding of a call's
arguments and its parse of returned ``.npy`` headers are cheaper, and nothing else changes:
the same bytes go into the sandbox, the same values (and the same errors) come out of it."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from grader.sandbox import Call, Limits, wire
from grader.sandbox.forkserver import encode_job

_DTYPES = ["<f8", ">f8", "<f4", "<f2", "<i8", ">i4", "|i1", "<u2", "|u1", "|b1"]
_shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(_DTYPES)))
    shape = draw(_shapes)
    array = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape) % 7
    array = np.asarray(np.asarray(array).astype(dtype))
    kind = draw(st.sampled_from(["plain", "fortran", "strided", "subclass", "readonly"]))
    if kind == "fortran" and array.ndim > 1:
        array = np.asfortranarray(array)
    elif kind == "strided" and array.ndim and array.shape[-1] > 1:
        array = array[..., ::2]
    elif kind == "subclass":
        array = array.view(np.ma.MaskedArray) if array.ndim else array
    elif kind == "readonly":
        array.flags.writeable = False
    return array


_others = st.sampled_from([None, 1, 2.5, True, np.float32(1.5), np.bool_(False), "text",
                           np.array([1 + 2j]), np.array(["a"]), {"k": np.zeros(2)}])
_values = st.lists(st.one_of(arrays(), arrays(), arrays(), _others), max_size=6).map(tuple)


@settings(max_examples=400, deadline=None)
@given(_values)
def test_the_fast_encoding_is_the_general_one_byte_for_byte(values):
    """Any tuple of arrays (any dtype, byte order, 0-d, empty, Fortran-ordered, strided, read
    only, a subclass) and of other values: ``encode_arrays`` gives ``encode_value``'s bytes
    or None (and only None when the tuple is not all plain C-ordered arrays)."""
    try:
        general = wire.encode_value(values, allow_none=True, allow_dict=True)
    except wire.EncodeError:
        general = None
    fast = wire.encode_arrays(values)
    plain = all(type(v) is np.ndarray and v.flags.c_contiguous for v in values)
    assert (fast is None) == (not plain or general is None)
    if fast is not None:
        assert fast == general
        assert wire.encode_arrays(values) == general  # from the remembered headers too


def test_more_arrays_than_the_wire_carries_are_left_to_the_general_encoder():
    values = tuple(np.zeros(1) for _ in range(wire.MAX_ARRAYS + 1))
    assert wire.encode_arrays(values) is None
    with pytest.raises(wire.EncodeError, match="more than 64 arrays"):
        wire.encode_value(values)
    assert wire.encode_arrays(()) == wire.encode_value(())
    assert wire.encode_arrays([np.zeros(1)]) is None  # a list is not a call's arguments


def test_the_job_stream_is_the_same_with_the_lever_on_and_off(monkeypatch):
    rng = np.random.default_rng(3)
    calls = [Call(test="visible", function="f", args=(rng.standard_normal((2, 3)),
                                                      rng.standard_normal(3) > 0)),
             Call(test="kw", function="f", args=(np.float32(2.0),),
                  kwargs={"mask": None, "x": np.arange(4)}),
             Call(test="hidden", function="f", args=(np.asfortranarray(np.ones((2, 2))),),
                  secret=True),
             Call(test="hidden 2", function="f", args=(np.ones((1, 0)), np.int8(3)),
                  secret=True)]
    jobs = []
    for value in ("none", "sandbox", "none"):
        monkeypatch.setenv("CPU_LEVERS", value)
        jobs.append(encode_job("def f(*a, **k):\n    return 1\n", calls, 2.0,
                               {"paths": [], "modules": []}))
    assert jobs[0] == jobs[1] == jobs[2]
    assert jobs[1].gate == 2 and jobs[1].held


def _blob(array):
    return wire.encode_value(array)


@settings(max_examples=300, deadline=None)
@given(st.lists(arrays(), min_size=1, max_size=3).map(tuple),
       st.integers(0, 200), st.binary(min_size=1, max_size=1))
def test_remembered_headers_decode_every_value_and_error_as_before(values, at, byte):
    """Well-formed values and the same values with one byte changed anywhere (the header text
    included): decoded twice with ``remember`` (parsed, then from the memory), the same value
    or the same error as without it."""
    body = bytearray(wire.encode_value(values))
    damaged = bytearray(body)
    damaged[at % len(damaged)] = byte[0]
    for candidate in (body, damaged):
        outcomes = []
        for remember in (False, True, True):
            try:
                value = wire.decode_value(bytes(candidate), remember=remember)
                outcomes.append(("ok", [(v.dtype.str, v.shape, v.tobytes()) for v in value]))
            except wire.WireError as error:
                # (NumPy's own parser names an object's address, which differs every time)
                outcomes.append(("error", re.sub(" at 0x[0-9a-f]+", "", str(error))))
        assert outcomes[0] == outcomes[1] == outcomes[2]


def test_the_memory_of_headers_is_bounded(monkeypatch):
    monkeypatch.setattr(wire, "_PARSED", {})
    for n in range(wire.MAX_REMEMBERED + 50):
        wire.decode_value(wire.encode_value(np.zeros((1, n))), remember=True)
    # full at MAX_REMEMBERED, forgotten, and kept again from the next one: a learner's shapes
    # cannot fill it for good
    assert len(wire._PARSED) == 50
    assert wire.decode_value(wire.encode_value(np.zeros((1, 3))), remember=True).shape == (1, 3)
    assert b"(1, 3)" in b"".join(wire._PARSED)
    long = np.zeros((1,) * 8 + (0,) * 0)  # an 8-dimensional header is still short
    assert wire.decode_value(wire.encode_value(long), remember=True).shape == long.shape
    text = b"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }" + b" " * 300 + b"\n"
    monkeypatch.setattr(wire, "_PARSED", {})
    assert wire._npy_header_fast(memoryview(wire.NPY_MAGIC_1_0 + len(text).to_bytes(2, "little")
                                            + text + bytes(24)), True)[0] == (3,)
    assert wire._PARSED == {}  # a header text longer than 256 bytes is parsed, not kept


@pytest.mark.parametrize("lever", ["none", "sandbox"])
def test_a_run_gives_the_same_outcomes_with_the_lever_on_and_off(sandbox, monkeypatch, lever):
    """One real sandbox run with visible and hidden calls, a failing call and a value too large
    for its cap: the same statuses, values and messages with the lever on and off."""
    source = ("import numpy as np\n"
              "def f(x, m=None):\n"
              "    if m is not None and m.all():\n"
              "        raise ValueError('all masked')\n"
              "    return x * 2, (x > 0)\n")
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 4))
    calls = [Call(test="a", function="f", args=(x,)),
             Call(test="b", function="f", args=(x.astype(np.float32), np.zeros(4, bool))),
             Call(test="c", function="f", args=(x, np.ones(4, bool)), secret=True),
             Call(test="d", function="f", args=(np.ones((64, 64)),), max_result_bytes=1024,
                  secret=True),
             Call(test="e", function="f", args=(x[:, :1],), secret=True)]
    records = []
    for value in ("none", lever):
        monkeypatch.setenv("CPU_LEVERS", value)
        result = sandbox.run(source, calls, Limits())
        records.append((result.status, result.message, result.stdout,
                        [(c.status, c.error, None if c.value is None else
                          [(v.dtype.str, v.shape, v.tobytes()) for v in c.value])
                         for c in result.calls],
                        [(s.test, s.kind, s.message) for s in result.stopped_tests]))
    assert records[0] == records[1]
    statuses = [c[0] for c in records[1][3]]
    assert statuses == ["ok", "ok", "exception", "bad_return", "ok"]


def _server_argv(instance) -> list[str]:
    with open(f"/proc/{instance.server_host_pid()}/cmdline", "rb") as handle:
        return handle.read().decode().split("\0")


def test_a_server_started_with_the_lever_warms_up_and_grades_as_one_without(sandbox,
                                                                             monkeypatch):
    """The session's server (all levers) was started with ``--warm``; one started under
    ``CPU_LEVERS=none`` was not. Both pass the self-test, and a job gives the same outcomes
    and output on each, a learner's printing, a refused import and a later call included."""
    from grader.sandbox import get_sandbox

    monkeypatch.setenv("CPU_LEVERS", "none")
    cold = get_sandbox("auto")
    try:
        assert "--warm" in _server_argv(sandbox)
        assert "--warm" not in _server_argv(cold)
        source = ("import numpy as np\n"
                  "print('imported', np.float_ is np.float64)\n"
                  "def f(x, flags, n, w=None):\n"
                  "    try:\n"
                  "        import scipy\n"
                  "    except ImportError as error:\n"
                  "        print(error)\n"
                  "    return x.T @ x * n, flags.sum(), [float(x.sum()), 1.0]\n")
        x = np.arange(6.0).reshape(2, 3)
        calls = [Call(test="v", function="f", args=(x, x > 2, 2)),
                 Call(test="h", function="f", args=(x.astype(np.float32), x < 1, 3),
                      kwargs={"w": None}, secret=True)]
        records = []
        for instance in (cold, sandbox):
            result = instance.run(source, calls, Limits())
            records.append((result.status, result.stdout, result.visible_stdout,
                            [(c.status, c.error, repr(c.value)) for c in result.calls]))
        assert records[0] == records[1]
        assert records[1][0] == "ok" and records[1][1].startswith("imported True\n")
        assert "import of 'scipy' refused" in records[1][1]
    finally:
        cold.close()


def test_warming_up_leaves_every_guarded_namespace_bound_as_it_was():
    """``runner.warm_up`` runs in the server before the namespace snapshots; it binds, rebinds
    or removes nothing in them (only fills caches such as ``wire``'s dtypes)."""
    import builtins
    import json
    import os
    import struct
    import sys
    import types

    from tests.sandbox.test_module_guard import runner as runner_module

    sandbox_wire = sys.modules["wire"]  # the runner's own wire, as the server imports it
    modules = (builtins, np, np.lib.format, json, struct, os, sandbox_wire, sys, types)
    before = [dict(module.__dict__) for module in modules]
    runner_module.warm_up(rounds=3)
    after = [dict(module.__dict__) for module in modules]
    for old, new in zip(before, after):
        assert old.keys() == new.keys()
        assert all(old[k] is new[k] for k in old)
