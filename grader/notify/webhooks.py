"""Signed webhooks with retries.

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
import random
import socket
import time
import uuid
from datetime import timedelta
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

import requests

from grader.observability import metrics
from grader.store.models import utcnow

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


def backoff(attempt: int, base: float = 10.0, cap: float = 3600.0) -> float:
    """Seconds before retry number ``attempt`` (1-based): base * 2^(attempt-1), capped, with equal
    jitter (half fixed, half random) so receivers coming back up are not hit in lockstep."""
    delay = min(cap, base * 2 ** max(0, attempt - 1))
    return delay / 2 + random.uniform(0, delay / 2)


def event_payload(event_id: str, submission, base_url: str = "") -> dict[str, Any]:
    def iso(value):
        return value.isoformat() if value is not None else None

    return {
        "id": event_id,
        "type": f"submission.{submission.status}",
        "created_at": utcnow().isoformat(),
        "submission": {
            "id": submission.id,
            "assignment_id": submission.assignment_id,
            "learner_id": submission.learner_id,
            "status": submission.status,
            "score": submission.score,
            "max_score": submission.max_score,
            "received_at": iso(submission.received_at),
            "finished_at": iso(submission.finished_at),
            "failure_reason": submission.failure_reason,
            "url": f"{base_url}/api/v1/submissions/{submission.id}",
        },
    }


class Notifier:
    """Creates deliveries for a final submission and sends them.

    ``schedule(delivery_id)`` hands a delivery to whatever sends it (a Celery task in production, a
    thread on the embedded default); :meth:`attempt` makes one try and logs it.
    """

    def __init__(self, store, catalog, schedule: Callable[[str], None],
                 backoff_base: float = 10.0, timeout: float = 5.0, allow_private: bool = True):
        self.allow_private = allow_private
        self.store = store
        self.catalog = catalog
        self.schedule = schedule
        self.backoff_base = backoff_base
        self.timeout = timeout

    def submission_final(self, submission_id: str) -> list[str]:
        """Record one delivery per distinct callback URL (the submission's, the assignment's)."""
        submission = self.store.get(submission_id)
        if submission is None or submission.status not in ("graded", "failed"):
            return []
        urls = [submission.callback_url]
        assignment = self.catalog.get(submission.course_id, submission.assignment_id,
                                      submission.assignment_version or None)
        if assignment is not None:
            urls.append(assignment.callback_url)
        ids = []
        for url in dict.fromkeys(u for u in urls if u):
            event_id = str(uuid.uuid4())
            row = self.store.webhooks.create(submission.course_id, submission.id,
                                             f"submission.{submission.status}", url,
                                             event_payload(event_id, submission), event_id)
            ids.append(row.id)
        for delivery_id in ids:
            self.schedule(delivery_id)
        return ids

    def attempt(self, delivery_id: str) -> tuple[bool, float | None]:
        """One delivery attempt. Returns (delivered, seconds until the next try or None)."""
        if not self.store.webhooks.claim(delivery_id, lease_seconds=self.timeout + 30):
            delivery = self.store.webhooks.get(delivery_id)
            return delivery is not None and delivery.status == "delivered", None
        delivery = self.store.webhooks.get(delivery_id)
        refusal = None if self.allow_private else private_target(delivery.url)
        if refusal:  # never retried: the URL will not change
            self.store.webhooks.record_attempt(delivery.id, False, None, refusal, None)
            metrics.record_webhook_delivery("gave_up")
            log.warning("webhook %s refused: %s", delivery.id, refusal)
            return False, None
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
        status_code, error = None, None
        try:
            response = requests.post(delivery.url, data=body, headers=headers,
                                     timeout=self.timeout, allow_redirects=False)
            status_code = response.status_code
            delivered = 200 <= status_code < 300
            if not delivered:
                error = f"HTTP {status_code}"
        except requests.RequestException as exc:
            delivered, error = False, f"{type(exc).__name__}: {exc}"[:500]
        delay = None
        next_at = None
        if not delivered:
            delay = backoff(delivery.attempts + 1, base=self.backoff_base)
            next_at = utcnow() + timedelta(seconds=delay)
            if next_at > delivery.give_up_at:
                next_at, delay = None, None
        self.store.webhooks.record_attempt(delivery.id, delivered, status_code, error, next_at)
        metrics.record_webhook_delivery(
            "delivered" if delivered else "failed" if next_at is not None else "gave_up")
        if not delivered:
            log.warning("webhook %s to %s failed (%s); next try in %s s", delivery.id,
                        delivery.url, error, None if delay is None else round(delay, 1))
        return delivered, delay
