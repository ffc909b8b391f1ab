"""Store outage -> 503 with ``Retry-After`` in the API's one JSON error shape, never a 500.

When PostgreSQL is unreachable (restarting, network fault, connection pool exhausted) SQLAlchemy
raises :class:`sqlalchemy.exc.OperationalError`, :class:`~sqlalchemy.exc.InterfaceError`,
:class:`~sqlalchemy.exc.DisconnectionError` or :class:`~sqlalchemy.exc.TimeoutError` (pool). A
``POST`` answered 503 stored nothing, so the client knows to retry after ``Retry-After`` seconds
(``STORE_RETRY_AFTER_SECONDS``, default 5); nothing is lost silently. Integrity or data errors are
bugs, not outages, and stay 500.
"""
from __future__ import annotations

import logging

from flask import Flask
from sqlalchemy import exc as sa_exc

from grader.config import setting
from grader.errors import error_response
from grader.observability import metrics

log = logging.getLogger(__name__)

OUTAGE_ERRORS = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.DisconnectionError,
                 sa_exc.TimeoutError)


def retry_after_seconds(app: Flask) -> int:
    """``STORE_RETRY_AFTER_SECONDS`` of ``app``'s configuration (default 5)."""
    return int(setting(app.config.get("GRADER", {}), "STORE_RETRY_AFTER_SECONDS"))


def register_store_outage_handler(app: Flask) -> None:
    """Answer 503 ``store_unavailable`` with ``Retry-After`` when the store cannot be reached."""
    seconds = retry_after_seconds(app)

    def handle(error: Exception):
        metrics.STORE_UNAVAILABLE.inc()
        log.warning("store unavailable: %s", str(error).splitlines()[0][:300])
        return error_response(
            503, "store_unavailable",
            f"The submission store is temporarily unavailable; nothing was stored. Retry after "
            f"{seconds} s.", None, headers={"Retry-After": str(seconds)})

    for error_class in OUTAGE_ERRORS:
        app.register_error_handler(error_class, handle)
