"""One time budget per answer for the whole rubric.

A rubric within the size limits scores an answer in well under a millisecond
(``benchmarks/rubric_bench.py``), but a hostile rubric or answer must never hold a worker or a
request thread: :meth:`grader.rubric.engine.CompiledRubric.score` runs under a :class:`Deadline`
(CPU time) shared by every concept, misspelling look-up and regular-expression search of that
answer. When it
passes, scoring stops with :class:`ScoringTimeout`: the answer has no score (never a silent
partial one), the trial report names the response, and grading treats it as a fault of the
rubric, not the learner's zero.
"""
from __future__ import annotations

import gc
import threading
import time

#: Seconds of CPU time one answer may take under one rubric (about 1,000 times the cost of a
#: typical answer; the worst case within the size limits is reported by
#: ``benchmarks/rubric_bench.py --worst-case``). CPU time of the scoring thread, so a busy machine
#: (the process waiting for a core) never turns a normal answer into a timeout.
SCORE_BUDGET_SECONDS = 0.25


_collector = threading.local()


def _time_full_collections(phase: str, info: dict) -> None:
    """``gc.callbacks`` hook: add the CPU time of each full (generation 2) collection to the
    thread that ran it. A full collection walks the whole heap of the process, so its cost says
    nothing about the rubric or the answer being scored when it happens to fall inside them."""
    if info.get("generation") != 2:
        return
    if phase == "start":
        _collector.started = time.thread_time()
    elif getattr(_collector, "started", None) is not None:
        _collector.spent = collector_seconds() + time.thread_time() - _collector.started
        _collector.started = None


def collector_seconds() -> float:
    """CPU seconds this thread has spent in full garbage collections since it started."""
    return getattr(_collector, "spent", 0.0)


gc.callbacks.append(_time_full_collections)


class ScoringTimeout(RuntimeError):
    """Scoring one answer took longer than its budget. ``seconds`` is the budget."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(f"the rubric took more than {seconds:g} s to score this answer "
                         "(simplify its regular expressions or its largest synonym sets)")


class Deadline:
    """A budget of CPU seconds for the current thread; :meth:`check` raises
    :class:`ScoringTimeout` once it is spent. ``seconds=None`` never expires.

    Checks are cheap: they compare the wall clock (``time.perf_counter``) with a point that
    cannot come before the budget is spent, and read the thread's CPU clock
    (``time.thread_time``, a system call) only once that point has passed; if the thread was
    waiting for a core, the point moves on by the CPU time still left.

    Full garbage collections that fall inside the budget are not charged to it
    (:func:`collector_seconds`): their cost grows with the whole process's heap (a long-lived
    worker or test process can spend a quarter of a second in one), not with the rubric.
    """

    __slots__ = ("at", "seconds", "cpu_start")

    def __init__(self, seconds: float | None = SCORE_BUDGET_SECONDS):
        self.seconds = seconds
        self.cpu_start = self._used() if seconds is not None else 0.0
        self.at = float("inf") if seconds is None else time.perf_counter() + seconds

    @staticmethod
    def _used() -> float:
        return time.thread_time() - collector_seconds()

    def cpu_left(self) -> float:
        """CPU seconds left (``inf`` without a budget, never negative)."""
        if self.seconds is None:
            return float("inf")
        return max(self.seconds - (self._used() - self.cpu_start), 0.0)

    def remaining(self) -> float:
        """Seconds left: what a regular-expression search may take (the ``regex`` module counts
        its timeout in CPU time too)."""
        return self.cpu_left()

    def check(self) -> None:
        """Raise :class:`ScoringTimeout` once the CPU budget is spent."""
        if time.perf_counter() > self.at:
            left = self.cpu_left()
            if left <= 0.0:
                raise ScoringTimeout(self.seconds if self.seconds is not None else 0.0)
            self.at = time.perf_counter() + left


#: A deadline that never passes (scoring outside any budget, e.g. the worst-case benchmark).
NO_DEADLINE = Deadline(None)
