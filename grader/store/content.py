"""Versioned instructor content: assignments, rubrics and code problems. Every edit adds a version; nothing is
overwritten, so a result can always name the version it was scored with."""
from __future__ import annotations

from sqlalchemy import func, select, update

from grader.store.models import AssignmentRecord, ProblemRecord, RubricRecord


class ContentRepository:
    def __init__(self, sessions):
        self.sessions = sessions

    # -- rubrics -------------------------------------------------------------------------------
    def add_rubric_version(self, course_id: str, rubric_id: str, document: dict,
                           source: str) -> RubricRecord:
        with self.sessions.begin() as session:
            latest = session.execute(select(func.max(RubricRecord.version)).where(
                RubricRecord.course_id == course_id, RubricRecord.rubric_id == rubric_id)).scalar()
            row = RubricRecord(course_id=course_id, rubric_id=rubric_id,
                               version=(latest or 0) + 1, document=document, source=source)
            session.add(row)
        return row

    def rubric(self, course_id: str, rubric_id: str, version: int | None = None
               ) -> RubricRecord | None:
        """One version (default: the latest) of a course's rubric."""
        with self.sessions() as session:
            query = select(RubricRecord).where(RubricRecord.course_id == course_id,
                                               RubricRecord.rubric_id == rubric_id)
            if version is not None:
                query = query.where(RubricRecord.version == version)
            return session.execute(query.order_by(RubricRecord.version.desc()).limit(1)).scalar()

    def rubric_versions(self, course_id: str, rubric_id: str | None = None) -> list[RubricRecord]:
        with self.sessions() as session:
            query = select(RubricRecord).where(RubricRecord.course_id == course_id)
            if rubric_id is not None:
                query = query.where(RubricRecord.rubric_id == rubric_id)
            return list(session.execute(query.order_by(RubricRecord.rubric_id,
                                                       RubricRecord.version)).scalars())

    # -- code problems -------------------------------------------------------------------------
    def add_problem_version(self, course_id: str, problem_id: str, document: dict, source: str,
                            expected: dict, trial: dict, status: str = "passed"
                            ) -> ProblemRecord:
        """A new version (1, 2, ...) of a course's authored problem; ``status`` ``pending``
        when its trial is still to run (on a worker: :mod:`grader.grading.problem_trials`)."""
        with self.sessions.begin() as session:
            latest = session.execute(select(func.max(ProblemRecord.version)).where(
                ProblemRecord.course_id == course_id,
                ProblemRecord.problem_id == problem_id)).scalar()
            row = ProblemRecord(course_id=course_id, problem_id=problem_id,
                                version=(latest or 0) + 1, document=document, source=source,
                                expected=expected, trial=trial, status=status)
            session.add(row)
        return row

    def settle_problem_version(self, course_id: str, problem_id: str, version: int, status: str,
                               trial: dict, expected: dict) -> bool:
        """Store the outcome of a version's trial (``passed``, ``refused`` or ``failed``) with its
        report and the visible examples' values, unless the version has already passed (a
        redelivered task settles it once). Returns whether it changed the version."""
        with self.sessions.begin() as session:
            changed = session.execute(update(ProblemRecord).where(
                ProblemRecord.course_id == course_id, ProblemRecord.problem_id == problem_id,
                ProblemRecord.version == version, ProblemRecord.status != "passed").values(
                status=status, trial=trial, expected=expected)).rowcount
        return bool(changed)

    def problem(self, course_id: str, problem_id: str, version: int | None = None,
                passed: bool = False) -> ProblemRecord | None:
        """One version (default: the latest; with ``passed``, the latest whose trial passed) of a
        course's authored problem."""
        with self.sessions() as session:
            query = select(ProblemRecord).where(ProblemRecord.course_id == course_id,
                                                ProblemRecord.problem_id == problem_id)
            if version is not None:
                query = query.where(ProblemRecord.version == version)
            if passed:
                query = query.where(ProblemRecord.status == "passed")
            return session.execute(query.order_by(ProblemRecord.version.desc()).limit(1)).scalar()

    def problem_versions(self, course_id: str, problem_id: str | None = None
                         ) -> list[ProblemRecord]:
        with self.sessions() as session:
            query = select(ProblemRecord).where(ProblemRecord.course_id == course_id)
            if problem_id is not None:
                query = query.where(ProblemRecord.problem_id == problem_id)
            return list(session.execute(query.order_by(ProblemRecord.problem_id,
                                                       ProblemRecord.version)).scalars())

    # -- assignments ---------------------------------------------------------------------------
    def add_assignment_version(self, course_id: str, assignment_id: str,
                               document: dict) -> AssignmentRecord:
        with self.sessions.begin() as session:
            latest = session.execute(select(func.max(AssignmentRecord.version)).where(
                AssignmentRecord.course_id == course_id,
                AssignmentRecord.assignment_id == assignment_id)).scalar()
            row = AssignmentRecord(course_id=course_id, assignment_id=assignment_id,
                                   version=(latest or 0) + 1, document=document)
            session.add(row)
        return row

    def assignment(self, course_id: str, assignment_id: str, version: int | None = None
                   ) -> AssignmentRecord | None:
        with self.sessions() as session:
            query = select(AssignmentRecord).where(AssignmentRecord.course_id == course_id,
                                                   AssignmentRecord.assignment_id == assignment_id)
            if version is not None:
                query = query.where(AssignmentRecord.version == version)
            return session.execute(query.order_by(AssignmentRecord.version.desc()).limit(1)).scalar()

    def assignments(self, course_id: str) -> list[AssignmentRecord]:
        """The latest version of each of a course's assignments."""
        with self.sessions() as session:
            rows = session.execute(select(AssignmentRecord).where(
                AssignmentRecord.course_id == course_id).order_by(
                AssignmentRecord.assignment_id, AssignmentRecord.version)).scalars()
            latest: dict[str, AssignmentRecord] = {}
            for row in rows:
                latest[row.assignment_id] = row
            return list(latest.values())
