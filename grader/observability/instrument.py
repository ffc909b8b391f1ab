"""Instrumentation of the grading path outside HTTP: the grading service (latency, outcomes,
the submission id on every log line of a run), sandboxes (outcomes by kind) and Celery (JSON
logs, task and submission ids). Depends only on :mod:`grader.observability.metrics` and
:mod:`grader.observability.logs`; :mod:`grader.runtime` wraps what it builds with these."""
from __future__ import annotations

import functools
import logging
import time
from datetime import datetime, timezone

from grader.observability import metrics
from grader.observability.logs import bind, configure_logging, log_context, unbind


def instrument_service(service):
    """Wrap ``service.grade`` (a :class:`grader.grading.GradingService`): bind the submission id on
    every log line of the run, record ``grader_grading_seconds{outcome}``, and on ``graded`` the
    receipt-to-grade latency. Returns the same service."""
    grade = service.grade
    if getattr(grade, "_instrumented", False):
        return service
    run_log = logging.getLogger("grader.grading")

    @functools.wraps(grade)
    def instrumented(submission_id: str):
        with log_context(submission_id=submission_id):
            started = time.perf_counter()
            try:
                outcome = grade(submission_id)
            except Exception:
                metrics.observe_grading(time.perf_counter() - started, "error")
                raise
            seconds = time.perf_counter() - started
            metrics.observe_grading(seconds, outcome.action)
            run_log.info("grading %s", outcome.action,
                         extra={"outcome": outcome.action, "score": outcome.score,
                                "reason": outcome.reason or None,
                                "duration_ms": round(seconds * 1e3, 2)})
            if outcome.action == "graded" and outcome.received_at is not None:
                metrics.observe_submission_latency(outcome.received_at,
                                                   datetime.now(timezone.utc))
            return outcome

    instrumented._instrumented = True
    service.grade = instrumented
    return service


class InstrumentedSandbox:
    """A sandbox that counts its runs by outcome (``grader_sandbox_runs_total{status}``) and logs
    non-``ok`` runs; everything else is delegated."""

    def __init__(self, sandbox):
        self._sandbox = sandbox

    def run(self, source, calls, limits):
        started = time.perf_counter()
        try:
            result = self._sandbox.run(source, calls, limits)
        except Exception:
            metrics.observe_sandbox_run("raised", time.perf_counter() - started)
            raise
        metrics.observe_sandbox_run(result.status, time.perf_counter() - started)
        if result.status != "ok":
            logging.getLogger("grader.sandbox").info("sandbox run %s", result.status,
                                                     extra={"sandbox_status": result.status})
        return result

    def close(self):
        return self._sandbox.close()

    def __getattr__(self, name):
        return getattr(self._sandbox, name)


def instrument_sandbox(sandbox):
    """Wrap a sandbox (see :class:`InstrumentedSandbox`)."""
    return sandbox if isinstance(sandbox, InstrumentedSandbox) else InstrumentedSandbox(sandbox)


_celery_instrumented = False


def instrument_celery(celery_app) -> None:
    """JSON logs in Celery processes, with the task id and the submission id bound while a
    ``grade_submission`` task runs. Celery's signals are process-wide, so this connects once per
    process however many Celery apps are built."""
    global _celery_instrumented
    if _celery_instrumented:
        return
    _celery_instrumented = True
    from celery import signals

    @signals.setup_logging.connect(weak=False)
    def _logging(**_kwargs):  # connecting this stops Celery from configuring logging itself
        configure_logging()

    tokens_by_task: dict[str, dict] = {}

    @signals.task_prerun.connect(weak=False)
    def _prerun(task_id=None, task=None, args=None, **_kwargs):
        values = {"task_id": task_id}
        if task is not None and task.name.endswith("grade_submission") and args:
            values["submission_id"] = str(args[0])
        tokens_by_task[task_id] = bind(**values)

    @signals.task_postrun.connect(weak=False)
    def _postrun(task_id=None, **_kwargs):
        tokens = tokens_by_task.pop(task_id, None)
        if tokens:
            unbind(tokens)
