"""One wall-clock budget shared by a sequence of sandbox runs (grader/sandbox/shared_budget.py):
the limits each run gets and which runs start, read off a fake clock (no timing)."""
from __future__ import annotations

from pathlib import Path

from grader.problems.authored import compile_document, parse
from grader.problems.authored import trial as authored_trial
from grader.problems.authored.schema import load_document
from grader.sandbox.api import Call, CallOutcome, Limits, RunResult, StoppedTest
from grader.sandbox.forkserver import LATER_SECONDS
from grader.sandbox.shared_budget import BudgetedSandbox, SharedRunBudget
from tests.problems.conftest import FakeSandbox

ROOT = Path(__file__).resolve().parents[2]
CALL = Call(test="t", function="f")


class Clock:
    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


class Recording:
    """Records the limits of each run; every run takes ``step`` s of the fake clock; runs in
    ``stopping`` (by index) report a stopped test."""

    def __init__(self, clock, step, stopping=(), inner=None):
        self.clock, self.step, self.stopping, self.inner = clock, step, set(stopping), inner
        self.given: list[Limits] = []

    def run(self, source, calls, limits):
        calls = list(calls)
        index = len(self.given)
        self.given.append(limits)
        self.clock.now += self.step
        if self.inner is not None:
            return self.inner.run(source, calls, limits)
        stopped = [StoppedTest(calls[0].test, "timeout", "x", limit="wall")] \
            if index in self.stopping else []
        return RunResult("timeout" if stopped else "ok", stopped_tests=stopped,
                         calls=[CallOutcome("ok", value=1.0) for _ in calls])


def test_runs_after_a_stop_get_the_tight_limits_and_none_starts_past_the_end(monkeypatch):
    clock = Clock()
    monkeypatch.setattr("grader.sandbox.shared_budget.time.monotonic", clock)
    budget = SharedRunBudget.starting_now(20.0, 10.0, 4.0, "problem trial")
    recording = Recording(clock, 7.0, stopping={1})
    sandbox = BudgetedSandbox(recording, budget)
    limits = Limits(wall_seconds=5.0, cpu_seconds=4.0, run_wall_seconds=30.0)
    results = [sandbox.run("x", [CALL], limits) for _ in range(6)]
    # starts at 1000, 1007, 1014, 1021, 1028; deadline 1020, no start after 1030; the 6th
    # would start at 1035. Run 1 stopped a test: runs 2.. are tight. Walls: what is left
    # (20, 13, 6), then the 4 s minimum.
    assert [g.run_wall_seconds for g in recording.given] == [20.0, 13.0, 6.0, 4.0, 4.0]
    assert [g.wall_seconds for g in recording.given] == [5.0, 5.0] + [LATER_SECONDS] * 3
    assert [g.cpu_seconds for g in recording.given] == [4.0, 4.0] + [LATER_SECONDS] * 3
    assert budget.stops == 1 and budget.bound == 14.0
    last = results[-1]
    assert (last.status, last.gave_up) == ("timeout", "the problem trial's sandbox time (20 s) "
                                           "was used up by earlier runs that met their time "
                                           "limits")
    assert [c.status for c in last.calls] == ["skipped"]


def test_without_a_stop_the_runs_before_the_deadline_keep_their_own_limits(monkeypatch):
    clock = Clock()
    monkeypatch.setattr("grader.sandbox.shared_budget.time.monotonic", clock)
    budget = SharedRunBudget.starting_now(20.0, 10.0, 4.0)
    recording = Recording(clock, 1.0)
    sandbox = BudgetedSandbox(recording, budget)
    for _ in range(3):
        sandbox.run("x", [CALL], Limits(run_wall_seconds=10.0))
    assert [(g.run_wall_seconds, g.wall_seconds) for g in recording.given] == [(10.0, 5.0)] * 3


def test_a_problem_trial_shares_one_budget_across_its_runs(monkeypatch):
    """A trial whose every run takes 10 s (of a fake clock): from t = 1000 the runs start at
    1000, 1010, 1020 (the 30 s budget ends at 1030), 1030 and 1040 (under the tight limits, the
    deadline passed) and 1050 would be past the 15 s overrun: 5 runs reach the sandbox and the
    trial ends (refusing the problem, whose reference could not run)."""
    clock = Clock()
    monkeypatch.setattr("grader.sandbox.shared_budget.time.monotonic", clock)
    assert (authored_trial.TRIAL_RUN_SECONDS, authored_trial.TRIAL_OVERRUN_SECONDS,
            authored_trial.TRIAL_MIN_RUN_SECONDS) == (30.0, 15.0, 6.0)
    text = (ROOT / "examples/problems/softmax.yaml").read_text()
    problem, doc = compile_document(parse(text)), load_document(parse(text))
    recording = Recording(clock, 10.0, inner=FakeSandbox())
    report = authored_trial.trial(problem, doc, recording, seeds=range(2))
    assert len(recording.given) == 5
    assert [g.wall_seconds for g in recording.given][3:] == [LATER_SECONDS] * 2
    assert [g.run_wall_seconds for g in recording.given][3:] == [6.0, 6.0]
    assert report["refused"]
