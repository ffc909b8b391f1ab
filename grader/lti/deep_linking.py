"""Deep Linking 2.0: an instructor picks an assignment in the LMS and the tool answers with a
signed ``LtiDeepLinkingResponse`` that creates the resource link (1EdTech LTI Deep Linking 2.0).

Between the request and the pick, the request's settings travel in the picker form as a token
signed with the service secret (itsdangerous, one hour), not in a cookie: cookies may be blocked
inside the LMS's iframe. The response's content item is an ``ltiResourceLink`` to our launch URL
with the custom parameter ``assignment_id`` and a ``lineItem`` (score maximum, label, resource id,
tag), which a platform that supports line items turns into a gradebook column.
"""
from __future__ import annotations

import secrets
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from grader.lti import claims as C
from grader.lti.launch import Launch
from grader.lti.refusals import LtiRefused

PICK_LIFETIME = 3600
LINEITEM_TAG = "grade"


def _serializer(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt="lti-deep-linking")


def deep_linking_settings(launch: Launch) -> dict[str, Any]:
    """The request's ``deep_linking_settings``, checked: it needs ``deep_link_return_url`` and
    must accept ``ltiResourceLink`` items."""
    settings = launch.claim(C.DEEP_LINKING_SETTINGS, {})
    if not isinstance(settings, dict) or not isinstance(settings.get("deep_link_return_url"), str):
        raise LtiRefused(400, "missing_claim", "The deep-linking request has no "
                         "deep_link_return_url.", C.DEEP_LINKING_SETTINGS)
    accept = settings.get("accept_types") or []
    if "ltiResourceLink" not in accept:
        raise LtiRefused(400, "unsupported_content", "The platform does not accept "
                         f"ltiResourceLink items here (accept_types: {accept!r}); this tool only "
                         "creates links to assignments.", C.DEEP_LINKING_SETTINGS)
    return settings


def pick_token(secret: str, launch: Launch, course_id: str) -> str:
    """A signed token carrying what the response needs (platform, deployment, return URL, data)."""
    settings = deep_linking_settings(launch)
    return _serializer(secret).dumps({
        "platform_id": launch.platform.id, "deployment_id": launch.deployment_id,
        "course_id": course_id, "return_url": settings["deep_link_return_url"],
        "data": settings.get("data"), "sub": launch.sub,
    })


def read_pick_token(secret: str, token: str | None) -> dict[str, Any]:
    """The settings in a picker token. Raises :class:`LtiRefused` (400) when it is missing,
    altered or older than :data:`PICK_LIFETIME` seconds."""
    if not token:
        raise LtiRefused(400, "missing_parameter", "The form has no deep-linking token.", "token")
    try:
        return _serializer(secret).loads(token, max_age=PICK_LIFETIME)
    except SignatureExpired as exc:
        raise LtiRefused(400, "token_expired", "This assignment picker is more than an hour old.",
                         "token", hint="Open the tool from the LMS again.") from exc
    except BadSignature as exc:
        raise LtiRefused(400, "invalid_token", "The deep-linking token was altered.",
                         "token") from exc


def content_item(assignment, launch_url: str) -> dict[str, Any]:
    """The ``ltiResourceLink`` for ``assignment`` (Deep Linking 2.0, 3.4.1), with its line item."""
    return {
        "type": "ltiResourceLink",
        "title": assignment.title,
        "text": assignment.description[:1000] if assignment.description else "",
        "url": launch_url,
        "custom": {"assignment_id": assignment.id},
        "lineItem": {"scoreMaximum": assignment.max_score, "label": assignment.title,
                     "resourceId": assignment.id, "tag": LINEITEM_TAG},
    }


def response_claims(platform, pick: dict[str, Any], items: list[dict[str, Any]]
                    ) -> dict[str, Any]:
    """Claims of the ``LtiDeepLinkingResponse`` JWT (Deep Linking 2.0, 4.2): ``iss`` our
    client_id, ``aud`` the platform issuer, a fresh ``nonce``, the request's ``data`` echoed."""
    body = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "nonce": secrets.token_urlsafe(24),
        C.MESSAGE_TYPE: C.DEEP_LINKING_RESPONSE,
        C.VERSION: C.LTI_VERSION,
        C.DEPLOYMENT_ID: pick["deployment_id"],
        C.DL_CONTENT_ITEMS: items,
    }
    if pick.get("data") is not None:
        body[C.DL_DATA] = pick["data"]
    return body
