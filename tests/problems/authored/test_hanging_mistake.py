"""A mistake that hangs: its calls meet the time limit, and the reference's values are computed
all the same (the run goes reference first); when the runs end before the reference's values,
the trial's refusal names the mistake, not only the reference."""
from __future__ import annotations

import pytest

from grader.problems import trial as checks
from grader.problems.authored import compile_document
from grader.problems.authored import trial as authored_trial
from grader.problems.authored.executor import SandboxExecutor
from grader.sandbox.api import CallOutcome, Limits, RunResult
from tests.problems.authored.test_document import cosine

HANGS = ("def cosine_attention(Q, K, V, tau):\n"
         "    while True:\n"
         "        pass\n")
#: 1 s a test, 5 s a run: the hanging mistake's calls (one a test) use up the run.
SHORT = Limits(wall_seconds=1.0, cpu_seconds=1.0, run_wall_seconds=5.0, max_stopped_tests=1)


@pytest.fixture(scope="module")
def sandbox(unsafe_dev_sandbox):
    return unsafe_dev_sandbox


def hanging_document():
    raw = cosine()
    raw["id"] = "cosine-hangs"
    raw["mistakes"].append({"id": "hangs", "message": "It loops.", "source": HANGS})
    return raw


def hanging_problem(raw=None):
    problem = compile_document(raw or hanging_document())
    problem.executor.limits = SHORT
    return problem


def test_a_hanging_mistake_leaves_the_references_values_computed(sandbox):
    problem = hanging_problem()
    executor = problem.executor
    assert isinstance(executor, SandboxExecutor) and len(executor.sources) >= 5
    cases = problem.cases(1)
    assert len(cases) == 13  # 2 examples and 11 hidden tests: 13 hanging calls, >= 13 s
    executor.prepare(cases, sandbox)
    for case in cases:  # every call of the reference and of the three other mistakes came back
        for index in range(4):
            assert [error for _, error in executor.values(index, case)] == \
                [None] * len(case.calls), (index, case.name)
    hanging = [error for case in cases for _, error in executor.values(4, case)]
    assert hanging[0].startswith("timeout")  # its first call met the limit; the run ended later
    assert all(error is not None for error in hanging)


class RunsThenRefuses:
    """``sandbox`` for the first ``runs`` runs, then every call skipped (as a trial's budget
    refuses runs once its time is used up)."""

    def __init__(self, sandbox, runs: int):
        self.sandbox, self.left = sandbox, runs

    def run(self, source, calls, limits):
        self.left -= 1
        if self.left >= 0:
            return self.sandbox.run(source, calls, limits)
        return RunResult("ok", calls=[CallOutcome("skipped", error="not run: time used up")
                                      for _ in calls])


def test_the_trial_names_the_mistake_that_used_up_the_time(sandbox):
    problem = hanging_problem()
    # seed 1's two runs (batched, then call by call) are made; seed 2's are refused
    found = authored_trial._prepare_all(problem, RunsThenRefuses(sandbox, 2), [1, 2])
    assert [f.check for f in found] == ["reference_runs"]
    # the visible examples are drawn once (seed 0) and came with seed 1's values: seed 2's
    # first test left unrun is its first hidden test
    assert found[0].message == (
        "problem cosine-hangs: the reference failed on test 'values: batched, Lq != Lk #1': "
        "skipped: not run: "
        "time used up; mistake 'hangs' met the time limit on test 'example 1', which used up "
        "the sandbox time the reference's tests needed")


def test_the_refusal_names_the_hanging_mistakes_field(sandbox):
    raw = hanging_document()
    assert [m["id"] for m in raw["mistakes"]][3:] == ["hangs"]  # the fourth mistake
    problem = hanging_problem(raw)
    found = authored_trial._prepare_all(problem, RunsThenRefuses(sandbox, 2), [1, 2])
    assert authored_trial.refused_field(problem, raw, [1, 2], found) == "mistakes[3]"


def test_a_refusal_without_a_stopped_mistake_names_the_reference():
    raw = cosine()
    problem = compile_document(raw)  # nothing run: no mistake's call met a limit
    found = [checks.Finding("reference_runs", "the reference failed")]
    assert authored_trial.refused_field(problem, raw, [1], found) == "reference"
    found = [checks.Finding("reference_full_marks", "the reference scores 7/10")]
    assert authored_trial.refused_field(problem, raw, [1], found) == "reference"


def test_the_trial_report_names_the_field_the_api_answers_with(sandbox):
    raw = hanging_document()
    report = authored_trial.trial(hanging_problem(raw), raw, RunsThenRefuses(sandbox, 2),
                                  seeds=[1, 2], with_mutants=False)
    assert "mistake 'hangs' met the time limit" in report["refused"]
    assert report["refused_field"] == "mistakes[3]"
