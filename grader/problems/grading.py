"""Grade one learner source against one problem: build the calls, run them in ONE sandbox run,
judge the raw values in this (trusted) process, diagnose, and score.

Free of Flask, Celery and the store, so it can be benchmarked and used from the command line.
Scoring: the item's points are split across the problem's categories by weight (categories without
cases drop out), then equally across a category's tests; visible examples count like hidden tests.
"""
from __future__ import annotations

import re
import time
from typing import Any

import numpy as np

from grader.problems import credit, diagnosis, inputs, pictures, run_report
from grader.problems.base import Case, CaseResult, CodeProblem
from grader.problems.compare import split_return
from grader.results import InfrastructureError, ItemResult, TestResult
from grader.sandbox.api import Call, CallOutcome, Limits, RunResult

_DECIMAL = re.compile(r"[-+]?\d*\.\d+(?:[eE][-+]?\d+)?")
_INTEGER = re.compile(r"(?<![\d.])\d+(?![\d.])")
_MAX_ERROR = 240


def build_calls(problem: CodeProblem, cases: list[Case]) -> list[Call]:
    """Every call of every case, in order, for one sandbox run."""
    return [Call(test=case.name, function=inputs.WRAPPER if case.wrapped else problem.function,
                 args=tuple(args), kwargs=dict(kwargs))
            for case in cases for args, kwargs in case.calls]


def run_source(problem: CodeProblem, source: str, cases: list[Case]) -> str:
    """The learner's source, plus the inputs-check wrapper when a case needs it (appended, so the
    learner's line numbers are unchanged)."""
    if any(case.wrapped for case in cases):
        return source.rstrip("\n") + "\n" + inputs.wrapper_source(problem.function)
    return source


def _call_failure(outcome: CallOutcome | None, run: RunResult, function: str,
                  report: run_report.RunReport, case: Case) -> str:
    if outcome is None or outcome.status == "skipped":
        return report.not_run
    if case.name == report.stopped_test and report.stopped:
        return report.stopped
    if outcome.status == "exception":
        return outcome.error or "raised an exception"
    if outcome.status == "missing_function":
        return outcome.error or f"the module defines no function named {function}"
    if outcome.status == "bad_return":
        return outcome.error or "returned a value that is not an array or a tuple of arrays"
    if outcome.status == "timeout":
        return outcome.error or "hit the time limit"
    return outcome.error or f"call status {outcome.status}"


def safe_error(text: str) -> str:
    """A learner error shown for a hidden test: the last line (exception type and message) plus the
    learner's line numbers, shortened; a message carrying many numbers (which could be hidden
    inputs printed into the exception) is withheld: more than 4 decimals or more than 12
    integers (shapes in a broadcasting error stay visible)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return "raised an exception"
    last = lines[-1]
    where = ", ".join(ref for ref in dict.fromkeys(re.findall(r"line \d+", text))
                      if ref not in last)
    if len(_DECIMAL.findall(last)) > 4 or len(_INTEGER.findall(last)) > 12:
        last = last.split(":", 1)[0] + ": (message withheld for a hidden test: it contains numbers)"
    if len(last) > _MAX_ERROR:
        last = last[:_MAX_ERROR] + "..."
    return f"{last} ({where})" if where else last


def evaluate(problem: CodeProblem, source: str, sandbox: Any, limits: Limits, seed: int
             ) -> tuple[list[CaseResult], RunResult, run_report.RunReport]:
    """Run every case in one sandbox run, judge it, apply the credit rule
    (:mod:`grader.problems.credit`) and diagnose. Raises :class:`InfrastructureError` when the
    sandbox reports a fault that is not the learner's (never scored)."""
    cases = problem.cases(seed)
    calls = build_calls(problem, cases)
    # picture calls (visible examples) run after every test call and never change a score
    run = sandbox.run(run_source(problem, source, cases), calls + pictures.calls(problem), limits)
    run = pictures.settle(run, len(calls))
    if run.status == "infrastructure_error":
        raise InfrastructureError(f"sandbox: {run.message or 'infrastructure error'}")
    report = run_report.report(run, cases, limits)
    results, position = [], 0
    for case in cases:
        outcomes = list(run.calls[position:position + len(case.calls)])
        outcomes += [None] * (len(case.calls) - len(outcomes))
        position += len(case.calls)
        results.append(_judge(problem, case, outcomes, run, report))
    credit.apply(results)
    diagnosis.diagnose(problem, results)
    return results, run, report


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
    """Points per case name: ``points`` split by category weight, then equally within a category."""
    per_category: dict[str, int] = {}
    for case in cases:
        per_category[case.category] = per_category.get(case.category, 0) + 1
    total_weight = sum(problem.categories[c] for c in per_category)
    return {case.name: points * problem.categories[case.category] / total_weight
            / per_category[case.category] for case in cases}


def _show(value: Any) -> str:
    try:
        return np.array2string(np.asarray(value, dtype=np.float64), precision=4,
                               suppress_small=True, threshold=200)
    except (TypeError, ValueError):
        return repr(value)[:400]


def _test_output(result: CaseResult) -> str:
    case = result.case
    if result.passed:
        return "Passed."
    failure = result.failure
    if result.crashed and not case.visible:
        failure = safe_error(failure)
    lines = [f"Failed: {failure}"]
    if result.diagnosis:
        lines.append(f"Diagnosis: {result.diagnosis}")
    elif result.signals and not (result.signals.startswith("your output")
                                 and "NaN" in failure):  # the failure already says where
        lines.append(f"What the numbers show: {result.signals}")
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
    if ran:
        head = (f"{len(hidden)} hidden {tests} ran; they are worth {_fmt(hidden_points)} of the "
                f"{_fmt(points)} points and count towards your score.")
    else:
        head = (f"There are {len(hidden)} hidden {tests}, worth {_fmt(hidden_points)} of the "
                f"{_fmt(points)} points; they count towards your score.")
    if n_visible:
        examples = "visible example is" if n_visible == 1 else f"{n_visible} visible examples are"
        head += (f" The {examples} worth the other "
                 f"{_fmt(points - hidden_points)} points.")
    return (f"{head} You scored {_fmt(score)} of {_fmt(points)} (passed "
            f"{sum(r.passed for r in results)} of {len(results)} tests).")


def grade(problem: CodeProblem, item_id: str, points: float, source: str, sandbox: Any,
          limits: Limits, seed: int) -> ItemResult:
    """Grade ``source`` on ``problem``; the tests' max scores sum to ``points``."""
    started = time.perf_counter()
    results, run, report = evaluate(problem, source, sandbox, limits, seed)
    shares = case_points(problem, [r.case for r in results], points)
    tests = []
    for result in results:
        case = result.case
        tags = [case.category, "visible" if case.visible else "hidden"]
        if result.diagnosis_kind:
            tags.append(f"diagnosis:{result.diagnosis_kind}")
        share = round(shares[case.name], 6)
        tests.append(TestResult(
            name=case.name, score=share if result.passed else 0.0, max_score=share,
            status="passed" if result.passed else "failed", output=_test_output(result),
            visibility="visible" if case.visible else "hidden", tags=tags))
    # From the unrounded shares, so whole categories lost give round totals (e.g. exactly 8.0).
    score = round(sum(shares[r.case.name] for r in results if r.passed), 6)
    lines = [_score_line(results, shares, points, score, ran=run.status == "ok")]
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
                     f"{nan_tests[0].signals}). No known mistake produces this: look for a "
                     "division by zero, a log or sqrt of a negative number, or an overflowing "
                     "np.exp.")
    return ItemResult(
        item_id=item_id, kind="code", score=score, max_score=float(points), tests=tests,
        output="\n".join(lines),
        extra_data={"problem": problem.id, "sandbox_seconds": round(run.seconds, 4),
                    "grading_seconds": round(time.perf_counter() - started, 4),
                    "diagnoses": sorted({r.diagnosis_kind for r in results if r.diagnosis_kind}),
                    "pictures": pictures.draw_from_run(problem, run, [r.case for r in results])},
    )
