"""Single-use sign-in links for the instructor pages (``grader instructor-link``): the link holds
a random secret; the store keeps only its SHA-256, and a link signs in once, before it expires
(one conditional ``UPDATE ... WHERE used_at IS NULL``, as LTI login states)."""
from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import delete, update

from grader.store.models import InstructorSignIn, utcnow


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class SignInRepository:
    def __init__(self, sessions):
        self.sessions = sessions

    def create(self, course_id: str, assignment_id: str | None, lifetime: timedelta,
               label: str = "") -> str:
        """A new link secret (URL-safe, 256 bits) for ``course_id``; returned once."""
        secret = secrets.token_urlsafe(32)
        now = utcnow()
        with self.sessions.begin() as session:
            session.execute(delete(InstructorSignIn).where(InstructorSignIn.expires_at < now))
            session.add(InstructorSignIn(id=_digest(secret), course_id=course_id,
                                         assignment_id=assignment_id, label=label[:200],
                                         created_at=now, expires_at=now + lifetime))
        return secret

    def peek(self, secret: str) -> InstructorSignIn | None:
        """The unused, unexpired link of ``secret`` (without using it), else ``None``."""
        with self.sessions() as session:
            row = session.get(InstructorSignIn, _digest(secret))
        if row is None or row.used_at is not None or row.expires_at <= utcnow():
            return None
        return row

    def consume(self, secret: str) -> InstructorSignIn | None:
        """Use the link of ``secret``: its row for exactly one caller while it is unused and
        unexpired, else ``None``."""
        now = utcnow()
        with self.sessions.begin() as session:
            used = session.execute(update(InstructorSignIn).where(
                InstructorSignIn.id == _digest(secret), InstructorSignIn.used_at.is_(None),
                InstructorSignIn.expires_at > now).values(used_at=now)).rowcount == 1
            return session.get(InstructorSignIn, _digest(secret)) if used else None
