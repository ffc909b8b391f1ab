"""Runs one job inside the sandbox: import the learner's source, make each call, stream results.

This file is bind-mounted read-only into the sandbox next to ``wire.py`` and runs in a child
forked by ``server.py`` after isolation and limits are applied. It never decides a verdict: it
only reports, in order: ``LIVE {}`` once the job's description is read (before any of the learner's
code runs), ``IMPD {}`` once the learner's code is imported, then for call ``i`` (its arguments
read just before it): ``STRT {"i": i}`` then either ``VALU`` (JSON-length-prefixed
call index + encoded value, see ``wire.py``) or ``FAIL {"i", "status", "error", "memory"}``; or,
before any call, ``SYNT``/``IMPT`` with a message; and ``DONE`` at the end. The trusted side
treats everything here as untrusted input: the learner's code runs in this same process and can
write to the result descriptor itself, which can only ever change its own answers.

Learner-facing messages name lines "of your code" and trim tracebacks to frames of
``submission.py`` (the file name the source is compiled under).
"""
from __future__ import annotations

import json
import linecache
import os
import signal
import struct
import sys
import time
import traceback
import types

import wire

SOURCE_NAME = "submission.py"
MAX_MESSAGE = 4000
JOB_TAGS = frozenset({b"JOB_", b"ARGS"})
MAX_JOB_BYTES = 256 << 20
RETURN_EXPECTATION = "expected a NumPy array, a number, or a tuple of those"

_write = os.write  # captured before the learner's code can replace os.write
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


class ModuleGuard:
    """Snapshots the namespaces this runner relies on (``builtins``, ``numpy``,
    ``numpy.lib.format``, ``json``, ``struct``, ``os``, ``wire``) and puts them back after the
    learner's code ran, so monkeypatching them cannot break the reporting of results. (It could
    not fool any check: checks run on the trusted side.)"""

    def __init__(self) -> None:
        import builtins
        import numpy
        import numpy.lib.format

        modules = (builtins, numpy, numpy.lib.format, json, struct, os, wire, sys, types)
        self._saved = [(module.__dict__, dict(module.__dict__)) for module in modules]

    def restore(self) -> None:
        """Put back every snapshotted namespace that the learner's code changed."""
        for namespace, saved in self._saved:
            if namespace.keys() != saved.keys() or any(namespace[k] is not v for k, v in saved.items()):
                namespace.clear()
                namespace.update(saved)


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
        return wire.decode_value(body, allow_none=True, max_bytes=MAX_JOB_BYTES)


def run_job(job_fd: int, result_fd: int) -> None:
    """Read the job from ``job_fd``, run it, write frames to ``result_fd``. Returns normally when
    done; the learner's code may end the process earlier."""
    job = JobReader(job_fd)
    meta = job.meta()
    _emit_json(result_fd, b"LIVE", {})  # set up and read: from here on, faults are the learner's
    source = meta["source"]
    linecache.cache[SOURCE_NAME] = (len(source), None, source.splitlines(True), SOURCE_NAME)
    try:
        code = compile(source, SOURCE_NAME, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:  # ValueError: null bytes in source
        if isinstance(error, SyntaxError) and "null bytes" not in str(error.msg):
            message = describe_syntax_error(error)
        else:
            line = source[:source.find("\0")].count("\n") + 1
            message = (f"SyntaxError: your code contains a NUL character (a zero byte), which "
                       f"Python does not accept; delete it (line {line} of your code)")
        _emit_json(result_fd, b"SYNT", {"message": message})
        return
    except (MemoryError, RecursionError) as error:
        _emit_json(result_fd, b"SYNT", {"message": f"your code is too deeply nested to compile "
                                                   f"({type(error).__name__})"})
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
    emit, emit_json, encode, describe = _emit, _emit_json, wire.encode_parts, describe_exception
    monotonic, frame_header = time.monotonic, wire.FRAME_HEADER.pack
    guard = ModuleGuard()
    try:
        exec(code, module.__dict__)
    except SystemExit as error:
        guard.restore()
        _flush_learner_output()
        emit_json(result_fd, b"IMPT", {"message": f"your code called sys.exit({_safe_str(error)}) "
                                                  "while being imported", "memory": False})
        return
    except BaseException as error:  # noqa: BLE001 - report every learner fault
        guard.restore()
        _flush_learner_output()
        emit_json(result_fd, b"IMPT", {"message": "your code raised an error while being "
                                                  "imported: " + describe(error),
                                       "memory": isinstance(error, MemoryError)})
        return
    guard.restore()
    _flush_learner_output()
    emit_json(result_fd, b"IMPD", {})  # imported: the trusted side may now send hidden arguments
    read_arguments = job.arguments
    previous_test = None
    for index, call in enumerate(meta["calls"]):
        args = read_arguments()
        if call["test"] != previous_test:
            previous_test = call["test"]
            arm()
        emit_json(result_fd, b"STRT", {"i": index})
        function = module.__dict__.get(call["function"])
        if not callable(function):
            emit_json(result_fd, b"FAIL", {"i": index, "status": "missing_function", "memory": False,
                                           "error": f"function '{call['function']}' is not defined "
                                                    "in your code"})
            continue
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
            if memory:
                break
            continue
        seconds = monotonic() - started
        guard.restore()
        _flush_learner_output()
        try:
            parts = encode(value)
        except wire.EncodeError as error:
            hint = "; did you forget a return statement?" if value is None else ""
            emit_json(result_fd, b"FAIL", {"i": index, "status": "bad_return", "memory": False,
                                           "error": f"returned {error}; {RETURN_EXPECTATION}{hint}"})
            continue
        except MemoryError:
            emit_json(result_fd, b"FAIL", {"i": index, "status": "exception", "memory": True,
                                           "error": "MemoryError while sending the return value"})
            break
        header = json.dumps({"i": index, "seconds": seconds}).encode("ascii")
        size = 4 + len(header) + sum(len(part) for part in parts)
        emit(result_fd, frame_header(b"VALU", size) + struct.pack("!I", len(header)) + header)
        for part in parts:  # the arrays' own memory, never copied into one body
            emit(result_fd, part)
    emit_json(result_fd, b"DONE", {})
