"""Check before submitting (CodeRunner's Precheck, Otter's ``grader.check``): run a learner's
source on a problem's visible examples only, in one sandbox run, and judge them as grading does
(:func:`grader.problems.scoring._judge`). No hidden case is drawn, built or sent: the run's
``print()`` output can therefore be shown to the learner (bounded and escaped by the page), and
nothing here is a score: the result is not stored, not counted as an attempt, never passed back.

Free of Flask and the store, like :mod:`grader.problems.scoring`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from grader.budget import NO_BUDGET, CpuBudget
from grader.problems import diagnosis, pictures, run_report, scoring
from grader.problems.printed import bounded_stdout
from grader.problems.base import CodeProblem
from grader.problems.source import normalize as normalize_source
from grader.results import InfrastructureError
from grader.sandbox.api import Limits

@dataclass
class PrecheckResult:
    """A precheck of one code item: ``tests`` as ``{name, status, output}`` (``status`` is
    ``passed`` or ``failed``), ``summary`` one sentence, ``stdout`` what the learner's code
    printed while importing and running the visible examples and their pictures
    (:func:`bounded_stdout`), ``pictures`` the heatmaps grading draws
    (:func:`grader.problems.pictures.draw_outcomes`), ``seconds`` the wall time of the check."""

    item_id: str
    problem: str
    tests: list[dict[str, Any]] = field(default_factory=list)
    summary: str = ""
    stdout: str = ""
    seconds: float = 0.0
    pictures: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"item_id": self.item_id, "kind": "code", "problem": self.problem,
                "passed": sum(t["status"] == "passed" for t in self.tests),
                "total": len(self.tests), "tests": self.tests, "output": self.summary,
                "stdout": self.stdout, "pictures": self.pictures,
                "seconds": round(self.seconds, 4)}


def precheck(problem: CodeProblem, item_id: str, source: str, sandbox: Any, limits: Limits,
             budget: CpuBudget = NO_BUDGET) -> PrecheckResult:
    """Run ``source`` on the visible examples of ``problem`` only (one sandbox run, no hidden
    call: no :class:`~grader.sandbox.api.Call` is ``secret``) and judge each. Raises
    :class:`InfrastructureError` when the sandbox reports a fault that is not the learner's,
    :class:`~grader.budget.BudgetExceeded` when ``budget`` runs out."""
    started = time.perf_counter()
    source = normalize_source(source)
    cases = problem.visible_cases()
    prepare = getattr(problem.executor, "prepare", None)
    if prepare is not None:  # an uploaded problem: its reference runs in the sandbox, ahead
        prepare(cases + pictures.reference_cases(problem), sandbox)
    expected = scoring.expected_values(problem, cases)
    calls = scoring.build_calls(problem, cases, expected)
    drawn = pictures.calls(problem)  # the visible examples' pictures, as grading draws them
    budget.check("building the visible examples")
    full = sandbox.run(scoring.run_source(problem, source, cases), calls + drawn, limits)
    run, picture_outcomes = pictures.split(full, len(calls), len(drawn))
    if run.status == "infrastructure_error":
        raise InfrastructureError(f"sandbox: {run.message or 'infrastructure error'}")
    report = run_report.report(run, cases, limits, problem.parameter_names)
    run = scoring.canonical_outcomes(problem, run, cases, calls)  # a course's returns
    picture_outcomes = pictures.canonical(problem, picture_outcomes)
    results, position = [], 0
    for case in cases:
        budget.check("the checks of the returned values")
        outcomes = list(run.calls[position:position + len(case.calls)])
        outcomes += [None] * (len(case.calls) - len(outcomes))
        position += len(case.calls)
        results.append(scoring._judge(problem, case, outcomes, expected[case.name], run, report))
    with scoring.computing(problem, cases, sandbox):
        diagnosis.diagnose(problem, results, budget)
    tests = [{"name": r.case.name, "status": "passed" if r.passed else "failed",
              "output": scoring._test_output(problem, r, r.failure, r.signals)}
             for r in results]
    passed = sum(r.passed for r in results)
    summary = (f"Passed {passed} of {len(results)} visible examples. This check is not a "
               "submission: nothing was stored or scored, and no hidden test ran.")
    if report.summary:
        summary += "\n" + report.summary
    return PrecheckResult(item_id=item_id, problem=problem.id, tests=tests, summary=summary,
                          stdout=bounded_stdout(run.stdout),
                          pictures=pictures.draw_outcomes(problem, picture_outcomes, budget),
                          seconds=time.perf_counter() - started)
