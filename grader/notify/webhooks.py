"""The ``webhook`` channel: signed POSTs of events to callback URLs.

Each delivery is a POST of a JSON event with headers ``Grader-Event-Id``, ``Grader-Timestamp`` (Unix
seconds) and ``Grader-Signature: v1=<hex>``, where the signature is
HMAC-SHA256(course webhook secret, ``"{event_id}.{timestamp}.".encode() + body``) (the scheme of
Stripe's and Svix's webhooks). A delivery counts only on a 2xx answer; anything else, a timeout or a
refused connection is retried with exponential backoff and jitter until 25 h after the event.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import socket
import time
from typing import Any, Mapping
from urllib.parse import urlsplit

import requests

from grader.notify.channel import Attempt

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "Grader-Signature"
EVENT_HEADER = "Grader-Event-Id"
TIMESTAMP_HEADER = "Grader-Timestamp"


def sign(secret: str, event_id: str, timestamp: int, body: bytes) -> str:
    """Hex HMAC-SHA256 over ``event_id.timestamp.body``."""
    message = f"{event_id}.{timestamp}.".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def verify(secret: str, headers: Mapping[str, str], body: bytes, tolerance: int = 300,
           now: float | None = None) -> bool:
    """True when ``headers`` carry a valid signature of ``body`` made less than ``tolerance``
    seconds ago (replays of old deliveries are refused)."""
    try:
        event_id = headers[EVENT_HEADER]
        timestamp = int(headers[TIMESTAMP_HEADER])
        given = headers[SIGNATURE_HEADER].split("v1=", 1)[1]
    except (KeyError, ValueError, IndexError):
        return False
    if abs((now if now is not None else time.time()) - timestamp) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, event_id, timestamp, body), given)


def private_target(url: str) -> str | None:
    """Why ``url`` must not be called from the service's network (server-side request forgery:
    loopback, private, link-local or reserved addresses, checked on every address the host
    resolves to), or ``None`` when it may."""
    host = urlsplit(url).hostname
    if not host:
        return "refused: the callback URL has no host"
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError as exc:
        return f"refused: cannot resolve {host}: {exc}"
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved \
                or ip.is_multicast or ip.is_unspecified:
            return (f"refused: {host} resolves to the non-public address {ip} (set "
                    f"WEBHOOK_ALLOW_PRIVATE=1 to allow it)")
    return None


class WebhookChannel:
    """The ``webhook`` channel: a signed POST of the event to each callback URL (the
    submission's, then its assignment version's; one delivery per distinct URL).

    Events: ``submission.graded`` and ``submission.failed`` always; ``submission.regraded``
    only when the regrade changed the score or the maximum (an unchanged grade is news to no
    LMS). With ``allow_private=False`` a URL resolving to a non-public address is refused without
    a retry (see :func:`private_target`)."""

    name = "webhook"

    def __init__(self, store, allow_private: bool = True):
        self.store = store
        self.allow_private = allow_private

    def targets(self, submission, assignment, event: dict[str, Any]) -> list[str]:
        if event["type"] == "submission.regraded":
            now, before = event["submission"], event["previous"]
            if (now["score"], now["max_score"]) == (before["score"], before["max_score"]):
                return []
        urls = [submission.callback_url, assignment.callback_url if assignment else None]
        return list(dict.fromkeys(u for u in urls if u))

    def body(self, event: dict[str, Any], target: str, submission) -> dict[str, Any]:
        return event

    def send(self, delivery, timeout: float) -> Attempt:
        refusal = None if self.allow_private else private_target(delivery.url)
        if refusal:  # never retried: the URL will not change
            log.warning("webhook %s refused: %s", delivery.id, refusal)
            return Attempt(False, None, refusal, retry=False)
        course = self.store.courses.get_course(delivery.course_id)
        body = json.dumps(delivery.payload, sort_keys=True, separators=(",", ":")).encode()
        timestamp = int(time.time())
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "attention-grader-webhooks/1",
            EVENT_HEADER: delivery.id,
            TIMESTAMP_HEADER: str(timestamp),
            SIGNATURE_HEADER: "v1=" + sign(course.webhook_secret if course else "", delivery.id,
                                           timestamp, body),
        }
        try:
            response = requests.post(delivery.url, data=body, headers=headers, timeout=timeout,
                                     allow_redirects=False)
        except requests.RequestException as exc:
            return Attempt(False, None, f"{type(exc).__name__}: {exc}"[:500])
        if 200 <= response.status_code < 300:
            return Attempt(True, response.status_code)
        return Attempt(False, response.status_code, f"HTTP {response.status_code}")
