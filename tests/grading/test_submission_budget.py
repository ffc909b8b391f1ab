"""The code items of one submission share one budget of sandbox time (QA: two submissions whose
five items all hang held both workers for 100 s each; each item had its own 30 s)."""
from __future__ import annotations

from grader.content import Assignment
from grader.grading import service
from grader.items import GradingContext, get_kind
from grader.items.base import MIN_ITEM_RUN_SECONDS, SUBMISSION_OVERRUN_SECONDS
from grader.sandbox.api import CallOutcome, RunResult


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class SlowSandbox:
    """Every run takes 20 s of the fake clock and records the run limit it was given."""

    def __init__(self, clock):
        self.clock, self.given = clock, []

    def run(self, source, calls, limits):
        self.given.append(limits.run_wall_seconds)
        self.clock.now += 20.0
        return RunResult("ok", calls=[CallOutcome("exception", error="KeyError") for _ in calls])


def test_later_code_items_get_what_is_left_of_the_submission_budget(monkeypatch):
    clock = Clock()
    monkeypatch.setattr("grader.items.code.time.monotonic", clock)
    monkeypatch.setattr("grader.grading.service.time.monotonic", clock)
    kind = get_kind("code")
    items = {f"i{n}": kind.load(f"i{n}", {"kind": "code", "problem": "softmax", "points": 1},
                                None) for n in range(4)}
    assignment = Assignment(id="a", title="a", items=items)
    sandbox = SlowSandbox(clock)
    responses = {name: {"code": "def softmax(x, axis=-1):\n    raise KeyError\n"}
                 for name in items}
    service.grade_responses(assignment, responses, GradingContext(seed=1, sandbox=sandbox))
    # budget 45 s from t=1000: item 0 may use its own 30 s; item 1 starts at 1020 (25 s left);
    # item 2 at 1040 (5 s left, raised to the 6 s minimum); item 3 at 1060 (none left: 6 s)
    assert service.SUBMISSION_RUN_SECONDS == 45.0 and MIN_ITEM_RUN_SECONDS == 6.0
    assert sandbox.given == [30.0, 25.0, 6.0, 6.0]


# -- the whole submission is bounded, however many items hang (QA: 17 items that all loop held
# a grading process 136 s: past the 45 s every item still got its 6 s minimum) ------------------

from grader.sandbox.api import Limits, StoppedTest  # noqa: E402
from grader.sandbox.forkserver import LATER_SECONDS  # noqa: E402
from tests.problems.conftest import FakeSandbox  # noqa: E402

HANG = "def softmax(x, axis=-1):\n    while True:\n        pass\n"
RIGHT = ("import numpy as np\n\ndef softmax(x, axis=-1):\n"
         "    e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
         "    return e / e.sum(axis=axis, keepdims=True)\n")


class HangingSandbox:
    """A run of HANG takes the whole run limit it was given on the fake clock, its first test
    stopped by the wall clock; any other source runs in-process (FakeSandbox) at no time."""

    def __init__(self, clock):
        self.clock, self.given, self.fake = clock, [], FakeSandbox()

    def run(self, source, calls, limits):
        calls = list(calls)
        self.given.append(limits)
        if "while True" not in source:
            return self.fake.run(source, calls, limits)
        self.clock.now += limits.run_wall_seconds
        stop = StoppedTest(calls[0].test, "timeout", "exceeded the time limit", limit="wall",
                           seconds=limits.wall_seconds)
        return RunResult("timeout", message="exceeded the time limit", stopped_tests=[stop],
                         limit="wall", stopped_test=calls[0].test,
                         calls=[CallOutcome("timeout", error="exceeded", stopped=True)]
                         + [CallOutcome("skipped", error="not run") for _ in calls[1:]])


def _grade(monkeypatch, sources):
    clock = Clock()
    monkeypatch.setattr("grader.sandbox.shared_budget.time.monotonic", clock)
    monkeypatch.setattr("grader.items.code.time.monotonic", clock)
    monkeypatch.setattr("grader.grading.service.time.monotonic", clock)
    kind = get_kind("code")
    items = {f"i{n:02d}": kind.load(f"i{n:02d}", {"kind": "code", "problem": "softmax",
                                                  "points": 1}, None)
             for n in range(len(sources))}
    sandbox = HangingSandbox(clock)
    results = service.grade_responses(
        Assignment(id="a", title="a", items=items),
        {name: {"code": source} for name, source in zip(items, sources)},
        GradingContext(seed=1, sandbox=sandbox))
    return clock, sandbox, results


def test_seventeen_hanging_items_end_within_the_submission_bound(monkeypatch):
    clock, sandbox, results = _grade(monkeypatch, [HANG] * 17)
    # from t=1000, deadline 1045, no start after 1060: item 0 gets its own 30 s (to 1030) and
    # stops a test; item 1 the 15 s left (to 1045), items 2, 3, 4 the 6 s minimum (to 1051, 1057,
    # 1063), each after item 0 under the 1 s per-test limit; item 5 would start at 1063 > 1060
    assert service.SUBMISSION_RUN_SECONDS == 45.0
    assert (MIN_ITEM_RUN_SECONDS, SUBMISSION_OVERRUN_SECONDS) == (6.0, 15.0)
    assert [limits.run_wall_seconds for limits in sandbox.given] == [30.0, 15.0, 6.0, 6.0, 6.0]
    assert [limits.wall_seconds for limits in sandbox.given] == [5.0] + [LATER_SECONDS] * 4
    assert [limits.cpu_seconds for limits in sandbox.given] == [4.0] + [LATER_SECONDS] * 4
    assert clock.now == 1063.0 <= 1000 + 45 + 15 + 6
    not_run = [r for r in results if r.output.startswith("Not run")]
    assert [r.item_id for r in not_run] == [f"i{n:02d}" for n in range(5, 17)]
    assert all(r.score == 0 and r.output == (
        "Not run: the submission's sandbox time (45 s) was used up by earlier runs that met "
        "their time limits.") for r in not_run)


def test_an_item_after_a_hanging_one_runs_under_the_tight_limit_and_keeps_its_points(
        monkeypatch):
    _, sandbox, results = _grade(monkeypatch, [HANG, RIGHT, RIGHT])
    # item 0 takes its 30 s; items 1 and 2 start at 1030 with 15 s left, 1 s per test
    assert [(g.run_wall_seconds, g.wall_seconds) for g in sandbox.given] == [
        (30.0, 5.0), (15.0, LATER_SECONDS), (15.0, LATER_SECONDS)]
    assert [r.score for r in results] == [0.0, 1.0, 1.0]


def test_items_without_a_stop_keep_their_own_limits(monkeypatch):
    _, sandbox, results = _grade(monkeypatch, [RIGHT] * 3)
    assert [(g.run_wall_seconds, g.wall_seconds, g.cpu_seconds) for g in sandbox.given] == [
        (30.0, 5.0, 4.0)] * 3
    assert [r.score for r in results] == [1.0, 1.0, 1.0]
    assert Limits().wall_seconds == 5.0
