"""The webhook delivery log: one row per (event, callback URL), with its attempts."""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import select, update

from grader.store.models import WebhookDelivery, utcnow

#: Deliveries are retried at least this long after the event (then marked ``gave_up``).
RETRY_WINDOW = timedelta(hours=25)


class WebhookRepository:
    def __init__(self, sessions):
        self.sessions = sessions

    def create(self, course_id: str, submission_id: str, event: str, url: str,
               payload: dict, delivery_id: str | None = None) -> WebhookDelivery:
        """Log a delivery to make; its id is the event id (``Grader-Event-Id``)."""
        now = utcnow()
        row = WebhookDelivery(id=delivery_id or str(uuid.uuid4()), course_id=course_id,
                              submission_id=submission_id, event=event, url=url, payload=payload,
                              status="pending", attempts=0, created_at=now, next_attempt_at=now,
                              give_up_at=now + RETRY_WINDOW)
        with self.sessions.begin() as session:
            session.add(row)
        return row

    def get(self, delivery_id: str) -> WebhookDelivery | None:
        with self.sessions() as session:
            return session.get(WebhookDelivery, delivery_id)

    def list(self, course_id: str, submission_id: str | None = None,
             status: str | None = None, limit: int = 200) -> list[WebhookDelivery]:
        with self.sessions() as session:
            query = select(WebhookDelivery).where(WebhookDelivery.course_id == course_id)
            if submission_id:
                query = query.where(WebhookDelivery.submission_id == submission_id)
            if status:
                query = query.where(WebhookDelivery.status == status)
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
        """Log one attempt: delivered, or failed with the next attempt time (``None`` = give up)."""
        values = {"attempts": WebhookDelivery.attempts + 1, "last_status_code": status_code,
                  "last_error": error}
        if delivered:
            values.update(status="delivered", delivered_at=utcnow())
        elif next_attempt_at is None:
            values.update(status="gave_up")
        else:
            values.update(next_attempt_at=next_attempt_at)
        with self.sessions.begin() as session:
            session.execute(update(WebhookDelivery).where(WebhookDelivery.id == delivery_id)
                            .values(**values))

    def reopen(self, delivery_id: str) -> None:
        """Replay: deliver again now, whatever happened before."""
        now = utcnow()
        with self.sessions.begin() as session:
            session.execute(update(WebhookDelivery).where(WebhookDelivery.id == delivery_id)
                            .values(status="pending", next_attempt_at=now,
                                    give_up_at=now + RETRY_WINDOW))

    def due(self, now: datetime | None = None, limit: int = 100) -> list[WebhookDelivery]:
        """Pending deliveries whose next attempt time has passed (the sweep re-sends them)."""
        with self.sessions() as session:
            return list(session.execute(
                select(WebhookDelivery).where(WebhookDelivery.status == "pending",
                                              WebhookDelivery.next_attempt_at <= (now or utcnow()))
                .order_by(WebhookDelivery.next_attempt_at).limit(limit)).scalars())
