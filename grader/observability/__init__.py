"""Health probes, Prometheus metrics, structured logs and store-outage answers for the grader.

Modules, each depending only on those before it and on :mod:`grader.config` (none on
:mod:`grader.runtime`, the API or the app): ``logs`` (JSON lines with bound ids), ``metrics``
(Prometheus), ``health`` (the ``/readyz`` checks), ``instrument`` (grading service, sandbox,
Celery), then the two that need Flask: ``outage`` (503 on store outage) and ``web``
(:func:`grader.observability.web.init_app`: everything an API app needs). Importing this package
loads neither Flask nor the API, so the Celery worker does without them.

Wiring (one line each, where the objects are built):

- API: ``init_app(app, sandbox_check=make_sandbox_check(config, check_sandbox))`` after
  ``register_api(app)`` in :func:`grader.app.create_app`: ``/healthz``, ``/readyz``, ``/metrics``,
  JSON logs with request and submission ids, the ``X-Request-ID`` header, HTTP metrics, and 503 on
  store outage.
- Grading: ``instrument_service(service)`` around the :class:`GradingService` (latency histogram,
  outcomes, submission id bound on every log line of the run) and ``instrument_sandbox(sandbox)``
  around a sandbox (outcomes by kind), in :mod:`grader.runtime`.
- Celery: ``instrument_celery(celery_app)`` (JSON logs in workers, submission id per task).

Settings (:data:`grader.config.SETTINGS`): ``LOG_JSON``, ``LOG_FORMAT``, ``LOG_LEVEL``,
``ACCESS_LOG``, ``READY_CHECK_SANDBOX``, ``READY_SANDBOX_TTL``, ``READY_TIMEOUT``,
``STORE_RETRY_AFTER_SECONDS``.
"""
from grader.observability import metrics
from grader.observability.instrument import (InstrumentedSandbox, instrument_celery,
                                             instrument_sandbox, instrument_service)
from grader.observability.logs import configure_logging, log_context

__all__ = ["init_app", "instrument_service", "instrument_sandbox", "instrument_celery",
           "InstrumentedSandbox", "register_store_outage_handler", "configure_logging",
           "log_context", "metrics"]

#: Flask-bound names, imported on first use so that importing the package loads no Flask.
_WEB = {"init_app": "grader.observability.web",
        "register_store_outage_handler": "grader.observability.outage"}


def __getattr__(name: str):
    if name in _WEB:
        import importlib

        return getattr(importlib.import_module(_WEB[name]), name)
    raise AttributeError(f"module 'grader.observability' has no attribute {name!r}")
