"""Dispatchers: see :mod:`grader.queue`."""
from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import timedelta

from grader.queue.sweep import sweep

log = logging.getLogger(__name__)

GRADE_TASK = "workers.tasks.grade_submission"
WEBHOOK_TASK = "workers.tasks.deliver_webhook"
REGRADE_TASK = "workers.tasks.regrade"


class CeleryDispatcher:
    """Sends ``workers.tasks.grade_submission(submission_id)`` to the broker.

    A broker fault is logged, not raised: the submission is already stored as ``queued`` and the
    periodic sweep re-queues it, so intake never loses a submission to a broker outage.
    """

    def __init__(self, celery_app, queue: str):
        self.celery = celery_app
        self.queue = queue

    def _send(self, task: str, ident: str) -> bool:
        try:
            self.celery.send_task(task, args=[ident], queue=self.queue)
            return True
        except Exception:  # broker down: the sweep will pick it up
            log.warning("could not queue %s(%s); the sweep will re-queue it", task, ident,
                        exc_info=True)
            return False

    def enqueue(self, submission_id: str) -> bool:
        return self._send(GRADE_TASK, submission_id)

    def regrade(self, run_id: str) -> bool:
        return self._send(REGRADE_TASK, run_id)

    def deliver_webhook(self, delivery_id: str) -> bool:
        return self._send(WEBHOOK_TASK, delivery_id)

    def close(self) -> None:
        pass


class InlineDispatcher:
    """Grades in this process on a small thread pool (the embedded default), and runs the sweep on
    a timer so a submission left ``queued`` by a restart is graded after the restart."""

    def __init__(self, service_factory, workers: int = 2, sweep_after: int = 120,
                 sweep_every: float = 30):
        self.service = service_factory(self.deliver_webhook)
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grade")
        self.sweep_after = timedelta(seconds=sweep_after)
        self.sweep_every = sweep_every
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None

    def enqueue(self, submission_id: str) -> Future:
        return self.pool.submit(self._grade, submission_id)

    def deliver_webhook(self, delivery_id: str) -> Future:
        return self.pool.submit(self.service.notifier.attempt, delivery_id)

    def regrade(self, run_id: str) -> Future:
        from grader.grading.regrade import run_regrade

        return self.pool.submit(run_regrade, self.service, run_id)

    def _grade(self, submission_id: str):
        outcome = self.service.grade(submission_id)
        delay = 0.5
        while outcome.action == "retry" and not self._stop.wait(delay):
            outcome = self.service.grade(submission_id)  # the service fails it after max attempts
            delay *= 2
        return outcome

    def sweep(self, older_than: timedelta | None = None) -> list[str]:
        """Re-queue submissions left queued/running (e.g. by a restart) and re-send deliveries
        whose retry time has come (:func:`grader.queue.sweep.sweep`); returns the re-queued ids."""
        return sweep(self.service.store,
                     older_than=older_than if older_than is not None else self.sweep_after,
                     grade=self.enqueue, deliver=self.deliver_webhook)

    def start_sweeper(self) -> None:
        def loop():
            while not self._stop.wait(self.sweep_every):
                try:
                    self.sweep()
                except Exception:
                    log.exception("sweep failed")

        self._sweeper = threading.Thread(target=loop, name="sweep", daemon=True)
        self._sweeper.start()

    def close(self) -> None:
        self._stop.set()
        self.pool.shutdown(wait=True, cancel_futures=False)
        self.service.close()


def make_dispatcher(config, service_factory, celery_app=None):
    """The dispatcher the configuration asks for: Celery when ``CELERY_BROKER_URL`` is set (on
    ``celery_app``, which the app factory builds: this package does not import ``workers``), else
    in-process. ``service_factory(schedule_webhook)`` builds the in-process grading service.
    Raises ``ValueError`` when a broker is configured and no ``celery_app`` is given."""
    from grader.config import grading_is_inline

    if grading_is_inline(config):
        return InlineDispatcher(service_factory, workers=config["INLINE_WORKERS"],
                                sweep_after=config["SWEEP_AFTER_SECONDS"],
                                sweep_every=config["SWEEP_INTERVAL_SECONDS"])
    if celery_app is None:
        raise ValueError("CELERY_BROKER_URL is set: make_dispatcher needs the Celery app")
    return CeleryDispatcher(celery_app, config["CELERY_QUEUE"])
