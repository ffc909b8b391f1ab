"""Fixtures for the problem tests: an in-process fake of the sandbox (tests only: it runs learner
code without any isolation) and a sandbox that always reports an infrastructure fault.

The fake follows :class:`grader.sandbox.api.Sandbox`: import the source once, make each call on a
copy of its arguments, and hand back values the way the real sandbox parses them (arrays,
tuples, lists, scalars), with the exception type and message as the error.
"""
from __future__ import annotations

import copy
import time
import traceback

import numpy as np
import pytest

from grader.sandbox.api import CallOutcome, Limits, RunResult




def _plain(value):
    """What crosses the real sandbox's wire: ndarrays, NumPy scalars, Python numbers, tuples and
    lists of those; anything else is a bad return."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"ndarray of dtype {value.dtype}")
        return value.copy()
    if isinstance(value, (bool, int, float, np.generic)):
        return value
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    raise TypeError(type(value).__name__)


class FakeSandbox:
    """In-process stand-in for the sandbox. ``runs`` counts ``run`` calls (one per submission)."""

    def __init__(self):
        self.runs = 0

    def run(self, source, calls, limits: Limits) -> RunResult:
        self.runs += 1
        started = time.perf_counter()
        namespace: dict = {"__name__": "submission"}
        try:
            code = compile(source, "submission.py", "exec")
        except SyntaxError as exc:  # worded like grader/sandbox/runner.py
            return RunResult("syntax_error", message=f"{type(exc).__name__}: {exc.msg} (line "
                             f"{exc.lineno} of your code)\n    {(exc.text or '').strip()}\n    ^",
                             line=exc.lineno)
        try:
            exec(code, namespace)  # noqa: S102 - tests only, trusted fixture files
        except Exception as exc:  # noqa: BLE001
            line = traceback.extract_tb(exc.__traceback__)[-1].lineno
            return RunResult("import_error", message="your code raised an error while being "
                             f"imported: {type(exc).__name__}: {exc} (line {line} of your code)",
                             line=line)
        outcomes = []
        for call in calls:
            function = namespace.get(call.function)
            if not callable(function):
                outcomes.append(CallOutcome("missing_function",
                                            error=f"no function named {call.function}"))
                continue
            args, kwargs = copy.deepcopy(call.args), copy.deepcopy(call.kwargs)
            t0 = time.perf_counter()
            try:
                with np.errstate(all="ignore"):
                    value = function(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001
                frames = traceback.extract_tb(exc.__traceback__)
                lines = [f"line {f.lineno}" for f in frames if f.filename == "submission.py"]
                where = f" ({', '.join(lines)})" if lines else ""
                outcomes.append(CallOutcome("exception", error=f"{type(exc).__name__}: {exc}{where}",
                                            seconds=time.perf_counter() - t0))
                continue
            try:
                outcomes.append(CallOutcome("ok", value=_plain(value),
                                            seconds=time.perf_counter() - t0))
            except TypeError as exc:
                outcomes.append(CallOutcome("bad_return", error=f"returned {exc}"))
        return RunResult("ok", calls=outcomes, seconds=time.perf_counter() - started)

    def close(self):
        pass


class BrokenSandbox:
    """A sandbox that always reports an infrastructure fault."""

    def run(self, source, calls, limits):
        return RunResult("infrastructure_error", message="isolation self-test failed")

    def close(self):
        pass


@pytest.fixture
def fake_sandbox():
    return FakeSandbox()


@pytest.fixture
def broken_sandbox():
    return BrokenSandbox()
