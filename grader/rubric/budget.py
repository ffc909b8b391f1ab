"""One time budget per answer for the whole rubric.

A rubric within the size limits scores an answer in well under a millisecond
(``benchmarks/rubric_bench.py``), but a hostile rubric or answer must never hold a worker or a
request thread: :meth:`grader.rubric.engine.CompiledRubric.score` runs under a :class:`Deadline`
(CPU time, :class:`grader.budget.CpuBudget`) shared by every concept, misspelling look-up and
regular-expression search of that answer. When it passes, scoring stops with
:class:`ScoringTimeout`: the answer has no score (never a silent partial one), the trial report
names the response, and grading treats it as a fault of the rubric, not the learner's zero.
When grading a submission, the deadline lives inside the submission's own budget (its
``parent``), so scoring also stops when that one is spent.
"""
from __future__ import annotations

from grader.budget import BudgetExceeded, CpuBudget, collector_seconds

__all__ = ["SCORE_BUDGET_SECONDS", "ScoringTimeout", "Deadline", "NO_DEADLINE",
           "collector_seconds"]

#: Seconds of CPU time one answer may take under one rubric (about 1,000 times the cost of a
#: typical answer; the worst case within the size limits is reported by
#: ``benchmarks/rubric_bench.py --worst-case``). CPU time of the scoring thread, so a busy machine
#: (the process waiting for a core) never turns a normal answer into a timeout.
SCORE_BUDGET_SECONDS = 0.25

#: The name of the per-answer budget in faults.
BUDGET_NAME = "rubric's budget per answer"


class ScoringTimeout(BudgetExceeded):
    """Scoring one answer took longer than its budget. ``seconds`` is the budget."""

    def __init__(self, seconds: float):
        super().__init__(BUDGET_NAME, seconds,
                         f"the rubric took more than {seconds:g} s to score this answer "
                         "(simplify its regular expressions or its largest synonym sets)")


class Deadline(CpuBudget):
    """The budget of one answer: :data:`SCORE_BUDGET_SECONDS` by default (``None``: never
    expires), inside ``parent`` when given; :meth:`check` raises :class:`ScoringTimeout` once
    it is spent (or the parent's error once that one is)."""

    __slots__ = ()

    def __init__(self, seconds: float | None = SCORE_BUDGET_SECONDS,
                 parent: CpuBudget | None = None):
        super().__init__(seconds, BUDGET_NAME, parent)

    def check(self, step: str = "rubric scoring") -> None:
        """:meth:`CpuBudget.check`; a parent's fault says it ran out during rubric scoring."""
        super().check(step)

    def error(self, step: str = "") -> ScoringTimeout:
        return ScoringTimeout(self.seconds if self.seconds is not None else 0.0)


#: A deadline that never passes (scoring outside any budget, e.g. the worst-case benchmark).
NO_DEADLINE = Deadline(None)
