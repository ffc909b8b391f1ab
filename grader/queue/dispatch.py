"""Dispatchers: see :mod:`grader.queue`."""
from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import timedelta
from typing import Callable

from grader.queue.delivery_pool import DeliveryPool
from grader.queue.grading_pool import GradingPool
from grader.queue.sweep import sweep

log = logging.getLogger(__name__)

GRADE_TASK = "workers.tasks.grade_submission"
WEBHOOK_TASK = "workers.tasks.deliver_webhook"
REGRADE_TASK = "workers.tasks.regrade"
PROBLEM_TRIAL_TASK = "workers.tasks.problem_trial"


class CeleryDispatcher:
    """Sends ``workers.tasks.grade_submission(submission_id)`` (and regrades) to the broker's
    ``queue``, and deliveries (``workers.tasks.deliver_webhook``) to ``delivery_queue``, which
    their own workers consume (``grader worker --deliveries``): a slow receiver holds a delivery
    worker, never a grading one.

    A broker fault is logged, not raised: the submission is already stored as ``queued`` and the
    periodic sweep re-queues it, so intake never loses a submission to a broker outage.
    """

    def __init__(self, celery_app, queue: str, delivery_queue: str | None = None):
        self.celery = celery_app
        self.queue = queue
        self.delivery_queue = delivery_queue or queue

    def _send(self, task: str, ident: str, queue: str | None = None) -> bool:
        try:
            self.celery.send_task(task, args=[ident], queue=queue or self.queue)
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
        return self._send(WEBHOOK_TASK, delivery_id, self.delivery_queue)

    def problem_trial(self, trial_id: str) -> bool:
        """Queue the stored trial of an authored problem for a worker (which has the sandbox
        the API process lacks: :mod:`grader.grading.problem_trials`)."""
        return self._send(PROBLEM_TRIAL_TASK, trial_id)

    def precheck(self, task: str, request_id: str, expires: float) -> bool:
        """Queue the precheck ``request_id`` for a grading worker
        (:mod:`grader.queue.prechecks`); dropped unrun after ``expires`` seconds."""
        try:
            self.celery.send_task(task, args=[request_id], queue=self.queue, expires=expires)
            return True
        except Exception:
            log.warning("could not queue the precheck %s", request_id, exc_info=True)
            return False

    def close(self) -> None:
        pass


def grade_until_settled(service, submission_id: str, wait: Callable[[float], bool]):
    """Grade ``submission_id`` with ``service``, trying again after 0.5 s, 1 s, 2 s, ... while the
    service asks for a retry (it fails the submission after its maximum of attempts); ``wait(s)``
    sleeps ``s`` seconds and returns true to stop early (the dispatcher is closing)."""
    outcome = service.grade(submission_id)
    delay = 0.5
    while outcome.action == "retry" and not wait(delay):
        outcome = service.grade(submission_id)
        delay *= 2
    return outcome


class InlineDispatcher:
    """The embedded default: grades on this machine without a broker, and runs the sweep on a
    timer so a submission left ``queued`` by a restart is graded after the restart.

    With ``grading_process`` (the app factory passes :func:`workers.grading_process.main`),
    grading and regrades run in a pool of ``workers`` grading processes
    (:class:`grader.queue.grading_pool.GradingPool`), never in this process nor under its GIL;
    a process that dies holding a submission is an infrastructure fault of that submission
    (retried, then failed) and is replaced. Without it they run on ``workers`` threads here
    (``INLINE_GRADING=threads``: development and tests that patch the grading code). Deliveries
    always have their own pool here (:class:`grader.queue.delivery_pool.DeliveryPool`:
    ``delivery_workers`` threads, at most ``delivery_per_host`` attempts at once to one host),
    so a slow receiver never holds grading."""

    def __init__(self, service_factory, workers: int = 2, sweep_after: int = 120,
                 sweep_every: float = 30, grading_process: Callable | None = None,
                 config: dict | None = None, delivery_workers: int = 4,
                 delivery_per_host: int = 2):
        self.service = service_factory(self.deliver_webhook)
        self.deliveries = DeliveryPool(self._attempt, self._delivery_url,
                                       workers=delivery_workers, per_host=delivery_per_host)
        self.pool: ThreadPoolExecutor | None = None
        self.processes: GradingPool | None = None
        if grading_process is not None:
            self.processes = GradingPool(grading_process, config or {}, workers,
                                         on_event=self._on_event, on_crash=self._on_crash)
        else:
            self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grade")
        self.sweep_after = timedelta(seconds=sweep_after)
        self.sweep_every = sweep_every
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None

    def enqueue(self, submission_id: str) -> Future:
        if self.processes is not None:
            return self.processes.submit("grade", submission_id)
        return self.pool.submit(self._grade, submission_id)

    def deliver_webhook(self, delivery_id: str) -> Future:
        return self.deliveries.submit(delivery_id)

    def regrade(self, run_id: str) -> Future:
        if self.processes is not None:
            return self.processes.submit("regrade", run_id)
        from grader.grading.regrade import run_regrade

        return self.pool.submit(run_regrade, self.service, run_id)

    def queue_depth(self) -> int:
        """Grading jobs waiting for a grading process (or thread)."""
        if self.processes is not None:
            return self.processes.waiting()
        return self.pool._work_queue.qsize()

    def warm(self) -> None:
        """Start the grading processes now (``grader serve`` does, so the first submission does
        not wait for them)."""
        if self.processes is not None:
            self.processes.start()

    def _grade(self, submission_id: str):
        return grade_until_settled(self.service, submission_id, self._stop.wait)

    def _attempt(self, delivery_id: str):
        return self.service.notifier.attempt(delivery_id)

    def _delivery_url(self, delivery_id: str) -> str | None:
        delivery = self.service.store.webhooks.get(delivery_id)
        return delivery.url if delivery is not None else None

    def _on_event(self, kind: str, ident: str) -> None:
        """A grading process asks: wake the long-polls of a final submission, or send a
        delivery."""
        if kind == "final":
            if self.service.announce is not None:
                self.service.announce(ident)
        elif kind == "deliver":
            self.deliver_webhook(ident)

    def _on_crash(self, job, reason: str) -> bool:
        """A grading process died holding ``job``: for a submission, an infrastructure fault
        (:meth:`grader.grading.GradingService.process_died`); true when it is to be graded
        again."""
        if job.kind != "grade":
            return False
        return self.service.process_died(job.ident, reason).action == "retry"

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
        if self.processes is not None:
            self.processes.close()
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=False)
        self.deliveries.close()
        self.service.close()


def make_dispatcher(config, service_factory, celery_app=None, grading_process=None):
    """The dispatcher the configuration asks for: Celery when ``CELERY_BROKER_URL`` is set (on
    ``celery_app``, which the app factory builds: this package does not import ``workers``), else
    on this machine: in grading processes running ``grading_process`` (the app factory's
    :func:`workers.grading_process.main`) unless ``INLINE_GRADING`` is ``threads`` or none is
    given. ``service_factory(schedule_webhook)`` builds this process's grading service (its
    notifier sends the deliveries). Raises ``ValueError`` when a broker is configured and no
    ``celery_app`` is given, or ``INLINE_GRADING`` is neither ``processes`` nor ``threads``."""
    from grader.config import delivery_queue, grading_is_inline, setting

    if grading_is_inline(config):
        mode = setting(config, "INLINE_GRADING").strip().lower()
        if mode not in ("processes", "threads"):
            raise ValueError(f"INLINE_GRADING must be 'processes' or 'threads', not {mode!r}")
        return InlineDispatcher(service_factory, workers=config["INLINE_WORKERS"],
                                sweep_after=config["SWEEP_AFTER_SECONDS"],
                                sweep_every=config["SWEEP_INTERVAL_SECONDS"],
                                grading_process=grading_process if mode == "processes" else None,
                                config=config,
                                delivery_workers=setting(config, "DELIVERY_WORKERS"),
                                delivery_per_host=setting(config, "DELIVERY_PER_HOST"))
    if celery_app is None:
        raise ValueError("CELERY_BROKER_URL is set: make_dispatcher needs the Celery app")
    return CeleryDispatcher(celery_app, config["CELERY_QUEUE"], delivery_queue(config))
