"""Grade one learner source against one problem: build the calls, run them in ONE sandbox run,
judge the raw values in this (trusted) process, diagnose, and score.

Free of Flask, Celery and the store, so it can be benchmarked and used from the command line.
Scoring: the item's points are split across the problem's categories by weight (categories without
cases drop out), then equally across a category's tests; visible examples count like hidden tests.
"""
from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import replace
from typing import Any, Mapping

import numpy as np

from grader import levers
from grader.budget import NO_BUDGET, CpuBudget
from grader.problems import credit, diagnosis, disclosure, examples, inputs, pictures, run_report
from grader.problems.base import REFERENCE, Case, CaseResult, CodeProblem
from grader.problems.caps import reference_size, result_cap
from grader.problems.compare import split_return
from grader.problems.course import layouts
from grader.problems.printed import bounded_stdout
from grader.problems.source import normalize as normalize_source
from grader.results import InfrastructureError, ItemResult, TestResult, split_points
from grader.results import _split_units as split_units
from grader.sandbox.api import Call, CallOutcome, Limits, RunResult

_LEARNER_STATUSES = ("exception", "missing_function", "bad_return")  # reported from the sandbox


def expected_values(problem: CodeProblem, cases: list[Case]) -> dict[str, list[Any]]:
    """The reference's value for every call of every case (by case name), from the problem's
    executor. Raises :class:`InfrastructureError` when the reference raises on a case: a problem
    fault, never the learner's."""
    found = {}
    for case in cases:
        computed = problem.executor.values(REFERENCE, case)
        errors = [error for _, error in computed if error is not None]
        if errors:
            raise InfrastructureError(f"problem {problem.id}: the reference failed on test "
                                      f"{case.name!r}: {errors[0]}")
        found[case.name] = [value for value, _ in computed]
    return found


def build_calls(problem: CodeProblem, cases: list[Case], expected: dict[str, list[Any]]
                ) -> list[Call]:
    """Every call of every case, in order, for one sandbox run. Each call's return is capped at
    :func:`result_cap` bytes (a larger one is refused before the trusted side reads it). Under
    a course's ``contract:`` options each call is the course's (:meth:`CourseAdapter.call
    <grader.problems.course.adapter.CourseAdapter.call>`), made here, on the trusted side."""
    return [Call(test=case.name, function=inputs.WRAPPER if case.wrapped else problem.function,
                 args=tuple(sent), kwargs=dict(sent_kwargs),
                 max_result_bytes=result_cap(value, (args, kwargs), case.wrapped))
            for case in cases for (args, kwargs), value in zip(case.calls, expected[case.name])
            for sent, sent_kwargs in [course_call(problem, args, kwargs)]]


def _calls(problem: CodeProblem, seed: int, cases: list[Case], expected: dict[str, list[Any]]
           ) -> tuple[list[Call], list[Call]]:
    """The visible examples' calls and the hidden cases' (secret) calls of one grading. With
    the lever ``calls``, made once per problem (the visible ones) and per kept seed (the hidden
    ones, :meth:`CodeProblem.keep`): the same Call objects serve every grading of the seed, so
    the sandbox keeps their encoded arguments too (:func:`grader.sandbox.forkserver.encode_job`).
    """
    def visible() -> list[Call]:
        return build_calls(problem, [case for case in cases if case.visible], expected)

    def hidden() -> list[Call]:
        return [replace(call, secret=True) for call in
                build_calls(problem, [case for case in cases if not case.visible], expected)]

    if not levers.enabled("calls"):
        return visible(), hidden()
    return (list(problem.kept(None, "visible calls", visible)),
            list(problem.kept(seed, "hidden calls", hidden)))


def course_call(problem: CodeProblem, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The call the learner's function gets for a canonical call: the course's under
    ``contract:`` options, else the call itself."""
    if problem.course is None:
        return args, kwargs
    return problem.course.call(args, kwargs)


def canonical_outcomes(problem: CodeProblem, run: RunResult, cases: list[Case],
                       calls: list[Call]) -> RunResult:
    """``run`` with every returned value in the problem's canonical form (the identity without
    ``contract:`` options): :meth:`CourseAdapter.outcome
    <grader.problems.course.adapter.CourseAdapter.outcome>` per call, ``calls`` being the calls
    sent (in case order)."""
    if problem.course is None:
        return run
    converted, position = list(run.calls), 0
    for case in cases:
        for args, kwargs in case.calls:
            if position < len(converted):
                converted[position] = problem.course.outcome(
                    converted[position], args, kwargs, case.wrapped, calls[position].args)
            position += 1
    return replace(run, calls=converted)


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


def evaluate(problem: CodeProblem, source: str, sandbox: Any, limits: Limits, seed: int,
             budget: CpuBudget = NO_BUDGET
             ) -> tuple[list[CaseResult], RunResult, run_report.RunReport]:
    """Run every case in one sandbox run, judge it, apply the credit rule
    (:mod:`grader.problems.credit`) and diagnose, the trusted side's work within ``budget``.
    Raises :class:`InfrastructureError` when the sandbox reports a fault that is not the
    learner's (never scored), :class:`~grader.budget.BudgetExceeded` when ``budget`` runs
    out."""
    return _evaluate(problem, source, sandbox, limits, seed, budget)[:3]


def _evaluate(problem: CodeProblem, source: str, sandbox: Any, limits: Limits, seed: int,
              budget: CpuBudget = NO_BUDGET):
    """:func:`evaluate`, plus the picture calls' outcomes (for :func:`pictures.draw_outcomes`)."""
    cases = problem.cases(seed)
    prepare = getattr(problem.executor, "prepare", None)
    if prepare is not None:  # an uploaded problem: its reference runs in the sandbox, ahead
        prepare(cases + pictures.reference_cases(problem), sandbox)
    expected = expected_values(problem, cases)
    visible, hidden = _calls(problem, seed, cases, expected)
    # The learner's code sees no hidden input until its import, every visible example and every
    # picture are done: whatever it shows in full cannot carry one (Call.secret). The pictures
    # (visible examples only) never change a score (Call.optional; pictures.split).
    drawn = pictures.calls(problem)
    # a course's multi-head weights layout: the visible examples in the other layouts too
    # (optional calls, like the pictures; grader/problems/course/layouts.py)
    probed = layouts.probes(problem, cases, expected)
    budget.check("building the tests")
    full = sandbox.run(run_source(problem, source, cases),
                       visible + drawn + [p.call for p in probed] + hidden, limits)
    run, optional = pictures.split(full, len(visible), len(drawn) + len(probed))
    picture_outcomes, probe_outcomes = optional[:len(drawn)], optional[len(drawn):]
    if run.status == "infrastructure_error":
        raise InfrastructureError(f"sandbox: {run.message or 'infrastructure error'}")
    shown = shown_names(problem)
    run = run_report.renamed(run, shown)
    report = run_report.report(run, cases, limits, problem.parameter_names, shown)
    # a course's returns in the problem's canonical form (after the report, which reads the
    # sandbox's own statuses)
    run = canonical_outcomes(problem, run, cases, visible + hidden)
    picture_outcomes = pictures.canonical(problem, picture_outcomes)
    results, position = [], 0
    for case in cases:
        budget.check("the checks of the returned values")
        outcomes = list(run.calls[position:position + len(case.calls)])
        outcomes += [None] * (len(case.calls) - len(outcomes))
        position += len(case.calls)
        results.append(_judge(problem, case, outcomes, expected[case.name], run, report))
    credit.apply(results)
    with computing(problem, cases, sandbox):
        diagnosis.diagnose(problem, results, budget)
    layouts.name(problem, results, probed, probe_outcomes)
    return results, run, report, picture_outcomes


def computing(problem: CodeProblem, cases: list[Case], sandbox: Any):
    """The context a diagnosis of ``cases`` runs in: an executor that computes values on demand
    (an uploaded problem's combined mistakes, in ``sandbox``) gets them there."""
    found = getattr(problem.executor, "computing", None)
    return found(cases, sandbox) if found is not None else nullcontext()


def _judge(problem: CodeProblem, case: Case, outcomes: list, expected: list, run: RunResult,
           report: run_report.RunReport) -> CaseResult:
    for outcome in outcomes:
        if outcome is None or outcome.status != "ok":
            return CaseResult(case, outcomes, passed=False, expected=expected, crashed=True,
                              failure=_call_failure(outcome, run, problem.function, report, case))
    try:
        failure = problem.checks[case.check]([o.value for o in outcomes], expected, case)
    except Exception as exc:  # noqa: BLE001 - odd learner values must not crash grading
        failure = f"the returned value could not be checked ({type(exc).__name__})"
    if failure and problem.course is not None:  # a shape in the course's form
        failure = problem.course.failure(failure)
    return CaseResult(case, outcomes, passed=failure is None, expected=expected,
                      failure=failure or "")


def case_points(problem: CodeProblem, cases: list[Case], points: float) -> dict[str, float]:
    """Points per case name: ``points`` split by category weight, then equally within a category,
    rounded for display so that they add up exactly (:func:`grader.results.split_points`). With
    the problem's ``balance`` trait (:class:`grader.problems.spec.ProblemSpec`), a category
    with cases on both sides of it gives each side half its share, split equally within it
    (each step exact, so a whole category still costs exactly its share)."""
    trait = problem.spec.balance
    shares = split_points(points, [(c.name, c.category, problem.categories[c.category])
                                   for c in cases])
    if not trait:
        return shares
    digits = next(d for d in range(2, 7)  # the decimals the whole item's split used
                  if d == 6 or all(abs(round(v, d) - v) < 1e-9 for v in shares.values()))
    by_category: dict[str, list[Case]] = {}
    for case in cases:
        by_category.setdefault(case.category, []).append(case)
    for members in by_category.values():
        sides = {trait in case.traits for case in members}
        if len(sides) < 2:
            continue
        # in units of the item's decimals: half (largest remainder) to each side, then equally
        units = round(sum(shares[case.name] for case in members) * 10 ** digits)
        groups = [[c for c in members if trait not in c.traits],
                  [c for c in members if trait in c.traits]]
        for group, amount in zip(groups, split_units(units, [1.0, 1.0])):
            shares.update((case.name, share / 10 ** digits) for case, share in
                          zip(group, split_units(amount, [1.0] * len(group))))
    return shares


def _show(value: Any) -> str:
    """A visible example's value laid out like NumPy prints it: numbers as floats (4 decimals),
    a boolean array (a mask) as True/False rather than ``1. 0.``."""
    try:
        array = np.asarray(value)
        if array.dtype != np.bool_:
            array = np.asarray(value, dtype=np.float64)
        return np.array2string(array, precision=4, suppress_small=True, threshold=200)
    except (TypeError, ValueError):
        return repr(value)[:400]


def hidden_context(result: CaseResult, source: str) -> disclosure.Context:
    """What a hidden case's feedback may mention (:mod:`grader.problems.disclosure`)."""
    case = result.case
    sizes = [reference_size(value, call, case.wrapped)
             for call, value in zip(case.calls, result.expected)]
    return disclosure.context(case.calls, source, max([0, *(b // 8 for b, _, _ in sizes)]),
                              set().union(*(dims for _, dims, _ in sizes)) if sizes else (),
                              set().union(*(shapes for _, _, shapes in sizes)) if sizes else ())


def _failure_text(problem: CodeProblem, result: CaseResult, source: str) -> tuple[str, str]:
    """The failure and signals of a failed case as the learner may see them: for a hidden case,
    a report from inside the sandbox is rebuilt from what may be shown, and the grader's own
    numbers lose what could carry an input (:mod:`grader.problems.disclosure`)."""
    if result.case.visible:
        return _unchecked_inputs(result, result.failure), result.signals
    ctx = hidden_context(result, source)
    first = next((o for o in result.outcomes if o is None or o.status != "ok"), None)
    if (result.crashed and first is not None and first.status in _LEARNER_STATUSES
            and not first.stopped and result.failure == (first.error or result.failure)):
        failure = disclosure.learner_failure(first.status, first.error, problem.function, ctx)
    else:
        failure = disclosure.numbers(result.failure, ctx)
    # signals read off a law's two learner outputs are the learner's choice (see numbers())
    signals = "" if result.case.basis == "property" else result.signals
    return _unchecked_inputs(result, failure), disclosure.numbers(signals, ctx)


def _unchecked_inputs(result: CaseResult, failure: str) -> str:
    """An inputs-not-modified test whose call did not return says that it could not check the
    inputs, so a crash never reads as a mutation."""
    if result.case.basis != "inputs" or not result.crashed or failure.startswith("not run"):
        return failure  # (a test that never ran already says so)
    return (f"this test could not run, so whether your function modifies its inputs was not "
            f"checked: {failure}")


def _test_output(problem: CodeProblem, result: CaseResult, failure: str, signals: str) -> str:
    case = result.case
    if result.passed:
        return "Passed."
    lines = [f"Failed: {failure}"]
    if result.diagnosis:
        lines += [f"Diagnosis: {message}" for _, message in diagnosis.named(result)]
    elif signals and not (signals.startswith("your output")
                          and "NaN" in failure):  # the failure already says where
        lines.append(f"What the numbers show: {signals}")
    if case.visible:
        shown = examples.public(problem, case, result.expected)
        lines.append("Expected output:\n" + _show(shown["expected_output"]))
        if not result.crashed:
            received, weights = split_return(result.outcomes[0].value)
            if problem.course is not None and problem.course.kind in ("causal_mask", "encoding"):
                received = problem.course.shown(received, *case.calls[0])
            lines.append("Received output:\n" + _show(received))
            if weights is not None and "expected_weights" in shown:
                lines.append("Expected weights:\n" + _show(shown["expected_weights"]))
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


def _tests(problem: CodeProblem, results: list[CaseResult], shares: dict[str, float],
           source: str, budget: CpuBudget) -> tuple[list[TestResult], dict[str, tuple[str, str]]]:
    """The test results as stored and shown, and each failed test's (failure, signals) as the
    learner may see them."""
    tests, shown = [], {}
    for result in results:
        budget.check("the feedback of the tests")
        case = result.case
        shown[case.name] = _failure_text(problem, result, source) if not result.passed else ("", "")
        tags = [case.category, "visible" if case.visible else "hidden"]
        tags += [f"diagnosis:{tag}" for tag, _ in diagnosis.named(result)]
        share = round(shares[case.name], 6)
        shown_name = shown_names(problem).get(case.name, case.name)  # the course's words
        tests.append(TestResult(
            name=shown_name, score=share if result.passed else 0.0, max_score=share,
            status="passed" if result.passed else "failed",
            output=_test_output(problem, result, *shown[case.name]),
            visibility="visible" if case.visible else "hidden", tags=tags))
    return tests, shown


def shown_names(problem: CodeProblem) -> Mapping[str, str]:
    """A case's own name (which seeds its draw) -> the name the learner reads, for the cases
    whose names differ: a hidden test under a course's ``contract:`` options is shown in the
    course's words (:attr:`CourseAdapter.test_names
    <grader.problems.course.adapter.CourseAdapter.test_names>`); empty without options."""
    return {} if problem.course is None else problem.course.test_names


def _diagnosis_lines(results: list[CaseResult], shown: dict[str, tuple[str, str]],
                     names: Mapping[str, str]) -> list[str]:
    """The item output's diagnosis, or the NaN/inf note when no known mistake matched."""
    found = diagnosis.summary(results)
    if found:
        return ["Diagnosis:"] + [f"- {line}" for line in found]
    nan_tests = [r for r in results if r.signals.startswith("your output")]
    if not nan_tests:
        return []
    return [f"What the numbers show: your output contains NaN/inf in {len(nan_tests)} of "
            f"{len(results)} tests (e.g. test "
            f"'{names.get(nan_tests[0].case.name, nan_tests[0].case.name)}': "
            f"{shown[nan_tests[0].case.name][1]}). No known mistake produces this: look for a "
            "division by zero, a log or sqrt of a negative number, or an overflowing np.exp."]


def grade(problem: CodeProblem, item_id: str, points: float, source: str, sandbox: Any,
          limits: Limits, seed: int, budget: CpuBudget = NO_BUDGET) -> ItemResult:
    """Grade ``source`` on ``problem``; the tests' max scores sum to ``points``. The trusted
    side's work (checks, diagnosis, disclosure, pictures) is checked against ``budget``: raises
    :class:`~grader.budget.BudgetExceeded` once it runs out."""
    started = time.perf_counter()
    source = normalize_source(source)
    results, run, report, picture_outcomes = _evaluate(problem, source, sandbox, limits, seed,
                                                       budget)
    shares = case_points(problem, [r.case for r in results], points)
    tests, shown = _tests(problem, results, shares, source, budget)
    # From the unrounded shares, so whole categories lost give round totals (e.g. exactly 8.0).
    score = round(sum(shares[r.case.name] for r in results if r.passed), 6)
    lines = [_score_line(results, shares, points, score,
                         ran=run.status == "ok" or bool(run.stopped_tests))]
    lines += [report.summary] if report.summary else []
    lines += _diagnosis_lines(results, shown, shown_names(problem))
    return ItemResult(
        item_id=item_id, kind="code", score=score, max_score=float(points), tests=tests,
        output="\n".join(lines),
        extra_data={"problem": problem.id, "sandbox_seconds": round(run.seconds, 4),
                    "grading_seconds": round(time.perf_counter() - started, 4),
                    "diagnoses": sorted({tag for r in results for tag, _ in diagnosis.named(r)}),
                    "pictures": pictures.draw_outcomes(problem, picture_outcomes, budget),
                    # printed before any hidden input was sent: the visible examples' output
                    "visible_output": bounded_stdout(run.visible_stdout)},
    )
