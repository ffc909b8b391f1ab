"""The instructors' score overrides: the audit list of each submission (every decision, never
changed or deleted) and the overrides in force (the newest decision per item, unless it removed
the override). Writing one goes through :meth:`grader.store.db.Store.rewrite_graded`, in the
same transaction as the results it changes."""
from __future__ import annotations

from typing import Iterable

from sqlalchemy import select

from grader.store.models import ScoreOverride


def in_force(rows: Iterable[ScoreOverride]) -> dict[str, ScoreOverride]:
    """The override in force per item id among ``rows`` (one submission's, any order): the
    newest row of each item, left out when it removed the override (``score`` ``None``)."""
    newest: dict[str, ScoreOverride] = {}
    for row in sorted(rows, key=lambda r: r.id):
        newest[row.item_id] = row
    return {item: row for item, row in newest.items() if row.score is not None}


class OverrideRepository:
    def __init__(self, sessions):
        self.sessions = sessions

    def history(self, submission_id: str) -> list[ScoreOverride]:
        """Every decision on ``submission_id``, oldest first (the audit list)."""
        with self.sessions() as session:
            return list(session.execute(select(ScoreOverride).where(
                ScoreOverride.submission_id == submission_id).order_by(
                ScoreOverride.id)).scalars())

    def of_course(self, course_id: str, submission_ids: Iterable[str] | None = None
                  ) -> dict[str, list[ScoreOverride]]:
        """Decisions by submission id, oldest first, for a course (optionally only the given
        submissions), in one query."""
        query = select(ScoreOverride).where(ScoreOverride.course_id == course_id)
        if submission_ids is not None:
            query = query.where(ScoreOverride.submission_id.in_(list(submission_ids)))
        out: dict[str, list[ScoreOverride]] = {}
        with self.sessions() as session:
            for row in session.execute(query.order_by(ScoreOverride.id)).scalars():
                out.setdefault(row.submission_id, []).append(row)
        return out
