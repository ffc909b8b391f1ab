"""The instructor view an LTI Instructor launch lands on: the course's submissions to one
assignment with their scores, a link to each result, grades.csv, and regrades (a dry run that
reports old and new scores, or one that stores the new scores). Regrades go through the same
store and dispatcher as ``POST /api/v1/assignments/<id>/regrades``; grades.csv is the API's."""
from __future__ import annotations

from flask import current_app, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFError

from grader.api.assignments import grades_csv
from grader.api.state import state
from grader.web import feedback
from grader.web.access import PageError, assignment_for, signed_in
from grader.web.blueprint import bp
from grader.web.learner import wait_seconds
from grader.web.limits import Throttled, check_rate

REGRADE_FINAL = ("done", "failed")


def _rows(submissions, assignment_id: str) -> list[dict]:
    return [{"id": s.id, "learner_id": s.learner_id, "status": s.status,
             "received_at": s.received_at, "finished_at": s.finished_at,
             "score": feedback.points(s.score), "max_score": feedback.points(s.max_score),
             "failure_reason": s.failure_reason if s.status == "failed" else "",
             "url": url_for("web.result", assignment_id=assignment_id, submission_id=s.id)}
            for s in submissions]


def render_instructor(learner, assignment, message: str | None = None, status: int = 200):
    submissions = state().store.submissions_of(learner.course_id, assignment.id)
    latest: dict[str, object] = {}
    for row in submissions:  # oldest first: as grades.csv, the latest graded attempt counts
        previous = latest.get(row.learner_id)
        if row.status == "graded" or previous is None or previous.status != "graded":
            latest[row.learner_id] = row
    graded = [s.score for s in latest.values() if s.status == "graded" and s.score is not None]
    summary = {"learners": len(latest), "submissions": len(submissions),
               "graded_learners": len(graded),
               "mean": feedback.points(sum(graded) / len(graded)) if graded else "-",
               "max_score": feedback.points(assignment.max_score)}
    return render_template("web/instructor.html", learner=learner, assignment=assignment,
                           rows=_rows(reversed(submissions), assignment.id), summary=summary,
                           message=message), status


@bp.get("/learn/<assignment_id>/instructor")
def instructor(assignment_id: str):
    """Submissions, scores, regrade and grades.csv of the session's course."""
    learner = signed_in(assignment_id, instructor=True)
    return render_instructor(learner, assignment_for(learner, assignment_id))


@bp.get("/learn/<assignment_id>/instructor/grades.csv")
def grades(assignment_id: str):
    """The API's grades.csv (``?attempts=all`` for every attempt)."""
    learner = signed_in(assignment_id, instructor=True)
    assignment = assignment_for(learner, assignment_id)
    attempts = request.args.get("attempts", "latest")
    if attempts not in ("latest", "all"):
        raise PageError(400, "Unknown export", "attempts must be 'latest' or 'all'.")
    return grades_csv(learner.course_id, assignment, attempts)


@bp.post("/learn/<assignment_id>/instructor/regrades")
def regrade(assignment_id: str):
    """Start a regrade of every graded submission (``dry_run`` = 1 reports only)."""
    learner = signed_in(assignment_id, instructor=True)
    assignment = assignment_for(learner, assignment_id)
    try:
        current_app.extensions["csrf"].protect()
    except CSRFError:
        return render_instructor(learner, assignment, "The form had expired; nothing was "
                                 "regraded. Press the button again.", 400)
    try:
        check_rate("regrade", learner)
    except Throttled as busy:
        page, status = render_instructor(learner, assignment, busy.message, busy.status)
        return page, status, busy.headers
    dry_run = request.form.get("dry_run", "1") != "0"
    run = state().store.regrades.create(learner.course_id, assignment.id, dry_run)
    state().dispatcher.regrade(run.id)
    return redirect(url_for("web.regrade_report", assignment_id=assignment.id, run_id=run.id)
                    + "?wait=1", code=303)


@bp.get("/learn/<assignment_id>/instructor/regrades/<run_id>")
def regrade_report(assignment_id: str, run_id: str):
    """A regrade's status and, once done, old score, new score and difference per submission.
    ``?wait=1`` waits on the server (up to ``WEB_WAIT_SECONDS``) until it is done."""
    import time

    learner = signed_in(assignment_id, instructor=True)
    assignment = assignment_for(learner, assignment_id)
    regrades = state().store.regrades
    run = regrades.get(run_id)
    if run is None or run.course_id != learner.course_id or run.assignment_id != assignment.id:
        raise PageError(404, "No such regrade", f"There is no regrade {run_id!r} here.")
    if request.args.get("wait"):
        deadline = time.monotonic() + wait_seconds(None, 25.0)
        while run.status not in REGRADE_FINAL and time.monotonic() < deadline:
            time.sleep(0.1)
            run = regrades.get(run_id)
    entries = [e for e in (run.report or []) if "submission_id" in e]
    errors = [e["error"] for e in (run.report or []) if "submission_id" not in e and "error" in e]
    return render_template("web/regrade.html", learner=learner, assignment=assignment, run=run,
                           entries=entries, errors=errors, final=run.status in REGRADE_FINAL,
                           points=feedback.points)
