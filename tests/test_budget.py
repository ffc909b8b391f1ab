"""CPU budgets of the trusted side (grader/budget.py): checked against a fake clock, never the
machine's speed."""
from __future__ import annotations

import pytest

from grader.budget import NO_BUDGET, BudgetExceeded, CpuBudget
from grader.rubric.budget import Deadline, ScoringTimeout


class Clock:
    """CPU seconds that pass only when the test says so."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_budget_runs_out_when_its_seconds_are_spent_and_names_itself():
    clock = Clock()
    budget = CpuBudget(2.0, "test budget", clock=clock)
    clock.now += 1.5
    budget.check("step one")
    assert budget.cpu_left() == pytest.approx(0.5)
    clock.now += 0.5
    with pytest.raises(BudgetExceeded) as caught:
        budget.check("step two")
    assert str(caught.value) == "the test budget ran out: more than 2 CPU-s spent, during step two"
    assert (caught.value.budget, caught.value.seconds, caught.value.step) == \
        ("test budget", 2.0, "step two")
    assert budget.cpu_left() == 0.0


def test_a_spent_parent_stops_its_child_with_the_parents_name():
    clock = Clock()
    submission = CpuBudget(1.0, "submission", clock=clock)
    answer = CpuBudget(5.0, "answer", parent=submission, clock=clock)
    clock.now += 1.25
    assert answer.cpu_left() == 0.0  # the child's own 3.75 s do not count past the parent's
    with pytest.raises(BudgetExceeded, match="^the submission ran out") as caught:
        answer.check("scoring")
    assert caught.value.budget == "submission"
    assert answer.exceeded("scoring").budget == "submission"


def test_a_spent_child_names_itself_while_its_parent_has_time_left():
    clock = Clock()
    submission = CpuBudget(10.0, "submission", clock=clock)
    answer = CpuBudget(1.0, "answer", parent=submission, clock=clock)
    clock.now += 1.0
    with pytest.raises(BudgetExceeded) as caught:
        answer.check()
    assert caught.value.budget == "answer"
    submission.check()  # 9 s left


def test_exceeded_without_a_spent_budget_is_the_innermost_ones_error():
    clock = Clock()
    answer = CpuBudget(1.0, "answer", parent=CpuBudget(10.0, "submission", clock=clock),
                       clock=clock)
    assert answer.exceeded().budget == "answer"  # e.g. a search that timed out on remaining()


def test_no_budget_never_runs_out():
    NO_BUDGET.check("anything")
    assert NO_BUDGET.cpu_left() == float("inf")
    assert CpuBudget(None, parent=CpuBudget(3.0, clock=Clock())).cpu_left() == 3.0


def test_a_rubric_deadline_inside_a_spent_submission_budget_raises_the_submissions_fault():
    clock = Clock()
    submission = CpuBudget(0.5, "submission", clock=clock)
    deadline = Deadline(0.25, parent=submission)  # the answer's own budget: real CPU time
    clock.now += 0.5
    with pytest.raises(BudgetExceeded) as caught:
        deadline.check()
    assert not isinstance(caught.value, ScoringTimeout)
    assert str(caught.value) == ("the submission ran out: more than 0.5 CPU-s spent, during "
                                 "rubric scoring")


def test_a_rubric_deadline_of_its_own_raises_a_scoring_timeout():
    deadline = Deadline(0.0)
    with pytest.raises(ScoringTimeout, match="the rubric took more than 0 s"):
        deadline.check()
