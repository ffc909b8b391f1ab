"""Health probes, Prometheus metrics, structured logs and store-outage answers for the grader.

Modules, each depending only on those before it (none on :mod:`grader.runtime` or the app):
``logs`` (JSON lines with bound ids), ``metrics`` (Prometheus), ``outage`` (503 on store
outage), ``health`` (``/healthz``, ``/readyz``), ``instrument`` (grading service, sandbox,
Celery), ``http`` (:func:`init_app`: everything an API app needs).

Wiring (one line each, where the objects are built):

- API: ``init_app(app, sandbox_self_test=check_sandbox)`` after ``register_api(app)`` in
  :func:`grader.app.create_app`: ``/healthz``, ``/readyz``, ``/metrics``, JSON logs with request and
  submission ids, the ``X-Request-ID`` header, HTTP metrics, and 503 on store outage.
- Grading: ``instrument_service(service)`` around the :class:`GradingService` (latency histogram,
  outcomes, submission id bound on every log line of the run) and ``instrument_sandbox(sandbox)``
  around a sandbox (outcomes by kind), in :mod:`grader.runtime`.
- Celery: ``instrument_celery(celery_app)`` (JSON logs in workers, submission id per task).
"""
from grader.observability import metrics
from grader.observability.http import init_app
from grader.observability.instrument import (InstrumentedSandbox, instrument_celery,
                                             instrument_sandbox, instrument_service)
from grader.observability.logs import configure_logging, log_context
from grader.observability.outage import register_store_outage_handler

__all__ = ["init_app", "instrument_service", "instrument_sandbox", "instrument_celery",
           "InstrumentedSandbox", "register_store_outage_handler", "configure_logging",
           "log_context", "metrics"]
