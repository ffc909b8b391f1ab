"""The Celery application, configured only from the environment (see :mod:`grader.config`).

Durability settings follow Celery's "Tips and best practices": tasks take ids, are idempotent, are
acknowledged late and rejected (so redelivered) when their worker process is lost.
"""
from __future__ import annotations

from typing import Any, Mapping

from celery import Celery

from grader.config import delivery_queue, load_config


def make_celery(config: Mapping[str, Any] | None = None) -> Celery:
    """A Celery app for ``config`` (default: from the environment), with the tasks of
    :mod:`workers.tasks`; they read ``config`` as ``app.conf.grader_config``."""
    config = dict(config or load_config())
    app = Celery("grader", broker=config["CELERY_BROKER_URL"] or "redis://127.0.0.1:6379/0")
    queue = config["CELERY_QUEUE"]
    deliveries = delivery_queue(config)
    app.conf.update(
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_default_queue=queue,
        # deliveries on their own queue (`grader worker --deliveries`), the rest on the grading one
        task_routes={"workers.tasks.deliver_webhook": {"queue": deliveries},
                     "workers.tasks.*": {"queue": queue}},
        # A grading job's own limits are seconds (the sandbox's wall limit per run); this hard limit
        # catches a hung worker process: Celery kills it and the job is redelivered.
        task_time_limit=300,
        task_soft_time_limit=240,
        # Redis redelivers a message unacknowledged this long (a worker killed with SIGKILL).
        broker_transport_options={"visibility_timeout": 600},
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        # Redis restarted while jobs were unacknowledged: cancel them (they are redelivered)
        # instead of letting the worker die on the lost connection.
        worker_cancel_long_running_tasks_on_connection_loss=True,
        beat_schedule={
            "sweep-stale-submissions": {
                "task": "workers.tasks.sweep",
                "schedule": float(config["SWEEP_INTERVAL_SECONDS"]),
                "options": {"queue": queue},
            }
        },
    )
    app.conf.grader_config = config
    from grader.observability.instrument import instrument_celery
    from workers.broker_clients import install as reuse_broker_clients

    reuse_broker_clients()  # lever notify (grader.levers), read on every broker operation
    import workers.tasks  # noqa: F401  (its shared tasks join every app)

    instrument_celery(app)
    return app


#: The app ``celery -A workers.celery_app worker`` runs (``grader worker`` does that for you).
celery_app = make_celery()
