"""Per-key rate limiting (flask-limiter): 429 with ``Retry-After`` in the API's one error shape.

The key is the caller's API key when one is presented (``Authorization: Bearer <key>`` or
``X-API-Key``; only a SHA-256 prefix of it is kept in the limiter's storage), else the remote
address. Limits apply per key and per endpoint to everything under ``/api/`` (health probes and
``/metrics`` are never limited), and are checked before authentication, so guessing keys is
limited too.

Settings (environment or :func:`grader.app.create_app` overrides):

- ``RATE_LIMIT``: limits in flask-limiter's notation, ``;``-separated (default
  ``"1000 per second"``: generous, so only a runaway client meets it; e.g.
  ``"20 per second;600 per minute"`` for exam night). ``off`` (or empty) disables limiting.
- ``RATE_LIMIT_STORAGE_URL``: ``memory://`` (default; per process, so each gunicorn worker counts
  on its own) or ``redis://host:port/db`` to share the counts between processes.
- ``RATE_LIMIT_STRATEGY``: ``fixed-window`` (default, cheapest), ``moving-window`` or
  ``sliding-window-counter``.

If the storage fails (Redis down) requests are let through (``swallow_errors``): an outage of the
limiter must never become an outage of intake.
"""
from __future__ import annotations

import hashlib
import math
import os
import time
from typing import Any

from flask import Flask, request
from flask_limiter import Limiter, RateLimitExceeded, RequestLimit

from grader.api.errors import error_response

DEFAULT_LIMIT = "1000 per second"
OFF = {"", "off", "none", "0", "false", "disabled"}


def _setting(config: dict[str, Any], name: str, default: str) -> str:
    return str(config.get(name, os.environ.get(name, default)))


def rate_limit_key() -> str:
    """``key:<sha256 prefix>`` of the presented API key, else ``addr:<remote address>``."""
    header = request.headers.get("Authorization", "")
    presented = header[7:].strip() if header[:7].lower() == "bearer " else header.strip()
    presented = presented or request.headers.get("X-API-Key", "").strip()
    if presented:
        return "key:" + hashlib.sha256(presented.encode("utf-8", "replace")).hexdigest()[:24]
    return f"addr:{request.remote_addr or 'unknown'}"


def retry_after_seconds(limit: RequestLimit, now: float | None = None) -> int:
    """Whole seconds until the breached window resets (at least 1)."""
    reset = float(limit.window[0])  # when the window resets (epoch seconds)
    return max(1, math.ceil(reset - (now if now is not None else time.time())))


def _on_breach(limit: RequestLimit):
    seconds = retry_after_seconds(limit)
    return error_response(
        429, "rate_limited",
        f"Too many requests for this key: the limit is {limit.limit}. Retry after {seconds} s.",
        None, headers={"Retry-After": str(seconds)})


def _rate_limited(error: RateLimitExceeded):
    """flask-limiter raises with the response :func:`_on_breach` built; answer with it (the app's
    generic HTTP error handler would drop ``Retry-After``)."""
    if error.response is not None:
        return error.response
    return error_response(429, "rate_limited", f"Too many requests: {error.description}", None,
                          headers={"Retry-After": "1"})


def _not_limited() -> bool:
    return not request.path.startswith("/api/")


def init_app(app: Flask) -> Limiter | None:
    """Attach the limiter to ``app``; returns it, or ``None`` when ``RATE_LIMIT`` is off."""
    config = app.config.get("GRADER", {})
    limits = _setting(config, "RATE_LIMIT", DEFAULT_LIMIT).strip()
    if limits.lower() in OFF:
        return None
    limiter = Limiter(
        rate_limit_key,
        default_limits=[limits],
        default_limits_exempt_when=_not_limited,
        storage_uri=_setting(config, "RATE_LIMIT_STORAGE_URL", "memory://"),
        strategy=_setting(config, "RATE_LIMIT_STRATEGY", "fixed-window"),
        headers_enabled=False,
        swallow_errors=True,
        on_breach=_on_breach,
        key_prefix="grader-rl",
    )
    limiter.init_app(app)
    app.register_error_handler(RateLimitExceeded, _rate_limited)
    # check limits before any other before_request hook (authentication included)
    hooks = app.before_request_funcs.setdefault(None, [])
    checks = [f for f in hooks if getattr(f, "__self__", None) is limiter]
    for check in checks:
        hooks.remove(check)
    hooks[:0] = checks
    app.extensions["grader_ratelimit"] = limiter
    return limiter
