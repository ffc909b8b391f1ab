"""Turns the untrusted result stream of one job into a :class:`~grader.sandbox.api.RunResult`.

The stream (see ``runner.py``) must follow one grammar exactly; any deviation (unknown tag, a
result for the wrong call, a second ``DONE``, a value that does not parse) makes the run
``crashed``: the learner's code can write to the result descriptor, so a malformed stream is its
doing, and it never earns anything. Which limit ended a run is decided from what the trusted side
observed itself (its own wall clock, the cgroup's OOM counter, bytes it read); the server's report
of the exit status only refines messages.
"""
from __future__ import annotations

import signal
import struct
import time
from dataclasses import dataclass, field
from typing import Sequence

from grader import levers
from grader.safetext import clean_text
from grader.sandbox import wire
from grader.sandbox.api import DEFAULT_MAX_RESULT_BYTES, Call, CallOutcome, Limits, RunResult

RESULT_TAGS = frozenset({b"LIVE", b"IMPD", b"STRT", b"VALU", b"FAIL", b"SYNT", b"IMPT", b"DONE"})
FAIL_STATUSES = frozenset({"exception", "missing_function", "bad_return"})
MAX_RESULT_BYTES = 256 << 20
MAX_REPORT_FRAME = 64 << 10  # every frame but a value: small JSON reports
VALUE_HEADER_BYTES = 4 << 10  # a VALU frame's own header (call index, seconds) on top of the value
MAX_ERROR_CHARS = 8000
FLOOD_FACTOR = 16  # printing this many times the output limit (at least 1 MiB) stops the job
MIN_FLOOD_BYTES = 1 << 20


def output_stop_bytes(output_bytes: int) -> int:
    """Bytes a job may print before it is stopped, for ``Limits.output_bytes`` (the bytes kept
    and shown): :data:`FLOOD_FACTOR` times as many, at least :data:`MIN_FLOOD_BYTES`. Output
    past ``output_bytes`` and up to this is counted and dropped."""
    return max(FLOOD_FACTOR * output_bytes, MIN_FLOOD_BYTES)


def output_limit_text(output_bytes: int) -> str:
    """How the output limit is named to learners, with its real sizes: ``'output limit (1 MiB;
    the first 64 KiB printed are kept)'`` for 64 KiB kept."""
    return (f"output limit ({format_bytes(output_stop_bytes(output_bytes))}; the first "
            f"{format_bytes(output_bytes)} printed are kept)")


def format_bytes(count: int) -> str:
    """``1073741824 -> '1 GiB'``, ``65536 -> '64 KiB'`` (binary units)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count} bytes"


@dataclass
class Ending:
    """What the trusted side observed about how the job ended."""

    wall_timeout: bool = False
    output_flood: bool = False
    oom_killed: bool = False
    results_too_large: bool = False
    exit_status: int | None = None  # raw wait status reported by the server (untrusted)
    cpu_seconds: float = 0.0
    infrastructure: str = ""
    oversized: wire.FrameTooLarge | None = None  # a return refused from its declared size


@dataclass
class Collector:
    """Feeds on frames in arrival order; ``result()`` builds the RunResult."""

    calls: Sequence[Call]
    limits: Limits
    outcomes: list = field(default_factory=list)
    started_at: float = field(default_factory=time.monotonic)
    current: int | None = None
    current_started: float = 0.0
    done: bool = False
    syntax: str | None = None
    import_failure: str | None = None
    error_line: int | None = None  # the line a syntax or import error names (runner-reported)
    memory_failure: str | None = None
    violation: str | None = None
    received: int = 0
    live: bool = False  # the runner's first frame arrived: the job was set up and read
    imported: bool = False  # the learner's code was imported (IMPD): hidden arguments may go
    test_started: float | None = None  # when the running test's first call started
    #: reuse the parse of ``.npy`` headers seen before (``wire.decode_value``'s ``remember``:
    #: the ``sandbox`` lever of :mod:`grader.levers`, read when the collector is made)
    remember: bool = field(default_factory=lambda: levers.enabled("sandbox"))

    def frame_limit(self, tag: bytes) -> int:
        """Largest declared length accepted for the next frame with ``tag`` (bytes): the running
        call's ``max_result_bytes`` for a value, :data:`MAX_REPORT_FRAME` for anything else."""
        if tag != b"VALU" or self.current is None:
            return MAX_REPORT_FRAME
        limit = self.calls[self.current].max_result_bytes
        return (DEFAULT_MAX_RESULT_BYTES if limit is None else limit) + VALUE_HEADER_BYTES

    def feed(self, tag: bytes, body: bytes) -> None:
        """Record one frame; a protocol violation is remembered (and further frames ignored)."""
        self.received += 1
        if self.violation is not None:
            return
        try:
            self._feed(tag, body)
        except (wire.WireError, KeyError, TypeError, ValueError) as error:
            self.violation = str(error) or type(error).__name__

    def _feed(self, tag: bytes, body: bytes) -> None:
        if tag == b"LIVE" or not self.live:
            if tag != b"LIVE" or self.live or wire.parse_json_body(body) != {}:
                raise wire.WireError("the first frame must be LIVE, and only the first")
            self.live = True
            return
        if self.done or self.syntax is not None or self.import_failure is not None:
            raise wire.WireError("frames after the end of the run")
        if tag == b"IMPD":
            if self.imported or wire.parse_json_body(body) != {}:
                raise wire.WireError("a second import report")
            self.imported = True
            return
        if tag in (b"STRT", b"VALU", b"FAIL", b"DONE") and not self.imported:
            raise wire.WireError("a call reported before the import")
        if tag in (b"SYNT", b"IMPT"):
            if self.outcomes or self.current is not None:
                raise wire.WireError("import report after the first call")
            payload = wire.parse_json_body(body)
            message = _text(payload["message"])
            self.error_line = _line(payload.get("line"))
            if tag == b"SYNT":
                self.syntax = message
            elif payload.get("memory") is True:
                self.memory_failure = message
                self.import_failure = message
            else:
                self.import_failure = message
            return
        if tag == b"DONE":
            if self.current is not None:
                raise wire.WireError("DONE inside a call")
            self.done = True
            return
        if tag == b"STRT":
            index = wire.parse_json_body(body)["i"]
            if self.current is not None or index != len(self.outcomes) or index >= len(self.calls):
                raise wire.WireError("call started out of order")
            self.current, self.current_started = index, time.monotonic()
            if index == 0 or self.calls[index].test != self.calls[index - 1].test:
                self.test_started = self.current_started
            return
        if tag == b"FAIL":
            payload = wire.parse_json_body(body)
            self._check_index(payload["i"])
            status = payload["status"]
            if status not in FAIL_STATUSES:
                raise wire.WireError(f"unknown failure status {status!r}")
            error = _text(payload["error"])
            memory = payload.get("memory") is True
            if memory:
                self.memory_failure = error
            self._finish_call(CallOutcome(status=status, error=error, stopped=memory))
            return
        # VALU: uint32 header length, JSON {"i": ...}, encoded value
        if len(body) < 4:
            raise wire.WireError("short value frame")
        (length,) = struct.unpack_from("!I", body, 0)
        header = wire.parse_json_body(bytes(body[4:4 + length]))
        self._check_index(header["i"])
        value = wire.decode_value(memoryview(body)[4 + length:], max_bytes=MAX_RESULT_BYTES,
                                  remember=self.remember)
        self._finish_call(CallOutcome(status="ok", value=value))

    def _check_index(self, index) -> None:
        if self.current is None or index != self.current:
            raise wire.WireError("result for a call that is not running")

    def _finish_call(self, outcome: CallOutcome) -> None:
        outcome.seconds = time.monotonic() - self.current_started
        self.outcomes.append(outcome)
        self.current = None

    # ----------------------------------------------------------------------------------------

    def result(self, ending: Ending, stdout: str) -> RunResult:
        """The run's final state (one CallOutcome per requested call, in order)."""
        seconds = time.monotonic() - self.started_at
        limits = self.limits

        def finish(status: str, message: str, running: CallOutcome | None = None,
                   stopped_test: str | None = None, limit: str | None = None,
                   line: int | None = None) -> RunResult:
            outcomes = list(self.outcomes)
            if running is not None and len(outcomes) < len(self.calls):
                running.stopped = True
                outcomes.append(running)
            while len(outcomes) < len(self.calls):
                outcomes.append(CallOutcome(status="skipped", error="not run: " + message.split("\n")[0]))
            return RunResult(status=status, calls=outcomes, message=message, stdout=stdout,
                             seconds=seconds, stopped_test=stopped_test, limit=limit, line=line)

        running_test = self.calls[self.current].test if self.current is not None else None
        if ending.infrastructure and not ending.oom_killed:
            return RunResult(status="infrastructure_error",
                             calls=[CallOutcome(status="skipped", error="not run: grading "
                                                "infrastructure problem") for _ in self.calls],
                             message=ending.infrastructure, stdout="", seconds=seconds)
        if ending.oom_killed or self.memory_failure is not None:
            test = running_test
            if self.memory_failure is not None and self.outcomes and self.current is None:
                test = self.calls[len(self.outcomes) - 1].test
            where = f"test '{test}'" if test else "your code"
            message = f"{where} exceeded the memory limit ({format_bytes(limits.memory_bytes)})"
            running = CallOutcome(status="exception", error=message)
            return finish("memory_limit", message, running if running_test else None,
                          stopped_test=test, limit="memory")
        if ending.wall_timeout or self._cpu_killed(ending):
            which = (f"{limits.wall_seconds:g} s wall-clock" if ending.wall_timeout
                     else f"{limits.cpu_seconds:g} s CPU")
            where = f"test '{running_test}'" if running_test else "importing your code"
            message = f"{where} exceeded the time limit ({which})"
            running = CallOutcome(status="timeout", error=message,
                                  seconds=time.monotonic() - self.current_started)
            return finish("timeout", message, running if running_test else None,
                          stopped_test=running_test,
                          limit="wall" if ending.wall_timeout else "cpu")
        if ending.oversized is not None and running_test:
            # The size the learner's process declared is not repeated: it is the learner's number.
            limit = self.calls[self.current].max_result_bytes or DEFAULT_MAX_RESULT_BYTES
            message = (f"test '{running_test}' returned a value larger than the "
                       f"{format_bytes(limit)} this test allows (its answer is far smaller): "
                       "check the shape of what you return")
            return finish("crashed", message, CallOutcome(status="bad_return", error=message),
                          stopped_test=running_test)
        if ending.output_flood:
            message = (f"your code printed more than the {output_limit_text(limits.output_bytes)} "
                       "and was stopped")
            return finish("output_limit", message,
                          CallOutcome(status="exception", error=message) if running_test else None,
                          stopped_test=running_test, limit="output")
        if self.violation is not None or ending.results_too_large:
            # The violation itself (kept in self.violation, logged) may quote what the learner's
            # process wrote, so the learner is told only that it happened. Once the stream is
            # broken no frame can be trusted, those before it included: nothing is graded.
            message = "the process running your code sent malformed results"
            if not ending.results_too_large:
                message += (" (out of order or twice, as when your code starts another process, "
                            "e.g. with os.fork(), that keeps running)")
            message += "; nothing it returned was graded"
            return RunResult(status="crashed", message=message, stdout=stdout, seconds=seconds,
                             calls=[CallOutcome(status="skipped", error="not run: " + message)
                                    for _ in self.calls], broken_stream=True)
        if self.syntax is not None:
            return finish("syntax_error", self.syntax, line=self.error_line)
        if self.import_failure is not None:
            return finish("import_error", self.import_failure, line=self.error_line)
        if self.done and len(self.outcomes) == len(self.calls):
            return RunResult(status="ok", calls=list(self.outcomes), stdout=stdout, seconds=seconds)
        where = f"during test '{running_test}'" if running_test else "before all tests ran"
        message = f"the process running your code ended {where} ({_describe_exit(ending.exit_status)})"
        running = CallOutcome(status="exception", error=message)
        return finish("crashed", message, running if running_test else None,
                      stopped_test=running_test)

    def _cpu_killed(self, ending: Ending) -> bool:
        """A CPU limit ended the process: the runner's per-test timer (SIGPROF), or the
        process-wide backstop (RLIMIT_CPU: SIGXCPU, then SIGKILL at the hard limit). The job is
        PID 1 of its namespace, so SIGPROF and SIGXCPU end it with that number as its exit
        status (``server._exit_on``) rather than as a signal."""
        status = ending.exit_status
        if status is None:
            return False
        if not _signaled(status):
            # an exit status is a number the learner's code can pick too (os._exit(27)): it
            # reads as the CPU limit only when the process used about that much CPU (rusage
            # read at exit may fall short of the timer's count on a busy machine: 80% of it)
            return ((status & 0x7F) == 0
                    and (status >> 8) & 0xFF in (signal.SIGXCPU, signal.SIGPROF)
                    and ending.cpu_seconds >= 0.8 * self.limits.cpu_seconds)
        number = status & 0x7F
        if number in (signal.SIGXCPU, signal.SIGPROF):
            return True
        return number == signal.SIGKILL and ending.cpu_seconds >= cpu_budget(
            self.limits, self.calls) - 0.05


def cpu_budget(limits: Limits, calls: Sequence[Call]) -> float:
    """CPU seconds one sandbox process may use in all (RLIMIT_CPU, a backstop): the import and
    each of its tests get ``limits.cpu_seconds`` (each test's own limit is the runner's timer)."""
    return limits.cpu_seconds * (1 + len({call.test for call in calls}))


def _signaled(status: int) -> bool:
    return (status & 0x7F) not in (0, 0x7F)


def _describe_exit(status: int | None) -> str:
    if status is None:
        return "no exit status"
    if _signaled(status):
        number = status & 0x7F
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = str(number)
        return f"killed by signal {name}"
    return f"exit status {(status >> 8) & 0xFF}"


def _line(value) -> int | None:
    """A line number from the runner (None when it named none); anything else breaks protocol."""
    if value is not None and (type(value) is not int or not 0 <= value < 1 << 31):
        raise wire.WireError("line is not a line number")
    return value


def _text(value) -> str:
    """A message of the learner's process (JSON may carry unpaired surrogates such as
    ``"\\udcff"`` and control characters): at most :data:`MAX_ERROR_CHARS` characters of valid
    Unicode, each surrogate shown as U+FFFD and each control character as its escape
    (:func:`grader.safetext.clean_text`), before anything on the trusted side reads it."""
    if not isinstance(value, str):
        raise wire.WireError("message is not text")
    return clean_text(value[:MAX_ERROR_CHARS])[:MAX_ERROR_CHARS]
