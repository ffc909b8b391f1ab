"""One time budget per answer for the whole rubric.

A rubric within the size limits scores an answer in well under a millisecond
(``benchmarks/rubric_bench.py``), but a hostile rubric or answer must never hold a worker or a
request thread: :meth:`grader.rubric.engine.CompiledRubric.score` runs under a :class:`Deadline`
shared by every concept, misspelling look-up and regular-expression search of that answer. When it
passes, scoring stops with :class:`ScoringTimeout`: the answer has no score (never a silent
partial one), the trial report names the response, and grading treats it as a fault of the
rubric, not the learner's zero.
"""
from __future__ import annotations

import time

#: Seconds of wall-clock time one answer may take under one rubric (about 1,000 times the cost of
#: a typical answer; the worst case within the size limits is reported by
#: ``benchmarks/rubric_bench.py --worst-case``).
SCORE_BUDGET_SECONDS = 0.25


class ScoringTimeout(RuntimeError):
    """Scoring one answer took longer than its budget. ``seconds`` is the budget."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(f"the rubric took more than {seconds:g} s to score this answer "
                         "(simplify its regular expressions or its largest synonym sets)")


class Deadline:
    """A point in time (``time.perf_counter``) after which :meth:`check` raises
    :class:`ScoringTimeout`. ``seconds=None`` never expires."""

    __slots__ = ("at", "seconds")

    def __init__(self, seconds: float | None = SCORE_BUDGET_SECONDS):
        self.seconds = seconds
        self.at = float("inf") if seconds is None else time.perf_counter() + seconds

    def remaining(self) -> float:
        """Seconds left (``inf`` without a budget, never negative)."""
        return max(self.at - time.perf_counter(), 0.0)

    def check(self) -> None:
        """Raise :class:`ScoringTimeout` once the deadline has passed."""
        if time.perf_counter() > self.at:
            raise ScoringTimeout(self.seconds if self.seconds is not None else 0.0)


#: A deadline that never passes (scoring outside any budget, e.g. the worst-case benchmark).
NO_DEADLINE = Deadline(None)
