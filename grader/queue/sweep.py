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
