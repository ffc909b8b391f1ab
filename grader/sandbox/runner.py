"""Runs one job inside the sandbox: import the learner's source, make each call, stream results.

This file is bind-mounted read-only into the sandbox next to ``wire.py`` and runs in a child
forked by ``server.py`` after isolation and limits are applied. Learner code may import NumPy,
the standard library and the packages its item allows (:class:`ImportRule` words the refusal
of anything else; the sandbox holds nothing else). It never decides a verdict: it
only reports, in order: ``LIVE {}`` once the job's description is read (before any of the learner's
code runs), ``IMPD {}`` once the learner's code is imported, then for call ``i`` (its arguments
read just before it): ``STRT {"i": i}`` then either ``VALU`` (JSON-length-prefixed
call index + encoded value, see ``wire.py``) or ``FAIL {"i", "status", "error", "memory"}``; or,
before any call, ``SYNT``/``IMPT`` with a message and the line it names (``"line"``, or
null); and ``DONE`` at the end. The trusted side
treats everything here as untrusted input: the learner's code runs in this same process and can
write to the result descriptor itself, which can only ever change its own answers.

Learner-facing messages name lines "of your code" and trim tracebacks to frames of
``submission.py`` (the file name the source is compiled under).
"""
from __future__ import annotations

import json
import linecache
import operator
import os
import signal
import struct
import sys
import time
import traceback
import types

import numpy as np
import wire

SOURCE_NAME = "submission.py"
MAX_MESSAGE = 4000
JOB_TAGS = frozenset({b"JOB_", b"ARGS"})
MAX_JOB_BYTES = 256 << 20
COALESCE_BYTES = 1 << 16  # a value frame up to this size is written with one write()
RETURN_EXPECTATION = "expected a NumPy array, a number, or a tuple of those"

_write = os.write  # captured before the learner's code can replace os.write
_all, _len, _map, _is = all, len, map, operator.is_  # (ModuleGuard.restore)
_setitimer = signal.setitimer


def _emit(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = _write(fd, view)
        view = view[written:]


def _emit_json(fd: int, tag: bytes, payload: dict) -> None:
    _emit(fd, wire.json_frame(tag, payload))


def _shorten(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + " ... [trimmed]"


def _safe_str(error: BaseException) -> str:
    """``str(error)`` without trusting the learner's ``__str__`` to behave."""
    try:
        return _shorten(str(error))
    except BaseException:  # noqa: BLE001 - a hostile __str__ may raise anything
        return "<unprintable message>"


def learner_frames(error: BaseException) -> list:
    """The traceback frames that belong to the learner's file, outermost first."""
    return [f for f in traceback.extract_tb(error.__traceback__) if f.filename == SOURCE_NAME]


def describe_exception(error: BaseException) -> str:
    """``"ZeroDivisionError: division by zero (line 4 of your code)"`` followed by the traceback
    trimmed to the learner's own frames."""
    frames = learner_frames(error)
    name = type(error).__name__
    headline = f"{name}: {_safe_str(error)}".rstrip(": ")
    if frames:
        headline += f" (line {frames[-1].lineno} of your code)"
    if not frames:
        return headline
    trace = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
    return _shorten(f"{headline}\n{trace}{name}: {_safe_str(error)}")


def error_line(error: BaseException) -> int | None:
    """The line of the learner's code that ``describe_exception`` names (None: none)."""
    frames = learner_frames(error)
    return frames[-1].lineno if frames else None


# Characters that editors, word processors and web pages put where Python expects another one.
LOOKALIKES = {
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2010": "-", "\u2011": "-",
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00d7": "*", "\u00f7": "/",
    "\u00a0": "a normal space", "\u202f": "a normal space", "\u2009": "a normal space",
    "\u200b": "nothing (delete it)", "\ufeff": "nothing (delete it)",
    "\u00ad": "nothing (delete it)",
}


def _character_problem(error: SyntaxError) -> str | None:
    """CPython names a character it refuses by its code point ("invalid character '\u2013'
    (U+2013)", "invalid non-printable character U+00A0"); say it in words instead."""
    import re
    import unicodedata

    match = re.search(r"U\+([0-9A-Fa-f]{4,6})", str(error.msg))
    if not match or "character" not in str(error.msg):
        return None
    char = chr(int(match.group(1), 16))
    name = unicodedata.name(char, "an unnamed character").lower()
    seen = f"'{char}' ({name})" if char.isprintable() and not char.isspace() else \
        f"an invisible {name}"
    instead = LOOKALIKES.get(char)
    hint = f"; type {instead!r} instead" if instead and len(instead) == 1 else (
        f"; replace it with {instead}" if instead else "")
    return (f"{seen} is not allowed in Python code outside strings and comments (it often "
            f"comes from copying from a document or a web page){hint}")


def describe_syntax_error(error: SyntaxError) -> str:
    """``"SyntaxError: invalid syntax (line 3 of your code)"`` plus the line and a caret; a
    refused character is described in words, never by its code point."""
    line = error.lineno or 0
    message = (f"{type(error).__name__}: {_character_problem(error) or error.msg} "
               f"(line {line} of your code)")
    if error.text:
        text = error.text.rstrip("\n")
        caret = " " * max((error.offset or 1) - 1, 0) + "^"
        message += f"\n    {text.strip()}\n    {caret[len(text) - len(text.lstrip()):]}"
    return _shorten(message)


def _dict_version_reader():
    """A function that reads a dict's version tag without touching its keys or values, or None.

    CPython 3.11 gives every dict a 64-bit ``ma_version_tag`` (PEP 509) that changes on every
    insertion, deletion or rebinding; it sits after the object header and ``ma_used``. Comparing
    it is how :class:`ModuleGuard` sees that a namespace is unchanged without incrementing the
    reference counts of its ~1,500 objects, which in a freshly forked job would copy every memory
    page they live on (about 1.3 ms of CPU per job). Only used on CPython 3.11, and only when a
    probe dict behaves exactly as described here; otherwise None (every namespace is compared in
    full, as before)."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11):
        return None
    import ctypes

    word = ctypes.sizeof(ctypes.c_ssize_t)

    def tag(namespace: dict):
        return ctypes.c_uint64.from_address(id(namespace) + 3 * word)

    def used(namespace: dict) -> int:
        return ctypes.c_ssize_t.from_address(id(namespace) + 2 * word).value

    probe: dict = {}
    first = tag(probe).value
    probe["a"] = 1
    second, again = tag(probe).value, tag(probe).value
    probe["a"] = 2
    third = tag(probe).value
    del probe["a"]
    fourth = tag(probe).value
    if used(probe) == 0 and first != second == again and len({second, third, fourth}) == 3:
        return tag
    return None


_VERSION_TAG = _dict_version_reader()


class ModuleGuard:
    """Snapshots the namespaces this runner relies on (``builtins``, ``numpy``,
    ``numpy.lib.format``, ``json``, ``struct``, ``os``, ``wire``, ``sys``, ``types``) and puts them
    back after the learner's code ran, so monkeypatching them cannot break the reporting of
    results. (It could not fool any check: checks run on the trusted side.)

    The server makes one with :func:`prepare` before it forks (the copies are then shared by
    every job's child, not made again per job); a job calls :meth:`refresh` for ``sys``, whose
    streams its child replaced, then :meth:`restore` after the import and after every call."""

    def __init__(self) -> None:
        import builtins
        import numpy
        import numpy.lib.format

        modules = (builtins, numpy, numpy.lib.format, json, struct, os, wire, sys, types)
        self._saved = [self._snapshot(module.__dict__) for module in modules]
        self._tags: list | None = None  # per namespace: (version tag reader, value when clean)

    @staticmethod
    def _snapshot(namespace: dict) -> tuple:
        # (namespace, saved copy, its keys and values in order): an unchanged namespace has the
        # same keys bound to the same objects in the same order, which _changed() checks in C
        return namespace, dict(namespace), tuple(namespace), tuple(namespace.values())

    def refresh(self, module: types.ModuleType) -> None:
        """Take ``module``'s snapshot again (it was changed on purpose since, e.g. ``sys``)."""
        self._saved = [self._snapshot(entry[0]) if entry[0] is module.__dict__ else entry
                       for entry in self._saved]
        self._tags = None

    def arm(self) -> None:
        """Note every namespace's version tag now, when they match their snapshots."""
        if _VERSION_TAG is not None:
            self._tags = [[_VERSION_TAG(entry[0]), 0] for entry in self._saved]
            for mark in self._tags:
                mark[1] = mark[0].value

    def restore(self) -> None:
        """Put back every snapshotted namespace that the learner's code changed (any key added,
        removed, re-ordered or bound to another object). Uses only functions captured when this
        module was imported, so a learner's replacement of ``all``/``map`` cannot hide a change.
        A namespace whose version tag has not moved since it was last clean is skipped."""
        tags = self._tags
        for index, (namespace, saved, keys, values) in enumerate(self._saved):
            if tags is not None and tags[index][0].value == tags[index][1]:
                continue
            if (_len(namespace) != _len(keys) or not _all(_map(_is, namespace, keys))
                    or not _all(_map(_is, namespace.values(), values))):
                namespace.clear()
                namespace.update(saved)
            if tags is not None:
                tags[index][1] = tags[index][0].value


#: Names NumPy 2.0 removed from its main namespace (and 2.x later, e.g. ``product``), with what
#: each stood for in NumPy 1.x, so that correct code written for NumPy 1.x runs here. Learners
#: are told (every code problem's contract): "NumPy 2.x; the aliases NumPy 2.0 removed still
#: work here". Each value is the name of what replaces it, or a function of the numpy module.
NUMPY_1_ALIASES = {
    "float_": "float64", "complex_": "complex128", "cfloat": "complex128",
    "singlecomplex": "complex64", "longfloat": "longdouble", "clongfloat": "clongdouble",
    "longcomplex": "clongdouble", "string_": "bytes_", "unicode_": "str_",
    "Inf": "inf", "Infinity": "inf", "infty": "inf", "PINF": "inf", "NaN": "nan",
    "NINF": lambda np: -np.inf, "PZERO": lambda np: 0.0, "NZERO": lambda np: -0.0,
    "product": "prod", "cumproduct": "cumprod", "alltrue": "all", "sometrue": "any",
    "round_": "round", "trapz": "trapezoid", "in1d": "isin", "mat": "asmatrix",
    "bool8": "bool_", "int0": "intp", "uint0": "uintp", "object0": "object_",
    "str0": "str_", "bytes0": "bytes_", "void0": "void",
    "asfarray": lambda np: _asfarray(np),
    "msort": lambda np: (lambda a: np.sort(a, axis=0)),
}


def _asfarray(np):
    def asfarray(a, dtype=None):
        """NumPy 1.x ``np.asfarray``: ``a`` as an array of an inexact (float) dtype."""
        dtype = np.float64 if dtype is None else dtype
        if not np.issubdtype(dtype, np.inexact):
            dtype = np.float64
        return np.asarray(a, dtype=dtype)

    return asfarray


def add_numpy_1_aliases() -> list[str]:
    """Bind the removed NumPy 1.x names of :data:`NUMPY_1_ALIASES` that this NumPy lacks on the
    ``numpy`` module. Called by the server once, before :func:`prepare` snapshots the namespaces
    (so every job inherits them and :class:`ModuleGuard` puts them back after a job's code
    rebinds or deletes one); never in the trusted process. Returns the names added."""
    import numpy

    added = []
    for name, meaning in NUMPY_1_ALIASES.items():
        if name in numpy.__dict__:
            continue
        if callable(meaning):
            value = meaning(numpy)
        elif meaning in numpy.__dict__:
            value = numpy.__dict__[meaning]
        else:
            continue  # e.g. a NumPy without np.trapezoid
        numpy.__dict__[name] = value
        added.append(name)
    return added


_PREPARED: ModuleGuard | None = None

#: Top-level modules every job may import besides the standard library (the learner's own
#: module is made by the runner, never found on a path).
ALWAYS_IMPORTABLE = frozenset({"numpy", "submission"})


def import_refusal(module: str, allowed=()) -> str:
    """The sentence a learner reads when an import is refused: the module and the rule, e.g.
    ``import of 'scipy' refused: this item's code may import only NumPy and the Python
    standard library``."""
    what = "NumPy and the Python standard library"
    if allowed:
        what = f"NumPy, the Python standard library and {', '.join(sorted(allowed))}"
    return f"import of '{module}' refused: this item's code may import only {what}"


class ImportRule:
    """First on ``sys.meta_path`` in every job: importing a module whose top-level name is not
    in the standard library, not NumPy and not one the item allows (``allowed``: the top-level
    names of ``limits.imports`` and of what they require) raises ``ModuleNotFoundError`` with
    :func:`import_refusal`'s sentence. It only words the refusal: what enforces the rule is the
    sandbox's mount namespace, which holds no other package (``launcher.package_folders``), so
    a job that removes this finder gets Python's own "No module named ..." instead."""

    def __init__(self, allowed=()):
        self.allowed = frozenset(allowed)

    def find_spec(self, fullname: str, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in sys.stdlib_module_names or top in ALWAYS_IMPORTABLE or top in self.allowed:
            return None
        raise ModuleNotFoundError(import_refusal(top, self.allowed), name=fullname)


#: NumPy's submodules that ``numpy.__getattr__`` imports on first use. They are imported before
#: the snapshots: bound on ``numpy`` only later, inside a job, :meth:`ModuleGuard.restore` would
#: unbind them while ``sys.modules`` keeps them, and the next ``np.random`` would recurse
#: (``import numpy.random`` asks ``numpy`` for ``random`` again) until RecursionError.
LAZY_NUMPY_SUBMODULES = ("linalg", "fft", "random", "polynomial", "ma", "dtypes", "exceptions",
                         "ctypeslib", "rec", "char", "strings", "typing", "testing")


def prepare() -> None:
    """Called by the server once, before it forks jobs: NumPy's lazily imported submodules are
    imported (:data:`LAZY_NUMPY_SUBMODULES`), then the namespaces' snapshots are taken there, so
    no job copies them (or touches their objects) again."""
    global _PREPARED
    import importlib

    for name in LAZY_NUMPY_SUBMODULES:
        try:
            importlib.import_module(f"numpy.{name}")
        except ImportError:  # not part of this NumPy
            pass
    _PREPARED = ModuleGuard()


#: Rounds of :func:`warm_up`: CPython 3.11 specialises a function's bytecode after it has run a
#: few dozen times, and a job's process runs the job code only a few dozen times in all.
WARM_UP_ROUNDS = 64


def warm_up(rounds: int = WARM_UP_ROUNDS) -> None:
    """Run the runner's own per-call work (reading a job's frames, decoding arguments, encoding
    and framing a value) on a fixed job, in the server, before it forks any job (``server.py
    --warm``: the trusted side's ``sandbox`` lever). Every job then starts with that code's
    bytecode specialised and ``wire``'s dtype cache filled instead of paying for both itself.
    Nothing of any job is involved: the inputs are constants, nothing is written anywhere,
    and the server is the same before every job whatever jobs did (each job is forked from it
    and changes only its own copy)."""
    float64 = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    values = [(float64, float64.astype(np.float32), float64[0] > 3, np.arange(6).reshape(2, 3)),
              (float64[0, 0], None, 1, 2.5, True, {"w": float64[1]}, [float64[0, 1]])]
    stream = wire.json_frame(b"JOB_", {"source": "", "calls": []}) + b"".join(
        wire.frame(b"ARGS", wire.encode_value(value, allow_none=True, allow_dict=True))
        for value in values)
    returned = [(float64, float64[0] > 3), float64.astype(np.float32), [[1.0, 2.0]], 2.0]

    def discard(_fd, _data):
        return None

    for _ in range(rounds):
        frames = wire.FrameReader(JOB_TAGS, MAX_JOB_BYTES).feed(stream)
        wire.parse_json_body(frames[0][1], max_bytes=MAX_JOB_BYTES)
        for _tag, body in frames[1:]:
            wire.decode_value(body, allow_none=True, allow_dict=True, max_bytes=MAX_JOB_BYTES)
        for index, value in enumerate(returned):
            wire.json_frame(b"STRT", {"i": index})
            _send_value(-1, index, 0.0, wire.encode_parts(as_arrays(value)), emit=discard)


def _flush_learner_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - the learner may have replaced the streams
            pass


class JobReader:
    """The job, read as it is needed: the ``JOB_`` frame (source, calls) first, then one ``ARGS``
    frame (positional arguments then keyword values) just before each call. The trusted side
    writes a hidden test's arguments only once the learner's code is imported and every call
    before the first hidden one has finished (``Call.secret``), so nothing the learner's code
    shows before that (an import error, a visible example's output, a picture) can hold them."""

    def __init__(self, job_fd: int):
        self._frames = wire.read_frames(job_fd, JOB_TAGS, MAX_JOB_BYTES)

    def meta(self) -> dict:
        tag, body = next(self._frames, (None, None))
        if tag != b"JOB_":
            raise wire.WireError("malformed job")
        meta = wire.parse_json_body(body, max_bytes=MAX_JOB_BYTES)
        if not isinstance(meta.get("calls"), list):
            raise wire.WireError("malformed job")
        return meta

    def arguments(self) -> tuple:
        tag, body = next(self._frames, (None, None))
        if tag != b"ARGS":
            raise wire.WireError("incomplete job")
        return wire.decode_value(body, allow_none=True, allow_dict=True,
                                 max_bytes=MAX_JOB_BYTES)


def run_job(job_fd: int, result_fd: int, *, emit_json=_emit_json) -> None:
    """Read the job from ``job_fd``, run it, write frames to ``result_fd``. Returns normally when
    done; the learner's code may end the process earlier.

    Frames, in order: ``LIVE`` (set up: from here on, faults are the learner's), then ``SYNT``
    (the source does not compile) or ``IMPT`` (the import failed) and nothing more, or ``IMPD``
    (imported: the trusted side may now send the hidden arguments), one ``STRT`` and one
    ``VALU``/``FAIL`` per call, and ``DONE``."""
    job = JobReader(job_fd)
    meta = job.meta()
    emit_json(result_fd, b"LIVE", {})
    sys.path.extend(str(path) for path in meta.get("paths", ()))  # the packages it allows
    sys.meta_path.insert(0, ImportRule(meta.get("modules", ())))
    source = meta["source"]
    linecache.cache[SOURCE_NAME] = (len(source), None, source.splitlines(True), SOURCE_NAME)
    code = _compile(source, result_fd)
    if code is None:
        return
    module = types.ModuleType("submission")
    module.__file__ = SOURCE_NAME
    sys.modules["submission"] = module
    # Each test's (and the import's) own CPU limit: SIGPROF, whose default action ends the
    # process, once the process has used that much CPU since the timer was armed. The learner's
    # code could disarm it; the process-wide RLIMIT_CPU and the trusted wall clock still hold.
    cpu = float(meta.get("test_cpu_seconds") or 0.0)
    arm = (lambda: _setitimer(signal.ITIMER_PROF, cpu)) if cpu > 0 else (lambda: None)
    arm()
    guard = _PREPARED if _PREPARED is not None else ModuleGuard()
    guard.refresh(sys)  # the child gave sys new streams
    guard.arm()
    if not _import(code, module, guard, result_fd):
        return
    emit_json(result_fd, b"IMPD", {})
    read_arguments = job.arguments
    previous_test = None
    for index, call in enumerate(meta["calls"]):
        args = read_arguments()
        if call["test"] != previous_test:
            previous_test = call["test"]
            arm()
        if not _call(module, call, index, args, guard, result_fd):
            break
    emit_json(result_fd, b"DONE", {})


def _compile(source: str, result_fd: int):
    """The learner's code object, or ``None`` after a ``SYNT`` frame saying why it does not
    compile (in the learner's terms, with the line)."""
    try:
        return compile(source, SOURCE_NAME, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:  # ValueError: null bytes in source
        if isinstance(error, SyntaxError) and "null bytes" not in str(error.msg):
            message, line = describe_syntax_error(error), error.lineno or 0
        else:
            line = source[:source.find("\0")].count("\n") + 1
            message = (f"SyntaxError: your code contains a NUL character (a zero byte), which "
                       f"Python does not accept; delete it (line {line} of your code)")
        _emit_json(result_fd, b"SYNT", {"message": message, "line": line})
    except (MemoryError, RecursionError) as error:
        _emit_json(result_fd, b"SYNT", {"message": f"your code is too deeply nested to compile "
                                                   f"({type(error).__name__})"})
    return None


def _import(code, module: types.ModuleType, guard, result_fd: int, *, emit_json=_emit_json,
            describe=describe_exception) -> bool:
    """Run the learner's module body under ``guard``; ``False`` after an ``IMPT`` frame when it
    raised or exited (with the line, and whether memory ran out)."""
    try:
        exec(code, module.__dict__)
    except SystemExit as error:
        guard.restore()
        _flush_learner_output()
        emit_json(result_fd, b"IMPT", {"message": f"your code called sys.exit({_safe_str(error)}) "
                                                  "while being imported", "memory": False,
                                       "line": None})
        return False
    except BaseException as error:  # noqa: BLE001 - report every learner fault
        guard.restore()
        _flush_learner_output()
        emit_json(result_fd, b"IMPT", {"message": "your code raised an error while being "
                                                  "imported: " + describe(error),
                                       "memory": isinstance(error, MemoryError),
                                       "line": error_line(error)})
        return False
    guard.restore()
    _flush_learner_output()
    return True


def as_arrays(value, *, asarray=np.asarray, generic=np.generic):
    """A learner's (nested) list of numbers or booleans as the array it stands for, inside a
    tuple too (``(output.tolist(), weights.tolist())``): a short list was already graded like
    its array, and a long one would exceed the wire's value count (``wire.MAX_NODES``) and be
    refused. Only plain lists of Python or NumPy scalars are converted (walked without calling
    any of the learner's methods); anything else is returned as it is."""
    if type(value) is tuple:
        return tuple(as_arrays(item) for item in value)
    if type(value) is not list or not value:
        return value
    stack = [value]
    while stack:
        for item in stack.pop():
            kind = type(item)
            if kind is list:
                stack.append(item)
            elif not (kind in (int, float, bool)
                      or (isinstance(item, generic) and kind.__module__ == "numpy")):
                return value
    try:
        array = asarray(value)
    except (ValueError, OverflowError):  # ragged, or an int too large for any dtype
        return value
    return array if array.dtype.kind in "biuf" else value


def _call(module: types.ModuleType, call: dict, index: int, args: tuple, guard, result_fd: int,
          *, emit_json=_emit_json, describe=describe_exception, monotonic=time.monotonic,
          encode=wire.encode_parts, arrays=as_arrays) -> bool:
    """Run call ``index`` (``STRT``, then ``VALU`` with its value and seconds, or ``FAIL``: no
    such function, an exception, a value the wire cannot carry). ``False`` when memory ran out:
    no later call can be trusted to run. The keyword defaults are bound when this module is
    imported, so the learner's code cannot swap them (``time`` is not among the namespaces
    :class:`ModuleGuard` puts back)."""
    emit_json(result_fd, b"STRT", {"i": index})
    function = module.__dict__.get(call["function"])
    if not callable(function):
        emit_json(result_fd, b"FAIL", {"i": index, "status": "missing_function", "memory": False,
                                       "error": f"function '{call['function']}' is not defined "
                                                "in your code"})
        return True
    names = call["kwnames"]
    positional = args[:len(args) - len(names)]
    keywords = dict(zip(names, args[len(args) - len(names):]))
    started = monotonic()
    try:
        value = function(*positional, **keywords)
    except BaseException as error:  # noqa: BLE001 - includes SystemExit/KeyboardInterrupt
        guard.restore()
        _flush_learner_output()
        memory = isinstance(error, MemoryError)
        emit_json(result_fd, b"FAIL", {"i": index, "status": "exception", "memory": memory,
                                       "error": describe(error)})
        return not memory
    seconds = monotonic() - started
    guard.restore()
    _flush_learner_output()
    try:
        parts = encode(arrays(value))
    except wire.EncodeError as error:
        hint = "; did you forget a return statement?" if value is None else ""
        emit_json(result_fd, b"FAIL", {"i": index, "status": "bad_return", "memory": False,
                                       "error": f"returned {error}; {RETURN_EXPECTATION}{hint}"})
        return True
    except MemoryError:
        emit_json(result_fd, b"FAIL", {"i": index, "status": "exception", "memory": True,
                                       "error": "MemoryError while sending the return value"})
        return False
    _send_value(result_fd, index, seconds, parts)
    return True


def _send_value(result_fd: int, index: int, seconds: float, parts: list, *, emit=_emit,
                frame_header=wire.FRAME_HEADER.pack) -> None:
    """One ``VALU`` frame: a JSON header (call index, seconds) and the encoded value's parts, in
    one write when small (one wake-up of the reader), else the arrays' own memory part by part,
    never copied into one body."""
    header = json.dumps({"i": index, "seconds": seconds}).encode("ascii")
    size = 4 + len(header) + sum(len(part) for part in parts)
    head = frame_header(b"VALU", size) + struct.pack("!I", len(header)) + header
    if size <= COALESCE_BYTES:
        emit(result_fd, b"".join([head, *parts]))
        return
    emit(result_fd, head)
    for part in parts:
        emit(result_fd, part)
