"""Prometheus metrics (prometheus_client).

Counted where they happen (the API, the grading service, the sandbox, the webhook sender):

- ``grader_http_requests_total{method,endpoint,status}`` and ``grader_http_request_seconds``
- ``grader_gradings_total{outcome}`` / ``grader_grading_seconds{outcome}``: one run of the grading
  service (outcome ``graded`` | ``failed`` | ``retry`` | ``skipped`` | ``error``), seconds
- ``grader_submission_latency_seconds``: received -> graded (queue wait + grading), seconds
- ``grader_sandbox_runs_total{status}`` / ``grader_sandbox_run_seconds``: sandbox outcomes by kind
  (``ok``, ``timeout``, ``memory_limit``, ``crashed``, ... see :mod:`grader.sandbox.api`)
- ``grader_webhook_deliveries_total{outcome}``: call :func:`record_webhook_delivery`
- ``grader_store_unavailable_total``: requests answered 503 because the store was down

Read from the source of truth at scrape time (so they are right across every process):

- ``grader_submissions{status}``: submissions in the store by status
- ``grader_oldest_unfinished_seconds``: age of the oldest queued/running submission
- ``grader_queue_depth{queue}``: messages waiting on the broker (Celery on Redis) or in the
  in-process pool (embedded default); ``grader_queue_unacked`` (Redis: delivered, not yet acked)

Several processes (gunicorn workers, Celery workers): set ``PROMETHEUS_MULTIPROC_DIR`` to one empty
directory for all of them before they start; ``/metrics`` then aggregates every process's counters
(prometheus_client's multiprocess mode). Without it each process reports its own.
"""
from __future__ import annotations

import logging
import os
from datetime import datetime, timezone
from typing import Any, Iterable

from prometheus_client import (CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter,
                               Histogram, generate_latest)
from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger(__name__)

#: Seconds; grading of a code item takes tens of milliseconds to the sandbox's wall limit (5 s).
LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.4, 0.6, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
                   300.0)
HTTP_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

HTTP_REQUESTS = Counter("grader_http_requests_total", "HTTP requests answered",
                        ["method", "endpoint", "status"])
HTTP_SECONDS = Histogram("grader_http_request_seconds", "Time to answer an HTTP request",
                         ["method", "endpoint"], buckets=HTTP_BUCKETS)
GRADINGS = Counter("grader_gradings_total", "Runs of the grading service by outcome", ["outcome"])
GRADING_SECONDS = Histogram("grader_grading_seconds", "Duration of one grading run",
                            ["outcome"], buckets=LATENCY_BUCKETS)
SUBMISSION_LATENCY = Histogram("grader_submission_latency_seconds",
                               "From receipt to a stored grade (queue wait + grading)",
                               buckets=LATENCY_BUCKETS)
SANDBOX_RUNS = Counter("grader_sandbox_runs_total", "Sandbox runs by outcome", ["status"])
SANDBOX_SECONDS = Histogram("grader_sandbox_run_seconds", "Duration of one sandbox run",
                            ["status"], buckets=LATENCY_BUCKETS)
WEBHOOK_DELIVERIES = Counter("grader_webhook_deliveries_total",
                             "Webhook delivery attempts by outcome", ["outcome"])
STORE_UNAVAILABLE = Counter("grader_store_unavailable_total",
                            "Requests answered 503 because the store was unreachable")


def observe_grading(seconds: float, outcome: str) -> None:
    """Record one run of the grading service (``outcome``: graded/failed/retry/skipped/error)."""
    GRADINGS.labels(outcome=outcome).inc()
    GRADING_SECONDS.labels(outcome=outcome).observe(seconds)


def observe_submission_latency(received_at: datetime | None, finished_at: datetime | None) -> None:
    """Record receipt-to-grade latency from the stored timestamps (naive ones are UTC)."""
    if received_at is None or finished_at is None:
        return
    if received_at.tzinfo is None:
        received_at = received_at.replace(tzinfo=timezone.utc)
    if finished_at.tzinfo is None:
        finished_at = finished_at.replace(tzinfo=timezone.utc)
    SUBMISSION_LATENCY.observe(max(0.0, (finished_at - received_at).total_seconds()))


def observe_sandbox_run(status: str, seconds: float) -> None:
    """Record one sandbox run by its :class:`grader.sandbox.api.RunResult` status."""
    SANDBOX_RUNS.labels(status=status).inc()
    SANDBOX_SECONDS.labels(status=status).observe(seconds)


def record_webhook_delivery(outcome: str) -> None:
    """Count one webhook delivery attempt: ``delivered`` (2xx), ``failed`` (non-2xx or network
    error, will retry), ``gave_up`` (retries exhausted)."""
    WEBHOOK_DELIVERIES.labels(outcome=outcome).inc()


def observe_http(method: str, endpoint: str, status: int, seconds: float) -> None:
    HTTP_REQUESTS.labels(method=method, endpoint=endpoint, status=str(status)).inc()
    HTTP_SECONDS.labels(method=method, endpoint=endpoint).observe(seconds)


# -- read at scrape time ----------------------------------------------------------------------
class StoreCollector:
    """``grader_submissions{status}`` and ``grader_oldest_unfinished_seconds`` from the store.
    A store fault yields no samples (the scrape still succeeds; ``/readyz`` reports the fault)."""

    def __init__(self, store):
        self.store = store

    def collect(self) -> Iterable[GaugeMetricFamily]:
        from sqlalchemy import func, select

        from grader.store.models import Submission

        try:
            with self.store.sessions() as session:
                counts = dict(session.execute(
                    select(Submission.status, func.count()).group_by(Submission.status)).all())
                oldest = session.execute(
                    select(func.min(Submission.queued_at))
                    .where(Submission.status.in_(["queued", "running"]))).scalar()
        except Exception:
            log.warning("metrics: store not readable", exc_info=True)
            return
        family = GaugeMetricFamily("grader_submissions", "Submissions in the store by status",
                                   labels=["status"])
        for status in ("queued", "running", "graded", "failed"):
            family.add_metric([status], counts.get(status, 0))
        yield family
        age = 0.0
        if oldest is not None:
            if oldest.tzinfo is None:
                oldest = oldest.replace(tzinfo=timezone.utc)
            age = max(0.0, (datetime.now(timezone.utc) - oldest).total_seconds())
        yield GaugeMetricFamily("grader_oldest_unfinished_seconds",
                                "Age of the oldest queued or running submission", value=age)


def redis_queue_depth(client, queue: str) -> tuple[int, int]:
    """(waiting, unacked) for a Celery queue on Redis: kombu keeps a queue in the list ``queue``
    plus one list per non-zero priority (``queue\\x06\\x16<p>``), and delivered-but-unacked messages
    in the hash ``unacked``."""
    waiting = client.llen(queue)
    for key in client.scan_iter(match=f"{queue}\x06\x16*", count=100):
        waiting += client.llen(key)
    return int(waiting), int(client.hlen("unacked"))


class QueueCollector:
    """``grader_queue_depth{queue}`` from the dispatcher: the Redis lists of a Celery queue, or the
    pending jobs of the in-process pool."""

    def __init__(self, dispatcher, config: dict[str, Any]):
        self.dispatcher = dispatcher
        self.config = config
        self._redis = None

    def collect(self):
        queue = self.config.get("CELERY_QUEUE", "grading")
        depth = GaugeMetricFamily("grader_queue_depth", "Grading jobs waiting", labels=["queue"])
        inline = getattr(self.dispatcher, "queue_depth", None)
        if callable(inline):  # InlineDispatcher: jobs not yet taken by a grading process/thread
            depth.add_metric(["inline"], inline())
            yield depth
            return
        broker = self.config.get("CELERY_BROKER_URL", "")
        if not broker.startswith(("redis://", "rediss://", "unix://")):
            return
        try:
            if self._redis is None:
                import redis

                self._redis = redis.Redis.from_url(broker, socket_timeout=1,
                                                   socket_connect_timeout=1)
            waiting, unacked = redis_queue_depth(self._redis, queue)
        except Exception:
            log.warning("metrics: broker not readable", exc_info=True)
            return
        depth.add_metric([queue], waiting)
        yield depth
        yield GaugeMetricFamily("grader_queue_unacked",
                                "Messages delivered to a worker and not yet acknowledged",
                                value=unacked)


def process_registry() -> CollectorRegistry:
    """The registry of the counters and histograms above: every process's, aggregated, when
    ``PROMETHEUS_MULTIPROC_DIR`` is set; else this process's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


def app_registry(store, dispatcher, config) -> CollectorRegistry:
    """A registry with the scrape-time collectors of one app (store and queue)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(store))
    registry.register(QueueCollector(dispatcher, config))
    return registry


def exposition(*registries: CollectorRegistry) -> tuple[bytes, str]:
    """The text exposition of ``registries`` (concatenated) and its content type."""
    return b"".join(generate_latest(r) for r in registries), CONTENT_TYPE_LATEST

