"""Dispatchers: see :mod:`grader.queue`."""
from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import timedelta

log = logging.getLogger(__name__)

GRADE_TASK = "workers.tasks.grade_submission"


class CeleryDispatcher:
    """Sends ``workers.tasks.grade_submission(submission_id)`` to the broker.

    A broker fault is logged, not raised: the submission is already stored as ``queued`` and the
    periodic sweep re-queues it, so intake never loses a submission to a broker outage.
    """

    def __init__(self, celery_app, queue: str):
        self.celery = celery_app
        self.queue = queue

    def enqueue(self, submission_id: str) -> bool:
        try:
            self.celery.send_task(GRADE_TASK, args=[submission_id], queue=self.queue)
            return True
        except Exception:  # broker down: the sweep will pick it up
            log.warning("could not queue %s; the sweep will re-queue it", submission_id,
                        exc_info=True)
            return False

    def close(self) -> None:
        pass


class InlineDispatcher:
    """Grades in this process on a small thread pool (the embedded default), and runs the sweep on
    a timer so a submission left ``queued`` by a restart is graded after the restart."""

    def __init__(self, service, workers: int = 2, sweep_after: int = 120, sweep_every: int = 30):
        self.service = service
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grade")
        self.sweep_after = timedelta(seconds=sweep_after)
        self.sweep_every = sweep_every
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None

    def enqueue(self, submission_id: str) -> Future:
        return self.pool.submit(self._grade, submission_id)

    def _grade(self, submission_id: str):
        outcome = self.service.grade(submission_id)
        delay = 0.5
        while outcome.action == "retry" and not self._stop.wait(delay):
            outcome = self.service.grade(submission_id)  # the service fails it after max attempts
            delay *= 2
        return outcome

    def sweep(self, older_than: timedelta | None = None) -> list[str]:
        """Re-queue submissions left queued/running (e.g. by a restart); returns their ids."""
        ids = [s.id for s in self.service.store.stale(older_than or self.sweep_after)]
        for submission_id in ids:
            self.service.store.requeue(submission_id)
            self.enqueue(submission_id)
        return ids

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


def make_dispatcher(config, service_factory):
    """The dispatcher the configuration asks for: Celery when ``CELERY_BROKER_URL`` is set, else
    in-process."""
    from grader.config import grading_is_inline

    if grading_is_inline(config):
        return InlineDispatcher(service_factory(), workers=config["INLINE_WORKERS"],
                                sweep_after=config["SWEEP_AFTER_SECONDS"],
                                sweep_every=config["SWEEP_INTERVAL_SECONDS"])
    from workers.celery_app import make_celery

    return CeleryDispatcher(make_celery(config), config["CELERY_QUEUE"])
