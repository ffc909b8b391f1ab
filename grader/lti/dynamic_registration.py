"""LTI Dynamic Registration 1.0 (1EdTech, 2021), the tool's side: an admin pastes one URL in the
LMS (Moodle 4.x, Canvas), and the tool registers itself.

1. An admin of the grader makes a registration link for one course (``POST
   /api/v1/lti/registration-links``): ``/lti/register?link=<secret>``, single use, valid
   :data:`LINK_LIFETIME`.
2. The LMS opens that URL with ``openid_configuration`` (the platform's configuration URL) and,
   usually, ``registration_token`` added to the query (section 3.3).
3. The tool fetches the configuration (3.4; ``issuer``, ``authorization_endpoint``,
   ``token_endpoint``, ``jwks_uri``, ``registration_endpoint``) and POSTs its client registration
   (3.5: redirect URIs, login URL, JWKS URL, scopes, the LTI claims and messages it uses) to the
   ``registration_endpoint`` with the token as a bearer token.
4. The answer's ``client_id`` and deployment id (in
   ``https://purl.imsglobal.org/spec/lti-tool-configuration``) make the platform registration of
   the link's course; the page shown in the LMS says what was registered and posts
   ``{"subject": "org.imsglobal.lti.close"}`` to its opener or parent (3.6), which closes it.
"""
from __future__ import annotations

import hashlib
import json
import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import requests

from grader.lti import claims as C
from grader.lti.refusals import LtiRefused

LINK_LIFETIME = timedelta(days=7)
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
SCOPE_MEMBERSHIPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
TOOL_SCOPES = (C.SCOPE_LINEITEM, C.SCOPE_LINEITEM_READONLY, C.SCOPE_SCORE, SCOPE_MEMBERSHIPS)
MAX_DOCUMENT_BYTES = 256 * 1024
REQUIRED = ("issuer", "authorization_endpoint", "token_endpoint", "jwks_uri",
            "registration_endpoint")


def new_link_secret() -> tuple[str, str]:
    """A link's secret and its id (the SHA-256 the store keeps)."""
    secret = secrets.token_urlsafe(24)
    return secret, link_id(secret)


def link_id(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _web_url(value: Any, name: str) -> str:
    if not isinstance(value, str) or urlsplit(value).scheme not in ("https", "http") \
            or not urlsplit(value).netloc or len(value) > 2000:
        raise LtiRefused(400, "invalid_configuration", f"The platform's {name} is not an http(s) "
                         "URL.", name)
    return value


def _read_json(response: requests.Response, what: str) -> dict:
    body = response.raw.read(MAX_DOCUMENT_BYTES + 1, decode_content=True)
    response.close()
    if len(body) > MAX_DOCUMENT_BYTES:
        raise LtiRefused(502, "invalid_configuration", f"The platform's {what} is larger than "
                         f"{MAX_DOCUMENT_BYTES} bytes.", what)
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise LtiRefused(502, "invalid_configuration", f"The platform's {what} is not JSON.",
                         what) from exc
    if not isinstance(document, dict):
        raise LtiRefused(502, "invalid_configuration", f"The platform's {what} is not a JSON "
                         "object.", what)
    return document


def fetch_configuration(url: str, timeout: float = 10.0) -> dict:
    """The platform's OpenID configuration at ``url``, with the fields registration needs.
    Raises :class:`LtiRefused` (400 a bad URL, 502 unreachable or incomplete)."""
    _web_url(url, "openid_configuration")
    try:
        response = requests.get(url, timeout=timeout, allow_redirects=False, stream=True,
                                headers={"Accept": "application/json"})
    except requests.RequestException as exc:
        raise LtiRefused(502, "platform_unreachable", "The platform's configuration could not be "
                         f"fetched ({type(exc).__name__}).", "openid_configuration") from exc
    if response.status_code != 200:
        raise LtiRefused(502, "platform_unreachable", "The platform's configuration could not be "
                         f"fetched (HTTP {response.status_code}).", "openid_configuration")
    config = _read_json(response, "openid_configuration")
    for name in REQUIRED:
        _web_url(config.get(name), name)
    return config


def registration_request(urls: dict, title: str, config: dict) -> dict:
    """The client registration the tool sends (Dynamic Registration 1.0, 3.5.2): ``urls`` are
    the tool's (:func:`grader.lti.urls.tool_urls`); the scopes asked are those the platform
    supports, when it lists them."""
    supported = config.get("scopes_supported")
    scopes = [s for s in TOOL_SCOPES if not isinstance(supported, list) or s in supported]
    launch = urls["launch_url"]
    return {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": urls["login_url"],
        "redirect_uris": urls["redirect_uris"],
        "client_name": title,
        "jwks_uri": urls["jwks_url"],
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(scopes),
        TOOL_CONFIGURATION: {
            "domain": urlsplit(launch).netloc,
            "target_link_uri": launch,
            "claims": ["iss", "sub", "name", "given_name", "family_name"],
            "messages": [
                {"type": C.RESOURCE_LINK_REQUEST, "target_link_uri": launch},
                {"type": C.DEEP_LINKING_REQUEST, "target_link_uri": launch,
                 "label": title, "placements": ["link_selection", "assignment_selection"]},
            ],
        },
    }


def register(config: dict, body: dict, registration_token: str | None,
             timeout: float = 10.0) -> dict:
    """POST ``body`` to the platform's registration endpoint; returns the platform fields of our
    registration: ``issuer``, ``client_id``, ``deployment_ids``, ``auth_login_url``,
    ``auth_token_url``, ``key_set_url``. Raises :class:`LtiRefused` (502) when the platform
    refuses or answers without a client id."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if registration_token:
        headers["Authorization"] = f"Bearer {registration_token}"
    try:
        response = requests.post(config["registration_endpoint"], data=json.dumps(body),
                                 headers=headers, timeout=timeout, allow_redirects=False,
                                 stream=True)
    except requests.RequestException as exc:
        raise LtiRefused(502, "platform_unreachable", "The platform's registration endpoint "
                         f"could not be reached ({type(exc).__name__}).",
                         "registration_endpoint") from exc
    if not 200 <= response.status_code < 300:
        raise LtiRefused(502, "registration_refused", "The platform refused the registration "
                         f"(HTTP {response.status_code}).", "registration_endpoint")
    answer = _read_json(response, "registration response")
    client_id = answer.get("client_id")
    tool = answer.get(TOOL_CONFIGURATION) if isinstance(answer.get(TOOL_CONFIGURATION),
                                                        dict) else {}
    deployment = tool.get("deployment_id")
    if not isinstance(client_id, str) or not client_id or len(client_id) > 255:
        raise LtiRefused(502, "registration_refused", "The platform's answer has no client_id.",
                         "client_id")
    if not isinstance(deployment, str) or not deployment or len(deployment) > 255:
        raise LtiRefused(502, "registration_refused", "The platform's answer has no deployment "
                         "id; add the tool to a course in the LMS, then register again.",
                         "deployment_id")
    return {"issuer": config["issuer"], "client_id": client_id, "deployment_ids": [deployment],
            "auth_login_url": config["authorization_endpoint"],
            "auth_token_url": config["token_endpoint"], "key_set_url": config["jwks_uri"]}
