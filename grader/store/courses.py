"""Courses and API keys."""
from __future__ import annotations

import re
import secrets
import time

from sqlalchemy import select, update

from grader.auth.keys import (ROLES, Principal, digest_matches, generate_key, hash_secret,
                              parse_key)
from grader.store.models import ApiKey, Course

COURSE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


#: Seconds a successful key lookup is reused by this process (a revocation made in another
#: process takes effect within this time).
AUTH_CACHE_SECONDS = 10.0


class CourseRepository:
    def __init__(self, sessions):
        self.sessions = sessions
        self._principals: dict[str, tuple[Principal, float]] = {}

    def create_course(self, course_id: str, name: str, time_zone: str | None = None) -> Course:
        """Create a course with a fresh webhook-signing secret (``time_zone``: an IANA name, or
        ``None`` for UTC). ``ValueError`` if the id is malformed or taken."""
        if not COURSE_ID.match(course_id):
            raise ValueError("course id must be 1-64 of a-z, 0-9, '-', '_' starting with a letter "
                             "or digit")
        with self.sessions.begin() as session:
            if session.get(Course, course_id) is not None:
                raise ValueError(f"course {course_id!r} exists already")
            course = Course(id=course_id, name=name, webhook_secret=secrets.token_hex(32),
                            time_zone=time_zone)
            session.add(course)
        return course

    def get_course(self, course_id: str) -> Course | None:
        with self.sessions() as session:
            return session.get(Course, course_id)

    def update_course(self, course_id: str, **values) -> Course | None:
        """Change a course's ``name`` and/or ``time_zone`` (``None``: UTC); the course as stored
        after, or ``None`` when there is no such course."""
        with self.sessions.begin() as session:
            course = session.get(Course, course_id)
            if course is None:
                return None
            for name, value in values.items():
                if name not in ("name", "time_zone"):
                    raise ValueError(f"a course has no setting {name!r}")
                setattr(course, name, value)
        return course

    def list_courses(self) -> list[Course]:
        with self.sessions() as session:
            return list(session.execute(select(Course).order_by(Course.created_at)).scalars())

    def create_key(self, role: str, course_id: str | None, label: str = "") -> tuple[ApiKey, str]:
        """Create a key; returns the row and the plaintext (shown once, never stored)."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}")
        if (role == "admin") != (course_id is None):
            raise ValueError("admin keys belong to no course; instructor and lms keys to one")
        key_id, plaintext, digest = generate_key()
        row = ApiKey(id=key_id, digest=digest, role=role, course_id=course_id, label=label)
        with self.sessions.begin() as session:
            session.add(row)
        return row, plaintext

    def list_keys(self, course_id: str | None) -> list[ApiKey]:
        with self.sessions() as session:
            query = select(ApiKey).where(ApiKey.course_id == course_id) if course_id else select(ApiKey)
            return list(session.execute(query.order_by(ApiKey.created_at)).scalars())

    def revoke_key(self, key_id: str) -> bool:
        self._principals.clear()
        with self.sessions.begin() as session:
            return session.execute(update(ApiKey).where(ApiKey.id == key_id)
                                   .values(revoked=True)).rowcount == 1

    def authenticate(self, plaintext: str) -> Principal | None:
        """The principal of a valid, unrevoked key, else ``None`` (same work either way).
        Valid keys are remembered for :data:`AUTH_CACHE_SECONDS`, keyed by their SHA-256."""
        digest = hash_secret(plaintext)
        cached = self._principals.get(digest)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        principal = self._lookup(plaintext)
        if principal is not None:
            if len(self._principals) > 10_000:
                self._principals.clear()
            self._principals[digest] = (principal, time.monotonic() + AUTH_CACHE_SECONDS)
        return principal

    def _lookup(self, plaintext: str) -> Principal | None:
        key_id = parse_key(plaintext)
        row = None
        if key_id is not None:
            with self.sessions() as session:
                row = session.get(ApiKey, key_id)
        ok = digest_matches(plaintext, row.digest if row is not None else None)
        if not ok or row is None or row.revoked:
            return None
        return Principal(key_id=row.id, role=row.role, course_id=row.course_id)
