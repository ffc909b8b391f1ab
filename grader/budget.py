"""Budgets of CPU time for the trusted side's work on learner-controlled data.

Whatever the API, a worker or a page computes from what a learner sent (checks of returned
arrays, diagnosis, what a hidden test's message may show, pictures, rubric scoring) runs under a
:class:`CpuBudget`: a number of CPU seconds of the thread doing the work, checked cooperatively
by the loops (:meth:`CpuBudget.check`). Past it the work stops with :class:`BudgetExceeded`,
which names the budget; the caller turns it into a fault of the grader (retried, then failed),
never a learner's zero and never a worker that hangs. Budgets nest: a rubric's budget for one
answer (:mod:`grader.rubric.budget`) lives inside the budget of the submission being graded
(:data:`grader.grading.service.SUBMISSION_CPU_SECONDS`), and a check fails as soon as either
is spent, naming the one that was.

CPU time, not wall time, so a busy machine (the thread waiting for a core) never turns normal
work into a fault. Full garbage collections are not charged (:func:`collector_seconds`): their
cost grows with the whole process's heap, not with the work being measured.
"""
from __future__ import annotations

import gc
import threading
import time
from typing import Callable

_collector = threading.local()


def _time_full_collections(phase: str, info: dict) -> None:
    """``gc.callbacks`` hook: add the CPU time of each full (generation 2) collection to the
    thread that ran it. A full collection walks the whole heap of the process, so its cost says
    nothing about the work being measured when it happens to fall inside it."""
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


def thread_cpu_seconds() -> float:
    """CPU seconds of this thread, full garbage collections left out (what budgets count)."""
    return time.thread_time() - collector_seconds()


class BudgetExceeded(RuntimeError):
    """Work ran past a CPU budget. ``budget`` names it (e.g. ``"GRADING_CPU_SECONDS"``),
    ``seconds`` is its size, ``step`` what was being done when a check found it spent."""

    def __init__(self, budget: str, seconds: float, message: str, step: str = ""):
        self.budget, self.seconds, self.step = budget, seconds, step
        super().__init__(message + (f", during {step}" if step else ""))


class CpuBudget:
    """``seconds`` of CPU time for the current thread (create it in the thread that does the
    work); ``seconds=None`` never runs out. ``name`` names the budget in the fault;
    ``parent`` is an enclosing budget, spent by the same work (a check fails when either is
    spent); ``clock`` returns CPU seconds (:func:`thread_cpu_seconds`; tests pass a fake one).

    Checks are cheap: they compare the wall clock (``time.perf_counter``) with a point that
    cannot come before the budget is spent, and read the thread's CPU clock (a system call) only
    once that point has passed; if the thread was waiting for a core, the point moves on by the
    CPU time still left. With a ``clock`` given, that clock serves for both.
    """

    __slots__ = ("seconds", "name", "parent", "cpu_start", "at", "_cpu", "_wall")

    def __init__(self, seconds: float | None, name: str = "CPU budget",
                 parent: "CpuBudget | None" = None,
                 clock: Callable[[], float] | None = None):
        self.seconds, self.name, self.parent = seconds, name, parent
        self._cpu = clock or thread_cpu_seconds
        self._wall = clock or time.perf_counter
        self.cpu_start = self._cpu() if seconds is not None else 0.0
        self.at = float("inf") if seconds is None else self._wall() + seconds

    def _own_left(self) -> float:
        if self.seconds is None:
            return float("inf")
        return max(self.seconds - (self._cpu() - self.cpu_start), 0.0)

    def cpu_left(self) -> float:
        """CPU seconds left, of this budget and its parents (``inf`` without any, never
        negative)."""
        own = self._own_left()
        return own if self.parent is None else min(own, self.parent.cpu_left())

    def remaining(self) -> float:
        """Seconds left: what a regular-expression search may take (the ``regex`` module counts
        its timeout in CPU time too)."""
        return self.cpu_left()

    def check(self, step: str = "") -> None:
        """Raise the :meth:`error` of this budget, or of a parent, once it is spent; ``step``
        says what was being done."""
        if self._wall() >= self.at:
            left = self._own_left()
            if left <= 0.0:
                raise self.error(step)
            self.at = self._wall() + left
        if self.parent is not None:
            self.parent.check(step)

    def exceeded(self, step: str = "") -> BudgetExceeded:
        """The error for a spent budget: the innermost one that is spent (this one when none
        is, e.g. after a search that timed out on :meth:`remaining`)."""
        budget: CpuBudget | None = self
        while budget is not None:
            if budget._own_left() <= 0.0:
                return budget.error(step)
            budget = budget.parent
        return self.error(step)

    def error(self, step: str = "") -> BudgetExceeded:
        """This budget's :class:`BudgetExceeded` (subclasses word their own)."""
        seconds = self.seconds or 0.0
        return BudgetExceeded(self.name, seconds,
                              f"the {self.name} ran out: more than {seconds:g} CPU-s spent", step)


#: A budget that never runs out (work outside any budget, e.g. a benchmark's worst case).
NO_BUDGET = CpuBudget(None, "no budget")
