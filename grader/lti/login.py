"""OIDC third-party initiated login (1EdTech Security Framework 1.0, 5.1.1; LTI Core 1.3, 4.1).

The platform sends ``iss``, ``login_hint``, ``target_link_uri`` and optionally
``lti_message_hint``, ``client_id`` and ``lti_deployment_id``. The tool answers with a redirect to
the platform's authorization endpoint carrying ``scope=openid``, ``response_type=id_token``,
``response_mode=form_post``, ``prompt=none``, ``client_id``, ``redirect_uri``, ``login_hint``,
``lti_message_hint``, a fresh ``state`` and a fresh ``nonce``. Both are kept in the database (the
launch consumes them once) and the state is also set in a cookie, binding the launch to this
browser.

The endpoint is open to anyone (the platform's page sends the browser here), so what it keeps is
bounded: each parameter at most :data:`MAX_PARAM_BYTES` (1 KiB; longer is a 400), a row holds
only what the launch needs (state, nonce, platform, and the hints the new-window fallback sends
again), rows are deleted once expired (:data:`LOGIN_LIFETIME`, 10 minutes), and the views limit
logins per client address (``LTI_RATE_LIMIT``).
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from grader.lti.refusals import LtiRefused
from grader.store.models import utcnow

#: How long the platform has to answer a login with the id_token.
LOGIN_LIFETIME = timedelta(minutes=10)
#: Login parameters read, in this order.
LOGIN_PARAMS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "client_id",
                "lti_deployment_id", "lti_storage_target")
#: The longest frame name accepted as ``lti_storage_target`` (Canvas: post_message_forwarding).
MAX_STORAGE_TARGET = 64
#: Those kept with the state, for the new-window fallback (which sends the login again); ``iss``
#: and ``client_id`` are the platform's, which the state names.
KEPT_PARAMS = ("login_hint", "target_link_uri", "lti_message_hint", "lti_deployment_id")
STATE_COOKIE_PREFIX = "lti_state_"
#: The longest login parameter accepted, in bytes of UTF-8 (platforms send ids and URLs: Canvas's
#: and Moodle's hints are tens of characters; a target link URI a few hundred at most).
MAX_PARAM_BYTES = 1024


@dataclass
class LoginRedirect:
    """Where to send the browser (the platform's auth URL) and the state to bind by cookie.
    ``storage``: when the platform offers its client-side storage (``lti_storage_target``,
    1EdTech LTI Client Side postMessages), what the login page stores there before going on:
    ``target`` (the frame), ``origin`` (the platform's, for ``postMessage``), ``key`` and
    ``value`` (a secret whose SHA-256 the state keeps; it binds the launch to this browser when
    cookies do not come back)."""

    location: str
    state: str
    storage: dict | None = None


def storage_key(state: str) -> str:
    """The key of a login's secret in the platform's storage."""
    return "lti_state_" + state


def storage_digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def valid_storage_target(value: str) -> bool:
    """``_parent`` or a frame name: ASCII letters, digits, ``_`` and ``-``, at most 64."""
    return 0 < len(value) <= MAX_STORAGE_TARGET and all(
        c.isascii() and (c.isalnum() or c in "_-") for c in value)


def with_query(url: str, params: Mapping[str, str]) -> str:
    """``url`` with ``params`` added to its query (existing parameters are kept)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True) + list(params.items())
    return urlunsplit(parts._replace(query=urlencode(query)))


def select_platform(repo, issuer: str, client_id: str | None):
    """The registration a login names: by issuer and client_id, or the issuer's only one."""
    registered = repo.platforms_of_issuer(issuer)
    if client_id:
        registered = [p for p in registered if p.client_id == client_id]
        if not registered:
            raise LtiRefused(403, "unknown_platform", f"No platform with issuer {issuer!r} and "
                             f"client_id {client_id!r} is registered with this tool.",
                             "client_id", hint="An administrator registers the LMS at "
                                               "POST /api/v1/lti/platforms.")
    if not registered:
        raise LtiRefused(403, "unknown_platform", f"No platform with issuer {issuer!r} is "
                         "registered with this tool.", "iss",
                         hint="An administrator registers the LMS at POST /api/v1/lti/platforms.")
    if len(registered) > 1:
        raise LtiRefused(400, "ambiguous_platform", f"Several registrations share issuer "
                         f"{issuer!r}; the login must send client_id to pick one.", "client_id")
    return registered[0]


def begin_login(repo, params: Mapping[str, str], redirect_uri: str, tool_host: str
                ) -> LoginRedirect:
    """Validate a login initiation and record its state and nonce. ``redirect_uri`` is our
    launch URL; ``tool_host`` is our ``host[:port]`` (``target_link_uri`` must point at us).
    Raises :class:`LtiRefused` naming the parameter at fault."""
    values = {}
    for name in LOGIN_PARAMS:
        value = params.get(name)
        if name == "lti_deployment_id" and not value:
            value = params.get("deployment_id")  # Canvas documents this spelling
        if value is not None and len(value.encode("utf-8", "surrogatepass")) > MAX_PARAM_BYTES:
            raise LtiRefused(400, "parameter_too_long", f"{name} is "
                             f"{len(value.encode('utf-8', 'surrogatepass'))} bytes long; this "
                             f"tool accepts at most {MAX_PARAM_BYTES} (1 KiB) per login "
                             "parameter.", name, hint="Start the activity again from the LMS; "
                             "if this persists, the LMS sends an unusual login request.")
        if value:
            values[name] = value
    for name in ("iss", "login_hint", "target_link_uri"):
        if name not in values:
            raise LtiRefused(400, "missing_parameter", f"The login initiation has no {name} "
                             "parameter (OIDC third-party initiated login needs iss, login_hint "
                             "and target_link_uri).", name)
    target = urlsplit(values["target_link_uri"])
    if target.scheme not in ("http", "https") or target.netloc != tool_host:
        raise LtiRefused(400, "foreign_target_link_uri", f"target_link_uri "
                         f"{values['target_link_uri']!r} does not point at this tool "
                         f"({tool_host}).", "target_link_uri")
    platform = select_platform(repo, values["iss"], values.get("client_id"))
    deployment = values.get("lti_deployment_id")
    if deployment is not None and deployment not in (platform.deployment_ids or []):
        raise LtiRefused(403, "unknown_deployment", f"Deployment {deployment!r} of "
                         f"{platform.issuer} is not registered with this tool.",
                         "lti_deployment_id", hint="An administrator adds the deployment id to "
                                                   "the platform's registration.")
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    kept = {k: values[k] for k in KEPT_PARAMS if k in values}
    storage = None
    target_frame = values.get("lti_storage_target")
    if target_frame is not None and valid_storage_target(target_frame):
        auth = urlsplit(platform.auth_login_url)
        storage = {"target": target_frame, "origin": f"{auth.scheme}://{auth.netloc}",
                   "key": storage_key(state), "value": secrets.token_urlsafe(32)}
        kept["storage"] = {"target": storage["target"], "origin": storage["origin"],
                           "sha256": storage_digest(storage["value"])}
    repo.forget_login_states(expired_before=utcnow())
    repo.create_login_state(state, nonce, platform.id, kept, LOGIN_LIFETIME)
    query = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
             "prompt": "none", "client_id": platform.client_id, "redirect_uri": redirect_uri,
             "login_hint": values["login_hint"], "state": state, "nonce": nonce}
    if "lti_message_hint" in values:
        query["lti_message_hint"] = values["lti_message_hint"]
    return LoginRedirect(location=with_query(platform.auth_login_url, query), state=state,
                         storage=storage)


def state_cookie_name(state: str) -> str:
    """One cookie per login, so two activities launched at once in one page do not collide."""
    return STATE_COOKIE_PREFIX + state
