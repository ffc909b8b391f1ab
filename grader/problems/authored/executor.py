"""The executor of an authored problem: its reference and mistakes are instructor code, so their
values are computed in the sandbox, never in the API or worker process.

:class:`SandboxExecutor` implements :class:`grader.problems.executor.Executor`. Before a grading
judges anything, :meth:`SandboxExecutor.prepare` computes every implementation (the reference,
each mistake; float32 cases also on float64 copies, for the diagnosis) on every case of the seed
in ONE sandbox run of a module that loads each source in its own namespace
(:func:`module_source`), a process apart from the learner's: the learner's run never holds the
reference, nor a hidden input before its time (:class:`grader.sandbox.api.Call` ``secret``).
Values are cached per seed (:data:`SEEDS_KEPT`) on the compiled problem, which is one version of
the document, so a regrade, a retry and a trial's many gradings of one seed run the reference once.

The visible examples' values (and their pictures') are computed at upload and stored with the
version (:func:`encode` / :func:`decode`, NumPy's ``.npy`` format without pickle), so the API
process shows the examples without a sandbox.
"""
from __future__ import annotations

import base64
import io
import threading
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from grader.problems.base import Case
from grader.problems.executor import NO_VALUE, Computed, has_float32
from grader.results import InfrastructureError
from grader.sandbox.api import Call, Limits

SEEDS_KEPT = 64
#: Limits of the reference's runs: the learner's defaults, with room for every implementation.
REFERENCE_LIMITS = Limits(run_wall_seconds=60.0, max_stopped_tests=3)

_LOADER = '''\
import numpy as _np


def _upcast(value):
    if isinstance(value, _np.ndarray) and value.dtype == _np.float32:
        return value.astype(_np.float64)
    return value


def _load(index, source, function):
    namespace = {"__name__": "implementation_%d" % index}
    try:
        exec(compile(source, "implementation_%d.py" % index, "exec"), namespace)
        found = namespace[function]
    except BaseException as error:
        message = "%s: %s" % (type(error).__name__, error)

        def found(*args, **kwargs):
            raise RuntimeError("the implementation did not load: " + message)
    def upcast(*args, **kwargs):
        return found(*map(_upcast, args), **{k: _upcast(v) for k, v in kwargs.items()})
    return found, upcast

'''


def function_name(index: int, upcast: bool = False) -> str:
    """The name implementation ``index`` has in :func:`module_source`."""
    return f"implementation_{index}{'_upcast' if upcast else ''}"


def module_source(sources: Sequence[str], function: str) -> str:
    """A module defining :func:`function_name` ``(i)`` (and its float64-upcasting twin) for each
    of ``sources``: each source runs in its own namespace (a source that fails to load gives a
    function raising why)."""
    lines = [_LOADER]
    for index, source in enumerate(sources):
        lines.append(f"{function_name(index)}, {function_name(index, True)} = _load("
                     f"{index}, {source!r}, {function!r})")
    return "\n".join(lines) + "\n"


def _error(outcome) -> str:
    """``"TypeName: message"`` of a call that raised, as the in-process executor writes it (the
    sandbox adds where in the learner's file; these sources are no learner's file)."""
    if outcome.status != "exception":
        return f"{outcome.status}: {outcome.error}".rstrip(": ")
    first = (outcome.error or "").split("\n", 1)[0]
    if first.endswith(" of your code)") and " (line " in first:
        first = first.rsplit(" (line ", 1)[0]
    return first


class SandboxExecutor:
    """Values of an authored problem's implementations (``sources``: the reference first, then the
    mistakes in table order), computed in a sandbox (see the module docstring). ``stored``
    holds values computed before (the visible examples', by case name)."""

    def __init__(self, sources: Sequence[str], function: str,
                 stored: dict[str, dict] | None = None, limits: Limits = REFERENCE_LIMITS):
        self.sources = tuple(sources)
        self.function = function
        self.limits = limits
        self.source = module_source(self.sources, function)
        self._by_seed: OrderedDict = OrderedDict({None: {}})
        self._lock = threading.Lock()
        self.runs = 0  # sandbox runs made (the tests and the trial count them)
        self.run_seconds = 0.0
        for name, values in (stored or {}).items():
            for key, computed in values.items():
                index, upcast = key.split(":")
                self._by_seed[None][(int(index), name, upcast == "1")] = computed

    def _wanted(self, case: Case) -> list[tuple[int, bool]]:
        keys = [(i, False) for i in range(len(self.sources))]
        if any(has_float32(case, i) for i in range(len(case.calls))):
            keys += [(i, True) for i in range(1, len(self.sources))]
        return keys

    def prepare(self, cases: Sequence[Case], sandbox: Any) -> None:
        """Compute, in one run of ``sandbox``, every value of ``cases`` not cached yet. Raises
        :class:`InfrastructureError` when the sandbox cannot run the module (never the
        learner's fault)."""
        missing = []
        for case in cases:
            cached = self._by_seed.get(case.key[1], {})
            missing += [(case, index, upcast) for index, upcast in self._wanted(case)
                        if (index, case.name, upcast) not in cached]
        if not missing:
            return
        if sandbox is None:
            raise InfrastructureError("an authored problem's values need a sandbox")
        calls = [Call(test=f"{case.name} | implementation {index}{' upcast' if upcast else ''}",
                      function=function_name(index, upcast), args=tuple(args),
                      kwargs=dict(kwargs))
                 for case, index, upcast in missing for args, kwargs in case.calls]
        run = sandbox.run(self.source, calls, self.limits)
        self.runs += 1
        self.run_seconds += run.seconds
        if run.status not in ("ok", "timeout", "memory_limit", "crashed", "output_limit"):
            raise InfrastructureError(f"the problem's implementations could not run in the "
                                      f"sandbox: {run.status}: {run.message}")
        outcomes = iter(run.calls)
        with self._lock:
            for case, index, upcast in missing:
                computed = []
                for _ in case.calls:
                    outcome = next(outcomes, None)
                    if outcome is None:
                        computed.append((NO_VALUE, f"not run: {run.message or run.status}"))
                    elif outcome.status == "ok":
                        computed.append((outcome.value, None))
                    else:
                        computed.append((NO_VALUE, _error(outcome)))
                self._by_seed.setdefault(case.key[1], {})[(index, case.name, upcast)] = computed
            self._by_seed.move_to_end(None, last=False)
            while len(self._by_seed) > SEEDS_KEPT + 1:
                del self._by_seed[next(s for s in self._by_seed if s is not None)]

    def values(self, implementation: int | tuple[int, ...], case: Case,
               upcast_inputs: bool = False) -> list[Computed]:
        """The cached values (:meth:`prepare` computed them). ``ValueError`` for a combination
        of mistakes (an authored mistake is one source; they do not combine);
        :class:`InfrastructureError` for a value never prepared."""
        if not isinstance(implementation, int):
            raise ValueError(f"variants {implementation} do not combine")
        found = self._by_seed.get(case.key[1], {}).get((implementation, case.name,
                                                         upcast_inputs and implementation > 0))
        if found is None:
            raise InfrastructureError(f"no value of implementation {implementation} on test "
                                      f"{case.name!r} (not prepared in the sandbox)")
        return found

    def visible_values(self) -> dict[str, dict]:
        """The values of seed None (visible examples and pictures), as :class:`SandboxExecutor`'s
        ``stored`` takes them."""
        found: dict[str, dict] = {}
        for (index, name, upcast), computed in self._by_seed[None].items():
            found.setdefault(name, {})[f"{index}:{int(upcast)}"] = computed
        return found


def _encode_value(value: Any) -> Any:
    if value is NO_VALUE:
        return {"no_value": True}
    if isinstance(value, np.ndarray):
        buffer = io.BytesIO()
        np.save(buffer, value, allow_pickle=False)
        return {"npy": base64.b64encode(buffer.getvalue()).decode("ascii")}
    if isinstance(value, np.generic):
        return _encode_value(np.asarray(value))
    if isinstance(value, (tuple, list)):
        return {"tuple" if isinstance(value, tuple) else "list": [_encode_value(v) for v in value]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"plain": value}
    raise TypeError(f"cannot store a {type(value).__name__}")


def _decode_value(data: dict) -> Any:
    if "no_value" in data:
        return NO_VALUE
    if "npy" in data:
        array = np.load(io.BytesIO(base64.b64decode(data["npy"])), allow_pickle=False)
        array.flags.writeable = False
        return array
    if "tuple" in data:
        return tuple(_decode_value(v) for v in data["tuple"])
    if "list" in data:
        return [_decode_value(v) for v in data["list"]]
    return data["plain"]


def encode(values: dict[str, dict]) -> dict:
    """:meth:`SandboxExecutor.visible_values` as JSON-safe data (arrays as base64 ``.npy``)."""
    return {name: {key: [[_encode_value(v), e] for v, e in computed]
                   for key, computed in by_key.items()} for name, by_key in values.items()}


def decode(data: dict) -> dict[str, dict]:
    """The inverse of :func:`encode` (``np.load`` without pickle: data, never code)."""
    return {name: {key: [(_decode_value(v), e) for v, e in computed]
                   for key, computed in by_key.items()} for name, by_key in data.items()}


__all__ = ["SandboxExecutor", "decode", "encode", "module_source"]
