"""Health probes, Prometheus metrics, structured logs and store-outage answers for the grader.

Wiring (one line each, where the objects are built):

- API: ``grader.observability.init_app(app)`` after ``register_api(app)`` in
  :func:`grader.app.create_app`: ``/healthz``, ``/readyz``, ``/metrics``, JSON logs with request and
  submission ids, the ``X-Request-ID`` header, HTTP metrics, and 503 on store outage.
- Grading: ``instrument_service(service)`` around the :class:`GradingService` (latency histogram,
  outcomes, submission id bound on every log line of the run) and ``instrument_sandbox(sandbox)``
  around a sandbox (outcomes by kind).
- Celery: ``instrument_celery(celery_app)`` (JSON logs in workers, submission id per task).
"""
from __future__ import annotations

import functools
import logging
import os
import time
from datetime import datetime, timezone
from typing import Any

from flask import Flask, Response, g, request

from grader.observability import metrics
from grader.observability.health import bp as health_bp
from grader.observability.health import healthz, make_sandbox_check
from grader.observability.logs import (bind, configure_logging, current, log_context,
                                       unbind)
from grader.observability.outage import register_store_outage_handler

__all__ = ["init_app", "instrument_service", "instrument_sandbox", "instrument_celery",
           "register_store_outage_handler", "configure_logging", "log_context", "metrics"]

log = logging.getLogger("grader.access")
REQUEST_ID_HEADER = "X-Request-ID"
_SAFE_ID = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:")


def _flag(config: dict[str, Any], name: str, default: str) -> bool:
    raw = str(config.get(name, os.environ.get(name, default)))
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def _request_id() -> str:
    """The caller's ``X-Request-ID`` when it is short and plain, else a fresh one."""
    given = request.headers.get(REQUEST_ID_HEADER, "")
    if 0 < len(given) <= 128 and set(given) <= _SAFE_ID:
        return given
    import uuid

    return uuid.uuid4().hex


def _before():
    g._obs_started = time.perf_counter()
    g._obs_tokens = bind(request_id=_request_id(),
                         submission_id=(request.view_args or {}).get("submission_id"))


def _after(response: Response) -> Response:
    rid = current("request_id")
    if rid:
        response.headers[REQUEST_ID_HEADER] = rid
    if response.status_code == 202 and current("submission_id") is None and response.is_json:
        body = response.get_json(silent=True) or {}
        if isinstance(body, dict) and isinstance(body.get("id"), str):
            g._obs_tokens.update(bind(submission_id=body["id"]))
    started = getattr(g, "_obs_started", None)
    if started is not None:
        seconds = time.perf_counter() - started
        endpoint = request.endpoint or "unmatched"
        metrics.observe_http(request.method, endpoint, response.status_code, seconds)
        if getattr(g, "_obs_access_log", True):
            log.info("%s %s %d", request.method, request.path, response.status_code,
                     extra={"http_method": request.method, "path": request.path,
                            "status": response.status_code, "duration_ms": round(seconds * 1e3, 2),
                            "remote_addr": request.remote_addr})
    return response


def _teardown(_exc):
    tokens = g.pop("_obs_tokens", None)
    if tokens:
        unbind(tokens)


def init_app(app: Flask, *, configure_logs: bool | None = None) -> None:
    """Register ``/healthz``, ``/readyz``, ``/metrics``, request ids, access logs, HTTP metrics and
    the store-outage handler on ``app`` (built by :func:`grader.app.create_app`).

    ``configure_logs`` (default: ``LOG_JSON`` setting, on) installs the JSON log handler on the
    root logger. ``ACCESS_LOG=0`` turns the per-request log line off.
    """
    config = app.config.get("GRADER", {})
    if configure_logs if configure_logs is not None else _flag(config, "LOG_JSON", "1"):
        configure_logging()
    grader = app.extensions["grader"]
    access_log = _flag(config, "ACCESS_LOG", "1")
    app.extensions["observability"] = {
        "sandbox_check": make_sandbox_check(config),
        "registry": metrics.app_registry(grader.store, grader.dispatcher, config),
    }
    app.register_blueprint(health_bp)
    if not any(rule.rule == "/healthz" for rule in app.url_map.iter_rules()):
        app.add_url_rule("/healthz", "healthz", healthz)

    @app.get("/metrics")
    def prometheus_metrics():
        body, content_type = metrics.exposition(
            metrics.process_registry(), app.extensions["observability"]["registry"])
        return Response(body, content_type=content_type)

    def before():
        _before()
        g._obs_access_log = access_log

    app.before_request(before)
    app.after_request(_after)
    app.teardown_request(_teardown)
    register_store_outage_handler(app)


def instrument_service(service):
    """Wrap ``service.grade`` (a :class:`grader.grading.GradingService`): bind the submission id on
    every log line of the run, record ``grader_grading_seconds{outcome}``, and on ``graded`` the
    receipt-to-grade latency. Returns the same service."""
    grade = service.grade
    if getattr(grade, "_instrumented", False):
        return service
    run_log = logging.getLogger("grader.grading")

    @functools.wraps(grade)
    def instrumented(submission_id: str):
        with log_context(submission_id=submission_id):
            started = time.perf_counter()
            try:
                outcome = grade(submission_id)
            except Exception:
                metrics.observe_grading(time.perf_counter() - started, "error")
                raise
            seconds = time.perf_counter() - started
            metrics.observe_grading(seconds, outcome.action)
            run_log.info("grading %s", outcome.action,
                         extra={"outcome": outcome.action, "score": outcome.score,
                                "reason": outcome.reason or None,
                                "duration_ms": round(seconds * 1e3, 2)})
            if outcome.action == "graded" and outcome.received_at is not None:
                metrics.observe_submission_latency(outcome.received_at,
                                                   datetime.now(timezone.utc))
            return outcome

    instrumented._instrumented = True
    service.grade = instrumented
    return service


class InstrumentedSandbox:
    """A sandbox that counts its runs by outcome (``grader_sandbox_runs_total{status}``) and logs
    non-``ok`` runs; everything else is delegated."""

    def __init__(self, sandbox):
        self._sandbox = sandbox

    def run(self, source, calls, limits):
        started = time.perf_counter()
        try:
            result = self._sandbox.run(source, calls, limits)
        except Exception:
            metrics.observe_sandbox_run("raised", time.perf_counter() - started)
            raise
        metrics.observe_sandbox_run(result.status, time.perf_counter() - started)
        if result.status != "ok":
            logging.getLogger("grader.sandbox").info("sandbox run %s", result.status,
                                                     extra={"sandbox_status": result.status})
        return result

    def close(self):
        return self._sandbox.close()

    def __getattr__(self, name):
        return getattr(self._sandbox, name)


def instrument_sandbox(sandbox):
    """Wrap a sandbox (see :class:`InstrumentedSandbox`)."""
    return sandbox if isinstance(sandbox, InstrumentedSandbox) else InstrumentedSandbox(sandbox)


_celery_instrumented = False


def instrument_celery(celery_app) -> None:
    """JSON logs in Celery processes, with the task id and the submission id bound while a
    ``grade_submission`` task runs. Celery's signals are process-wide, so this connects once per
    process however many Celery apps are built."""
    global _celery_instrumented
    if _celery_instrumented:
        return
    _celery_instrumented = True
    from celery import signals

    @signals.setup_logging.connect(weak=False)
    def _logging(**_kwargs):  # connecting this stops Celery from configuring logging itself
        configure_logging()

    tokens_by_task: dict[str, dict] = {}

    @signals.task_prerun.connect(weak=False)
    def _prerun(task_id=None, task=None, args=None, **_kwargs):
        values = {"task_id": task_id}
        if task is not None and task.name.endswith("grade_submission") and args:
            values["submission_id"] = str(args[0])
        tokens_by_task[task_id] = bind(**values)

    @signals.task_postrun.connect(weak=False)
    def _postrun(task_id=None, **_kwargs):
        tokens = tokens_by_task.pop(task_id, None)
        if tokens:
            unbind(tokens)
