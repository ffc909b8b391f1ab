"""Structured JSON logs with the submission id (and request id) on every line of its path.

The ids live in :mod:`contextvars`, so every log call made while a submission is being handled (the
API request, the Celery task, the grading service, the sandbox client) carries them without being
passed along. A :class:`ContextFilter` on the handler copies them onto each record and
:class:`JsonFormatter` writes one JSON object per line::

    {"ts": "2026-11-29T17:02:03.123Z", "level": "INFO", "logger": "grader.grading",
     "message": "graded", "submission_id": "3f0c...", "request_id": null, "pid": 4242}

``LOG_FORMAT=text`` switches to a plain one-line format (still with the ids) for a terminal;
``LOG_LEVEL`` sets the root level (default ``INFO``).
"""
from __future__ import annotations

import json
import logging
import os
import re
import sys
import traceback
from contextlib import contextmanager
from contextvars import ContextVar, Token
from datetime import datetime, timezone
from typing import Any, Iterator

from grader.config import setting

#: Context fields copied onto every record (``None`` when not bound).
CONTEXT_FIELDS = ("submission_id", "request_id", "task_id")
_vars: dict[str, ContextVar[str | None]] = {
    name: ContextVar(f"grader_log_{name}", default=None) for name in CONTEXT_FIELDS
}
#: Attributes every ``LogRecord`` has; anything else passed via ``extra=`` is logged as a field.
_RECORD_ATTRS = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
_HANDLER_FLAG = "_grader_structured"


def bind(**values: str | None) -> dict[str, Token]:
    """Set context fields (e.g. ``submission_id``) for the current context; returns tokens for
    :func:`unbind`. Raises ``KeyError`` for a field not in :data:`CONTEXT_FIELDS`."""
    return {name: _vars[name].set(value) for name, value in values.items()}


def unbind(tokens: dict[str, Token]) -> None:
    """Restore the fields :func:`bind` changed."""
    for name, token in tokens.items():
        try:
            _vars[name].reset(token)
        except ValueError:  # token from another context (e.g. a thread pool): just clear
            _vars[name].set(None)


@contextmanager
def log_context(**values: str | None) -> Iterator[None]:
    """``with log_context(submission_id=sid): ...`` binds the fields for the block."""
    tokens = bind(**values)
    try:
        yield
    finally:
        unbind(tokens)


def current(name: str) -> str | None:
    """The bound value of a context field (``None`` when unbound)."""
    return _vars[name].get()


class ContextFilter(logging.Filter):
    """Copies the bound context fields onto every record passing through the handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in _vars.items():
            if getattr(record, name, None) is None:
                setattr(record, name, var.get())
        return True


#: ANSI escape sequences (colours, bold: ``ESC [ ... m`` and the other CSI sequences) that
#: terminal-minded libraries put in messages, e.g. Werkzeug's red development-server warning.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def plain_text(message: str) -> str:
    """``message`` without ANSI escape sequences (a log line is data, not a terminal)."""
    return ANSI_ESCAPE.sub("", message)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts`` (UTC, ISO 8601, ms), ``level``, ``logger``, ``message``
    (without terminal colour codes), the context fields, ``pid``, any ``extra=`` fields, and
    ``exc`` (formatted traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        ts = datetime.fromtimestamp(record.created, timezone.utc)
        entry: dict[str, Any] = {
            "ts": ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": plain_text(record.getMessage()),
        }
        for name in CONTEXT_FIELDS:
            entry[name] = getattr(record, name, None)
        entry["pid"] = record.process
        for key, value in record.__dict__.items():
            if key not in _RECORD_ATTRS and key not in entry and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = "".join(traceback.format_exception(*record.exc_info))
        return json.dumps(entry, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``LOG_FORMAT=text``: a readable line that still names the submission and request."""

    def __init__(self):
        super().__init__("%(asctime)s %(levelname)s %(name)s [sub=%(submission_id)s "
                         "req=%(request_id)s] %(message)s")


def configure_logging(level: str | None = None, fmt: str | None = None, stream=None) -> logging.Handler:
    """Install (once per process) a root handler with the context filter and the JSON formatter.

    ``level`` defaults to the ``LOG_LEVEL`` setting (``INFO``), ``fmt`` to ``LOG_FORMAT``
    (``json``), both read from the environment (:func:`grader.config.setting`) when not given;
    ``stream`` to standard error. Calling it again replaces our handler, never anyone else's.
    """
    root = logging.getLogger()
    for existing in list(root.handlers):
        if getattr(existing, _HANDLER_FLAG, False):
            root.removeHandler(existing)
    handler = logging.StreamHandler(stream or sys.stderr)
    setattr(handler, _HANDLER_FLAG, True)
    handler.addFilter(ContextFilter())
    fmt = (fmt or setting(os.environ, "LOG_FORMAT")).lower()
    handler.setFormatter(TextFormatter() if fmt == "text" else JsonFormatter())
    root.addHandler(handler)
    root.setLevel((level or setting(os.environ, "LOG_LEVEL")).upper())
    return handler
