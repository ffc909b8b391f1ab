"""Types shared by the trusted side and every sandbox implementation.

The contract: the trusted side hands the sandbox the learner's source and a list of :class:`Call`
(function name and arguments made of NumPy arrays and plain scalars). The sandbox imports the source
in an isolated process, makes each call, and hands back the raw return values. It never computes a
verdict: checks and scores are computed by the caller from :class:`RunResult` values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Sequence

CallStatus = Literal["ok", "exception", "missing_function", "bad_return", "timeout", "skipped",
                     "contract"]  # contract: set on the trusted side (grader/problems/course)
RunStatus = Literal[
    "ok",  # the source imported; see each call's status
    "syntax_error",
    "import_error",  # the module raised (or exited) while being imported
    "timeout",  # wall or CPU limit; the call that was running is marked "timeout"
    "memory_limit",
    "output_limit",
    "crashed",  # the sandboxed process died without a verdict (signal, os._exit, forged output)
    "infrastructure_error",  # not the learner's fault: never scored
]
#: Which limit stopped a run or a test: the wall clock, CPU time, memory, or bytes printed.
LimitName = Literal["wall", "cpu", "memory", "output"]


@dataclass(frozen=True)
class Limits:
    """Resource limits of one item's runs. Defaults follow Judge0/Jobe practice (see
    docs/references.md, "Grading-service limits"): wall 5 s, CPU 4 s, 1 GiB, 64 processes, 64 KiB output
    kept, 8 MiB files, 16 MiB private /tmp. ``output_bytes`` is the output kept and shown; a job
    is stopped once it prints 16 times as much, at least 1 MiB
    (:func:`grader.sandbox.collect.output_stop_bytes`), which is the limit its messages name.

    ``wall_seconds`` is the wall-clock limit of *each test* (all calls of one ``Call.test``) and of
    importing the learner's code. ``cpu_seconds`` is CPU time per test on average: a sandbox
    process gets ``cpu_seconds`` for its import plus ``cpu_seconds`` per test it runs. A test that
    stops its process (time or memory limit, a crash, an oversized return) costs that test only:
    the tests after it run in a fresh process. Once ``max_stopped_tests`` tests (at least one)
    have stopped, every later test still runs, under a tighter limit of wall and CPU time
    (:func:`grader.sandbox.forkserver.later_limits`: 1 s, never above these limits), so a hang
    on one kind of input costs the tests it hangs on, and no more; ``run_wall_seconds`` bounds the whole run (every process included):
    the tests left when it is reached are reported as not run, with the reason.

    ``imports`` lists top-level modules the learner's code may import besides NumPy and the
    standard library (e.g. ``("scipy",)``; what they require comes with them): the sandbox binds
    those packages for this item's jobs only (:mod:`grader.sandbox.packages`)."""

    wall_seconds: float = 5.0
    cpu_seconds: float = 4.0
    memory_bytes: int = 1 << 30
    max_processes: int = 64
    output_bytes: int = 64 * 1024
    file_bytes: int = 8 << 20
    tmp_bytes: int = 16 << 20
    max_stopped_tests: int = 1
    run_wall_seconds: float = 30.0
    imports: tuple[str, ...] = ()

    def __post_init__(self):
        """Every limit must be a number inside :data:`LIMIT_RANGES` and ``imports`` a list of
        top-level module names; ``ValueError`` names the limit otherwise (a limit outside them
        could starve or break the sandbox for the next learner)."""
        from grader.sandbox.packages import validate

        object.__setattr__(self, "imports", validate(self.imports))
        for name, (low, high) in LIMIT_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                raise ValueError(f"limits.{name}: must be a number, got {value!r}")
            if not low <= value <= high:
                raise ValueError(f"limits.{name}: must be between {low:g} and {high:g}, "
                                 f"got {value!r}")

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "Limits":
        """Build limits from an item's ``limits`` mapping; unknown keys, values outside
        :data:`LIMIT_RANGES` and ``imports`` this grader cannot provide raise ``ValueError``
        naming the limit."""
        from grader.sandbox.packages import resolve

        data = dict(data or {})
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown limit(s): {', '.join(sorted(unknown))}")
        limits = cls(**data)
        resolve(limits.imports)
        return limits


#: Allowed range of each limit (inclusive): generous for instructors, safe for the sandbox.
LIMIT_RANGES: dict[str, tuple[float, float]] = {
    "wall_seconds": (0.5, 60.0),
    "cpu_seconds": (0.5, 60.0),
    "memory_bytes": (64 << 20, 4 << 30),
    "max_processes": (1, 256),
    "output_bytes": (256, 16 << 20),
    "file_bytes": (0, 256 << 20),
    "tmp_bytes": (1 << 20, 256 << 20),
    "max_stopped_tests": (0, 20),
    "run_wall_seconds": (1.0, 240.0),
}


@dataclass(frozen=True)
class Call:
    """One call ``function(*args, **kwargs)`` of the learner's code.

    ``test`` names the hidden or visible test the call belongs to (consecutive calls with the same
    ``test`` share its time limit; used in limit messages). Arguments may be NumPy arrays of
    bool/int/float dtypes, Python ``int``/``float``/``bool``/``None``, and tuples/lists of those.
    Nothing else crosses the boundary (no pickle). ``max_result_bytes`` caps the size of the
    encoded return value (bytes; None: :data:`DEFAULT_MAX_RESULT_BYTES`): a larger return is
    refused from its declared size, before it is read, and the call fails with ``bad_return``.

    ``secret`` marks a hidden test's call: its arguments reach the learner's process only once
    the learner's code is imported and every call before the first secret one has finished, so
    nothing shown in full to the learner (an import error, a visible example's output, a picture)
    can carry hidden inputs; put the secret calls last. ``optional`` marks a call that only
    illustrates (a picture): a stop in it counts towards no limit, and the optional calls right
    after it are skipped.
    """

    test: str
    function: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    max_result_bytes: int | None = None
    secret: bool = False
    optional: bool = False


#: Cap on one call's encoded return value when the caller gives none (bytes).
DEFAULT_MAX_RESULT_BYTES = 16 << 20


@dataclass
class CallOutcome:
    """What one call produced. ``value`` is an ``np.ndarray``, a tuple of values, or a scalar, parsed
    strictly by the trusted side; ``error`` is a learner-facing message (exception type and message,
    traceback trimmed to the learner's own frames)."""

    status: CallStatus
    value: Any = None
    error: str = ""
    seconds: float = 0.0
    stopped: bool = False  # this call ended its sandbox process (limit, crash, oversized return)


@dataclass
class RunResult:
    """The outcome of one sandbox run. ``calls`` has one entry per requested call, in order.
    ``stdout`` is what the learner printed (trimmed to the output limit); it must never be shown for
    hidden tests. ``message`` explains a non-``ok`` status to the learner (syntax error with line,
    which test hit which limit). ``stopped_tests`` lists the tests that stopped a process (the
    tests after each ran in a fresh one); ``status`` is then the first stop's kind.

    The facts behind ``message`` come as fields, so no caller reads them back out of prose:
    ``stopped_test`` is the test that was running when the process stopped (a limit, a crash, an
    oversized return; None: none was, e.g. while importing), ``limit`` the limit that stopped it
    (None for a crash or an oversized return), ``line`` the line of the learner's code named by a
    syntax or import error. ``stopped_test`` and ``limit`` are decided by the trusted side from
    what it observed (its clock, the cgroup, bytes read), never from anything the learner's code
    wrote; ``line`` is reported by the runner in the learner's own process, so the learner can at
    most misplace its own error. ``broken_stream`` is True when the learner's process broke the
    result protocol (frames out of order or twice, e.g. from a second process): the run was
    stopped then and nothing of that process was graded."""

    status: RunStatus
    calls: list[CallOutcome] = field(default_factory=list)
    message: str = ""
    stdout: str = ""
    seconds: float = 0.0
    stopped_tests: list["StoppedTest"] = field(default_factory=list)
    #: what the learner printed before any secret call's arguments were sent (import, visible
    #: examples, pictures), trimmed like ``stdout``: free of hidden inputs, so it may be shown
    visible_stdout: str = ""
    gave_up: str = ""  # why tests were left unrun after stops (empty: every test got its chance)
    later_seconds: float | None = None  # the tighter per-test limit after stops (None: none)
    stopped_test: str | None = None
    limit: LimitName | None = None
    line: int | None = None
    broken_stream: bool = False


@dataclass(frozen=True)
class StoppedTest:
    """A test that stopped its sandbox process: ``kind`` is ``timeout``, ``memory_limit``,
    ``crashed`` or ``result_too_large``; ``message`` is learner-facing; ``limit`` is the limit
    it hit (``RunResult.limit``; None for a crash or an oversized return) and ``seconds`` that
    limit's value in seconds for a time limit (the tighter one after earlier stops)."""

    test: str
    kind: str
    message: str
    optional: bool = False  # the call was an illustration (Call.optional): it counted no limit
    limit: LimitName | None = None
    seconds: float | None = None


class SandboxUnavailable(RuntimeError):
    """Isolation cannot be established or its self-test failed. Fail closed: no grading."""


class Sandbox(Protocol):
    """Runs learner code in isolation."""

    def run(self, source: str, calls: Sequence[Call], limits: Limits) -> RunResult:
        """Import ``source`` as a module and make ``calls``; never raises for learner faults."""

    def close(self) -> None:
        """Release pooled processes."""
