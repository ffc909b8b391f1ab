"""URLs a launch hands the tool, checked before the tool uses them.

A registered platform is trusted with its learners, not with the tool's origin: a
``deep_link_return_url`` of ``javascript:...`` became the action of the deep-linking autopost
form, which ran the platform's script on the tool's pages. Every URL taken from an id_token
(``deep_link_return_url``, ``launch_presentation.return_url``, the AGS ``lineitem`` and
``lineitems`` endpoints the tool calls with its access token) must be:

- ``https``, or ``http`` only on this machine (``localhost``, ``*.localhost``, 127.0.0.0/8,
  ``::1``: development) or on the origin of one of the platform's registered URLs (issuer,
  login, token, keys: the admin registered that platform at that address, so its own links are
  no less trusted than the registration; the rest of the LTI configuration accepts the same);
- an absolute URL with a plain host name or IP address, no user name or password, no
  whitespace or control character anywhere (browsers drop tabs and newlines, so
  ``java\\nscript:`` is ``javascript:``), at most :data:`MAX_URL_LENGTH` characters.

Anything else is refused with a 400 ``unsafe_url`` naming the claim.
"""
from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from grader.lti.refusals import LtiRefused

MAX_URL_LENGTH = 2000
DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?$")
_UNSAFE_CHARACTERS = re.compile(r"[\x00-\x20\x7f-\x9f\s\\]")


def _origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) URL, or ``None`` when it has none."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def is_loopback(host: str) -> bool:
    """``localhost``, a name under ``.localhost`` (RFC 6761), or a loopback address."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def registered_origins(platform) -> set[tuple[str, str, int]]:
    """The origins of the platform's registered URLs."""
    urls = (platform.issuer, platform.auth_login_url, platform.auth_token_url,
            platform.key_set_url, getattr(platform, "auth_audience", None))
    return {origin for origin in map(_origin, filter(None, urls)) if origin is not None}


def _host_ok(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return bool(_HOST_NAME.match(host))


def checked_url(value, claim: str, platform) -> str:
    """``value`` if it is a URL the tool may use (see the module docstring), else
    :class:`LtiRefused` 400 ``unsafe_url`` naming ``claim``."""
    def refuse(reason: str) -> LtiRefused:
        shown = value[:80] + ("..." if len(value) > 80 else "") if isinstance(value, str) else \
            type(value).__name__
        return LtiRefused(400, "unsafe_url", f"The launch's {claim} {shown!r} is not a URL this "
                          f"tool uses: {reason}.", claim, hint="The LMS's administrator checks "
                          "the platform's configuration; the tool accepts https URLs (http only "
                          "for this machine or the platform's registered address).")

    if not isinstance(value, str) or not value:
        raise refuse("it must be a non-empty string")
    if len(value) > MAX_URL_LENGTH:
        raise refuse(f"it is longer than {MAX_URL_LENGTH} characters")
    if _UNSAFE_CHARACTERS.search(value):
        raise refuse("it contains whitespace, a control character or a backslash")
    parts = urlsplit(value)
    origin = _origin(value)
    if origin is None:
        raise refuse("it must be an absolute https URL")
    if "@" in parts.netloc:
        raise refuse("it must not carry a user name or password")
    scheme, host, _port = origin
    if not _host_ok(host):
        raise refuse(f"{host!r} is not a host name or IP address")
    if scheme == "http" and not is_loopback(host) and origin not in registered_origins(platform):
        raise refuse("it must use https (http only for localhost or the platform's registered "
                     "address)")
    return value


def optional_url(value, claim: str, platform) -> str | None:
    """``None`` when the launch has no such URL (absent, null or empty), else
    :func:`checked_url`."""
    if value is None or value == "":
        return None
    return checked_url(value, claim, platform)


def csp_origin(url: str) -> str:
    """The origin of a :func:`checked_url` as a Content-Security-Policy source
    (``https://lms.example.edu``, ``http://127.0.0.1:8001``, ``https://[2001:db8::1]``)."""
    scheme, host, port = _origin(url)
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}" + ("" if port == DEFAULT_PORTS[scheme] else f":{port}")
