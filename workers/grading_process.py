"""One grading process of the embedded default's pool (:mod:`grader.queue.grading_pool`).

The process builds its own grading service over the configuration (store, content, warm sandbox;
the store is not migrated again here: the serving process did that before starting the pool) and
then takes jobs from its ``jobs`` pipe, one at a time, until it reads ``None`` or the pipe
closes (the API process went away): ``("grade", job, submission_id)`` grades a submission (with
the in-process retries of :func:`grader.queue.dispatch.grade_until_settled`), ``("regrade", job,
run_id)`` runs a regrade. Results are stored by this process, through the store; the parent is
told on the ``events`` pipe to wake the long-polls of a final submission (``("final", id)``),
to send a delivery (``("deliver", id)``: deliveries are sent by the parent's delivery pool, not
here) and that the job is done (``("done", job, value, error)``).
"""
from __future__ import annotations

import logging
import os
import signal
import threading
from multiprocessing.connection import Connection
from typing import Any, Callable

# imported here, not in main(): the fork server preloads this module, so every child starts
# with the grading code (NumPy, the problems, the rubric engine) already imported
from grader.grading.regrade import run_regrade
from grader.observability.logs import configure_logging
from grader.queue.dispatch import grade_until_settled
from grader.runtime import build_service, builtin_assignments
from grader.store import Store

log = logging.getLogger(__name__)


def main(config: dict[str, Any], jobs: Connection, events: Connection,
         initializer: Callable | None = None, initargs: tuple = ()) -> None:
    """The child's loop (see the module docstring). Ctrl-C in a terminal reaches the whole
    process group: the child ignores it and ends when the parent closes its pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # below the API process on the CPU: on a small machine, pages and the API stay responsive
    # while grading (and the sandbox's jobs, which inherit this) use what is left
    niceness = int(config.get("GRADING_NICE", 10) or 0)
    if niceness > 0:
        os.nice(niceness)
    configure_logging(config.get("LOG_LEVEL"), config.get("LOG_FORMAT"))
    if initializer is not None:
        initializer(*initargs)
    send_lock = threading.Lock()

    def send(message: tuple) -> None:
        with send_lock:
            events.send(message)

    builtin_assignments(config)  # compiled once per process (before the first job's clock)
    # no migration here: the serving process migrated the store before it started this pool
    # (grader.app.create_app), and each child migrating again only logged Alembic's ~15 INFO
    # lines once more per grading process
    store = Store(config["DATABASE_URL"])
    service = build_service(config, store=store,
                            schedule_webhook=lambda delivery_id: send(("deliver", delivery_id)),
                            announce=lambda submission_id: send(("final", submission_id)))
    stop = threading.Event()
    try:
        while True:
            try:
                message = jobs.recv()
            except (EOFError, OSError):
                return
            if message is None:
                return
            kind, job_id, ident = message
            value, error = None, None
            try:
                if kind == "grade":
                    outcome = grade_until_settled(service, ident, stop.wait)
                    value = {"action": outcome.action, "score": outcome.score,
                             "reason": outcome.reason}
                elif kind == "regrade":
                    value = len(run_regrade(service, ident))
                else:
                    error = f"unknown job kind {kind!r}"
            except Exception as exc:  # the job failed; the process goes on with the next
                log.exception("%s %s failed in the grading process", kind, ident)
                error = f"{type(exc).__name__}: {exc}"[:500]
            send(("done", job_id, value, error))
    finally:
        service.close()
        store.dispose()
