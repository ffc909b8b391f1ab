"""The executor of an authored problem: its reference and mistakes are instructor code, so their
values are computed in the sandbox, never in the API or worker process.

:class:`SandboxExecutor` implements :class:`grader.problems.executor.Executor`. Before a grading
judges anything, :meth:`SandboxExecutor.prepare` computes every implementation (the reference,
each mistake; float32 cases also on float64 copies, for the diagnosis) on every case of the seed
in ONE sandbox run of a module that loads each source in its own namespace
(:func:`module_source`), a process apart from the learner's: the learner's run never holds the
reference, nor a hidden input before its time (:class:`grader.sandbox.api.Call` ``secret``).
The run makes one call per batch of tests (:func:`batches`, :data:`BATCH`: each test's inputs
sent once for every implementation, each value's exception or unportable return caught in the
sandbox and sent back as its own entry), not one call per value: a sandbox call costs about
0.1 CPU-ms of framing and decoding on the two sides, more than these small arrays' arithmetic,
and so does every copy of the inputs sent (``benchmarks/authored_bench.py`` measures both). A
batch that does not come back whole (a limit, a crash, a return the wire refuses) is run again
call by call in a second run, each call its own test, as before batching. Mistakes that combine (:mod:`.edits`) are implementations
too, computed only when a diagnosis asks for one (:meth:`SandboxExecutor.computing`: one more
run, for every combination on the grading's tests).
Values are cached per seed (:data:`SEEDS_KEPT`) on the compiled problem, which is one version of
the document, so a regrade, a retry and a trial's many gradings of one seed run the reference once.
The same cache holds the version's pool of ready seeds (:meth:`SandboxExecutor.fill`,
:meth:`SandboxExecutor.take`, :mod:`.pool`): :data:`POOL_SIZE` new seeds' values computed in ONE
sandbox run, so a learner's grading takes a seed whose values are there already.

The visible examples' values (and their pictures') are computed at upload and stored with the
version (:func:`encode` / :func:`decode`, NumPy's ``.npy`` format without pickle), so the API
process shows the examples without a sandbox.
"""
from __future__ import annotations

import base64
import io
import secrets
import threading
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from grader.problems.base import Case
from grader.problems.executor import NO_VALUE, Computed, has_float32
from grader.results import InfrastructureError
from grader.sandbox.api import Call, Limits

SEEDS_KEPT = 64
#: Ready seeds a version's pool holds at most (:meth:`SandboxExecutor.fill` computes this many in
#: one sandbox run); kept in the cache beside the :data:`SEEDS_KEPT` seeds graded last.
POOL_SIZE = 16
_RANDOM = secrets.SystemRandom()
#: Limits of the reference's runs: a test is a batch of up to :data:`BATCH_ENTRIES` values.
REFERENCE_LIMITS = Limits(wall_seconds=30.0, cpu_seconds=30.0, run_wall_seconds=60.0,
                          max_stopped_tests=3)
#: Values one batch returns (calls times implementations; an output with its weights is two of
#: the 64 arrays the wire takes in a value), and the array arguments it may carry.
BATCH_ENTRIES = 24
BATCH_ARRAYS = 32
#: The first element of a batch entry: the value, an exception's text, or a return the batch
#: cannot send (the batch is then run call by call).
OK, RAISED, UNPORTABLE = 0, 1, 2

_LOADER = '''\
import numpy as _np

_IMPLEMENTATIONS = {}


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
    _IMPLEMENTATIONS[(index, False)], _IMPLEMENTATIONS[(index, True)] = found, upcast
    return found, upcast


def _number(value):
    if isinstance(value, (_np.ndarray, _np.generic)):
        return value.dtype.kind in "biuf"
    return isinstance(value, (bool, int, float))


def _numbers(value):
    # a (nested) list of numbers: the sandbox sends the array it stands for
    stack = [value]
    while stack:
        for item in stack.pop():
            if isinstance(item, list):
                stack.append(item)
            elif not (_number(item) and not isinstance(item, _np.ndarray)):
                return False
    return True


def _portable(value, depth=0):
    if _number(value):
        return True
    if isinstance(value, list):
        return _numbers(value)
    if isinstance(value, tuple) and depth < 2:
        return all(_portable(item, depth + 1) for item in value)
    return False


def _text(text):
    return _np.frombuffer(text.encode("utf-8", "replace")[:4000], dtype=_np.uint8)


def batch(which, *calls):
    found = []
    for args, kwargs in calls:
        for index, upcast in which.tolist():
            try:
                value = _IMPLEMENTATIONS[(index, bool(upcast))](*args, **kwargs)
            except BaseException as error:
                headline = ("%s: %s" % (type(error).__name__, error)).rstrip(": ")
                found.append((1, _text(headline.split("\\n", 1)[0])))
                continue
            if _portable(value):
                found.append((0, value))
            else:
                found.append((2, _text("returned a %s" % type(value).__name__)))
    return tuple(found)

'''


def function_name(index: int, upcast: bool = False) -> str:
    """The name implementation ``index`` has in :func:`module_source`."""
    return f"implementation_{index}{'_upcast' if upcast else ''}"


#: The batch function of :func:`module_source`: ``batch(which, *calls)`` takes the
#: implementations as an ``(n, 2)`` array of (index, upcast) and each call as one argument
#: ``(args, kwargs)``, and returns one ``(kind, value)`` per call and implementation, call by
#: call: ``kind`` :data:`OK`, :data:`RAISED` (value: ``"TypeName: message"`` as UTF-8 bytes)
#: or :data:`UNPORTABLE` (a return that is not numbers, arrays and tuples of them).
BATCH = "batch"


def module_source(sources: Sequence[str], function: str) -> str:
    """A module defining :func:`function_name` ``(i)`` (and its float64-upcasting twin) for each
    of ``sources`` and :data:`BATCH`: each source runs in its own namespace (a source that fails
    to load gives a function raising why)."""
    lines = [_LOADER]
    for index, source in enumerate(sources):
        lines.append(f"{function_name(index)}, {function_name(index, True)} = _load("
                     f"{index}, {source!r}, {function!r})")
    return "\n".join(lines) + "\n"


Batch = tuple[tuple[tuple[int, bool], ...], list[Case]]


def batches(missing: Sequence[tuple[Case, int, bool]]) -> list[Batch]:
    """``missing`` (case, implementation, upcast) as batches ``(implementations, cases)``: the
    cases in order, each batch's cases wanting the same implementations, whose inputs it sends
    once for all of them; at most :data:`BATCH_ENTRIES` values (calls times implementations,
    at least one case) and :data:`BATCH_ARRAYS` array arguments (a case with more makes a batch
    of its own)."""
    wanted: dict[int, tuple[Case, list]] = {}
    for case, index, upcast in missing:
        wanted.setdefault(id(case), (case, []))[1].append((index, upcast))
    found: list[Batch] = []
    entries = arrays = 0
    for case, which in wanted.values():
        which = tuple(which)
        more = sum(isinstance(a, np.ndarray) for args, kwargs in case.calls
                   for a in (*args, *kwargs.values()))
        size = len(case.calls) * len(which)
        if (found and found[-1][0] == which and entries + size <= BATCH_ENTRIES
                and arrays + more <= BATCH_ARRAYS):
            found[-1][1].append(case)
            entries, arrays = entries + size, arrays + more
        else:
            found.append((which, [case]))
            entries, arrays = size, more
    return found


def _unbatched(entry: Any, size: int) -> list[Computed] | None:
    """The values of one batch's returned entries. None when the batch did not come back whole,
    or a call returned what the batch cannot send (:data:`UNPORTABLE`): the batch is then run
    call by call, where the sandbox itself says what a return is."""
    if not isinstance(entry, tuple) or len(entry) != size:
        return None
    computed = []
    for item in entry:
        if not (isinstance(item, tuple) and len(item) == 2 and item[0] in (OK, RAISED)):
            return None
        kind, value = item
        if kind == OK:
            computed.append((value, None))
        elif not (isinstance(value, np.ndarray) and value.dtype == np.uint8):
            return None
        else:
            computed.append((NO_VALUE, value.tobytes().decode("utf-8", "replace")))
    return computed


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
    holds values computed before (the visible examples', by case name). ``batch`` False makes
    one call per value, as before batching (``benchmarks/authored_bench.py`` compares both).
    ``combined``: ``(mistake indices, source)`` of the mistakes that combine
    (:func:`grader.problems.authored.edits.combinations`): implementations after the mistakes,
    found by :meth:`combine`, computed only when a diagnosis asks for one (:meth:`computing`)."""

    def __init__(self, sources: Sequence[str], function: str,
                 stored: dict[str, dict] | None = None, limits: Limits = REFERENCE_LIMITS,
                 batch: bool = True, combined: Sequence[tuple[tuple[int, ...], str]] = ()):
        self.combined = {tuple(members): len(sources) + number
                         for number, (members, _) in enumerate(combined)}
        self.sources = tuple(sources) + tuple(source for _, source in combined)
        self.mistakes_end = len(sources)  # the combinations' implementations follow
        self._local = threading.local()
        self.batch = batch
        self.function = function
        self.limits = limits
        self.source = module_source(self.sources, function)
        self._by_seed: OrderedDict = OrderedDict({None: {}})
        self._lock = threading.Lock()
        self._ready: list[int] = []  # the pool: seeds whose values are cached and not taken
        self.runs = 0  # sandbox runs made (the tests and the trial count them)
        self.run_seconds = 0.0
        for name, values in (stored or {}).items():
            for key, computed in values.items():
                index, upcast = key.split(":")
                self._by_seed[None][(int(index), name, upcast == "1")] = computed

    def _wanted(self, case: Case, combined: bool = False) -> list[tuple[int, bool]]:
        """The (implementation, upcast) values of ``case``: the reference's and the mistakes',
        or (``combined``) the combinations'."""
        first, end = (self.mistakes_end, len(self.sources)) if combined else (0, self.mistakes_end)
        keys = [(i, False) for i in range(first, end)]
        if any(has_float32(case, i) for i in range(len(case.calls))):
            keys += [(i, True) for i in range(max(1, first), end)]
        return keys

    @contextmanager
    def computing(self, cases: Sequence[Case], sandbox: Any) -> Iterator[None]:
        """While a grading diagnoses ``cases`` (in this thread): the first combination of
        mistakes asked for has every combination's values on ``cases`` computed then, in one
        run of ``sandbox`` (a grading whose failures no single mistake explains needs them;
        any other grading never pays for them)."""
        self._local.pending = (list(cases), sandbox)
        try:
            yield
        finally:
            self._local.pending = None

    def prepare(self, cases: Sequence[Case], sandbox: Any, combined: bool = False) -> None:
        """Compute, in one run of ``sandbox`` (batched, :func:`batches`; a batch that did not
        come back whole, call by call in a second), every value of ``cases`` not cached yet:
        the reference's and the mistakes', or (``combined``) the combinations' (see
        :meth:`computing`). Raises :class:`InfrastructureError` when the sandbox cannot run the
        module (never the learner's fault)."""
        missing = []
        for case in cases:
            cached = self._by_seed.get(case.key[1], {})
            missing += [(case, index, upcast) for index, upcast in self._wanted(case, combined)
                        if (index, case.name, upcast) not in cached]
        if not missing:
            return
        if sandbox is None:
            raise InfrastructureError("an authored problem's values need a sandbox")
        if not self.batch:
            self._store(self._one_by_one(missing, sandbox))
            return
        grouped = batches(missing)
        calls = [Call(test=f"batch {number}", function=BATCH, args=(
                          np.array(which, dtype=np.int64).reshape(-1, 2),
                          *((tuple(args), dict(kwargs)) for case in cases
                            for args, kwargs in case.calls)))
                 for number, (which, cases) in enumerate(grouped)]
        try:
            outcomes = list(self._run(sandbox, calls).calls)
        except (TypeError, ValueError):  # nested arguments the wire refuses: one call each
            outcomes = []
        found: list[tuple[tuple[Case, int, bool], list[Computed]]] = []
        again = []
        for number, (which, cases) in enumerate(grouped):
            outcome = outcomes[number] if number < len(outcomes) else None
            size = sum(len(case.calls) for case in cases) * len(which)
            computed = (_unbatched(outcome.value, size)
                        if outcome is not None and outcome.status == "ok" else None)
            if computed is None:
                again += [(case, index, upcast) for case in cases for index, upcast in which]
                continue
            values = iter(computed)
            for case in cases:  # call by call, each call's implementations in turn
                per_call = [[next(values) for _ in which] for _ in case.calls]
                found += [((case, index, upcast), [row[k] for row in per_call])
                          for k, (index, upcast) in enumerate(which)]
        if again:
            found += self._one_by_one(again, sandbox)
        self._store(found)

    def _store(self, found: list[tuple[tuple[Case, int, bool], list[Computed]]]) -> None:
        with self._lock:
            for (case, index, upcast), computed in found:
                self._by_seed.setdefault(case.key[1], {})[(index, case.name, upcast)] = computed
            self._by_seed.move_to_end(None, last=False)
            while len(self._by_seed) > SEEDS_KEPT + len(self._ready) + 1:
                ready = set(self._ready)  # the pool's seeds stay until taken
                del self._by_seed[next(s for s in self._by_seed
                                       if s is not None and s not in ready)]

    def fill(self, draw: Callable[[int], Sequence[Case]], sandbox: Any,
             count: int = POOL_SIZE, also: Sequence[Case] = ()) -> list[int]:
        """Add up to ``count`` new seeds to the pool (never past :data:`POOL_SIZE` ready): each
        a random 63-bit seed, its cases ``draw(seed)`` (the problem's :meth:`cases`), the
        reference's and the mistakes' values on all of them (and on ``also``, the pictures'
        cases a grading prepares too) computed in ONE run of ``sandbox`` (:meth:`prepare`).
        Returns the seeds added. Raises :class:`InfrastructureError` as
        :meth:`prepare` does (the pool is then left as it was)."""
        with self._lock:
            count = min(count, POOL_SIZE - len(self._ready))
        if count <= 0:
            return []
        seeds = [_RANDOM.getrandbits(63) for _ in range(count)]
        with self._lock:  # the new seeds are the pool's while their values are stored
            self._ready.extend(seeds)
        try:
            self.prepare([case for seed in seeds for case in draw(seed)] + list(also), sandbox)
        except BaseException:
            with self._lock:
                self._ready = [s for s in self._ready if s not in seeds]
            raise
        return seeds

    def take(self) -> int | None:
        """A seed of the pool, chosen uniformly among the ready ones and removed from it (its
        values stay cached, as any graded seed's); None when the pool is empty."""
        with self._lock:
            ready = [s for s in self._ready if s in self._by_seed]
            if not ready:
                return None
            seed = _RANDOM.choice(ready)
            self._ready.remove(seed)
            return seed

    def ready(self) -> int:
        """How many seeds the pool holds (:meth:`take` may give each once)."""
        with self._lock:
            return sum(s in self._by_seed for s in self._ready)

    def _run(self, sandbox: Any, calls: list[Call]):
        run = sandbox.run(self.source, calls, self.limits)
        self.runs += 1
        self.run_seconds += run.seconds
        if run.status not in ("ok", "timeout", "memory_limit", "crashed", "output_limit"):
            raise InfrastructureError(f"the problem's implementations could not run in the "
                                      f"sandbox: {run.status}: {run.message}")
        return run

    def _one_by_one(self, missing: list[tuple[Case, int, bool]], sandbox: Any
                    ) -> list[tuple[tuple[Case, int, bool], list[Computed]]]:
        """``missing``'s values, one call (and one test) each: what a batch that did not come
        back whole is given. The reference's calls go first, so a mistake that hangs or
        crashes the run costs only the mistakes' values, never the reference's."""
        missing = sorted(missing, key=lambda entry: entry[1])  # stable: cases keep their order
        calls = [Call(test=f"{case.name} | implementation {index}{' upcast' if upcast else ''}",
                      function=function_name(index, upcast), args=tuple(args),
                      kwargs=dict(kwargs))
                 for case, index, upcast in missing for args, kwargs in case.calls]
        run = self._run(sandbox, calls)
        outcomes = iter(run.calls)
        found = []
        for entry in missing:
            computed = []
            for _ in entry[0].calls:
                outcome = next(outcomes, None)
                if outcome is None:
                    computed.append((NO_VALUE, f"not run: {run.message or run.status}"))
                elif outcome.status == "ok":
                    computed.append((outcome.value, None))
                else:
                    computed.append((NO_VALUE, _error(outcome)))
            found.append((entry, computed))
        return found

    def combine(self, key: tuple[int, ...]) -> int | None:
        """The implementation that makes the mistakes ``key`` (indices into the problem's
        variants, one per mistake) at once, or None when they do not combine."""
        return self.combined.get(tuple(sorted(key)))

    def values(self, implementation: int | tuple[int, ...], case: Case,
               upcast_inputs: bool = False) -> list[Computed]:
        """The cached values (:meth:`prepare` computed them) of an implementation, or of
        mistakes made together (a tuple, :meth:`combine`). ``ValueError`` for mistakes that do
        not combine; :class:`InfrastructureError` for a value never prepared."""
        if not isinstance(implementation, int):
            found = self.combine(implementation)
            if found is None:
                raise ValueError(f"variants {implementation} do not combine")
            implementation = found
            pending = getattr(self._local, "pending", None)
            if pending is not None and (found, case.name, False) not in self._by_seed.get(
                    case.key[1], {}):
                self._local.pending = None  # one run per grading, whatever it finds
                self.prepare(*pending, combined=True)
        found = self._by_seed.get(case.key[1], {}).get((implementation, case.name,
                                                         upcast_inputs and implementation > 0))
        if found is None:
            raise InfrastructureError(f"no value of implementation {implementation} on test "
                                      f"{case.name!r} (not prepared in the sandbox)")
        return found

    def visible_values(self) -> dict[str, dict]:
        """The values of seed None (visible examples and pictures), as :class:`SandboxExecutor`'s
        ``stored`` takes them (the reference's and the mistakes': a stored version's values do
        not depend on how its mistakes combine)."""
        found: dict[str, dict] = {}
        for (index, name, upcast), computed in self._by_seed[None].items():
            if index < self.mistakes_end:  # combinations' values are computed again where needed
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


__all__ = ["BATCH", "POOL_SIZE", "SandboxExecutor", "batches", "decode", "encode", "module_source"]
