"""One wall-clock budget shared by a sequence of sandbox runs: a submission's code items, or the
runs of a problem upload's trial. Within one run the forkserver bounds a hang (after
``max_stopped_tests`` stopped tests the later tests get :func:`~grader.sandbox.forkserver.
later_limits`); this bounds the sequence the same way, so that many items (or mistakes) that all
hang cannot each spend their full limits in turn:

* each run ends by the budget's ``deadline`` (``run_wall_seconds`` cut to what is left), but may
  always last ``min_run`` seconds;
* once a run had a stopped test (a time or memory limit, a crash), or once the deadline passed,
  every later run gets the tighter per-test limits from its first test
  (:func:`~grader.sandbox.forkserver.later_limits`, 1 s: honest code takes microseconds);
* no run starts more than ``overrun`` seconds past the deadline: :meth:`SharedRunBudget.limits`
  then answers None and the caller reports the run as not run, with :meth:`reason`.

So the sequence holds the sandbox at most ``seconds + overrun + min_run`` (:attr:`bound`).
Times are ``time.monotonic()`` seconds.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from grader.sandbox.api import CallOutcome, Limits, RunResult
from grader.sandbox.forkserver import later_limits


@dataclass
class SharedRunBudget:
    """The budget of one sequence of runs (see the module docstring). ``deadline``: when the
    budget ends (``time.monotonic()``); ``overrun``, ``min_run``: seconds; ``what``: how the
    sequence is named in :meth:`reason` (``"submission"``, ``"problem trial"``); ``stops``: runs
    so far that had a stopped test; ``applied``: the limits each run got, in order."""

    deadline: float
    overrun: float
    min_run: float
    what: str = "submission"
    seconds: float | None = None  # the budget's length, as stated in :meth:`reason`
    stops: int = 0
    applied: list[Limits] = field(default_factory=list)

    @classmethod
    def starting_now(cls, seconds: float, overrun: float, min_run: float,
                     what: str = "submission") -> "SharedRunBudget":
        """A budget of ``seconds`` from now."""
        return cls(time.monotonic() + seconds, overrun, min_run, what, seconds)

    @property
    def bound(self) -> float:
        """Seconds past the deadline by which every run of the sequence has ended."""
        return self.overrun + self.min_run

    def limits(self, limits: Limits) -> Limits | None:
        """The limits of the next run given its own ``limits``, or None when it must not start
        (more than ``overrun`` seconds past the deadline). Recorded in :attr:`applied`."""
        now = time.monotonic()
        if now > self.deadline + self.overrun:
            return None
        left = max(self.min_run, self.deadline - now)
        applied = replace(limits, run_wall_seconds=min(limits.run_wall_seconds, left))
        if self.stops or now >= self.deadline:
            applied = later_limits(applied)
        self.applied.append(applied)
        return applied

    def record(self, result: RunResult) -> None:
        """Count ``result``'s stop (a counted stopped test, or a run ended by a time or memory
        limit before any test stopped) for the runs after it."""
        if (any(not stop.optional for stop in result.stopped_tests)
                or result.status in ("timeout", "memory_limit")):
            self.stops += 1

    def reason(self) -> str:
        """Why a run was not started (for its tests' ``not run: ...``)."""
        spent = f" ({self.seconds:g} s)" if self.seconds is not None else ""
        return (f"the {self.what}'s sandbox time{spent} was used up by earlier runs that met "
                "their time limits")

    def not_run(self, calls) -> RunResult:
        """The result of a run that was not started: every call skipped, saying why."""
        why = self.reason()
        return RunResult(status="timeout", message=why, gave_up=why, limit="wall",
                         calls=[CallOutcome(status="skipped", error=f"not run: {why}")
                                for _ in calls])


class BudgetedSandbox:
    """A sandbox whose every run goes through ``budget`` (:class:`SharedRunBudget`): its limits
    cut and tightened, a run past the end not started (:meth:`SharedRunBudget.not_run`)."""

    def __init__(self, sandbox, budget: SharedRunBudget):
        self.sandbox, self.budget = sandbox, budget

    def run(self, source: str, calls, limits: Limits = Limits()) -> RunResult:
        calls = list(calls)
        applied = self.budget.limits(limits)
        if applied is None:
            return self.budget.not_run(calls)
        result = self.sandbox.run(source, calls, applied)
        self.budget.record(result)
        return result

    def __getattr__(self, name: str):
        return getattr(self.sandbox, name)
