"""``/api/v1/assignments/<id>/analytics`` (and ``.csv``): the class picture of one assignment for
its instructor (:mod:`grader.grading.analytics`)."""
from __future__ import annotations

import csv
import io

from flask import Response
from flask.views import MethodView

from grader.api.assignments import csv_cell, get_assignment
from grader.api.auth import require_course
from grader.api.parsing import Blueprint
from grader.api.state import state
from grader.grading.analytics import class_analytics, csv_rows, item_infos

blp = Blueprint("analytics", __name__, url_prefix="/api/v1",
                description="What the class did on an assignment (instructors).")


def assignment_report(course_id: str, assignment, rows: list | None = None) -> dict:
    """The analytics of ``assignment`` in ``course_id`` (``rows``: its submissions, when read
    already): three queries whatever the class size (the submissions, and the course's
    learners from submissions and LTI launches)."""
    store = state().store
    if rows is None:
        rows = store.submissions_of(course_id, assignment.id)
    report = class_analytics(item_infos(assignment), rows, assignment.attempt_policy,
                             assignment.max_score, store.course_learners(course_id))
    return {"assignment_id": assignment.id, "version": assignment.version, **report}


@blp.route("/assignments/<assignment_id>/analytics")
class Analytics(MethodView):
    @blp.response(200)
    @blp.alt_response(404, schema="Error", description="Unknown assignment")
    def get(self, assignment_id):
        """The class on this assignment (role: instructor): score distribution (histogram, mean,
        median) and per item; for code items each named mistake (``diagnosis:<tag>``, message,
        ``learners``) and each hidden-test category's pass rate; for text items each criterion's
        hit rate, each misconception's rate and the common phrases of low-scoring answers; item
        difficulty and discrimination (flagged below 0.2); who has not submitted and whose
        latest attempt failed to grade. Over each learner's counted grade."""
        principal = require_course("instructor")
        return assignment_report(principal.course_id, get_assignment(principal, assignment_id))


@blp.route("/assignments/<assignment_id>/analytics.csv")
class AnalyticsCsv(MethodView):
    @blp.response(200, content_type="text/csv")
    def get(self, assignment_id):
        """The same as CSV, one number per row: section, item_id, key, label, value, learners,
        share (role: instructor)."""
        principal = require_course("instructor")
        assignment = get_assignment(principal, assignment_id)
        return analytics_csv(assignment_report(principal.course_id, assignment), assignment.id)


def analytics_csv(report: dict, assignment_id: str) -> Response:
    """The analytics CSV response (also served by the instructor page)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for number, row in enumerate(csv_rows(report)):
        writer.writerow(row if number == 0 else [csv_cell(value) for value in row])
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{assignment_id}-analytics.csv"'})
