"""Regrade runs and their reports."""
from __future__ import annotations

import uuid

from datetime import datetime

from sqlalchemy import bindparam, select, update

from grader import levers
from grader.store.models import RegradeRun, utcnow


_RUNS = RegradeRun.__table__
#: Whether any run :meth:`RegradeRepository.applied_since` returns exists, built once (lever
#: ``statements``): nearly every grading finds none and reads nothing more.
_ANY_APPLIED_SINCE = select(_RUNS.c.id).where(
    _RUNS.c.course_id == bindparam("course_id"),
    _RUNS.c.assignment_id == bindparam("assignment_id"),
    _RUNS.c.dry_run.is_(False), _RUNS.c.status != "failed",
    _RUNS.c.created_at > bindparam("since")).limit(1)


class RegradeRepository:
    """``single``: sessions for one-statement reads (autocommit on PostgreSQL: no BEGIN and
    ROLLBACK round trips around them, :class:`grader.store.Store`), used with the ``worker``
    lever (:mod:`grader.levers`); default ``sessions``."""

    def __init__(self, sessions, single=None):
        self.sessions = sessions
        self.single = single or sessions

    def create(self, course_id: str, assignment_id: str, dry_run: bool) -> RegradeRun:
        row = RegradeRun(id=str(uuid.uuid4()), course_id=course_id, assignment_id=assignment_id,
                         dry_run=dry_run, status="queued", created_at=utcnow())
        with self.sessions.begin() as session:
            session.add(row)
        return row

    def get(self, run_id: str) -> RegradeRun | None:
        with self.sessions() as session:
            return session.get(RegradeRun, run_id)

    def set_status(self, run_id: str, status: str, report: list | None = None,
                   versions: dict | None = None) -> None:
        """Move the run to ``status``; a final one (done, failed) stores its ``report`` and
        ``versions`` (what it applied, old -> new)."""
        values = {"status": status}
        if status in ("done", "failed"):
            values.update(finished_at=utcnow(), report=report, versions=versions)
        with self.sessions.begin() as session:
            session.execute(update(RegradeRun).where(RegradeRun.id == run_id).values(**values))

    def applied_since(self, course_id: str, assignment_id: str,
                      since: datetime) -> list[RegradeRun]:
        """Applied (not dry) runs of the assignment created after ``since`` that did not fail,
        newest first: a submission received before them and graded after they looked for
        graded submissions is one they did not cover."""
        if levers.enabled("statements"):
            with self.single.kw["bind"].connect() as conn:  # one read, no session
                if conn.execute(_ANY_APPLIED_SINCE, {
                        "course_id": course_id, "assignment_id": assignment_id,
                        "since": since}).first() is None:
                    return []
        with (self.single if levers.enabled("worker") else self.sessions)() as session:
            return list(session.execute(select(RegradeRun).where(
                RegradeRun.course_id == course_id, RegradeRun.assignment_id == assignment_id,
                RegradeRun.dry_run.is_(False), RegradeRun.status != "failed",
                RegradeRun.created_at > since).order_by(RegradeRun.created_at.desc())).scalars())
