"""The checks behind ``/readyz`` (the process can do its job: store, broker, sandbox), without
Flask: :mod:`grader.observability.web` serves them, and ``/healthz`` (the process is up).

``/readyz`` answers 200 ``{"status": "ready", "checks": {...}}`` or 503 ``{"status": "unready", ...}``
with ``Retry-After``; each check reports ``ok``, ``seconds`` and, when failing, ``error``. Checks:

- ``store``: ``SELECT 1`` on the store.
- ``broker``: ``PING`` to the Celery broker (Redis); on the embedded default there is none and the
  check reports ``"mode": "inline"``.
- ``sandbox``: the sandbox self-test (the ``run`` given to :func:`make_sandbox_check`; the app
  factory builds the check over :func:`grader.runtime.check_sandbox` and hands it to
  ``init_app``). It starts a sandbox, so its result is cached for ``READY_SANDBOX_TTL`` seconds
  (default 60); ``READY_CHECK_SANDBOX=0`` leaves it out (e.g. an API-only host in production,
  where workers run the sandbox).

Every check has a time limit (``READY_TIMEOUT`` seconds, default 3): a hung dependency makes the
check fail, never the probe hang.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable

from grader.config import setting

_executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="readyz")


def check_store(store) -> dict[str, Any]:
    from sqlalchemy import text

    with store.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return {}


def check_broker(config: dict[str, Any]) -> dict[str, Any]:
    broker = config.get("CELERY_BROKER_URL")
    if not broker:
        return {"mode": "inline"}
    import redis

    client = redis.Redis.from_url(broker, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    finally:
        client.close()
    return {"mode": "celery"}


class SandboxCheck:
    """The sandbox self-test, run at most once per ``ttl`` seconds (one run at a time)."""

    def __init__(self, config: dict[str, Any], ttl: float,
                 run: Callable[[dict[str, Any]], None]):
        self.config, self.ttl = config, ttl
        self._run = run
        self._lock = threading.Lock()
        self._at = -float("inf")
        self._error: str | None = None

    def __call__(self) -> dict[str, Any]:
        with self._lock:
            if time.monotonic() - self._at > self.ttl:
                try:
                    self._run(self.config)
                    self._error = None
                except Exception as exc:  # SandboxUnavailable or anything unexpected
                    self._error = f"{type(exc).__name__}: {exc}"
                self._at = time.monotonic()
            if self._error:
                raise RuntimeError(self._error)
            return {"cached_for_seconds": self.ttl}


def run_checks(checks: dict[str, Callable[[], dict[str, Any]]], timeout: float) -> dict[str, dict]:
    """Run ``checks`` concurrently, each bounded by ``timeout`` seconds; returns name -> report."""
    started = {name: (time.perf_counter(), _executor.submit(fn)) for name, fn in checks.items()}
    reports = {}
    for name, (t0, future) in started.items():
        remaining = max(0.0, timeout - (time.perf_counter() - t0))
        try:
            detail = future.result(timeout=remaining) or {}
            reports[name] = {"ok": True, **detail}
        except FutureTimeout:
            reports[name] = {"ok": False, "error": f"no answer within {timeout:g} s"}
        except Exception as exc:
            reports[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:500]}
        reports[name]["seconds"] = round(time.perf_counter() - t0, 4)
    return reports


def readiness(store, config: dict[str, Any],
              sandbox_check: Callable[[], dict[str, Any]] | None) -> tuple[bool, dict[str, Any]]:
    """Run the store, broker and (when given) sandbox checks within ``READY_TIMEOUT`` seconds;
    returns (all passed, the ``/readyz`` body ``{"status": "ready"|"unready", "checks": ...}``)."""
    checks = {
        "store": lambda: check_store(store),
        "broker": lambda: check_broker(config),
    }
    if sandbox_check is not None:
        checks["sandbox"] = sandbox_check
    reports = run_checks(checks, setting(config, "READY_TIMEOUT"))
    ready = all(r["ok"] for r in reports.values())
    return ready, {"status": "ready" if ready else "unready", "checks": reports}


def make_sandbox_check(config: dict[str, Any],
                       run: Callable[[dict[str, Any]], None] | None) -> SandboxCheck | None:
    """The cached sandbox check for an app, running ``run(config)`` (raises when the sandbox is
    unusable); ``None`` when ``READY_CHECK_SANDBOX`` is off or no ``run`` is given."""
    if run is None or not setting(config, "READY_CHECK_SANDBOX"):
        return None
    return SandboxCheck(config, setting(config, "READY_SANDBOX_TTL"), run)
