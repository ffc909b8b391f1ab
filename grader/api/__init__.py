"""The HTTP interface under ``/api/v1`` (flask-smorest: marshmallow schemas + OpenAPI document)."""
from __future__ import annotations

import logging

from flask import Flask, request
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from grader.api import (analytics, assignments, courses, extensions, overrides, prechecks,
                        problems, rubrics, submissions, webhooks)
from grader.api.auth import authenticate
from grader.api.item_schemas import register_item_schemas
from grader.api.errors import ApiError, error_response, handle_api_error, handle_http_exception
from grader.api.parsing import JSONProvider
from grader.api.schemas import ErrorSchema

#: Content types body-taking endpoints accept (everything else: 415), by path prefix; JSON always.
log = logging.getLogger(__name__)

JSON_TYPES = {"application/json"}
#: PATCH bodies are JSON Merge Patches (RFC 7386); plain JSON is accepted too.
MERGE_PATCH_TYPE = "application/merge-patch+json"
EXTRA_TYPES: dict[str, set[str]] = {}


class GraderApi(Api):
    """flask-smorest's Api with our one error shape (documented as the ``Error`` component)."""

    ERROR_SCHEMA = ErrorSchema

    def handle_http_exception(self, error: HTTPException):
        return handle_http_exception(error)


def _check_content_type():
    has_body = bool(request.content_length) or request.headers.get("Transfer-Encoding")
    if request.method in ("POST", "PUT", "PATCH") and request.path.startswith("/api/") and has_body:
        allowed = set(JSON_TYPES)
        if request.method == "PATCH":
            allowed.add(MERGE_PATCH_TYPE)
        for prefix, types in EXTRA_TYPES.items():
            if request.path.startswith(prefix):
                allowed |= types
        if request.mimetype not in allowed:
            return error_response(
                415, "unsupported_media_type",
                f"Content-Type must be one of {', '.join(sorted(allowed))}, "
                f"not {request.mimetype or 'none'!r}.", "Content-Type")
    return None


def _too_deep(_error: RecursionError):
    """JSON nested deeper than the parser's recursion limit (the only unbounded recursion a
    request can drive) is the client's fault, not a 500."""
    return error_response(400, "invalid_json", "The JSON body is nested too deeply.", None)


def _not_unicode(error: UnicodeEncodeError):
    """Text with an unpaired surrogate (a JSON escape like \\ud800) cannot be stored or hashed:
    400 when it came in the request's body. A request without a body (a GET of a result, a
    page) met it in what the service holds: the service's fault, 500, logged, never "the body"
    (stored results are cleaned when written and read, :mod:`grader.safetext`)."""
    if request.method in ("GET", "HEAD", "OPTIONS", "DELETE") or not request.content_length:
        log.error("a stored value is not valid Unicode (%s %s): %s", request.method,
                  request.path, error)
        return error_response(500, "internal_error", "The server could not encode a value it "
                              "holds; it has been logged.", None)
    return error_response(400, "invalid_json", "The body contains a string that is not valid "
                          "Unicode (an unpaired surrogate such as \\ud800).", None)


def register_api(app: Flask) -> Api:
    app.config.setdefault("API_TITLE", "Attention grader")
    app.config.setdefault("API_VERSION", "v1")
    app.config.setdefault("OPENAPI_VERSION", "3.0.3")
    app.config.setdefault("OPENAPI_URL_PREFIX", "/api/v1")
    app.config.setdefault("OPENAPI_JSON_PATH", "openapi.json")
    app.config.setdefault("OPENAPI_SWAGGER_UI_PATH", "/docs")
    # Swagger UI from our own vendored copy (grader/web/static/vendor/swagger-ui, served under
    # /assets/): the docs work offline. Relative to /api/v1/docs, so a path prefix keeps working.
    app.config.setdefault("OPENAPI_SWAGGER_UI_URL", "../../assets/vendor/swagger-ui/")
    provider = JSONProvider(app)  # request.get_json() reads numbers as the API's bodies do
    for setting in ("sort_keys", "ensure_ascii", "compact", "mimetype"):
        setattr(provider, setting, getattr(app.json, setting))
    app.json = provider
    api = GraderApi(app)
    api.spec.components.security_scheme("ApiKey", {"type": "http", "scheme": "bearer"})
    api.spec.options["security"] = [{"ApiKey": []}]
    register_item_schemas(api)
    EXTRA_TYPES["/api/v1/rubrics"] = rubrics.YAML_TYPES
    EXTRA_TYPES["/api/v1/problems"] = problems.YAML_TYPES
    for module in (assignments, submissions, prechecks, overrides, extensions, analytics, courses,
                   rubrics, problems, webhooks):
        api.register_blueprint(module.blp)
    app.register_error_handler(ApiError, handle_api_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(RecursionError, _too_deep)
    app.register_error_handler(UnicodeEncodeError, _not_unicode)
    app.before_request(authenticate)
    app.before_request(_check_content_type)
    return api
