"""Observability of the HTTP API, the one part of :mod:`grader.observability` that needs Flask:
``/healthz``, ``/readyz``, ``/metrics``, request ids, access logs, HTTP metrics and the
store-outage answer, registered on an app by :func:`init_app`. The Celery worker never imports
this module (nor Flask)."""
from __future__ import annotations

import logging
import time
from typing import Any, Callable

from flask import Blueprint, Flask, Response, current_app, g, jsonify, request

from grader.config import setting
from grader.observability import metrics
from grader.observability.health import readiness
from grader.observability.logs import bind, configure_logging, current, unbind
from grader.observability.outage import register_store_outage_handler

log = logging.getLogger("grader.access")
REQUEST_ID_HEADER = "X-Request-ID"
_SAFE_ID = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:")

health_bp = Blueprint("observability_health", __name__)


def healthz():
    """The process is up and serving (no dependency is consulted)."""
    return jsonify({"status": "ok"})


@health_bp.get("/readyz")
def readyz():
    """Store, broker and sandbox checks (:func:`grader.observability.health.readiness`); 200 when
    all pass, else 503 with ``Retry-After`` (``STORE_RETRY_AFTER_SECONDS``)."""
    grader = current_app.extensions["grader"]
    obs = current_app.extensions["observability"]
    ready, body = readiness(grader.store, grader.config, obs.get("sandbox_check"))
    response = jsonify(body)
    if not ready:
        response.status_code = 503
        response.headers["Retry-After"] = str(setting(grader.config,
                                                      "STORE_RETRY_AFTER_SECONDS"))
    return response


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


def init_app(app: Flask, *, configure_logs: bool | None = None,
             sandbox_check: Callable[[], dict[str, Any]] | None = None) -> None:
    """Register ``/healthz``, ``/readyz``, ``/metrics``, request ids, access logs, HTTP metrics and
    the store-outage handler on ``app`` (built by :func:`grader.app.create_app`).

    ``configure_logs`` (default: the ``LOG_JSON`` setting, on) installs the JSON log handler on
    the root logger (``LOG_LEVEL``, ``LOG_FORMAT``). ``ACCESS_LOG=0`` turns the per-request log
    line off. ``sandbox_check()`` (raises when isolation is unavailable; the factory builds it with
    :func:`grader.observability.health.make_sandbox_check`) is the ``sandbox`` check of
    ``/readyz``; without it that check is left out.
    """
    config = app.config.get("GRADER", {})
    if configure_logs if configure_logs is not None else setting(config, "LOG_JSON"):
        configure_logging(setting(config, "LOG_LEVEL"), setting(config, "LOG_FORMAT"))
    grader = app.extensions["grader"]
    access_log = setting(config, "ACCESS_LOG")
    app.extensions["observability"] = {
        "sandbox_check": sandbox_check,
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


