"""The sweep: what a lost message or a restart left behind is handed on again.

One function for both dispatchers: the in-process one runs it on a timer
(:meth:`grader.queue.dispatch.InlineDispatcher.start_sweeper`), Celery beat runs it as the task
``workers.tasks.sweep``. They differ only in what they pass: how a submission is graded and a
delivery sent (a thread or a broker message), and how overdue a delivery must be before it counts
as lost (in-process, a delivery's retry is the sweep itself; on Celery, a retry message is already
on the broker until a minute past its time).
"""
from __future__ import annotations

import logging
from datetime import timedelta
from typing import Callable

from grader.store.models import utcnow

log = logging.getLogger(__name__)

#: Idempotency keys are honoured this long (the API promises at least 24 h), then forgotten.
IDEMPOTENCY_TTL = timedelta(hours=48)
#: On Celery, a pending delivery this far past its next attempt lost its retry message.
CELERY_WEBHOOK_GRACE = timedelta(seconds=60)


def sweep(store, *, older_than: timedelta, grade: Callable[[str], object],
          deliver: Callable[[str], object],
          webhook_grace: timedelta = timedelta(0)) -> list[str]:
    """Re-queue submissions left ``queued`` or ``running`` for longer than ``older_than`` and hand
    each to ``grade(submission_id)``; hand pending webhook deliveries overdue by more than
    ``webhook_grace`` to ``deliver(delivery_id)``; forget idempotency keys older than
    :data:`IDEMPOTENCY_TTL`. Returns the ids of the submissions re-queued (a submission finished
    meanwhile is not re-queued). Store errors propagate (the caller logs them; the next sweep
    tries again)."""
    ids = []
    for submission in store.stale(older_than):
        if store.requeue(submission.id):
            grade(submission.id)
            ids.append(submission.id)
    for delivery in store.webhooks.due(now=utcnow() - webhook_grace):
        deliver(delivery.id)
    store.forget_idempotency_keys(IDEMPOTENCY_TTL)
    if ids:
        log.warning("sweep re-queued %d submission(s)", len(ids))
    return ids


def sweep_trials(store, *, older_than: timedelta, max_attempts: int,
                 send: Callable[[str], object], now=None) -> dict[str, list[str]]:
    """The same for the trials of authored problems (production mode, on a worker): a run left
    ``queued`` whose message was sent more than ``older_than`` before ``now`` is sent again; a
    run left ``running`` since a start that long ago (its worker died) is queued and sent again,
    or after ``max_attempts`` starts (``MAX_GRADING_ATTEMPTS``) ``failed`` with the reason, and
    an upload's version with it (``failed``, an infrastructure fault, never ``refused``: ``POST
    /problems/<id>/trial`` runs it again). Returns the ids ``resent``, ``requeued`` and
    ``failed``; ``now`` (default: the clock) is for tests that drive time."""
    found: dict[str, list[str]] = {"resent": store.problem_trials.resend_stale(older_than, now),
                                   "requeued": [], "failed": []}
    for run in store.problem_trials.stuck(older_than, now):
        if run.attempts < max_attempts:
            if store.problem_trials.requeue_stuck(run.id, older_than, now):
                found["requeued"].append(run.id)
            continue
        error = (f"worker_lost: the trial was started {run.attempts} times and its worker "
                 f"stopped before it finished each time")
        if not store.problem_trials.abandon(run.id, older_than, error, now):
            continue
        found["failed"].append(run.id)
        if run.decides:
            store.content.settle_problem_version(run.course_id, run.problem_id, run.version,
                                                 "failed", {"refused": None, "error": error}, {})
    for trial_id in found["resent"] + found["requeued"]:
        send(trial_id)
    if found["requeued"] or found["failed"]:
        log.warning("sweep re-queued %d and failed %d trial(s) left running",
                    len(found["requeued"]), len(found["failed"]))
    return found
