"""Refusals of the LTI endpoints: one exception, shown as a short HTML page to a browser (what
happened and what to do) or as the API's JSON error shape to a client that asks for JSON."""
from __future__ import annotations

from grader.errors import error_response


class LtiRefused(Exception):
    """A login, launch or deep-linking request the tool will not accept.

    ``status``: 400 malformed, 401 the id_token or login failed verification (signature, expiry,
    audience, nonce, state), 403 well-formed but not allowed (unregistered platform or deployment,
    role), 404 unknown assignment, 409 a deep-linking pick already used, 429 too many requests
    from the client's address, 502 the platform's keys could not be fetched.
    ``code``: machine-readable reason; ``field``: the parameter or claim at fault; ``headers``:
    added to the answer (``Retry-After`` of a 429).
    """

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 hint: str | None = None, retry_url: str | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.field = status, code, message, field
        self.hint = hint
        self.retry_url = retry_url  # the new-window fallback: restart the login there
        self.headers = headers or {}


TITLES = {400: "This LTI request is malformed", 401: "This launch could not be verified",
          403: "This launch is not allowed", 404: "Not found",
          409: "This was done already", 429: "Too many requests",
          502: "The LMS could not be reached"}


def wants_json() -> bool:
    """True when the client prefers JSON to HTML (API-style clients)."""
    from flask import request  # (here: the worker imports this module and needs no Flask)

    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def render_refusal(error: LtiRefused):
    from flask import render_template

    if wants_json():
        return error_response(error.status, error.code, error.message, error.field,
                              headers=error.headers)
    html = render_template("lti/refusal.html", error=error,
                           title=TITLES.get(error.status, "Request refused"))
    return html, error.status, {"Content-Type": "text/html; charset=utf-8",
                                "Cache-Control": "no-store", **error.headers}
