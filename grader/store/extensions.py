"""Per-learner due dates (extensions) of a course's assignments: one per learner and assignment,
replaced when set again (:class:`grader.store.models.LateExtension`)."""
from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from grader.store.models import LateExtension, utcnow


class ExtensionRepository:
    def __init__(self, sessions):
        self.sessions = sessions

    def set(self, course_id: str, assignment_id: str, learner_id: str, due_at: str,
            author: str) -> LateExtension:
        """Give ``learner_id`` the due date ``due_at`` (ISO 8601 as written) for the assignment,
        replacing an earlier extension."""
        key = dict(course_id=course_id, assignment_id=assignment_id, learner_id=learner_id)
        for _ in range(2):  # a concurrent first insert: the unique constraint decides, then update
            try:
                with self.sessions.begin() as session:
                    row = session.execute(select(LateExtension).filter_by(**key)).scalar_one_or_none()
                    if row is None:
                        row = LateExtension(**key, due_at=due_at, author=author,
                                            created_at=utcnow())
                        session.add(row)
                    else:
                        row.due_at, row.author, row.created_at = due_at, author, utcnow()
                return row
            except IntegrityError:
                continue
        raise RuntimeError("could not store the extension")  # pragma: no cover

    def get(self, course_id: str, assignment_id: str, learner_id: str) -> LateExtension | None:
        with self.sessions() as session:
            return session.execute(select(LateExtension).filter_by(
                course_id=course_id, assignment_id=assignment_id,
                learner_id=learner_id)).scalar_one_or_none()

    def of_assignment(self, course_id: str, assignment_id: str) -> list[LateExtension]:
        with self.sessions() as session:
            return list(session.execute(select(LateExtension).filter_by(
                course_id=course_id, assignment_id=assignment_id).order_by(
                LateExtension.learner_id)).scalars())

    def remove(self, course_id: str, assignment_id: str, learner_id: str) -> bool:
        with self.sessions.begin() as session:
            return session.execute(delete(LateExtension).filter_by(
                course_id=course_id, assignment_id=assignment_id,
                learner_id=learner_id)).rowcount == 1
