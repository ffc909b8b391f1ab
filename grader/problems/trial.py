"""The checks every code problem passes before learners see it, as small named functions
(scikit-learn's ``check_estimator`` works the same way): the tests run them over every built-in
problem, and the upload of a problem runs them on the document.

Each check takes the compiled problem and the seeds to try, and returns :class:`Finding` s (empty:
the check holds):

* :func:`check_conditions_hold`: every seed draws every case (each case's condition holds);
* :func:`check_reference_full_marks`: the reference, graded as a learner's code, scores full marks;
* :func:`check_mistakes_named`: each known mistake, graded alone, loses points and is named;
* :func:`check_mistakes_separable`: each mistake's values differ from the reference's on at least
  one hidden case of every draw;
* :func:`check_verdicts_clear`: every case judges the reference and every mistake the same way on
  every draw, and at 0.1 and 10 times the tolerance (never at the tolerance's edge, where the draw
  or rounding would decide);
* :func:`check_seed_invariance`: the reference, every mistake and every sample submission get the
  same score, test verdicts and diagnoses on every draw;
* :func:`check_public_view`: the learner-facing view holds the visible examples only.

A mistake or the reference is graded "as a learner's code" by a :data:`Learner`: for the built-ins
an in-process :class:`CallableSandbox` around the trusted implementation (never used for learner
code), for an uploaded problem its source in the real sandbox.
"""
from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from grader.problems import examples, scoring
from grader.problems.base import REFERENCE, Case, CodeProblem
from grader.problems.compare import matches, split_return, tolerance_scaled
from grader.problems.conditions import CaseConditionError
from grader.problems.inputs import WRAPPER, arguments_after
from grader.problems.inputs import _grader_dict_keys as dict_keys
from grader.sandbox.api import CallOutcome, Limits, RunResult

#: The draws a trial tries by default.
SEEDS = range(50)


@dataclass(frozen=True)
class Finding:
    """A check that does not hold: its name and what was found."""

    check: str
    message: str


class CallableSandbox:
    """Runs one TRUSTED implementation (a built-in problem's reference or mistake) in place of a
    learner's code, in this process: each call on deep copies of its arguments, the inputs check's
    wrapper too. Never for learner code, which runs only in :mod:`grader.sandbox`."""

    def __init__(self, implementation: Callable[..., Any]):
        self.implementation = implementation

    def _call(self, function: str, args: tuple, kwargs: dict) -> CallOutcome:
        args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
        for array in (a for a in args if isinstance(a, np.ndarray)):
            array.flags.writeable = True
        keys = dict_keys(args)  # before the call, as the wrapper reads them
        try:
            with np.errstate(all="ignore"):
                value = self.implementation(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - a raising mistake is graded like a learner's
            return CallOutcome("exception", error=f"{type(exc).__name__}: {exc}")
        if function == WRAPPER:
            value = (value, arguments_after(args, keys))
        return CallOutcome("ok", value=value)

    def run(self, source: str, calls, limits: Limits) -> RunResult:
        started = time.perf_counter()
        outcomes = [self._call(call.function, call.args, call.kwargs) for call in calls]
        return RunResult("ok", calls=outcomes, seconds=time.perf_counter() - started)

    def close(self) -> None:
        pass


#: What grades as a learner: ``(source, sandbox)``.
Learner = tuple[str, Any]


def implementation_learners(problem: CodeProblem) -> dict[str, Learner]:
    """The reference and every mistake implementation of a built-in problem, as learners (by
    name: ``"reference"``, ``"<tag> #<k>"``)."""
    found: dict[str, Learner] = {"reference": ("", CallableSandbox(
        problem.implementations[REFERENCE]))}
    seen: dict[str, int] = {}
    for variant in problem.variants:
        index = seen[variant.tag] = seen.get(variant.tag, -1) + 1
        found[f"{variant.tag} #{index}"] = ("", CallableSandbox(
            problem.implementations[variant.implementation]))
    return found


def _grade(problem: CodeProblem, learner: Learner, seed: int):
    source, sandbox = learner
    return scoring.grade(problem, "trial", 10.0, source, sandbox, Limits(), seed)


def signature(result) -> tuple:
    """What must not depend on the draw: the score, and each test's status and diagnosis."""
    return (round(result.score, 6),
            tuple((t.name, t.status, tuple(g for g in t.tags if g.startswith("diagnosis:")))
                  for t in result.tests))


def check_conditions_hold(problem: CodeProblem, seeds: Iterable[int] = SEEDS) -> list[Finding]:
    """Every seed draws every case: no :class:`CaseConditionError`."""
    found = []
    for seed in seeds:
        try:
            problem.cases(seed)
        except CaseConditionError as exc:
            found.append(Finding("conditions_hold", f"seed {seed}: {exc}"))
    return found


def check_reference_full_marks(problem: CodeProblem, seeds: Iterable[int] = SEEDS,
                               learner: Learner | None = None) -> list[Finding]:
    """The reference, graded as a learner's code, passes every test on every seed."""
    learner = learner or implementation_learners(problem)["reference"]
    found = []
    for seed in seeds:
        result = _grade(problem, learner, seed)
        failed = [t.name for t in result.tests if t.status != "passed"]
        if failed:
            found.append(Finding("reference_full_marks",
                                 f"seed {seed}: the reference fails {', '.join(failed)}"))
    return found


def check_mistakes_named(problem: CodeProblem, seeds: Iterable[int] = SEEDS,
                         learners: Mapping[str, Learner] | None = None) -> list[Finding]:
    """Each mistake implementation, graded alone, loses points and is named on every failing
    test it explains (its tag is among the diagnoses) on every seed."""
    learners = learners or implementation_learners(problem)
    found = []
    for name, learner in learners.items():
        if name == "reference":
            continue
        tag = name.split(" #")[0]
        for seed in seeds:
            result = _grade(problem, learner, seed)
            named = {g.split(":", 1)[1] for t in result.tests for g in t.tags
                     if g.startswith("diagnosis:")}
            if result.score >= result.max_score or tag not in named:
                found.append(Finding("mistakes_named", f"{name}, seed {seed}: scores "
                                     f"{result.score:g}, named {sorted(named) or 'nothing'}"))
    return found


def _differs(problem: CodeProblem, implementation: int, case: Case) -> bool:
    ours = problem.executor.values(implementation, case)
    reference = problem.executor.values(REFERENCE, case)
    return any((a_error is None) != (b_error is None)
               or (a_error is None and not matches(split_return(a)[0], split_return(b)[0],
                                                   case.rows_for(index)))
               for index, ((a, a_error), (b, b_error)) in enumerate(zip(ours, reference)))


def check_mistakes_separable(problem: CodeProblem, seeds: Iterable[int] = SEEDS) -> list[Finding]:
    """Each mistake implementation's values differ from the reference's on at least one hidden
    case of every draw (otherwise no test could ever tell it from correct code)."""
    found = []
    for seed in seeds:
        hidden = [c for c in problem.cases(seed) if not c.visible]
        for variant in problem.variants:
            if not any(_differs(problem, variant.implementation, c) for c in hidden):
                found.append(Finding("mistakes_separable", f"{variant.tag}, seed {seed}: equals "
                                     "the reference on every hidden case"))
    return found


def _verdict(problem: CodeProblem, implementation: int, case: Case, expected: list) -> str:
    """"passes" or "fails" when the check says so at 0.1 and at 10 times the tolerance, "raises
    <type>", or "at the tolerance's edge"."""
    values = []
    for value, error in problem.executor.values(implementation, case):
        if error is not None:
            return f"raises {error.split(':')[0]}"
        if case.wrapped:  # the implementations leave their arguments as they were
            value = (value, arguments_after(case.calls[0][0]))
        values.append(value)
    verdicts = set()
    for factor in (0.1, 10.0):
        with tolerance_scaled(factor):
            verdicts.add(problem.checks[case.check](values, expected, case) is None)
    return {frozenset({True}): "passes", frozenset({False}): "fails"}.get(
        frozenset(verdicts), "at the tolerance's edge")


def check_verdicts_clear(problem: CodeProblem, seeds: Iterable[int] = SEEDS) -> list[Finding]:
    """Every case gives the reference "passes" and every mistake implementation the same verdict
    on every draw, at 0.1 and at 10 times the tolerance."""
    verdicts: dict[tuple[str, int], set[str]] = {}
    for seed in seeds:
        cases = problem.cases(seed)
        expected = scoring.expected_values(problem, cases)
        for case in cases:
            for index in [REFERENCE, *(v.implementation for v in problem.variants)]:
                verdicts.setdefault((case.name, index), set()).add(
                    _verdict(problem, index, case, expected[case.name]))
    names = {v.implementation: v.tag for v in problem.variants} | {REFERENCE: "reference"}
    return [Finding("verdicts_clear", f"{case} | {names[index]}: {sorted(found)}")
            for (case, index), found in verdicts.items()
            if len(found) > 1 or "at the tolerance's edge" in found
            or (index == REFERENCE and found != {"passes"})]


def check_seed_invariance(problem: CodeProblem, seeds: Iterable[int] = SEEDS,
                          learners: Mapping[str, Learner] | None = None) -> list[Finding]:
    """Every learner (default: the reference and every mistake) gets the same
    :func:`signature` on every seed."""
    learners = learners or implementation_learners(problem)
    by_learner: dict[str, dict[tuple, list[int]]] = {}
    for seed in seeds:
        for name, learner in learners.items():
            by_learner.setdefault(name, {}).setdefault(
                signature(_grade(problem, learner, seed)), []).append(seed)
    return [Finding("seed_invariance", f"{name}: scores "
                    f"{sorted({s[0] for s in found})} over seeds "
                    f"{[seeds[0] for seeds in found.values()]}")
            for name, found in by_learner.items() if len(found) > 1]


def check_public_view(problem: CodeProblem) -> list[Finding]:
    """The learner-facing examples are the visible cases only, JSON-serialisable, and name no
    hidden case."""
    shown = examples.public_examples(problem)
    text = json.dumps(shown)
    hidden = [c.name for c in problem.cases(0) if not c.visible]
    found = [Finding("public_view", f"the public view names hidden test {name!r}")
             for name in hidden if json.dumps(name) in text]
    if [e["name"] for e in shown] != [c.name for c in problem.visible_cases()]:
        found.append(Finding("public_view", "the public examples are not the visible cases"))
    return found


#: Every check, by name (the tests parametrise over it; an upload's trial runs them all).
CHECKS: dict[str, Callable[..., list[Finding]]] = {
    "conditions_hold": check_conditions_hold,
    "reference_full_marks": check_reference_full_marks,
    "mistakes_named": check_mistakes_named,
    "mistakes_separable": check_mistakes_separable,
    "verdicts_clear": check_verdicts_clear,
    "seed_invariance": check_seed_invariance,
    "public_view": check_public_view,
}
