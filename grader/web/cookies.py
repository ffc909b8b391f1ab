"""The session cookie's attributes, chosen per request so the pages work inside an LMS iframe.

An LMS shows a tool in an iframe of another site, where browsers send and store only cookies marked
``SameSite=None; Secure`` (and, where third-party cookies are blocked, only ``Partitioned`` ones,
CHIPS). ``Secure`` cookies need HTTPS, and browsers refuse ``SameSite=None`` without ``Secure``, so
the attributes depend on how the request arrived:

- ``WEB_COOKIE_SAMESITE`` = ``auto`` (default): ``None`` (with ``Secure`` and ``Partitioned``) on a
  request that came over HTTPS, ``Lax`` over plain HTTP (a laptop, the tests); or ``None``,
  ``Lax``, ``Strict`` always.
- ``WEB_COOKIE_SECURE`` = ``auto`` (default: on HTTPS requests), ``1`` or ``0``.
- Behind a TLS-terminating proxy set ``TRUSTED_PROXY_HOPS`` (:mod:`grader.web`) so that
  ``X-Forwarded-Proto: https`` counts as HTTPS.
"""
from __future__ import annotations

from flask import Flask, has_request_context, request
from flask.sessions import SecureCookieSessionInterface

SAMESITE_VALUES = {"auto": "auto", "none": "None", "lax": "Lax", "strict": "Strict"}
SWITCH_VALUES = {"auto": "auto", "1": True, "true": True, "yes": True, "on": True,
                 "0": False, "false": False, "no": False, "off": False}


def parse_samesite(value: str) -> str:
    """``auto``, ``None``, ``Lax`` or ``Strict`` (any case). Raises ``ValueError`` naming the
    setting for anything else."""
    key = str(value).strip().lower()
    if key not in SAMESITE_VALUES:
        raise ValueError(f"WEB_COOKIE_SAMESITE: one of auto, None, Lax, Strict; got {value!r}")
    return SAMESITE_VALUES[key]


def parse_switch(name: str, value) -> str | bool:
    """``auto``, or a boolean from 1/0, true/false, yes/no, on/off. Raises ``ValueError``."""
    if isinstance(value, bool):
        return value
    key = str(value).strip().lower()
    if key not in SWITCH_VALUES:
        raise ValueError(f"{name}: one of auto, 1, 0; got {value!r}")
    return SWITCH_VALUES[key]


def _secure_request() -> bool:
    return has_request_context() and request.is_secure


class FramedSessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session whose ``SameSite``, ``Secure`` and ``Partitioned``
    attributes follow the settings above, decided for each response."""

    def __init__(self, samesite: str = "auto", secure: str | bool = "auto"):
        self.samesite = parse_samesite(samesite)
        self.secure = parse_switch("WEB_COOKIE_SECURE", secure)

    def get_cookie_secure(self, app: Flask) -> bool:
        if self.secure == "auto":
            return _secure_request() or self.get_cookie_samesite(app) == "None"
        return bool(self.secure) or self.get_cookie_samesite(app) == "None"

    def get_cookie_samesite(self, app: Flask) -> str:
        if self.samesite == "auto":
            return "None" if _secure_request() else "Lax"
        return self.samesite

    def get_cookie_partitioned(self, app: Flask) -> bool:
        # CHIPS: a partitioned cookie still works in a third-party iframe where the browser
        # blocks third-party cookies; it is only valid with SameSite=None; Secure.
        return self.get_cookie_samesite(app) == "None" and self.get_cookie_secure(app)
