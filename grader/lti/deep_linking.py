"""Deep Linking 2.0: an instructor picks an assignment in the LMS and the tool answers with a
signed ``LtiDeepLinkingResponse`` that creates the resource link (1EdTech LTI Deep Linking 2.0).

The picker a deep-linking launch opens is a *pick*, stored like a login state
(:class:`grader.store.lti_models.LtiDeepLinkPick`): what the response needs (deployment, the
checked return URL, the request's ``data``), the launch it belongs to (its login ``state``, the
instructor's ``sub``), and the SHA-256 of a secret set as a cookie in the browser that launched
(the launch itself proved this browser keeps the tool's cookies). The picker form carries a
token signed with the service secret (itsdangerous) naming the pick and its launch. A pick is
single use (consumed by one conditional update: a second post, or a replayed one, is refused
409 ``pick_used``), valid :data:`PICK_LIFETIME` seconds, and only in the browser holding its
cookie (403 ``pick_other_browser``). The response's content item is an ``ltiResourceLink`` to
our launch URL with the custom parameter ``assignment_id`` and a ``lineItem`` (score maximum,
label, resource id, tag), which a platform that supports line items turns into a gradebook
column.
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Mapping

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from grader.lti import claims as C
from grader.lti.launch import Launch
from grader.lti.launch_urls import checked_url
from grader.lti.refusals import LtiRefused
from grader.store.models import utcnow

PICK_LIFETIME = 3600
LINEITEM_TAG = "grade"
PICK_COOKIE_PREFIX = "lti_pick_"


def _serializer(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt="lti-deep-linking")


def _digest(browser_secret: str) -> str:
    return hashlib.sha256(browser_secret.encode()).hexdigest()


def pick_cookie_name(pick_id: str) -> str:
    """One cookie per pick, so two pickers open at once do not collide."""
    return PICK_COOKIE_PREFIX + pick_id


def deep_linking_settings(launch: Launch) -> dict[str, Any]:
    """The request's ``deep_linking_settings``, checked: it needs a ``deep_link_return_url`` the
    tool may post to (:func:`grader.lti.launch_urls.checked_url`: https, http only locally) and
    must accept ``ltiResourceLink`` items."""
    settings = launch.claim(C.DEEP_LINKING_SETTINGS, {})
    if not isinstance(settings, dict) or not isinstance(settings.get("deep_link_return_url"), str):
        raise LtiRefused(400, "missing_claim", "The deep-linking request has no "
                         "deep_link_return_url.", C.DEEP_LINKING_SETTINGS)
    checked_url(settings["deep_link_return_url"], "deep_linking_settings.deep_link_return_url",
                launch.platform)
    accept = settings.get("accept_types") or []
    if "ltiResourceLink" not in accept:
        raise LtiRefused(400, "unsupported_content", "The platform does not accept "
                         f"ltiResourceLink items here (accept_types: {accept!r}); this tool only "
                         "creates links to assignments.", C.DEEP_LINKING_SETTINGS)
    return settings


@dataclass(frozen=True)
class IssuedPick:
    """A new pick: the ``token`` for the picker form, and the cookie binding it to the browser."""

    token: str
    cookie_name: str
    cookie_value: str


def issue_pick(repo, secret: str, launch: Launch, course_id: str, launch_state: str
               ) -> IssuedPick:
    """Store the pick of a verified deep-linking ``launch`` (made with login ``launch_state``)
    and return its form token and browser cookie. Raises :class:`LtiRefused` when the request's
    settings are unusable (:func:`deep_linking_settings`)."""
    settings = deep_linking_settings(launch)
    pick_id, browser_secret = secrets.token_urlsafe(24), secrets.token_urlsafe(32)
    repo.create_pick(timedelta(seconds=PICK_LIFETIME), id=pick_id, launch_state=launch_state,
                     platform_id=launch.platform.id, deployment_id=launch.deployment_id,
                     course_id=course_id, user_sub=launch.sub,
                     return_url=settings["deep_link_return_url"], data=settings.get("data"),
                     browser_sha256=_digest(browser_secret))
    token = _serializer(secret).dumps({"pick": pick_id, "state": launch_state})
    return IssuedPick(token, pick_cookie_name(pick_id), browser_secret)


def read_pick(repo, secret: str, token: str | None, cookies: Mapping[str, str]):
    """The pick a picker form's ``token`` names, if it is genuine, unexpired, unused and this
    browser (``cookies``) holds its cookie. Raises :class:`LtiRefused`: 400 missing, altered or
    expired token, 409 used already, 403 another browser."""
    if not token:
        raise LtiRefused(400, "missing_parameter", "The form has no deep-linking token.", "token")
    try:
        data = _serializer(secret).loads(token, max_age=PICK_LIFETIME)
    except SignatureExpired as exc:
        raise LtiRefused(400, "token_expired", "This assignment picker is more than an hour old.",
                         "token", hint="Open the tool from the LMS again.") from exc
    except BadSignature as exc:
        raise LtiRefused(400, "invalid_token", "The deep-linking token was altered.",
                         "token") from exc
    row = repo.pick(data.get("pick", "")) if isinstance(data, dict) else None
    if row is None or row.launch_state != data.get("state"):
        raise LtiRefused(400, "token_expired", "This assignment picker is no longer known (it "
                         "expired).", "token", hint="Open the tool from the LMS again.")
    if row.used_at is not None:
        raise LtiRefused(409, "pick_used", "This assignment picker was used already: each "
                         "deep-linking launch links one assignment, once.", "token",
                         hint="To link another assignment, open the tool from the LMS again.")
    if row.expires_at <= utcnow():
        raise LtiRefused(400, "token_expired", "This assignment picker is more than an hour old.",
                         "token", hint="Open the tool from the LMS again.")
    browser = cookies.get(pick_cookie_name(row.id))
    if browser is None or not secrets.compare_digest(_digest(browser), row.browser_sha256):
        raise LtiRefused(403, "pick_other_browser", "This assignment picker belongs to the "
                         "browser that opened it from the LMS (its cookie did not come back).",
                         "token", hint="Open the tool from the LMS again in this browser.")
    return row


def consume_pick(repo, row, cookies: Mapping[str, str]) -> None:
    """Use the pick ``row`` (read by :func:`read_pick`) once; :class:`LtiRefused` 409 when
    another request used it first."""
    browser = cookies.get(pick_cookie_name(row.id), "")
    if not repo.consume_pick(row.id, _digest(browser)):
        raise LtiRefused(409, "pick_used", "This assignment picker was used already: each "
                         "deep-linking launch links one assignment, once.", "token",
                         hint="To link another assignment, open the tool from the LMS again.")


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


def response_claims(platform, pick, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Claims of the ``LtiDeepLinkingResponse`` JWT (Deep Linking 2.0, 4.2) for a ``pick``
    (:class:`~grader.store.lti_models.LtiDeepLinkPick`): ``iss`` our client_id, ``aud`` the
    platform issuer, a fresh ``nonce``, the request's ``data`` echoed."""
    body = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "nonce": secrets.token_urlsafe(24),
        C.MESSAGE_TYPE: C.DEEP_LINKING_RESPONSE,
        C.VERSION: C.LTI_VERSION,
        C.DEPLOYMENT_ID: pick.deployment_id,
        C.DL_CONTENT_ITEMS: items,
    }
    if pick.data is not None:
        body[C.DL_DATA] = pick.data
    return body
