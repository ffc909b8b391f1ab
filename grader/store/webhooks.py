"""The delivery log: one row per (event, channel, target), with its attempts (see
:mod:`grader.notify` for what is delivered and how)."""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import select, update

from grader.store.models import WebhookDelivery, utcnow

#: Deliveries are retried at least this long after the event (then marked ``gave_up``).
RETRY_WINDOW = timedelta(hours=25)
#: Every status a delivery can have; only ``pending`` ones are ever sent.
STATUSES = ("pending", "delivered", "gave_up", "superseded")


class WebhookRepository:
    def __init__(self, sessions):
        self.sessions = sessions

    def create(self, course_id: str, submission_id: str, event: str, url: str,
               payload: dict, delivery_id: str | None = None, channel: str = "webhook",
               replay_of: str | None = None) -> WebhookDelivery:
        """Log a delivery to make through ``channel`` to ``url``; its id is the event id
        (``Grader-Event-Id``). Older pending deliveries of the same submission to the same
        channel and target are marked ``superseded`` in the same transaction: a newer result is
        on its way, and sending the older one after it would move the grade backwards."""
        now = utcnow()
        row = WebhookDelivery(id=delivery_id or str(uuid.uuid4()), course_id=course_id,
                              submission_id=submission_id, event=event, url=url, payload=payload,
                              status="pending", attempts=0, created_at=now, next_attempt_at=now,
                              give_up_at=now + RETRY_WINDOW, channel=channel,
                              replay_of=replay_of)
        with self.sessions.begin() as session:
            session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.submission_id == submission_id,
                       WebhookDelivery.channel == channel, WebhookDelivery.url == url,
                       WebhookDelivery.status == "pending")
                .values(status="superseded", next_attempt_at=None,
                        last_error=f"superseded by {row.id}: a newer result of this submission "
                                   "is delivered instead"))
            session.add(row)
        return row

    def get(self, delivery_id: str) -> WebhookDelivery | None:
        with self.sessions() as session:
            return session.get(WebhookDelivery, delivery_id)

    def list(self, course_id: str, submission_id: str | None = None,
             status: str | None = None, limit: int = 200,
             channel: str | None = None) -> list[WebhookDelivery]:
        """A course's deliveries, newest first, optionally of one submission, status or
        channel."""
        with self.sessions() as session:
            query = select(WebhookDelivery).where(WebhookDelivery.course_id == course_id)
            if submission_id:
                query = query.where(WebhookDelivery.submission_id == submission_id)
            if status:
                query = query.where(WebhookDelivery.status == status)
            if channel:
                query = query.where(WebhookDelivery.channel == channel)
            query = query.order_by(WebhookDelivery.created_at.desc()).limit(limit)
            return list(session.execute(query).scalars())

    def claim(self, delivery_id: str, lease_seconds: float) -> bool:
        """Take a pending, due delivery for one attempt by pushing its next attempt time
        ``lease_seconds`` ahead; False when it is not due or another sender took it first (so the
        sweep and a scheduled retry never send the same attempt twice)."""
        now = utcnow()
        with self.sessions.begin() as session:
            return session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id == delivery_id, WebhookDelivery.status == "pending",
                       WebhookDelivery.next_attempt_at <= now)
                .values(next_attempt_at=now + timedelta(seconds=lease_seconds))).rowcount == 1

    def record_attempt(self, delivery_id: str, delivered: bool, status_code: int | None,
                       error: str | None, next_attempt_at: datetime | None) -> None:
        """Log one attempt: delivered, or failed with the next attempt time (``None`` = give
        up). A delivery that stops being pending has no next attempt time. A failed attempt of a
        delivery superseded meanwhile leaves it superseded (it is not tried again)."""
        values = {"attempts": WebhookDelivery.attempts + 1, "last_status_code": status_code,
                  "last_error": error}
        query = update(WebhookDelivery).where(WebhookDelivery.id == delivery_id)
        if delivered:
            values.update(status="delivered", delivered_at=utcnow(), next_attempt_at=None)
        elif next_attempt_at is None:
            values.update(status="gave_up", next_attempt_at=None)
            query = query.where(WebhookDelivery.status == "pending")
        else:
            values.update(next_attempt_at=next_attempt_at)
            query = query.where(WebhookDelivery.status == "pending")
        with self.sessions.begin() as session:
            if session.execute(query.values(**values)).rowcount == 0 and not delivered:
                session.execute(update(WebhookDelivery).where(WebhookDelivery.id == delivery_id)
                                .values(attempts=WebhookDelivery.attempts + 1,
                                        last_status_code=status_code))

    def due(self, now: datetime | None = None, limit: int = 100) -> list[WebhookDelivery]:
        """Pending deliveries whose next attempt time has passed (the sweep re-sends them)."""
        with self.sessions() as session:
            return list(session.execute(
                select(WebhookDelivery).where(WebhookDelivery.status == "pending",
                                              WebhookDelivery.next_attempt_at <= (now or utcnow()))
                .order_by(WebhookDelivery.next_attempt_at).limit(limit)).scalars())
