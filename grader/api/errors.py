"""One JSON shape for every error: ``{"status", "code", "message", "field", "errors"}``.

``code`` is machine-readable (``validation_error``, ``assignment_not_found``, ``item_not_found``,
``unsupported_media_type``, ``payload_too_large``, ``invalid_json``, ...); ``field`` names the part of
the request at fault in dotted form (``responses.sdpa.code``), or ``null``.
"""
from __future__ import annotations

from typing import Any

from werkzeug.exceptions import HTTPException

from grader.errors import error_response  # noqa: F401  (the API's users import it from here)

DEFAULT_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


class ApiError(Exception):
    """Raise from a view to answer with a specific error."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 errors: Any = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.field, self.errors, self.headers = field, errors, headers or {}


def first_field(messages: Any, prefix: str = "") -> tuple[str | None, str]:
    """The dotted path and message of the first error in a marshmallow ``messages`` tree."""
    if isinstance(messages, dict):
        for key, value in messages.items():
            if key in ("json", "query", "headers", "_schema"):
                path = prefix
            else:
                path = f"{prefix}.{key}" if prefix else str(key)
            return first_field(value, path)
    if isinstance(messages, list) and messages:
        if all(isinstance(m, str) for m in messages):
            return prefix or None, "; ".join(messages)
        return first_field(messages[0], prefix)
    return prefix or None, str(messages)


def handle_http_exception(error: HTTPException):
    """Turn werkzeug/flask-smorest/webargs errors into the one JSON shape."""
    status = error.code or 500
    data = getattr(error, "data", {}) or {}
    messages = data.get("messages")
    if status == 422 and messages:
        field, message = first_field(messages)
        return error_response(422, "validation_error",
                              f"{field}: {message}" if field else message, field,
                              errors=messages.get("json", messages), headers=data.get("headers"))
    if status == 400 and (messages or "JSON" in (error.description or "")):
        # webargs answers 400 only for a body it cannot decode; Flask's own message names JSON
        return error_response(400, "invalid_json", "The request body is not valid JSON "
                              "(it must be a UTF-8 encoded JSON document).", None)
    code = DEFAULT_CODES.get(status, "error")
    message = data.get("message") or error.description or error.name
    if status == 413 and not data.get("message"):  # werkzeug's words name no limit
        from flask import current_app

        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        message = (f"The request body is larger than {limit} bytes (MAX_BODY_BYTES); send a smaller "
                   "body." if limit else message)
    return error_response(status, code, message, data.get("field"), headers=data.get("headers"))


def handle_api_error(error: ApiError):
    return error_response(error.status, error.code, error.message, error.field, error.errors,
                          error.headers)


def found_version(record, kind: str, name: str, version: int | None):
    """``record`` (a course's versioned ``kind``: ``"rubric"``, ``"problem"``), or the API's 404
    ``<kind>_not_found`` at field ``<kind>_id`` naming it (and the version asked for)."""
    if record is None:
        raise ApiError(404, f"{kind}_not_found", f"No {kind} {name!r}"
                       + (f" version {version}" if version else "") + " in this course.",
                       f"{kind}_id")
    return record
