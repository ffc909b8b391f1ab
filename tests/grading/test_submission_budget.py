"""The code items of one submission share one budget of sandbox time (QA: two submissions whose
five items all hang held both workers for 100 s each; each item had its own 30 s)."""
from __future__ import annotations

from grader.content import Assignment
from grader.grading import service
from grader.items import GradingContext, get_kind
from grader.items.base import MIN_ITEM_RUN_SECONDS
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
