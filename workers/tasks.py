"""Celery tasks: grade a submission by id, deliver a webhook, run a regrade, try an authored
problem, answer a precheck (:mod:`grader.queue.prechecks`), and sweep.

The tasks are defined once, at module level, with their names fixed (``workers.tasks.<name>``:
messages already queued on the broker are consumed by any version that keeps them) and their
retries declared. They are shared tasks: every app :func:`workers.celery_app.make_celery` builds
has them, and each runs with the configuration of the app it belongs to
(``app.conf.grader_config``).

Each worker process builds one :class:`grader.grading.GradingService` (store, content, warm
sandbox) on ``worker_process_init`` and keeps it across jobs; where that signal does not fire
(a solo or eager run) the first task builds it. At start the worker runs the sandbox self-test
and refuses to start when isolation is unavailable (fail closed), unless
``SANDBOX_MODE=unsafe-dev``.
"""
from __future__ import annotations

import logging

from celery import current_app, shared_task, signals
from sqlalchemy.exc import InterfaceError, OperationalError

from grader.grading import GradingService
from grader.queue.sweep import CELERY_WEBHOOK_GRACE, sweep as sweep_store, sweep_trials
from grader.runtime import build_service, check_sandbox

log = logging.getLogger(__name__)

GRADE = "workers.tasks.grade_submission"
DELIVER_WEBHOOK = "workers.tasks.deliver_webhook"
REGRADE = "workers.tasks.regrade"
PROBLEM_TRIAL = "workers.tasks.problem_trial"
SWEEP = "workers.tasks.sweep"
PRECHECK = "workers.tasks.precheck"

#: This process's grading service (see the module docstring).
_service: GradingService | None = None
#: This process's Redis client for prechecks' requests and replies (on the broker).
_redis = None


class GradeLater(Exception):
    """The grading service met an infrastructure fault and asked for another attempt (it counts
    them and marks the submission failed after ``MAX_GRADING_ATTEMPTS``)."""


def service(app=None) -> GradingService:
    """This process's grading service, built on first use from ``app``'s configuration (default
    the current Celery app). Its webhook deliveries are sent as ``deliver_webhook`` tasks."""
    global _service
    if _service is None:
        app = app or current_app
        _service = build_service(app.conf.grader_config, schedule_webhook=lambda delivery_id:
                                 deliver_later(app, delivery_id))
    return _service


def delivery_queue(app) -> str:
    """The queue deliveries go to (:func:`grader.config.delivery_queue`)."""
    from grader.config import delivery_queue as queue_of

    return queue_of(app.conf.grader_config)


def deliver_later(app, delivery_id: str, countdown: float | None = None):
    """Send ``deliver_webhook(delivery_id)`` to the deliveries' own queue."""
    return app.tasks[DELIVER_WEBHOOK].apply_async(args=[delivery_id], countdown=countdown,
                                                  queue=delivery_queue(app))


def deliveries_only(app) -> bool:
    """Whether this worker consumes only the deliveries' queue (``grader worker
    --deliveries``): it never runs learner code, so it needs no sandbox."""
    return bool(app.conf.get("grader_deliveries_only"))


@signals.worker_process_shutdown.connect
def _close_service(**_kwargs):
    if _service is not None:
        _service.close()


@signals.worker_init.connect
def _self_test(sender=None, **_kwargs):
    """Before the worker consumes anything: the sandbox self-test; raises (the worker does not
    start) when isolation is unavailable."""
    app = getattr(sender, "app", None)
    config = getattr(app, "conf", {}).get("grader_config")
    if config is not None and not deliveries_only(app):
        check_sandbox(config)


@signals.worker_process_init.connect
def _warm_service(**_kwargs):
    """Build this pool process's service and start its sandbox before its first job (one warm
    pre-forked server per process, kept across jobs). A failure here is logged; jobs then fail as
    infrastructure faults, never as zeros."""
    if current_app.conf.get("grader_config") is None or deliveries_only(current_app):
        return
    try:
        service().sandbox
    except Exception:
        log.exception("could not start the sandbox in this worker process")


@shared_task(name=GRADE, bind=True, acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError, InterfaceError, GradeLater), max_retries=None,
             retry_backoff=2, retry_backoff_max=60, retry_jitter=True)
def grade_submission(task, submission_id: str) -> dict:
    """Grade one stored submission. A store that cannot be reached, or an infrastructure fault
    the service reports, is retried after a random 0 to 2·2^n seconds (n = retries so far; at most
    60 s), without limit here: the service marks the submission failed after
    ``MAX_GRADING_ATTEMPTS``."""
    outcome = service(task.app).grade(submission_id)
    if outcome.action == "retry":
        raise GradeLater(outcome.reason)
    return {"action": outcome.action, "score": outcome.score}


@shared_task(name=DELIVER_WEBHOOK, bind=True, max_retries=None, acks_late=True)
def deliver_webhook(task, delivery_id: str) -> bool:
    """One delivery attempt; a failure is retried after the backoff the notifier chose (and
    stored as the delivery's ``next_attempt_at``)."""
    delivered, delay = service(task.app).notifier.attempt(delivery_id)
    if not delivered and delay is not None:  # just after next_attempt_at, on the same queue
        raise task.retry(countdown=delay + 1, queue=delivery_queue(task.app))
    return delivered


@shared_task(name=REGRADE, bind=True, acks_late=True)
def regrade(task, run_id: str) -> int:
    """Run the regrade ``run_id``; returns how many submissions it regraded."""
    from grader.grading.regrade import run_regrade

    return len(run_regrade(service(task.app), run_id))


@shared_task(name=PROBLEM_TRIAL, bind=True, acks_late=True,
             autoretry_for=(OperationalError, InterfaceError), max_retries=5, retry_backoff=2,
             retry_backoff_max=60, retry_jitter=True)
def problem_trial(task, trial_id: str) -> str | None:
    """Run the stored trial ``trial_id`` of an authored problem in a fresh sandbox of this
    worker (:func:`grader.grading.problem_trials.run_problem_trial`); returns its final status.
    A store that cannot be reached is retried (at most 5 times, backoff as grading's)."""
    from grader.grading.problem_trials import run_problem_trial
    from grader.runtime import make_sandbox

    return run_problem_trial(service(task.app).store,
                             lambda: make_sandbox(task.app.conf.grader_config), trial_id)


@shared_task(name=PRECHECK, bind=True, ignore_result=True)
def precheck(task, request_id: str) -> str:
    """Run the precheck ``request_id`` the API process left in Redis on this worker's warm
    sandbox, the one its gradings use, and push the answer back
    (:func:`grader.queue.prechecks.answer_precheck`). Not retried: the API waits a bounded time,
    and a request taken once is gone."""
    global _redis
    from grader.queue.prechecks import answer_precheck

    if _redis is None:
        import redis

        _redis = redis.Redis.from_url(task.app.conf.grader_config["CELERY_BROKER_URL"])
    grading = service(task.app)
    return answer_precheck(_redis, grading.catalog, lambda: grading.sandbox, request_id)


@shared_task(name=SWEEP, bind=True)
def sweep(task) -> list[str]:
    """:func:`grader.queue.sweep.sweep` on Celery: submissions left queued or running past
    ``SWEEP_AFTER_SECONDS`` are graded again, deliveries a minute overdue (their retry message
    was lost) and authored problems' trials queued or running as long sent again
    (:func:`grader.queue.sweep.sweep_trials`: failed after ``MAX_GRADING_ATTEMPTS`` starts);
    returns the re-queued submission ids."""
    from datetime import timedelta

    app = task.app
    store = service(app).store
    older_than = timedelta(seconds=app.conf.grader_config["SWEEP_AFTER_SECONDS"])
    requeued = sweep_store(
        store, older_than=older_than,
        grade=lambda submission_id: app.tasks[GRADE].apply_async(args=[submission_id]),
        deliver=lambda delivery_id: deliver_later(app, delivery_id),
        webhook_grace=CELERY_WEBHOOK_GRACE)
    # trials of authored problems whose message was lost, or whose worker died: sent again
    sweep_trials(store, older_than=older_than,
                 max_attempts=service(app).max_attempts,
                 send=lambda trial_id: app.tasks[PROBLEM_TRIAL].apply_async(args=[trial_id]))
    return requeued
