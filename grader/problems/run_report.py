"""Learner-facing words for a sandbox run that did not finish (syntax error, import error, time,
memory or output limit, crash).

Every test has its own time limit (:mod:`grader.sandbox.forkserver`): a test that stops the
process running the learner's code (time or memory limit, a crash, an oversized return) loses its
own points, and the tests after it run in a fresh process (after ``max_stopped_tests`` stops,
under a tighter time limit), until the run's total time ran out. The summary names each stopped test, why, and its input sizes (never
its values), and says which tests were left unrun and why. Inputs: the sandbox's
:class:`~grader.sandbox.api.RunResult`, whose fields say which test stopped (``stopped_test``),
which limit stopped it (``limit``) and which line an error names (``line``); its ``message``
(``grader/sandbox/collect.py`` and ``runner.py``: ``"SyntaxError: expected ':' (line 2 of your
code)\\n    <source>\\n    ^"``, ``"your code raised an error while being imported: <error> (line
N of your code)\\n<traceback>"``) is quoted, never searched for those facts.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from grader.problems.base import Case
from grader.sandbox.api import Limits, RunResult
from grader.sandbox.collect import format_bytes, output_limit_text

_IMPORT_PREFIX = "your code raised an error while being imported: "
_MAX = 240
_STOPPING = ("timeout", "memory_limit", "output_limit", "crashed")


@dataclass(frozen=True)
class RunReport:
    """``summary``: one or two sentences for the item's output (empty for a run that finished);
    ``not_run``: the failure of a test that never ran; ``stopped``: the failure text of each test
    that stopped the run or its process, by test name."""

    summary: str = ""
    not_run: str = "not run"
    stopped: dict = field(default_factory=dict)

    @property
    def stopped_test(self) -> str | None:
        """The first test that stopped the run (None if none)."""
        return next(iter(self.stopped), None)


def _first_line(text: str) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= _MAX else line[:_MAX] + "..."


def _split_line_number(text: str, line: int | None) -> tuple[str, int | None]:
    """``text`` without the ``" (line N of your code)"`` the sandbox put after it, and N, from
    ``line`` (``RunResult.line``); ``(text, None)`` when ``text`` does not end with it (no line,
    or a headline trimmed by :func:`_first_line`)."""
    suffix = f" (line {line} of your code)"
    if line is None or not text.endswith(suffix):
        return text, None
    return text[:-len(suffix)].rstrip(), line


def _time_limit(limit: str | None, limits: Limits, seconds: float | None = None) -> str:
    """The limit's words; ``seconds`` is the value it had when it was not ``limits``' own (the
    tighter limit of the tests after earlier stops, ``StoppedTest.seconds``)."""
    if limit == "cpu":
        return f"{seconds if seconds is not None else limits.cpu_seconds:g} s CPU-time limit"
    return f"{seconds if seconds is not None else limits.wall_seconds:g} s time limit"


def _stopped_test(run: RunResult, cases: list[Case]) -> str | None:
    """The test that was running when the run stopped (``RunResult.stopped_test``), else the
    last call before the first skipped one, when that call did not return normally."""
    if run.stopped_test is not None:
        return run.stopped_test
    owners = [case.name for case in cases for _ in case.calls]
    statuses = [o.status for o in run.calls]
    first_skipped = statuses.index("skipped") if "skipped" in statuses else len(statuses)
    if 0 < first_skipped <= len(owners) and statuses[first_skipped - 1] != "ok":
        return owners[first_skipped - 1]
    return None


def _finished(run: RunResult, cases: list[Case], stopped: str | None) -> int:
    position, done = 0, 0
    for case in cases:
        outcomes = run.calls[position:position + len(case.calls)]
        position += len(case.calls)
        if (case.name != stopped and len(outcomes) == len(case.calls)
                and all(o.status not in ("skipped", "timeout") for o in outcomes)):
            done += 1
    return done


def input_sizes(case: Case, names: tuple[str, ...] = ()) -> str:
    """The sizes of a case's first call's inputs, never their values: ``"Q (2, 3, 4), K (2, 5, 4),
    num_heads 2"``; arrays by shape, integers (sizes and counts) by value, others by type.
    ``names`` are the function's parameter names, in order."""
    args, kwargs = case.calls[0] if case.calls else ((), {})
    described = []
    for index, value in enumerate(list(args) + list(kwargs.values())):
        name = names[index] if index < len(args) and index < len(names) else (
            list(kwargs)[index - len(args)] if index >= len(args) else f"argument {index + 1}")
        if value is None:
            continue
        if hasattr(value, "shape"):
            described.append(f"{name} {tuple(int(n) for n in value.shape)}")
        elif isinstance(value, int) and not isinstance(value, bool):
            described.append(f"{name} {value}")
        else:
            described.append(f"{name} ({type(value).__name__})")
    return ", ".join(described)


_STOP_WORDS = {
    "timeout": "exceeded the {limit}",
    "memory_limit": "exceeded the memory limit ({memory})",
    "crashed": "ended the process running your code",
    "result_too_large": "returned a value far larger than its answer",
}


def renamed(run: RunResult, shown: Mapping[str, str]) -> RunResult:
    """``run`` with every sandbox message that quotes a test (``"... ended during test 'X'"``,
    ``"test 'X' exceeded the time limit"``, ``"not run: test 'X' stopped earlier"``) quoting the
    name the learner reads instead: ``shown`` maps a case's own name to it (a course's words,
    :attr:`CourseAdapter.test_names <grader.problems.course.adapter.CourseAdapter.test_names>`).
    The fields that say which test stopped keep the case's own name. Linear in the messages'
    length times the renamed tests."""
    pairs = [(f"test '{old}'", f"test '{new}'") for old, new in shown.items() if old != new]
    if not pairs:
        return run

    def text(message: str) -> str:
        for old, new in pairs:
            message = message.replace(old, new) if message else message
        return message

    return replace(run, message=text(run.message),
                   calls=[replace(c, error=text(c.error)) if c.error else c for c in run.calls],
                   stopped_tests=[replace(s, message=text(s.message)) for s in run.stopped_tests])


def _stops(run: RunResult, cases: list[Case], limits: Limits, names: tuple[str, ...],
           shown: Mapping[str, str]) -> RunReport:
    """The report of a run in which some tests stopped their process (the others ran on)."""
    by_name = {case.name: case for case in cases}
    parts, stopped = [], {}
    for stop in run.stopped_tests:
        words = _STOP_WORDS.get(stop.kind, "stopped").format(
            limit=_time_limit(stop.limit, limits, stop.seconds),
            memory=format_bytes(limits.memory_bytes))
        case = by_name.get(stop.test)
        sizes = input_sizes(case, names) if case is not None else ""
        quoted = shown.get(stop.test, stop.test)
        parts.append(f"'{quoted}' ({words}{f'; input sizes: {sizes}' if sizes else ''})")
        stopped[stop.test] = (f"this test {words}; it lost its points and the tests after it ran "
                              "in a fresh process" if stop.kind != "crashed" else
                              f"this test {words}: {_first_line(stop.message)}")
    count = len(run.stopped_tests)
    summary = (f"{count} test{'s' if count > 1 else ''} stopped the process running your code "
               f"and lost {'their' if count > 1 else 'its'} points: {'; '.join(parts)}. Each test "
               f"has its own limits ({limits.wall_seconds:g} s of time, "
               f"{limits.cpu_seconds:g} s of CPU); the other tests ran in a fresh process")
    if run.later_seconds is not None and run.later_seconds < limits.wall_seconds:
        summary += (f", the later ones with a tighter limit of "
                    f"{run.later_seconds:g} s each")
    summary += "."
    if run.gave_up:
        summary += f" Then {run.gave_up}."
    return RunReport(summary, not_run=f"not run: {run.gave_up or 'see the summary'}",
                     stopped=stopped)


def report(run: RunResult, cases: list[Case], limits: Limits,
           names: tuple[str, ...] = (), shown: Mapping[str, str] | None = None) -> RunReport:
    """What to tell the learner about ``run`` (empty summary when it finished normally).
    ``names`` are the function's parameter names (for input sizes); ``shown`` maps a case's own
    name to the one the learner reads, where they differ (a course's words): the words quote
    that one, ``RunReport.stopped`` stays keyed by the case's own name."""
    shown = shown or {}
    if run.stopped_tests and run.status in _STOPPING:
        return _stops(run, cases, limits, names, shown)
    if run.status == "ok":
        return RunReport()
    first = _first_line(run.message)
    if run.status == "syntax_error":
        error, line = _split_line_number(first, run.line)
        summary = (f"Your code has a syntax error on line {line}: {error}." if line
                   else f"Your code could not be compiled: {error}.")
        return RunReport(summary + " No test could run.",
                         not_run=f"not run: your code has a syntax error"
                                 f"{f' on line {line}' if line else ''}")
    if run.status == "import_error":
        text = first[len(_IMPORT_PREFIX):] if first.startswith(_IMPORT_PREFIX) else first
        error, line = _split_line_number(text, run.line)
        where = f" (line {line})" if line else ""
        if error.startswith("your code "):
            summary = f"Your code could not be imported: {error}{where}."
        else:
            summary = f"Your code raised an error while being imported{where}: {error}."
        return RunReport(summary + " No test could run.",
                         not_run="not run: importing your code failed (see the summary)")
    if run.status not in _STOPPING:
        return RunReport(f"Your code could not run to completion ({run.status}): {first}.",
                         not_run=f"not run: {first}")
    return _stopped(run, cases, limits, first, shown)


def _stopped(run: RunResult, cases: list[Case], limits: Limits, first: str,
             shown: Mapping[str, str]) -> RunReport:
    """The report of a run that a limit, a crash or a broken result stream stopped."""
    stopped = _stopped_test(run, cases)
    finished = _finished(run, cases, stopped)
    quoted = shown.get(stopped, stopped) if stopped else stopped
    during = f"while running test '{quoted}'" if stopped else "while importing your code"
    progress = f"; {finished} of {len(cases)} tests had finished" if stopped else ""
    after = " The tests after it did not run." if stopped else " No test could run."
    if run.status == "timeout":
        limit = _time_limit(run.limit, limits)
        summary = f"The run exceeded the {limit} {during}{progress}." + after
        stopped_text = f"the run exceeded the {limit} while running this test"
    elif run.status == "memory_limit":
        limit = f"memory limit ({format_bytes(limits.memory_bytes)})"
        summary = f"Your code exceeded the {limit} {during}{progress}." + after
        stopped_text = f"your code exceeded the {limit} in this test"
    elif run.status == "output_limit":
        limit = output_limit_text(limits.output_bytes)
        summary = (f"Your code printed more than the {limit} {during} and was stopped{progress}. "
                   "Remove print statements: all tests share one output limit.")
        stopped_text = f"your code printed more than the {limit} in this test"
    elif run.broken_stream:  # stopped by the trusted side, between or during calls
        summary, stopped_text = f"The run was stopped: {first}.", first
    else:
        summary, stopped_text = f"The run stopped {during}{progress}: {first}.", first
    why = f"the run stopped in test '{quoted}'" if stopped else "the run stopped earlier"
    return RunReport(summary, not_run=f"not run: {why} (see the summary)",
                     stopped={stopped: stopped_text} if stopped else {})
