"""The one JSON shape of every error answer, ``{"status", "code", "message", "field",
"errors"}``, shared by the API (:mod:`grader.api.errors`), the LTI endpoints and the store-outage
answer of :mod:`grader.observability`. It needs Flask but no part of the API, so a module below the
API can answer in the API's shape without loading it."""
from __future__ import annotations

from typing import Any


def error_response(status: int, code: str, message: str, field: str | None = None,
                   errors: Any = None, headers: dict[str, str] | None = None):
    """A JSON response ``status`` with body ``{"status", "code", "message", "field"}`` (and
    ``errors``, a marshmallow message tree, when given) and the extra ``headers``. Call inside an
    application context."""
    from flask import jsonify  # (here: importing this module loads no Flask)

    body = {"status": status, "code": code, "message": message, "field": field}
    if errors is not None:
        body["errors"] = errors
    response = jsonify(body)
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response
