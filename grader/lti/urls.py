"""The tool's absolute URLs, as the current request's host sees them (behind a proxy, with
``TRUSTED_PROXY_HOPS`` set, the public ``https://`` address)."""
from __future__ import annotations

from flask import url_for


def tool_urls() -> dict:
    """What a platform asks for when the tool is registered: login (OIDC initiation), launch
    (redirect URI, target link URI and deep-linking URL), the JWKS, the Canvas configuration."""
    launch = url_for("lti.launch", _external=True)
    return {"login_url": url_for("lti.login", _external=True),
            "launch_url": launch,
            "redirect_uris": [launch],
            "deep_linking_url": launch,
            "jwks_url": url_for("lti.jwks", _external=True),
            "canvas_configuration_url": url_for("lti.canvas_configuration", _external=True)}
