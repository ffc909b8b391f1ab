"""Grade one learner source against one problem: build the calls, run them in ONE sandbox run,
judge the raw values in this (trusted) process, diagnose, and score.

Free of Flask, Celery and the store, so it can be benchmarked and used from the command line.
Scoring: the item's points are split across the problem's categories by weight (categories without
cases drop out), then equally across a category's tests; visible examples count like hidden tests.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from grader.problems import credit, diagnosis, disclosure, inputs, pictures, run_report
from grader.problems.base import Case, CaseResult, CodeProblem
from grader.problems.compare import split_return
from grader.problems.source import normalize as normalize_source
from grader.results import InfrastructureError, ItemResult, TestResult, split_points
from grader.sandbox.api import DEFAULT_MAX_RESULT_BYTES, Call, CallOutcome, Limits, RunResult

_LEARNER_STATUSES = ("exception", "missing_function", "bad_return")  # reported from the sandbox


RESULT_FACTOR = 4  # a return may be this many times the size of the right answer ...
RESULT_SLACK = 64 << 10  # ... plus this many bytes, before it is refused unread


def build_calls(problem: CodeProblem, cases: list[Case]) -> list[Call]:
    """Every call of every case, in order, for one sandbox run. Each call's return is capped at
    :func:`result_cap` bytes (a larger one is refused before the trusted side reads it)."""
    return [Call(test=case.name, function=inputs.WRAPPER if case.wrapped else problem.function,
                 args=tuple(args), kwargs=dict(kwargs),
                 max_result_bytes=result_cap(problem, args, kwargs, case.wrapped))
            for case in cases for args, kwargs in case.calls]


def _float64_bytes(value: Any) -> int:
    if isinstance(value, (tuple, list)):
        return sum(_float64_bytes(item) for item in value)
    return 8 * int(np.size(value))


def _dims(value: Any) -> set[int]:
    """Every dimension and element count of the arrays in ``value``."""
    if isinstance(value, (tuple, list)):
        return set().union(*(_dims(item) for item in value)) if value else set()
    return {int(n) for n in np.shape(value)} | {int(np.size(value))}


def _shapes(value: Any) -> set[tuple[int, ...]]:
    """The shape of every array in ``value``."""
    if isinstance(value, (tuple, list)):
        return set().union(*(_shapes(item) for item in value)) if value else set()
    return {tuple(int(n) for n in np.shape(value))}


def _signature(value: Any) -> Any:
    """What the size of a return can depend on: array shapes and the other arguments' values."""
    if isinstance(value, np.ndarray):
        return ("array", value.shape)
    if isinstance(value, (tuple, list)):
        return tuple(_signature(item) for item in value)
    if isinstance(value, dict):
        return tuple((key, _signature(item)) for key, item in sorted(value.items()))
    return value if isinstance(value, (int, float, bool, str, type(None))) else repr(type(value))


_SIZES: dict = {}
_MAX_CACHED_SIZES = 4096


def reference_size(problem: CodeProblem, args: tuple, kwargs: dict,
                   wrapped: bool = False
                   ) -> tuple[int, frozenset[int], frozenset[tuple[int, ...]]] | None:
    """``(bytes, dims, shapes)`` of the reference's return for this call (output and weights
    as float64, plus the array arguments for a wrapped inputs-check call; the dimensions of its
    arrays; their shapes), or None without a reference or when it raises. Cached by the
    arguments' shapes (nothing else changes a return's size)."""
    key = (problem.id, wrapped, _signature(args), _signature(kwargs))
    if key not in _SIZES:
        if len(_SIZES) >= _MAX_CACHED_SIZES:
            _SIZES.clear()
        _SIZES[key] = _reference_size(problem, args, kwargs, wrapped)
    return _SIZES[key]


def _reference_size(problem: CodeProblem, args: tuple, kwargs: dict, wrapped: bool):
    if problem.reference is None:
        return None
    try:
        with np.errstate(all="ignore"):
            expected = problem.reference(*args, **kwargs)
    except Exception:  # noqa: BLE001 - an input the reference refuses: the learner's may not
        return None
    size = _float64_bytes(expected)
    if wrapped:
        size += _float64_bytes([a for a in args if isinstance(a, np.ndarray)])
    return size, frozenset(_dims(expected)), frozenset(_shapes(expected))


def result_cap(problem: CodeProblem, args: tuple, kwargs: dict, wrapped: bool = False) -> int:
    """Bytes a learner's return for this call may take: :data:`RESULT_FACTOR` times the
    reference's return (:func:`reference_size`) plus :data:`RESULT_SLACK`; without a reference,
    or when it raises, the sandbox default
    (:data:`grader.sandbox.api.DEFAULT_MAX_RESULT_BYTES`)."""
    size = reference_size(problem, args, kwargs, wrapped)
    return DEFAULT_MAX_RESULT_BYTES if size is None else RESULT_FACTOR * size[0] + RESULT_SLACK


def parameter_names(problem: CodeProblem) -> tuple[str, ...]:
    """The learner's function's parameter names, read off the problem's reference (which has the
    learner's signature); empty when there is none."""
    import inspect

    if problem.reference is None:
        return ()
    return tuple(inspect.signature(problem.reference).parameters)


def run_source(problem: CodeProblem, source: str, cases: list[Case]) -> str:
    """The learner's source as CPython reads a file (:func:`grader.problems.source.normalize`:
    no BOM, LF line ends), plus the inputs-check wrapper when a case needs it (appended, so the
    learner's line numbers are unchanged)."""
    source = normalize_source(source)
    if any(case.wrapped for case in cases):
        return source.rstrip("\n") + "\n" + inputs.wrapper_source(problem.function)
    return source


def _call_failure(outcome: CallOutcome | None, run: RunResult, function: str,
                  report: run_report.RunReport, case: Case) -> str:
    if outcome is None:
        return report.not_run
    if outcome.status == "skipped":
        return outcome.error if outcome.error.startswith("not run: test '") else report.not_run
    if case.name in report.stopped:
        return report.stopped[case.name]
    if outcome.status == "exception":
        return outcome.error or "raised an exception"
    if outcome.status == "missing_function":
        return outcome.error or f"the module defines no function named {function}"
    if outcome.status == "bad_return":
        return outcome.error or "returned a value that is not an array or a tuple of arrays"
    if outcome.status == "timeout":
        return outcome.error or "hit the time limit"
    return outcome.error or f"call status {outcome.status}"


def evaluate(problem: CodeProblem, source: str, sandbox: Any, limits: Limits, seed: int
             ) -> tuple[list[CaseResult], RunResult, run_report.RunReport]:
    """Run every case in one sandbox run, judge it, apply the credit rule
    (:mod:`grader.problems.credit`) and diagnose. Raises :class:`InfrastructureError` when the
    sandbox reports a fault that is not the learner's (never scored)."""
    return _evaluate(problem, source, sandbox, limits, seed)[:3]


def _evaluate(problem: CodeProblem, source: str, sandbox: Any, limits: Limits, seed: int):
    """:func:`evaluate`, plus the picture calls' outcomes (for :func:`pictures.draw_outcomes`)."""
    cases = problem.cases(seed)
    visible = build_calls(problem, [case for case in cases if case.visible])
    hidden = [replace(call, secret=True)
              for call in build_calls(problem, [case for case in cases if not case.visible])]
    # The learner's code sees no hidden input until its import, every visible example and every
    # picture are done: whatever it shows in full cannot carry one (Call.secret). The pictures
    # (visible examples only) never change a score (Call.optional; pictures.split).
    drawn = [replace(call, optional=True, max_result_bytes=result_cap(problem, call.args,
                                                                      call.kwargs))
             for call in pictures.calls(problem)]
    full = sandbox.run(run_source(problem, source, cases), visible + drawn + hidden, limits)
    run, picture_outcomes = pictures.split(full, len(visible), len(drawn))
    if run.status == "infrastructure_error":
        raise InfrastructureError(f"sandbox: {run.message or 'infrastructure error'}")
    report = run_report.report(run, cases, limits, parameter_names(problem))
    results, position = [], 0
    for case in cases:
        outcomes = list(run.calls[position:position + len(case.calls)])
        outcomes += [None] * (len(case.calls) - len(outcomes))
        position += len(case.calls)
        results.append(_judge(problem, case, outcomes, run, report))
    credit.apply(results)
    diagnosis.diagnose(problem, results)
    return results, run, report, picture_outcomes


def _judge(problem: CodeProblem, case: Case, outcomes: list, run: RunResult,
           report: run_report.RunReport) -> CaseResult:
    for outcome in outcomes:
        if outcome is None or outcome.status != "ok":
            return CaseResult(case, outcomes, passed=False, crashed=True,
                              failure=_call_failure(outcome, run, problem.function, report, case))
    try:
        failure = case.check([o.value for o in outcomes])
    except Exception as exc:  # noqa: BLE001 - odd learner values must not crash grading
        failure = f"the returned value could not be checked ({type(exc).__name__})"
    return CaseResult(case, outcomes, passed=failure is None, failure=failure or "")


def case_points(problem: CodeProblem, cases: list[Case], points: float) -> dict[str, float]:
    """Points per case name: ``points`` split by category weight, then equally within a category,
    rounded for display so that they add up exactly (:func:`grader.results.split_points`)."""
    return split_points(points, [(c.name, c.category, problem.categories[c.category])
                                 for c in cases])


def _show(value: Any) -> str:
    try:
        return np.array2string(np.asarray(value, dtype=np.float64), precision=4,
                               suppress_small=True, threshold=200)
    except (TypeError, ValueError):
        return repr(value)[:400]


def hidden_context(problem: CodeProblem, case: Case, source: str) -> disclosure.Context:
    """What a hidden ``case``'s feedback may mention (:mod:`grader.problems.disclosure`)."""
    sizes = [reference_size(problem, args, kwargs, case.wrapped) for args, kwargs in case.calls]
    sizes = [size for size in sizes if size is not None]
    return disclosure.context(case.calls, source, max([0, *(b // 8 for b, _, _ in sizes)]),
                              set().union(*(dims for _, dims, _ in sizes)) if sizes else (),
                              set().union(*(shapes for _, _, shapes in sizes)) if sizes else ())


def _failure_text(problem: CodeProblem, result: CaseResult, source: str) -> tuple[str, str]:
    """The failure and signals of a failed case as the learner may see them: for a hidden case,
    a report from inside the sandbox is rebuilt from what may be shown, and the grader's own
    numbers lose what could carry an input (:mod:`grader.problems.disclosure`)."""
    if result.case.visible:
        return result.failure, result.signals
    ctx = hidden_context(problem, result.case, source)
    first = next((o for o in result.outcomes if o is None or o.status != "ok"), None)
    if (result.crashed and first is not None and first.status in _LEARNER_STATUSES
            and not first.stopped and result.failure == (first.error or result.failure)):
        failure = disclosure.learner_failure(first.status, first.error, problem.function, ctx)
    else:
        failure = disclosure.numbers(result.failure, ctx)
    return failure, disclosure.numbers(result.signals, ctx)


def _test_output(result: CaseResult, failure: str, signals: str) -> str:
    case = result.case
    if result.passed:
        return "Passed."
    lines = [f"Failed: {failure}"]
    if result.diagnosis:
        lines.append(f"Diagnosis: {result.diagnosis}")
    elif signals and not (signals.startswith("your output")
                          and "NaN" in failure):  # the failure already says where
        lines.append(f"What the numbers show: {signals}")
    if case.visible and case.public is not None:
        lines.append("Expected output:\n" + _show(case.public["expected_output"]))
        if not result.crashed:
            received, weights = split_return(result.outcomes[0].value)
            lines.append("Received output:\n" + _show(received))
            if weights is not None and "expected_weights" in case.public:
                lines.append("Expected weights:\n" + _show(case.public["expected_weights"]))
                lines.append("Received weights:\n" + _show(weights))
    return "\n".join(lines)


def _fmt(points: float) -> str:
    """Points with at most two decimals: 8, 8.5, 8.67."""
    return f"{round(points, 2):g}"


def _score_line(results: list[CaseResult], shares: dict[str, float], points: float,
                score: float, ran: bool) -> str:
    """E.g. "22 hidden tests ran; they are worth 8.67 of the 10 points and count towards your
    score. The 3 visible examples are worth the other 1.33 points. You scored 6.5 of 10 (passed
    20 of 25 tests)." """
    hidden = [r for r in results if not r.case.visible]
    n_visible = len(results) - len(hidden)
    hidden_points = sum(shares[r.case.name] for r in hidden)
    tests = "test" if len(hidden) == 1 else "tests"
    n_ran = sum(1 for r in hidden if any(o is not None and o.status != "skipped"
                                         for o in r.outcomes))
    if ran and n_ran == len(hidden):
        head = (f"{len(hidden)} hidden {tests} ran; they are worth {_fmt(hidden_points)} of the "
                f"{_fmt(points)} points and count towards your score.")
    elif ran:
        head = (f"{n_ran} of the {len(hidden)} hidden {tests} ran; they are worth "
                f"{_fmt(hidden_points)} of the {_fmt(points)} points and count towards your "
                "score.")
    else:
        head = (f"There are {len(hidden)} hidden {tests}, worth {_fmt(hidden_points)} of the "
                f"{_fmt(points)} points; they count towards your score.")
    if n_visible:
        examples = "visible example is" if n_visible == 1 else f"{n_visible} visible examples are"
        rest = points - hidden_points
        head += (f" The {examples} worth the other {_fmt(rest)} "
                 f"point{'' if round(rest, 2) == 1 else 's'}.")
    return (f"{head} You scored {_fmt(score)} of {_fmt(points)} (passed "
            f"{sum(r.passed for r in results)} of {len(results)} tests).")


def grade(problem: CodeProblem, item_id: str, points: float, source: str, sandbox: Any,
          limits: Limits, seed: int) -> ItemResult:
    """Grade ``source`` on ``problem``; the tests' max scores sum to ``points``."""
    started = time.perf_counter()
    source = normalize_source(source)
    results, run, report, picture_outcomes = _evaluate(problem, source, sandbox, limits, seed)
    shares = case_points(problem, [r.case for r in results], points)
    tests, shown = [], {}
    for result in results:
        case = result.case
        shown[case.name] = _failure_text(problem, result, source) if not result.passed else ("", "")
        tags = [case.category, "visible" if case.visible else "hidden"]
        if result.diagnosis_tag:
            tags.append(f"diagnosis:{result.diagnosis_tag}")
        share = round(shares[case.name], 6)
        tests.append(TestResult(
            name=case.name, score=share if result.passed else 0.0, max_score=share,
            status="passed" if result.passed else "failed",
            output=_test_output(result, *shown[case.name]),
            visibility="visible" if case.visible else "hidden", tags=tags))
    # From the unrounded shares, so whole categories lost give round totals (e.g. exactly 8.0).
    score = round(sum(shares[r.case.name] for r in results if r.passed), 6)
    lines = [_score_line(results, shares, points, score,
                         ran=run.status == "ok" or bool(run.stopped_tests))]
    if report.summary:
        lines.append(report.summary)
    found = diagnosis.summary(results)
    if found:
        lines.append("Diagnosis:")
        lines += [f"- {line}" for line in found]
    nan_tests = [r for r in results if r.signals.startswith("your output")]
    if nan_tests and not found:
        lines.append(f"What the numbers show: your output contains NaN/inf in {len(nan_tests)} "
                     f"of {len(results)} tests (e.g. test '{nan_tests[0].case.name}': "
                     f"{shown[nan_tests[0].case.name][1]}). No known mistake produces this: look "
                     "for a division by zero, a log or sqrt of a negative number, or an "
                     "overflowing np.exp.")
    return ItemResult(
        item_id=item_id, kind="code", score=score, max_score=float(points), tests=tests,
        output="\n".join(lines),
        extra_data={"problem": problem.id, "sandbox_seconds": round(run.seconds, 4),
                    "grading_seconds": round(time.perf_counter() - started, 4),
                    "diagnoses": sorted({r.diagnosis_tag for r in results if r.diagnosis_tag}),
                    "pictures": pictures.draw_outcomes(problem, picture_outcomes)},
    )
