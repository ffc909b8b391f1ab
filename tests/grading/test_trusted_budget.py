"""The trusted side's CPU budget per submission (issue 20.1: checks, diagnosis, disclosure,
pictures and rubric scoring share one budget; past it the submission is an infrastructure fault
that names the budget, retried then failed, never a learner's zero and never a hung worker).

Tested with a budget of 0 CPU-s, with a fake clock, and with a problem made slow on purpose (a
known mistake that spins until the budget is spent): never with a threshold on the machine's
speed.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from grader.budget import CpuBudget
from grader.content import Assignment, Catalog
from grader.grading import service
from grader.grading.service import CPU_BUDGET_NAME, GradingService, submission_budget
from grader.items import GradingContext, Item, get_kind
from grader.problems import PROBLEMS
from grader.problems.compile import compile_problem
from grader.problems.spec import Mistake
from grader.results import InfrastructureError, ItemResult
from grader.sandbox.api import CallOutcome, RunResult
from grader.store import Store
from tests.conftest import wait_final

RAN_OUT = f"the {CPU_BUDGET_NAME} ran out: more than"


class ZerosSandbox:
    """Every call returns zeros shaped like its first argument (a wrong softmax); counts runs."""

    def __init__(self):
        self.runs = 0

    def run(self, source, calls, limits):
        self.runs += 1
        return RunResult("ok", calls=[CallOutcome("ok", value=np.zeros_like(call.args[0]))
                                      for call in calls])


def _assignment(*kinds: tuple[str, dict]) -> Assignment:
    items = {}
    for number, (kind, raw) in enumerate(kinds):
        item_id = f"i{number}"
        items[item_id] = get_kind(kind).load(item_id, {"kind": kind, "points": 1, **raw}, None)
    return Assignment(id="a", title="a", items=items)


SOFTMAX = ("code", {"problem": "softmax"})
CODE = {"code": "def softmax(x, axis=-1):\n    return x * 0\n"}


def test_a_budget_of_zero_cpu_seconds_stops_grading_before_anything_runs():
    sandbox = ZerosSandbox()
    ctx = GradingContext(seed=1, sandbox=sandbox, budget=submission_budget(0.0))
    with pytest.raises(InfrastructureError) as caught:
        service.grade_responses(_assignment(SOFTMAX), {"i0": CODE}, ctx)
    assert str(caught.value) == f"item 'i0': {RAN_OUT} 0 CPU-s spent, during grading"
    assert sandbox.runs == 0


def test_a_problem_made_slow_on_purpose_stops_in_diagnosis_naming_the_budget(monkeypatch):
    budget = submission_budget(0.05)

    def spins_until_the_budget_is_spent(x, axis=-1):
        while budget.cpu_left() > 0:  # CPU time of this thread: 0.05 s, whatever the load
            pass
        return np.full_like(x, 0.5)

    slow = compile_problem(dataclasses.replace(PROBLEMS["softmax"].spec, rules=(), mistakes=(
        Mistake("slow", "a mistake that takes all the time there is",
                implementations=(spins_until_the_budget_is_spent,)),)))
    monkeypatch.setitem(PROBLEMS, "softmax", slow)
    sandbox = ZerosSandbox()
    ctx = GradingContext(seed=1, sandbox=sandbox, budget=budget)
    with pytest.raises(InfrastructureError) as caught:
        service.grade_responses(_assignment(SOFTMAX), {"i0": CODE}, ctx)
    assert str(caught.value) == f"item 'i0': {RAN_OUT} 0.05 CPU-s spent, during diagnosis"
    assert sandbox.runs == 1


class Clock:
    """A fake CPU clock that moves only when told."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class WorkingKind:
    """Grading an item costs 0.6 s of the fake clock, then checks the budget."""

    def __init__(self, clock):
        self.clock, self.graded = clock, []

    def grade(self, item, response, ctx):
        self.clock.now += 0.6
        ctx.budget.check("the item's own work")
        self.graded.append(item.id)
        return ItemResult(item_id=item.id, kind="fake", score=1.0, max_score=1.0)


def test_the_items_of_a_submission_share_one_budget(monkeypatch):
    clock = Clock()
    kind = WorkingKind(clock)
    monkeypatch.setattr(service, "get_kind", lambda name: kind)
    items = {name: Item(id=name, kind="fake", prompt="", points=1) for name in ("i0", "i1")}
    ctx = GradingContext(seed=1, budget=CpuBudget(1.0, CPU_BUDGET_NAME, clock=clock))
    # each item alone fits in 1 s; the second finds 0.4 s left and spends 0.6
    with pytest.raises(InfrastructureError) as caught:
        service.grade_responses(Assignment(id="a", title="a", items=items),
                                {"i0": {}, "i1": {}}, ctx)
    assert str(caught.value) == f"item 'i1': {RAN_OUT} 1 CPU-s spent, during the item's own work"
    assert kind.graded == ["i0"]


class StepClock:
    """A fake CPU clock: every reading costs ``step`` seconds."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_a_rubric_made_slow_stops_when_the_submission_budget_is_spent_not_its_own():
    rubric = {"question": "Why is attention quadratic?", "max_points": 2, "criteria": [
        {"id": "pairs", "description": "every pair", "points": 1, "concepts": ["every pair"]},
        {"id": "length", "description": "sequence length", "points": 1,
         "concepts": [{"regex": "sequence length"}]}]}
    text = ("Every pair of positions is compared, so the cost grows with the square of the "
            "sequence length. ") * 10
    # each look at the clock costs 1 ms of fake CPU: 2 when the budget is made, 1 before the
    # item, and the 5 ms are spent at the 4th look of the rubric's own checks
    clock = StepClock(0.001)
    ctx = GradingContext(seed=1, budget=CpuBudget(0.005, CPU_BUDGET_NAME, clock=clock))
    with pytest.raises(InfrastructureError) as caught:
        service.grade_responses(_assignment(("text", {"rubric": rubric})), {"i0": {"text": text}},
                                ctx)
    assert str(caught.value) == f"item 'i0': {RAN_OUT} 0.005 CPU-s spent, during rubric scoring"


def test_the_same_rubric_and_answer_score_within_an_ample_budget():
    rubric = {"question": "Why is attention quadratic?", "max_points": 1, "criteria": [
        {"id": "pairs", "description": "every pair", "points": 1, "concepts": ["every pair"]}]}
    ctx = GradingContext(seed=1, budget=submission_budget(5.0))
    [result] = service.grade_responses(_assignment(("text", {"rubric": rubric})),
                                       {"i0": {"text": "every pair of positions"}}, ctx)
    assert (result.score, result.max_score) == (1.0, 1.0)


def test_the_service_retries_then_fails_the_submission_naming_the_budget_never_a_zero(tmp_path,
                                                                                     request):
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    request.addfinalizer(store.dispose)
    store.create_all()
    choice = ("choice", {"prompt": "?", "options": {"A": "yes", "B": "no"}, "answer": "A"})
    grading = GradingService(store, Catalog({"a": _assignment(choice)}, None, "."), "s",
                             sandbox_factory=lambda: None, max_attempts=2, cpu_seconds=0.0)
    sub, _ = store.create_submission("a", "l", {"i0": {"choice": "A"}})
    first = grading.grade(sub.id)
    assert (first.action, store.get(sub.id).status, store.get(sub.id).score) == \
        ("retry", "queued", None)
    last = grading.grade(sub.id)
    got = store.get(sub.id)
    assert (last.action, got.status, got.score) == ("failed", "failed", None)
    assert got.failure_reason == ("infrastructure fault after 2 attempt(s): item 'i0': "
                                  f"{RAN_OUT} 0 CPU-s spent, during grading")


@pytest.fixture
def embedded_config(embedded_config):
    return {**embedded_config, "GRADING_CPU_SECONDS": "0"}  # as the environment gives it


def test_grading_cpu_seconds_from_the_configuration_reaches_the_grading(client):
    resp = client.post("/api/v1/assignments/attention-basics/submissions",
                       json={"learner_id": "l", "responses": {"no-positions": {"choice": "B"}}})
    assert resp.status_code == 202, resp.get_json()
    sid = resp.get_json()["id"]
    final = wait_final(lambda: client.get(f"/api/v1/submissions/{sid}").get_json())
    assert (final["status"], final["score"]) == ("failed", None)
    assert final["failure_reason"].endswith(
        f"item 'no-positions': {RAN_OUT} 0 CPU-s spent, during grading")
