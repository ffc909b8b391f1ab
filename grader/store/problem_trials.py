"""Trial runs of authored problems queued for a worker (production mode), and their reports."""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import select, update

from grader.store.models import ProblemTrialRun, utcnow


class ProblemTrialRepository:
    def __init__(self, sessions):
        self.sessions = sessions

    def create(self, course_id: str, problem_id: str, version: int, mutants: bool = True,
               decides: bool = False) -> ProblemTrialRun:
        """A queued trial of ``problem_id`` version ``version``; ``decides``: its outcome
        becomes the version's status (the version has not passed yet)."""
        row = ProblemTrialRun(id=str(uuid.uuid4()), course_id=course_id, problem_id=problem_id,
                              version=version, mutants=mutants, decides=decides,
                              status="queued", created_at=(now := utcnow()), sent_at=now)
        with self.sessions.begin() as session:
            session.add(row)
        return row

    def get(self, trial_id: str) -> ProblemTrialRun | None:
        with self.sessions() as session:
            return session.get(ProblemTrialRun, trial_id)

    def start(self, trial_id: str) -> bool:
        """``queued`` (or ``running``: a redelivered task) -> ``running``, counting the attempt
        and when it started; False when the run is already final or unknown."""
        with self.sessions.begin() as session:
            return bool(session.execute(update(ProblemTrialRun).where(
                ProblemTrialRun.id == trial_id,
                ProblemTrialRun.status.in_(("queued", "running"))).values(
                status="running", started_at=utcnow(),
                attempts=ProblemTrialRun.attempts + 1)).rowcount)

    def finish(self, trial_id: str, report: dict | None, error: str | None = None) -> None:
        """``done`` with ``report``, or ``failed`` with ``error`` (the trial could not run)."""
        with self.sessions.begin() as session:
            session.execute(update(ProblemTrialRun).where(
                ProblemTrialRun.id == trial_id,
                ProblemTrialRun.status.in_(("queued", "running"))).values(
                status="failed" if error else "done", report=report, error=error,
                finished_at=utcnow()))

    def of_course(self, course_id: str) -> list[ProblemTrialRun]:
        """Every trial run of the course's problems (the instructor pages' version states)."""
        with self.sessions() as session:
            return list(session.execute(select(ProblemTrialRun).where(
                ProblemTrialRun.course_id == course_id)).scalars())

    def stuck(self, older_than: timedelta, now: datetime | None = None
              ) -> list[ProblemTrialRun]:
        """Runs left ``running`` since a start more than ``older_than`` before ``now`` (its
        worker died or was killed: the Celery hard limit is below the sweep's bound)."""
        cutoff = (now or utcnow()) - older_than
        with self.sessions() as session:
            return list(session.execute(select(ProblemTrialRun).where(
                ProblemTrialRun.status == "running",
                ProblemTrialRun.started_at < cutoff)).scalars())

    def requeue_stuck(self, trial_id: str, older_than: timedelta,
                      now: datetime | None = None) -> bool:
        """A :meth:`stuck` run -> ``queued``, marked sent now (one sweep claims it); False when
        it started again or finished meanwhile."""
        cutoff = (now or utcnow()) - older_than
        with self.sessions.begin() as session:
            return bool(session.execute(update(ProblemTrialRun).where(
                ProblemTrialRun.id == trial_id, ProblemTrialRun.status == "running",
                ProblemTrialRun.started_at < cutoff).values(
                status="queued", sent_at=utcnow())).rowcount)

    def abandon(self, trial_id: str, older_than: timedelta, error: str,
                now: datetime | None = None) -> bool:
        """A :meth:`stuck` run -> ``failed`` with ``error``; False when it started again or
        finished meanwhile."""
        cutoff = (now or utcnow()) - older_than
        with self.sessions.begin() as session:
            return bool(session.execute(update(ProblemTrialRun).where(
                ProblemTrialRun.id == trial_id, ProblemTrialRun.status == "running",
                ProblemTrialRun.started_at < cutoff).values(
                status="failed", error=error, finished_at=utcnow())).rowcount)

    def resend_stale(self, older_than: timedelta, now: datetime | None = None) -> list[str]:
        """Runs still ``queued`` whose message was sent more than ``older_than`` before ``now``
        (the broker lost it, or was down when the API sent it): each is marked sent now (one
        sweep claims it) and returned, for the caller to send again."""
        cutoff = (now or utcnow()) - older_than
        with self.sessions() as session:
            ids = list(session.execute(select(ProblemTrialRun.id).where(
                ProblemTrialRun.status == "queued", ProblemTrialRun.sent_at < cutoff)).scalars())
        claimed = []
        for trial_id in ids:
            with self.sessions.begin() as session:
                if session.execute(update(ProblemTrialRun).where(
                        ProblemTrialRun.id == trial_id, ProblemTrialRun.status == "queued",
                        ProblemTrialRun.sent_at < cutoff).values(sent_at=utcnow())).rowcount:
                    claimed.append(trial_id)
        return claimed
