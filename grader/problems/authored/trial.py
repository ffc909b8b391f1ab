"""The trial an authored problem passes before any learner sees it (``POST
/api/v1/problems[/<id>/trial]``, ``grader problem trial FILE``).

In the sandbox, on the draws of :data:`SEEDS` seeds: the reference graded as a learner's code
(full marks on every category's draws), deterministic (two runs give the same values bit for
bit) and finite; each mistake graded alone (its score, whether it is named) and separable (it
differs from the reference on a hidden case of every draw); every case's verdict clear of the
tolerance's edge; seed invariance; the public view; then every automatic mutant of the reference
(:mod:`grader.problems.authored.mutants`) graded on :data:`MUTANT_SEEDS` draws: caught when it
loses points on one of them. The checks are :data:`grader.problems.trial.CHECKS`, the built-ins'
own, with sources in the sandbox as the learners.

:func:`refusal` says why a report refuses the problem (the reference fails, a draw cannot be
made, the reference is not deterministic or not finite); mistakes that are not named or not
separable, and mutants not caught, are reported for the author to act on, not refused.
"""
from __future__ import annotations

import copy
import hashlib
import time
from typing import Any

import numpy as np

from grader.problems import pictures, scoring
from grader.problems import trial as checks
from grader.problems.authored import pool
from grader.problems.authored.executor import SandboxExecutor
from grader.problems.authored.mutants import mutants
from grader.problems.base import CodeProblem
from grader.results import InfrastructureError
from grader.sandbox.api import Limits
from grader.sandbox.shared_budget import BudgetedSandbox, SharedRunBudget

SEEDS = range(4)

#: Sandbox time of one trial, every run included (seconds): past it, runs get the tighter
#: per-test limits, none starts more than TRIAL_OVERRUN_SECONDS later, and each may last
#: TRIAL_MIN_RUN_SECONDS (grader/sandbox/shared_budget.py): a trial ends within 30 + 15 + 6 =
#: 51 s of sandbox time, however many of its mistakes hang (one that hung held an upload 92 s).
#: After a run with a stopped test, every later run has the tighter limits from its start.
TRIAL_RUN_SECONDS = 30.0
TRIAL_OVERRUN_SECONDS = 15.0
TRIAL_MIN_RUN_SECONDS = 6.0
MUTANT_SEEDS = range(2)
#: Findings that refuse a problem.
REFUSING = ("conditions_hold", "reference_full_marks", "reference_deterministic",
            "reference_finite", "reference_runs")


def _grade(problem: CodeProblem, source: str, sandbox: Any, seed: int):
    return scoring.grade(problem, "trial", 10.0, source, sandbox, Limits(), seed)


def _digest(value: Any, into: "hashlib._Hash") -> None:
    if isinstance(value, np.ndarray):
        into.update(f"{value.dtype}{value.shape}".encode())
        into.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, (tuple, list)):
        into.update(b"(")
        for item in value:
            _digest(item, into)
        into.update(b")")
    elif isinstance(value, dict):
        _digest(sorted(value.items()), into)
    else:
        into.update(repr(value).encode())


class RememberingSandbox:
    """A sandbox that runs each (source, calls) once: the checks grade the same source on the
    same seed several times (full marks, seed invariance, mistakes named), and the instructor's
    sources are deterministic (:func:`check_reference_deterministic` holds before they run)."""

    def __init__(self, sandbox: Any):
        self.sandbox, self.runs = sandbox, 0
        self._seen: dict[bytes, Any] = {}

    def run(self, source: str, calls, limits: Limits):
        key = hashlib.blake2b(source.encode("utf-8"), digest_size=32)
        for call in calls:
            _digest((call.test, call.function, call.args, call.kwargs, call.secret,
                     call.optional), key)
        found = self._seen.get(key.digest())
        if found is None:
            self.runs += 1
            found = self._seen[key.digest()] = self.sandbox.run(source, calls, limits)
        return copy.deepcopy(found)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def _finite(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return all(_finite(v) for v in value)
    array = np.asarray(value)
    return not np.issubdtype(array.dtype, np.floating) or bool(np.isfinite(array).all())


def check_reference_deterministic(problem: CodeProblem, sandbox: Any, seed: int
                                  ) -> list[checks.Finding]:
    """The reference, run twice afresh on seed ``seed``'s cases, gives the same values bit for
    bit, and finite ones."""
    cases = problem.cases(seed) + pictures.reference_cases(problem)
    runs = []
    for _ in range(2):
        fresh = SandboxExecutor(problem.executor.sources[:1], problem.function)
        fresh.prepare(cases, sandbox)
        runs.append([fresh.values(0, case) for case in cases])
    found = []
    for case, first, second in zip(cases, *runs):
        if not all(e1 is None and e2 is None and _same(v1, v2)
                   for (v1, e1), (v2, e2) in zip(first, second)):
            found.append(checks.Finding("reference_deterministic", f"seed {seed}, test "
                                        f"{case.name!r}: two runs of the reference differ"))
        elif not all(_finite(v) for v, _ in first):
            found.append(checks.Finding("reference_finite", f"seed {seed}, test {case.name!r}: "
                                        "the reference returns NaN or inf"))
    return found


def _mistake_rows(problem: CodeProblem, doc: dict, sandbox: Any, seeds) -> list[dict]:
    separable = {f.message.split(",")[0] for f in checks.check_mistakes_separable(problem, seeds)}
    rows = []
    for found in doc["mistakes"]:
        results = [_grade(problem, found["source"], sandbox, seed) for seed in seeds]
        named = all(found["id"] in r.extra_data["diagnoses"] for r in results)
        rows.append({"id": found["id"], "score": min(r.score for r in results),
                     "max_score": 10.0, "named": named,
                     "separable": found["id"] not in separable})
    return rows


def _mutant_rows(problem: CodeProblem, reference: str, sandbox: Any) -> list[dict]:
    rows = []
    for mutant in mutants(reference):
        scores = []
        for seed in MUTANT_SEEDS:  # caught on the first draw that loses points
            scores.append(_grade(problem, mutant.source, sandbox, seed).score)
            if scores[-1] < 10.0:
                break
        rows.append({"id": mutant.id, "operator": mutant.operator, "line": mutant.line,
                     "caught": min(scores) < 10.0, "score": min(scores)})
    return rows


def _prepare_all(problem: CodeProblem, sandbox: Any, seeds) -> list[checks.Finding]:
    """Every seed's values computed; a draw that cannot be made or a reference that cannot run
    is a finding."""
    found = checks.check_conditions_hold(problem, seeds)
    if found:
        return found
    try:
        for seed in seeds:
            problem.executor.prepare(problem.cases(seed) + pictures.reference_cases(problem),
                                     sandbox)
            scoring.expected_values(problem, problem.cases(seed))
    except InfrastructureError as exc:
        stopped = _stopped_mistakes(problem, seeds)
        blamed = "".join(f"; mistake {tag!r} met the time limit on test {name!r}, which used "
                         "up the sandbox time the reference's tests needed"
                         for tag, name in stopped)
        found.append(checks.Finding("reference_runs", str(exc) + blamed))
    return found


def _stopped_mistakes(problem: CodeProblem, seeds) -> list[tuple[str, str]]:
    """(mistake id, test name) of each mistake whose call was stopped at a time limit while the
    ``seeds``' values were computed (the first such test of each): a mistake that hangs leaves
    the reference's later tests unrun, and the refusal names it, not only the reference."""
    found = []
    for variant in problem.variants:
        computed = [(case.name, error) for seed in seeds for case in problem.cases(seed)
                    for _, error in _cached(problem, variant.implementation, case)]
        found += [(variant.tag, name) for name, error in computed
                  if (error or "").startswith("timeout")][:1]
    return found


def _cached(problem: CodeProblem, implementation: int, case) -> list:
    try:
        return problem.executor.values(implementation, case)
    except InfrastructureError:  # never prepared (the runs stopped before it)
        return []


def trial(problem: CodeProblem, doc: dict, sandbox: Any, seeds=SEEDS,
          with_mutants: bool = True) -> dict:
    """The trial report of the compiled ``problem`` (its validated document ``doc``), as JSON:
    ``reference`` (score, full), ``mistakes`` (score, named, separable), ``mutants`` (caught or
    not) and ``mutants_caught``, ``findings`` (check, message), ``refused`` (the reason, or None),
    ``seconds`` (the whole trial), ``seconds_per_grading`` and ``cpu_ms_per_grading`` (the
    reference graded once its seed's values are cached: what a learner's grading costs). Every
    sandbox run shares one budget (:data:`TRIAL_RUN_SECONDS`, ``SharedRunBudget``)."""
    started = time.perf_counter()
    seeds = list(seeds)
    budget = SharedRunBudget.starting_now(TRIAL_RUN_SECONDS, TRIAL_OVERRUN_SECONDS,
                                          TRIAL_MIN_RUN_SECONDS, "problem trial")
    raw_sandbox = BudgetedSandbox(sandbox, budget)
    sandbox = RememberingSandbox(raw_sandbox)
    findings = _prepare_all(problem, sandbox, seeds)
    report: dict[str, Any] = {"id": problem.id, "seeds": len(seeds)}
    if not findings:
        findings += check_reference_deterministic(problem, raw_sandbox, seeds[0])
    if not findings:
        learner = (doc["reference"], sandbox)
        findings += checks.check_reference_full_marks(problem, seeds, learner)
        learners = {"reference": learner} | {f"{m['id']} #0": (m["source"], sandbox)
                                              for m in doc["mistakes"]}
        findings += checks.check_verdicts_clear(problem, seeds)
        findings += checks.check_seed_invariance(problem, seeds, learners)
        findings += checks.check_mistakes_named(problem, seeds, {
            k: v for k, v in learners.items() if k != "reference"})
        findings += checks.check_public_view(problem)
        timed = []
        for seed in seeds:
            wall, cpu = time.perf_counter(), time.process_time()
            result = _grade(problem, doc["reference"], raw_sandbox, seed)
            timed.append((time.perf_counter() - wall, time.process_time() - cpu,
                          result.extra_data["sandbox_seconds"], result.score))
        report["reference"] = {"score": min(t[3] for t in timed), "max_score": 10.0,
                               "full": all(t[3] == 10.0 for t in timed)}
        report["seconds_per_grading"] = round(sum(t[0] for t in timed) / len(timed), 4)
        report["cpu_ms_per_grading"] = round(1000 * sum(t[1] for t in timed) / len(timed), 2)
        report["sandbox_seconds_per_grading"] = round(sum(t[2] for t in timed) / len(timed), 4)
        report["mistakes"] = _mistake_rows(problem, doc, sandbox, seeds)
        if with_mutants:
            report["mutants"] = _mutant_rows(problem, doc["reference"], sandbox)
            caught = sum(m["caught"] for m in report["mutants"])
            report["mutants_caught"] = {"caught": caught, "of": len(report["mutants"])}
    report["findings"] = [{"check": f.check, "message": f.message} for f in findings]
    report["refused"] = refusal(report)
    if report["refused"]:
        report["refused_field"] = refused_field(problem, doc, seeds, findings)
    if report["refused"] is None and "reference" in report:
        try:  # the first learners' seeds, in one more run (grader/problems/authored/pool.py)
            report["pool_seeds"] = len(pool.fill(problem, raw_sandbox))
        except InfrastructureError:  # the gradings compute their own seeds' values then
            report["pool_seeds"] = 0
    report["sandbox_runs"] = (sandbox.runs + (len(seeds) + 2 if "reference" in report else 0)
                              + ("pool_seeds" in report))
    report["seconds"] = round(time.perf_counter() - started, 3)
    return report


def refused_field(problem: CodeProblem, doc: dict, seeds, findings: list) -> str:
    """The document field a refusal names, as the schema's error paths do: ``mistakes[i]`` (the
    first in the document) when a mistake met the time limit and so used up the sandbox time the
    reference needed (``reference_runs``), else ``reference``."""
    if any(f.check == "reference_runs" for f in findings):
        stopped = {tag for tag, _ in _stopped_mistakes(problem, seeds)}
        for index, mistake in enumerate(doc["mistakes"]):
            if mistake["id"] in stopped:
                return f"mistakes[{index}]"
    return "reference"


def refusal(report: dict) -> str | None:
    """Why ``report`` refuses its problem (None: it may be used)."""
    found = [f["message"] for f in report["findings"] if f["check"] in REFUSING]
    return "; ".join(found) or None


__all__ = ["MUTANT_SEEDS", "REFUSING", "SEEDS", "check_reference_deterministic", "refusal",
           "refused_field", "trial"]
