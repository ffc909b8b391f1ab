"""Authentication (API keys) and authorisation (roles, course scope) for the HTTP interface.

Keys come in ``Authorization: Bearer <key>`` (or ``X-API-Key``). Missing or invalid -> 401; a valid
key whose role may not use the endpoint -> 403. A resource of another course answers exactly like a
missing one (404), so ids of other courses reveal nothing.
"""
from __future__ import annotations

from flask import g, request

from grader.api.errors import ApiError, error_response
from grader.api.state import state
from grader.auth import Principal

#: Paths anyone may read: the OpenAPI document and docs, and the signed result links.
PUBLIC_PREFIXES = ("/api/v1/openapi.json", "/api/v1/docs", "/api/v1/results/")


def _presented_key() -> str | None:
    header = request.headers.get("Authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip()
    return request.headers.get("X-API-Key")


def authenticate():
    """``before_request``: attach the caller's :class:`Principal` to ``g`` or answer 401."""
    g.principal = None
    if not request.path.startswith("/api/") or request.path.startswith(PUBLIC_PREFIXES):
        return None
    if request.method == "OPTIONS":
        return None
    plaintext = _presented_key()
    if not plaintext:
        return error_response(401, "unauthorized", "An API key is required: send "
                              "'Authorization: Bearer <key>'.", "Authorization",
                              headers={"WWW-Authenticate": 'Bearer realm="grader"'})
    principal = state().store.courses.authenticate(plaintext)
    if principal is None:
        return error_response(401, "unauthorized", "The API key is not valid (unknown, "
                              "malformed or revoked).", "Authorization",
                              headers={"WWW-Authenticate": 'Bearer realm="grader", '
                                                           'error="invalid_token"'})
    g.principal = principal
    return None


def require(*roles: str) -> Principal:
    """The caller, if its role is one of ``roles``; else 403."""
    principal: Principal | None = g.get("principal")
    if principal is None:  # pragma: no cover - authenticate() answers 401 first
        raise ApiError(401, "unauthorized", "An API key is required.", "Authorization")
    if principal.role not in roles:
        raise ApiError(403, "forbidden", f"A key with role {principal.role!r} may not do this; "
                       f"it needs one of: {', '.join(roles)}.", "Authorization")
    return principal


def require_course(*roles: str) -> Principal:
    """Like :func:`require`, for course-scoped endpoints (admin keys have no course)."""
    return require(*[r for r in roles if r != "admin"])


def require_same_course(principal: Principal, course_id: str) -> None:
    """403 when a path names a course other than the key's own."""
    if principal.role != "admin" and principal.course_id != course_id:
        raise ApiError(403, "forbidden", "This key belongs to another course.", "course_id")
