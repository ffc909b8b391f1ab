"""Grade one stored submission, item by item, and store one result.

Pure orchestration: it knows the store, the content catalogue and a sandbox, but nothing of Flask or
Celery, so the in-process default, the Celery task and the ``grader grade`` command share it.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from grader import levers
from grader.budget import BudgetExceeded, CpuBudget
from grader.config import SETTINGS
from grader.content import Assignment
from grader.grading.adjustments import adjust, totals
from grader.grading.due import submission_lateness
from grader.items import GradingContext, get_kind
from grader.items.base import MIN_ITEM_RUN_SECONDS, SUBMISSION_OVERRUN_SECONDS
from grader.problems.base import DRAW_SEEDS
from grader.results import InfrastructureError, ItemResult, TestResult
from grader.sandbox.shared_budget import SharedRunBudget

log = logging.getLogger(__name__)

MISSING_RESPONSE = "No response was submitted for this item, so it scores 0."


def submission_seed(secret: str, submission_id: str) -> int:
    """The seed that draws a submission's hidden inputs: the first 8 bytes of
    HMAC-SHA256(secret, submission id). Learners never see it; a regrade draws the same inputs."""
    digest = hmac.new(secret.encode(), submission_id.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def shared_seed(secret: str, seed: int) -> int:
    """The seed a submission whose own seed is ``seed`` (:func:`submission_seed`) draws a built-in
    problem's hidden inputs from with the lever ``draws``: one of
    :data:`grader.problems.base.DRAW_SEEDS` seeds, ``submission_seed(secret, "draws/<seed mod
    DRAW_SEEDS>")``, as secret as the submission's own. The few seeds' draws and reference and
    mistakes' values stay cached in a grading process, so a grading draws nothing. The seed taken
    is recorded on the item's result and a regrade draws the same inputs."""
    return submission_seed(secret, f"draws/{seed % DRAW_SEEDS}")


def recorded_seeds(results: list[dict] | None) -> dict[str, int]:
    """The seeds a stored grading's items recorded (``extra_data["seed"]``: an authored
    problem's seed taken from its pool, :mod:`grader.problems.authored.pool`, or a built-in's
    shared seed, :func:`shared_seed`), by item id, for
    :attr:`grader.items.base.GradingContext.seeds`: a regrade draws the same inputs."""
    found = {}
    for item in results or []:
        seed = (item.get("extra_data") or {}).get("seed") if isinstance(item, dict) else None
        if isinstance(seed, int) and not isinstance(seed, bool):
            found[item.get("item_id")] = seed
    return found


def missing_result(item_id: str, kind: str, points: float) -> ItemResult:
    """The result of an item the learner left out: 0 points with a note saying so."""
    return ItemResult(
        item_id=item_id, kind=kind, score=0.0, max_score=float(points), output=MISSING_RESPONSE,
        tests=[TestResult(name="Response submitted", score=0.0, max_score=float(points),
                          status="failed", output=MISSING_RESPONSE, tags=["missing"])],
    )


#: Sandbox time a whole submission may take, all its code items together (seconds): a code item
#: starting later gets what is left, and at least MIN_ITEM_RUN_SECONDS (grader/items/base.py).
SUBMISSION_RUN_SECONDS = 45.0

#: CPU seconds the trusted side may spend on one submission, all its items together: checks of
#: the returned values, diagnosis, what hidden tests may show, pictures, rubric scoring (not the
#: sandbox's own time). The default of the setting GRADING_CPU_SECONDS, 10 s: the costliest
#: code item of the test submissions takes about 40 CPU-ms, a rubric at most its 0.25 s per
#: answer.
SUBMISSION_CPU_SECONDS = SETTINGS["GRADING_CPU_SECONDS"][1]
CPU_BUDGET_NAME = "grader's CPU budget per submission (GRADING_CPU_SECONDS)"


def submission_budget(seconds: float | None = SUBMISSION_CPU_SECONDS) -> CpuBudget:
    """The CPU budget of one submission's grading, for the calling thread (``None``:
    unbounded)."""
    return CpuBudget(seconds, CPU_BUDGET_NAME)


def grade_responses(assignment: Assignment, responses: dict[str, Any], ctx: GradingContext
                    ) -> list[ItemResult]:
    """Grade every item of ``assignment``; items without a response score 0 with a note.

    The code items share one budget of sandbox time (:data:`SUBMISSION_RUN_SECONDS`, from the
    start of this call, unless ``ctx.deadline`` is set; ``ctx.runs``: once an item had a stopped
    test or the deadline passed, later items run under the tighter per-test limits, and none
    starts more than :data:`~grader.items.base.SUBMISSION_OVERRUN_SECONDS` past it), and all items one budget of the trusted
    side's CPU time (:data:`SUBMISSION_CPU_SECONDS` from the start of this call, in this thread,
    unless ``ctx.budget`` is set). Raises :class:`InfrastructureError` when any item could not be
    graded for a reason that is not the learner's, the CPU budget running out included (the
    caller decides between retry and ``failed``).
    """
    if ctx.deadline is None:
        ctx = replace(ctx, deadline=time.monotonic() + SUBMISSION_RUN_SECONDS)
    if ctx.runs is None:
        ctx = replace(ctx, runs=SharedRunBudget(ctx.deadline, SUBMISSION_OVERRUN_SECONDS,
                                                MIN_ITEM_RUN_SECONDS, "submission",
                                                SUBMISSION_RUN_SECONDS))
    if ctx.budget is None:
        ctx = replace(ctx, budget=submission_budget())
    results = []
    for item in assignment.items.values():
        response = responses.get(item.id)
        if response is None:
            results.append(missing_result(item.id, item.kind, item.points))
            continue
        started = time.perf_counter()
        try:
            ctx.budget.check("grading")
            result = get_kind(item.kind).grade(item, response, ctx)
        except BudgetExceeded as exc:  # the grader's fault, never the learner's zero
            raise InfrastructureError(f"item {item.id!r}: {exc}") from exc
        result.extra_data.setdefault("execution_time", round(time.perf_counter() - started, 4))
        if item.spec.get("hidden_tests") == "after_due_date":
            for test in result.tests:
                if test.visibility == "hidden":
                    test.visibility = "after_due_date"
        results.append(round_points(result))
    return results


def round_points(result: ItemResult, digits: int = 4) -> ItemResult:
    """Points are reported to ``digits`` decimals, and the tests' points add up exactly to the
    item's (three tests of 1/3 point show 0.3333, 0.3333 and 0.3334), as Gradescope sums tests."""
    result.score = round(result.score, digits)
    result.max_score = round(result.max_score, digits)
    for attr in ("score", "max_score"):
        for test in result.tests:
            setattr(test, attr, round(getattr(test, attr), digits))
        carriers = [t for t in result.tests if getattr(t, attr) > 0]
        residual = round(getattr(result, attr) - sum(getattr(t, attr) for t in result.tests), digits)
        if carriers and 0 < abs(residual) < 10 ** (2 - digits):  # rounding dust only
            last = carriers[-1]
            setattr(last, attr, round(getattr(last, attr) + residual, digits))
    return result


def item_versions(item) -> dict[str, Any]:
    """What an item scores with: its rubric and version (text), its key (choice), its problem
    (code); the keys of :func:`scored_versions`."""
    if item.kind == "text":
        return {"rubric_id": item.spec.get("rubric_id"),
                "rubric_version": item.spec.get("rubric_version")}
    if item.kind == "choice":
        return {"key": item.spec.get("answer")}
    return {"problem": item.spec.get("problem")} if "problem" in item.spec else {}


def scored_versions(assignment: Assignment, results: list[ItemResult]) -> dict[str, Any]:
    """What a result was scored with: the assignment version and each item's rubric version,
    choice key or problem (:func:`item_versions`, and what kinds report in ``extra_data``)."""
    keys = ("rubric_id", "rubric_version", "problem", "suite_version")
    out = {}
    for r in results:
        item = assignment.items.get(r.item_id)
        out[r.item_id] = {**(item_versions(item) if item is not None else {}),
                          **{k: r.extra_data[k] for k in keys if k in r.extra_data}}
    return {"assignment": assignment.version, "items": out}


@dataclass
class Outcome:
    """What :meth:`GradingService.grade` did: ``graded``, ``failed``, ``retry`` or ``skipped``
    (already final, or another run stored the result first)."""

    action: str
    score: float | None = None
    reason: str = ""
    received_at: Any = None  # when the submission was received (for the latency metric)


class GradingService:
    """Grades stored submissions. One per worker process; ``sandbox_factory`` is called lazily so a
    process that never grades code never starts a sandbox."""

    def __init__(self, store, catalog, secret: str,
                 sandbox_factory: Callable[[], Any], max_attempts: int = 3,
                 notify: Callable[[str], None] | None = None,
                 announce: Callable[[str], None] | None = None,
                 cpu_seconds: float | None = SUBMISSION_CPU_SECONDS):
        self.store = store
        self.cpu_seconds = cpu_seconds  # the trusted side's CPU budget per submission
        self.announce = announce  # wakes long-polls (grader.wakeup)
        self.catalog = catalog
        self.secret = secret
        self._sandbox_factory = sandbox_factory
        self._sandbox = None
        self.max_attempts = max_attempts
        self.notify = notify
        #: ``(service, submission)`` after a grading is stored, before it is announced
        self.follow_regrades: Callable[[Any, Any], Any] | None = None

    @property
    def sandbox(self):
        if self._sandbox is None:
            from grader.sandbox.api import SandboxUnavailable

            try:
                self._sandbox = self._sandbox_factory()
            except SandboxUnavailable as exc:  # fail closed: no isolation, no grading
                raise InfrastructureError(f"sandbox unavailable: {exc}") from exc
        return self._sandbox

    def lazy_sandbox(self) -> "_LazySandbox":
        """A handle that starts the sandbox only when a code item needs it."""
        return _LazySandbox(self)

    def close(self) -> None:
        """Stop the sandbox (a later job starts a new one)."""
        sandbox, self._sandbox = self._sandbox, None
        if sandbox is not None:
            try:
                sandbox.close()
            except Exception:
                log.exception("closing the sandbox failed")

    def grade(self, submission_id: str) -> Outcome:
        """Grade ``submission_id`` once. Idempotent: a final submission is left as it is, and of two
        concurrent runs only the first to finish stores its result."""
        submission = self.store.start(submission_id)
        if submission is None:
            return Outcome("skipped", reason="already final")
        if submission.attempts > self.max_attempts + 1:
            # a job that hangs or kills its worker every time: stop redelivering it
            reason = (f"grading did not complete in {submission.attempts - 1} attempts (the "
                      "run hung or its worker died each time)")
            self.store.fail(submission_id, reason)
            self._notify(submission)
            return Outcome("failed", reason=reason)
        assignment = self.catalog.get(submission.course_id, submission.assignment_id,
                                      submission.assignment_version or None)
        try:
            if assignment is None:
                raise InfrastructureError(f"assignment {submission.assignment_id!r} is not loaded")
            seed = submission_seed(self.secret, submission_id)
            ctx = GradingContext(seed=seed, sandbox=self.lazy_sandbox(),
                                 shared_seed=(shared_seed(self.secret, seed)
                                              if levers.enabled("draws") else None),
                                 budget=submission_budget(self.cpu_seconds))
            results = grade_responses(assignment, submission.responses, ctx)
            late = submission_lateness(self.store, self.catalog, submission)
        except InfrastructureError as exc:
            self.close()  # the next job starts a fresh sandbox, whatever state this one is in
            return self._infrastructure_fault(submission, str(exc))
        except Exception as exc:  # a bug of ours is an infrastructure fault, never a zero
            log.exception("grading %s crashed", submission_id)
            self.close()
            return self._infrastructure_fault(submission, f"internal error: {type(exc).__name__}")
        stored = [r.to_dict() for r in results]
        if late is not None:  # on time or late, and the late penalty (grader/grading/adjustments)
            stored = adjust(stored, late)
        score, max_score = totals(stored)
        fewer_reads = levers.enabled("worker")
        finished = self.store.finish(submission_id, score, max_score, stored,
                                     versions=scored_versions(assignment, results),
                                     returning=fewer_reads)
        if not finished:
            return Outcome("skipped", reason="another run stored the result first")
        if self._follow_regrades(submission) or not fewer_reads:
            finished = None  # regraded since (or the lever is off): the notifier reads it
        self._notify(submission, final=finished)
        return Outcome("graded", score=score, received_at=submission.received_at)

    def _follow_regrades(self, submission) -> bool:
        """A regrade applied while this submission was queued or running covers it too: it is
        regraded now with the current version, before its result is announced
        (``follow_regrades``, set by :func:`grader.runtime.build_service` to
        :func:`grader.grading.regrade.follow_regrades`); a fault there keeps the grade. True
        when a regrade may have changed the stored result (it ran, or it raised)."""
        follow = self.follow_regrades
        if follow is None:
            return False
        try:
            return follow(self, submission) is not None
        except Exception:
            log.exception("regrading %s after its grading failed", submission.id)
            return True

    def process_died(self, submission_id: str, reason: str) -> Outcome:
        """Record that the process grading ``submission_id`` died (``reason``: how) as an
        infrastructure fault of the attempt it counted: ``retry`` (re-queued) until
        ``max_attempts``, then ``failed`` (announced); ``skipped`` when it is final already."""
        submission = self.store.get(submission_id)
        if submission is None or submission.status not in ("queued", "running"):
            return Outcome("skipped", reason="already final")
        return self._infrastructure_fault(submission, reason)

    def _infrastructure_fault(self, submission, reason: str) -> Outcome:
        if submission.attempts < self.max_attempts:
            self.store.requeue(submission.id, reason=f"retrying after: {reason}")
            return Outcome("retry", reason=reason)
        self.store.fail(submission.id, f"infrastructure fault after {submission.attempts} "
                                       f"attempt(s): {reason}")
        self._notify(submission)
        return Outcome("failed", reason=reason)

    def _notify(self, submission, final=None) -> None:
        """Announce a final submission: to the requests waiting for it (``announce``), and
        through the notifier (its channels decide where it goes). ``final``: the row as this
        run stored it (:meth:`grader.store.Store.finish` with ``returning``), which the notifier
        then announces without reading it again (``None``: it reads it)."""
        if self.announce is not None:
            try:
                self.announce(submission.id)
            except Exception:  # waiting requests re-read the status on their own
                log.exception("announcing %s failed", submission.id)
        if self.notify is not None:
            try:
                if final is not None:
                    self.notify(submission.id, final=final)
                else:
                    self.notify(submission.id)
            except Exception:  # a notification fault must never undo a stored grade
                log.exception("notification for %s failed", submission.id)


class _LazySandbox:
    """Starts the real sandbox on first use, so text- and choice-only submissions never need one."""

    def __init__(self, service: GradingService):
        self._service = service

    def run(self, *args, **kwargs):
        return self._service.sandbox.run(*args, **kwargs)
