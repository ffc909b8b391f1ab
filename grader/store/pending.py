"""A cap on a learner's pending submissions: at most ``max_pending`` of one learner of a course
``queued`` or ``running`` at once (the learner page's intake; the REST API has no cap).

The count and the insert run under a lock per (course, learner): a thread lock in this process
and, on PostgreSQL, a session advisory lock (``pg_advisory_lock``) held on its own connection
while the insert commits on another, so gunicorn processes handed two posts of one learner at
the same moment cannot both pass the check.
"""
from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager
from typing import Iterator

from sqlalchemy import select, text

from grader.store.models import IdempotencyRecord, Submission

PENDING = ("queued", "running")
_STRIPES = [threading.Lock() for _ in range(64)]


class TooManyPending(Exception):
    """The learner has ``len(pending)`` (at least the cap) submissions pending; ``pending`` holds
    their ids, newest first."""

    def __init__(self, pending: list[str], cap: int):
        super().__init__(f"{len(pending)} submissions pending (at most {cap})")
        self.pending, self.cap = pending, cap


def pending_of(store, course_id: str, learner_id: str, limit: int = 100) -> list[str]:
    """Ids of the learner's queued or running submissions in the course, newest first."""
    with store.sessions() as session:
        return list(session.execute(
            select(Submission.id).where(Submission.course_id == course_id,
                                        Submission.learner_id == learner_id,
                                        Submission.status.in_(PENDING))
            .order_by(Submission.received_at.desc(), Submission.id.desc())
            .limit(limit)).scalars())


def _lock_key(course_id: str, learner_id: str) -> int:
    digest = hashlib.sha256(f"pending\0{course_id}\0{learner_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)  # a PostgreSQL bigint


@contextmanager
def learner_lock(store, course_id: str, learner_id: str) -> Iterator[None]:
    """Hold the (course, learner) lock of this process and, on PostgreSQL, of the database."""
    key = _lock_key(course_id, learner_id)
    with _STRIPES[key % len(_STRIPES)]:
        if store.engine.dialect.name != "postgresql":
            yield
            return
        with store.engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
            conn.commit()
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                conn.commit()


def replays(store, course_id: str, idempotency_key: str | None,
            request_sha256: str | None) -> bool:
    """Whether a post with ``idempotency_key`` and the request digest ``request_sha256`` is a true
    replay: the key was used already in the course *for the same request*, so the post creates
    nothing and answers with the submission stored the first time. A key used with another
    request is not a replay (the post is refused with ``idempotency_conflict`` or becomes a new
    submission), so it must pass every check a new submission passes."""
    if idempotency_key is None:
        return False
    with store.sessions() as session:
        digest = session.execute(select(IdempotencyRecord.request_sha256).where(
            IdempotencyRecord.course_id == course_id,
            IdempotencyRecord.key == idempotency_key)).scalar_one_or_none()
    return digest is not None and digest == (request_sha256 or "")


def create_capped(store, max_pending: int, assignment_id: str, learner_id: str,
                  responses: dict, course_id: str = "local", **kwargs):
    """:meth:`grader.store.db.Store.create_submission` unless the learner already has
    ``max_pending`` submissions pending (raises :class:`TooManyPending`). A true replay (the
    same idempotency key with the same request digest) is not counted (it creates nothing): a
    double click stays one submission; the same key with another request is counted like any
    new post. Returns (submission, created)."""
    with learner_lock(store, course_id, learner_id):
        if not replays(store, course_id, kwargs.get("idempotency_key"),
                       kwargs.get("request_sha256")):
            pending = pending_of(store, course_id, learner_id, limit=max_pending)
            if len(pending) >= max_pending:
                raise TooManyPending(pending, max_pending)
        return store.create_submission(assignment_id, learner_id, responses,
                                        course_id=course_id, **kwargs)
