"""Celery tasks: grade a submission by id, deliver a webhook, run a regrade, and sweep.

Each worker process builds one :class:`grader.grading.GradingService` (store, content, warm sandbox)
on first use and keeps it across jobs. At start the worker runs the sandbox self-test and refuses to
start when isolation is unavailable (fail closed), unless ``SANDBOX_MODE=unsafe-dev``.
"""
from __future__ import annotations

import logging
import random
from datetime import timedelta

from celery import Celery, signals
from sqlalchemy.exc import InterfaceError, OperationalError

from grader.runtime import build_service, check_sandbox
from grader.store.models import utcnow

log = logging.getLogger(__name__)

_service = None


@signals.worker_process_shutdown.connect
def _close_service(**_kwargs):
    if _service is not None:
        _service.close()


def register_tasks(app: Celery) -> None:
    """Register the tasks on ``app``."""
    config = app.conf.grader_config

    def service():
        global _service
        if _service is None:
            _service = build_service(config, schedule_webhook=lambda delivery_id:
                                     deliver_webhook.apply_async(args=[delivery_id]))
        return _service

    @app.task(name="workers.tasks.grade_submission", bind=True, max_retries=None,
              acks_late=True, reject_on_worker_lost=True)
    def grade_submission(task, submission_id: str) -> dict:
        """Grade one stored submission; infrastructure faults are retried with backoff and
        jitter, then marked failed by the service after ``MAX_GRADING_ATTEMPTS``."""
        try:
            outcome = service().grade(submission_id)
        except (OperationalError, InterfaceError) as exc:  # the store is down: try again later
            raise task.retry(exc=exc, countdown=min(60, 2 ** task.request.retries) + random.random())
        if outcome.action == "retry":
            countdown = min(60, 2 ** task.request.retries) + random.random()
            raise task.retry(countdown=countdown)
        return {"action": outcome.action, "score": outcome.score}

    @app.task(name="workers.tasks.deliver_webhook", bind=True, max_retries=None,
              acks_late=True)
    def deliver_webhook(task, delivery_id: str) -> bool:
        """One delivery attempt; a failure is retried after the backoff the notifier chose."""
        delivered, delay = service().notifier.attempt(delivery_id)
        if not delivered and delay is not None:
            raise task.retry(countdown=delay + 1)  # just after next_attempt_at
        return delivered

    @app.task(name="workers.tasks.regrade", acks_late=True)
    def regrade(run_id: str) -> int:
        from grader.grading.regrade import run_regrade

        return len(run_regrade(service(), run_id))

    @app.task(name="workers.tasks.sweep")
    def sweep() -> list[str]:
        """Re-queue submissions left queued or running past ``SWEEP_AFTER_SECONDS``, re-send
        webhook deliveries overdue by a minute (their retry message was lost), and forget
        idempotency keys older than 48 h."""
        store = service().store
        ids = []
        for submission in store.stale(timedelta(seconds=config["SWEEP_AFTER_SECONDS"])):
            if store.requeue(submission.id):
                grade_submission.apply_async(args=[submission.id])
                ids.append(submission.id)
        for delivery in store.webhooks.due(now=utcnow() - timedelta(seconds=60)):
            deliver_webhook.apply_async(args=[delivery.id])
        store.forget_idempotency_keys(timedelta(hours=48))
        if ids:
            log.warning("sweep re-queued %d submission(s)", len(ids))
        return ids

    @signals.worker_init.connect(weak=False)
    def _self_test(sender=None, **_kwargs):
        if getattr(sender, "app", None) is not app:
            return
        check_sandbox(config)  # raises -> the worker does not start

    @signals.worker_process_init.connect(weak=False)
    def _warm_sandbox(**_kwargs):
        """Start this pool process's sandbox before its first job (one warm pre-forked server
        per process, kept across jobs). A failure here is logged; jobs then fail as
        infrastructure faults, never as zeros."""
        try:
            service().sandbox
        except Exception:
            log.exception("could not start the sandbox in this worker process")
