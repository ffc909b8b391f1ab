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

The pages outside ``/api/`` (the learner page's form posts, the LTI endpoints) check their own
limits with :class:`PageLimits` (the ``limits`` library flask-limiter is built on, on the same
storage and strategy), keyed by what they know: the signed-in learner, or the client address
(:func:`client_address`). Their settings are theirs (``WEB_SUBMIT_RATE_LIMIT``,
``WEB_SUBMIT_ADDRESS_RATE_LIMIT``, ``LTI_RATE_LIMIT``), so ``RATE_LIMIT=off`` leaves them on.
"""
from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
import os
import time
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, request
from flask_limiter import Limiter, RateLimitExceeded, RequestLimit
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import STRATEGIES

from grader.api.errors import error_response

DEFAULT_LIMIT = "1000 per second"
#: Settings of the pages' own limits (grader/config.py), checked at start.
PAGE_LIMIT_SETTINGS = ("WEB_SUBMIT_RATE_LIMIT", "WEB_SUBMIT_ADDRESS_RATE_LIMIT", "LTI_RATE_LIMIT",
                       "PRECHECK_RATE_LIMIT")
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


def client_address() -> str:
    """The client's address as a limit key: IPv4 as it is, IPv6 by its /64 network (one host
    is given a whole /64 and can pick any address in it). Behind a reverse proxy this is the
    address the proxy saw when ``TRUSTED_PROXY_HOPS`` is set (werkzeug's ProxyFix)."""
    raw = request.remote_addr or "unknown"
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return raw
    if address.version == 4:
        return str(address)
    if address.ipv4_mapped is not None:  # ::ffff:192.0.2.1 is the IPv4 client 192.0.2.1
        return str(address.ipv4_mapped)
    return str(ipaddress.ip_network(f"{address}/64", strict=False))


@dataclass(frozen=True)
class Breach:
    """A page limit that was reached: the limit (e.g. ``6 per 1 minute``) and the whole seconds
    until its window lets the next request through (at least 1)."""

    limit: str
    retry_after: int


class PageLimits:
    """Rate limits a page's view checks itself (``check``), with the storage and strategy of the
    API's limiter. A limit spec is flask-limiter's notation, ``;``-separated (``"6 per
    minute;60 per hour"``); ``off`` or empty disables it. A storage failure lets the request
    through (logged), like the API's limiter."""

    def __init__(self, storage_uri: str = "memory://", strategy: str = "fixed-window"):
        if strategy not in STRATEGIES:
            raise ValueError(f"RATE_LIMIT_STRATEGY: one of {', '.join(STRATEGIES)}; got "
                             f"{strategy!r}")
        self.limiter = STRATEGIES[strategy](storage_from_string(storage_uri))
        self._parsed: dict[str, list[RateLimitItem]] = {}

    def parsed(self, spec: str) -> list[RateLimitItem]:
        """The limits of ``spec``; raises ``ValueError`` naming it when it does not parse."""
        spec = (spec or "").strip()
        if spec.lower() in OFF:
            return []
        if spec not in self._parsed:
            try:
                self._parsed[spec] = parse_many(spec)
            except ValueError as exc:
                raise ValueError(f"rate limit {spec!r}: {exc}") from None
        return self._parsed[spec]

    def check(self, scope: str, spec: str, key: str) -> Breach | None:
        """Count one request of ``key`` in ``scope`` against every limit of ``spec``; the breach
        with the longest wait when one is reached, else ``None``."""
        worst: Breach | None = None
        for item in self.parsed(spec):
            try:
                if self.limiter.hit(item, scope, key):
                    continue
                reset = self.limiter.get_window_stats(item, scope, key).reset_time
            except Exception:  # noqa: BLE001 - the storage is down: let the request through
                logging.getLogger(__name__).warning("page rate limit storage failed",
                                                    exc_info=True)
                return None
            wait = max(1, math.ceil(reset - time.time()))
            if worst is None or wait > worst.retry_after:
                worst = Breach(str(item), wait)
        return worst


def page_limits() -> PageLimits:
    """This app's :class:`PageLimits` (made by :func:`init_app`)."""
    return current_app.extensions["grader_page_limits"]


def _not_limited() -> bool:
    return not request.path.startswith("/api/")


def init_app(app: Flask) -> Limiter | None:
    """Attach the limiter to ``app``; returns it, or ``None`` when ``RATE_LIMIT`` is off. The
    pages' :class:`PageLimits` are attached either way (``app.extensions["grader_page_limits"]``,
    checking that the pages' limit settings parse)."""
    config = app.config.get("GRADER", {})
    pages = PageLimits(_setting(config, "RATE_LIMIT_STORAGE_URL", "memory://"),
                       _setting(config, "RATE_LIMIT_STRATEGY", "fixed-window"))
    for name in PAGE_LIMIT_SETTINGS:
        pages.parsed(str(config.get(name, "")))
    app.extensions["grader_page_limits"] = pages
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
