"""Trial runs of authored problems queued for a worker (production mode), and their reports."""
from __future__ import annotations

import uuid

from sqlalchemy import update

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
                              status="queued", created_at=utcnow())
        with self.sessions.begin() as session:
            session.add(row)
        return row

    def get(self, trial_id: str) -> ProblemTrialRun | None:
        with self.sessions() as session:
            return session.get(ProblemTrialRun, trial_id)

    def start(self, trial_id: str) -> bool:
        """``queued`` (or ``running``: a redelivered task) -> ``running``; False when the run is
        already final or unknown."""
        with self.sessions.begin() as session:
            return bool(session.execute(update(ProblemTrialRun).where(
                ProblemTrialRun.id == trial_id,
                ProblemTrialRun.status.in_(("queued", "running"))).values(
                status="running")).rowcount)

    def finish(self, trial_id: str, report: dict | None, error: str | None = None) -> None:
        """``done`` with ``report``, or ``failed`` with ``error`` (the trial could not run)."""
        with self.sessions.begin() as session:
            session.execute(update(ProblemTrialRun).where(
                ProblemTrialRun.id == trial_id,
                ProblemTrialRun.status.in_(("queued", "running"))).values(
                status="failed" if error else "done", report=report, error=error,
                finished_at=utcnow()))
