"""A learner's due date and a submission's lateness, read from the store: the assignment's
current ``due_at`` and ``late_policy`` (an instructor may move them after a submission), the
learner's extension, in the course's time zone (:mod:`grader.deadlines` does the arithmetic)."""
from __future__ import annotations

from datetime import datetime

from grader.deadlines import LatePolicy, Lateness, due_datetime, lateness


def course_zone(store, course_id: str | None) -> str | None:
    """The course's time zone name (``None``: UTC)."""
    course = store.courses.get_course(course_id) if course_id else None
    return course.time_zone if course is not None else None


def learner_due(store, catalog, course_id: str, assignment_id: str, learner_id: str
                ) -> tuple[datetime | None, bool, LatePolicy]:
    """``(due, extended, policy)``: the learner's due date (aware; their extension's when they
    have one, else the assignment's; ``None`` without either), whether it is an extension, and
    the assignment's late policy. Reads nothing more when the assignment has no due date and
    no extension can apply (built-in assignments)."""
    assignment = catalog.get(course_id, assignment_id)
    if assignment is None or assignment.course_id is None:
        return None, False, LatePolicy()
    zone = course_zone(store, course_id)
    extension = store.extensions.get(course_id, assignment_id, learner_id)
    if extension is not None:
        return due_datetime(extension.due_at, zone), True, assignment.late_policy
    return due_datetime(assignment.due_at, zone), False, assignment.late_policy


def submission_lateness(store, catalog, submission) -> Lateness | None:
    """On time or late, with the penalty, of a stored submission (``None``: no due date)."""
    due, extended, policy = learner_due(store, catalog, submission.course_id,
                                        submission.assignment_id, submission.learner_id)
    return lateness(submission.received_at, due, policy, extended)
