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
import time
from typing import Any, Mapping

from grader.notify.channel import Attempt
from grader.notify.http import (DeliveryFault, Resolver, Target, request, resolve_target,
                                system_resolve)

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


def non_public(address: str) -> bool:
    """Whether the IP ``address`` is loopback, private, link-local, reserved, multicast or
    unspecified (an address a callback from the service's network must not reach)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return bool(ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved
                or ip.is_multicast or ip.is_unspecified)


def refusal(host: str, addresses: list[str]) -> str | None:
    """Why a callback to ``host``, resolved to ``addresses``, is refused (one of them is not
    public, see :func:`non_public`), or ``None``."""
    for address in addresses:
        if non_public(address):
            return (f"refused: {host} resolves to the non-public address {address} (set "
                    f"WEBHOOK_ALLOW_PRIVATE=1 to allow it)")
    return None


def private_target(url: str, resolve: Resolver = system_resolve) -> str | None:
    """Why ``url`` must not be called from the service's network (server-side request forgery:
    loopback, private, link-local or reserved addresses, checked on every address the host
    resolves to), or ``None`` when it may. A sender connects to the addresses checked, never
    resolving again (:mod:`grader.notify.http`)."""
    try:
        target = Target.of(url)
        addresses = resolve_target(target, resolve)
    except DeliveryFault as exc:
        return f"refused: {str(exc).split(': ', 1)[1]}"
    return refusal(target.host, addresses)


class WebhookChannel:
    """The ``webhook`` channel: a signed POST of the event to each callback URL (the
    submission's, then its assignment version's; one delivery per distinct URL).

    Events: ``submission.graded`` and ``submission.failed`` always; ``submission.regraded``
    only when the regrade changed the score or the maximum (an unchanged grade is news to no
    LMS). With ``allow_private=False`` a URL resolving to a non-public address is refused without
    a retry (see :func:`private_target`). The host is resolved once per attempt with ``resolve``
    (``(host, port) -> addresses``) and the POST connects to the address checked
    (:func:`grader.notify.http.request`), within ``timeout`` seconds for the whole attempt."""

    name = "webhook"

    def __init__(self, store, allow_private: bool = True, resolve: Resolver = system_resolve):
        self.store = store
        self.allow_private = allow_private
        self.resolve = resolve

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
        try:
            target = Target.of(delivery.url)
            addresses = resolve_target(target, self.resolve)
        except DeliveryFault as exc:
            return Attempt(False, None, str(exc)[:500], retry=exc.kind != "http")
        reason = None if self.allow_private else refusal(target.host, addresses)
        if reason:  # never retried: the URL will not change
            log.warning("webhook %s %s", delivery.id, reason)
            return Attempt(False, None, reason, retry=False)
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
        try:  # to the address checked above, within ``timeout`` for the whole attempt
            answer = request("POST", target, addresses[0], body=body, headers=headers,
                             deadline=timeout)
        except DeliveryFault as exc:
            return Attempt(False, None, str(exc)[:500])
        if 200 <= answer.status_code < 300:
            return Attempt(True, answer.status_code)
        return Attempt(False, answer.status_code, f"HTTP {answer.status_code}")
