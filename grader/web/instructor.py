"""The instructor view an LTI Instructor launch (or an instructor sign-in, :mod:`grader.web.
sign_in`) lands on: the class on one assignment (:mod:`grader.grading.analytics`: the score
distribution drawn as an SVG histogram, item statistics, named mistakes, category pass rates,
criteria and misconceptions, common phrases of low answers, who has not submitted and whose
latest attempt failed), each learner's counted grade with a link to the submission (where scores
are overridden: :mod:`grader.web.instructor_submission`), publishing a draft, grades.csv and the
analytics CSV, and regrades (a dry run that reports old and new scores and the rubric and key
versions old -> new, or one that stores the new scores). Regrades go through the same store and
dispatcher as ``POST /api/v1/assignments/<id>/regrades``; the CSVs are the API's.

The page reads the store a fixed number of times whatever the class size (the assignment, its
submissions with their results, the course's learners, the course's time zone, the
assignment's extensions; with authored problems, the course's problem versions and trial runs:
:mod:`grader.web.problem_versions`): no query per learner or per submission
(``tests/web/test_instructor_pages.py`` counts them).
"""
from __future__ import annotations

from flask import current_app, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFError

from grader.api.analytics import analytics_csv, assignment_report
from grader.api.assignments import grades_csv, set_published, time_zone_of
from grader.api.state import state
from grader.deadlines import late_words, shown_due
from grader.grading.adjustments import late_of, override_of
from grader.grading.attempts import counted_attempts
from grader.web import feedback, histogram, problem_versions
from grader.web.access import PageError, assignment_for, signed_in
from grader.web.blueprint import bp
from grader.web.learner import wait_seconds
from grader.web.limits import Throttled, check_rate

REGRADE_FINAL = ("done", "failed")
#: Submissions listed on the page, newest first (grades.csv?attempts=all has every one).
LISTED_SUBMISSIONS = 100
POLICY_WORDS = {"latest": "the latest graded attempt counts",
                "best": "the best graded attempt counts",
                "best_per_item": "each item's best score over the graded attempts counts"}


def _submission_url(assignment_id: str, submission_id: str) -> str:
    return url_for("web.instructor_submission", assignment_id=assignment_id,
                   submission_id=submission_id)


def _learner_rows(rows, assignment) -> list[dict]:
    """One row per learner: their counted grade (the assignment's attempt policy)."""
    out = []
    for counted in counted_attempts(rows, assignment.attempt_policy).values():
        primary = counted.primary
        late = late_of(primary.results or []) if counted.graded else None
        overridden = [i.get("item_id") for i in (primary.results or []) if override_of(i)]
        out.append({"learner_id": counted.learner_id, "status": counted.status,
                    "score": feedback.points(counted.score),
                    "max_score": feedback.points(counted.max_score),
                    "attempts": counted.attempts, "sources": len(counted.sources),
                    "late": late_words(late) if late else "",
                    "overridden": overridden,
                    "url": _submission_url(assignment.id, primary.id)})
    return out


def _submission_rows(rows, assignment_id: str) -> list[dict]:
    newest = sorted(rows, key=lambda r: (r.received_at, r.id), reverse=True)[:LISTED_SUBMISSIONS]
    return [{"id": s.id, "learner_id": s.learner_id, "status": s.status,
             "received_at": s.received_at,
             "score": feedback.points(s.score), "max_score": feedback.points(s.max_score),
             "failure_reason": s.failure_reason if s.status == "failed" else "",
             "url": _submission_url(assignment_id, s.id)} for s in newest]


def _roster(learner, rows) -> dict | None:
    """The course's members from the LMS (the LTI tool's ``course_roster``, NRPS), each with
    whether they submitted to this assignment: ``None`` when the session has no member list."""
    roster = current_app.extensions.get("course_roster")
    found = roster(learner) if roster is not None else None
    if found is None:
        return None
    submitted = {r.learner_id for r in rows}
    members = sorted(found["members"], key=lambda m: (not m.is_learner, m.name.lower(),
                                                     m.learner_id))
    return {"error": found["error"], "members": [
        {"name": m.name, "learner_id": m.learner_id, "roles": ", ".join(m.roles),
         "status": m.status, "submitted": m.learner_id in submitted} for m in members],
        "missing": sum(1 for m in members if m.is_learner and m.learner_id not in submitted)}


def render_instructor(learner, assignment, message: str | None = None, status: int = 200):
    store = state().store
    rows = store.submissions_of(learner.course_id, assignment.id)
    report = assignment_report(learner.course_id, assignment, rows)
    zone = time_zone_of(learner.course_id)
    summary = {"learners": report["learners"]["submitted"], "submissions": len(rows),
               "graded_learners": report["learners"]["graded"],
               "mean": feedback.points(report["score"]["mean"]),
               "median": feedback.points(report["score"]["median"]),
               "max_score": feedback.points(assignment.max_score)}
    chart = histogram.svg(report["score"]["histogram"],
                          f"Counted scores of {summary['graded_learners']} learners, out of "
                          f"{summary['max_score']} points")
    return render_template(
        "web/instructor.html", learner=learner, roster=_roster(learner, rows), assignment=assignment, report=report,
        summary=summary, chart=chart, learners=_learner_rows(rows, assignment),
        rows=_submission_rows(rows, assignment.id), listed=LISTED_SUBMISSIONS,
        due=shown_due(assignment.due_at, zone), zone=zone or "UTC",
        extensions=[(e.learner_id, shown_due(e.due_at, zone)) for e in
                    store.extensions.of_assignment(learner.course_id, assignment.id)]
        if assignment.course_id else [],
        problems=problem_versions.item_rows(store, learner.course_id, assignment),
        policy_words=POLICY_WORDS[assignment.attempt_policy],
        late_words=assignment.late_policy.describe(), message=message,
        points=feedback.points), status


@bp.get("/learn/<assignment_id>/instructor")
def instructor(assignment_id: str):
    """The class on one assignment, its learners' grades, regrades and the CSVs."""
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


@bp.get("/learn/<assignment_id>/instructor/analytics.csv")
def analytics(assignment_id: str):
    """The API's analytics CSV."""
    learner = signed_in(assignment_id, instructor=True)
    assignment = assignment_for(learner, assignment_id)
    return analytics_csv(assignment_report(learner.course_id, assignment), assignment.id)


def _checked(learner, assignment, action: str):
    """The CSRF check and the rate limit of the page's form posts: ``None`` to go on, else the
    page to answer with."""
    try:
        current_app.extensions["csrf"].protect()
    except CSRFError:
        return render_instructor(learner, assignment, f"The form had expired; nothing was "
                                 f"{action}. Press the button again.", 400)
    try:
        check_rate("regrade", learner)
    except Throttled as busy:
        page, status = render_instructor(learner, assignment, busy.message, busy.status)
        return page, status, busy.headers
    return None


@bp.post("/learn/<assignment_id>/instructor/publish")
def publish(assignment_id: str):
    """Publish a draft (``published=1``) or take an assignment back to a draft (``0``): a new
    version of the assignment, as ``PATCH {"published": ...}`` makes."""
    learner = signed_in(assignment_id, instructor=True)
    assignment = assignment_for(learner, assignment_id)
    refused = _checked(learner, assignment, "changed")
    if refused is not None:
        return refused
    if assignment.course_id is None:
        raise PageError(405, "Built-in assignments are always published",
                        "Copy it into your course to have a draft of your own.")
    published = request.form.get("published", "1") != "0"
    set_published(learner.course_id, assignment.id, published)
    return redirect(url_for("web.instructor", assignment_id=assignment.id), code=303)


@bp.post("/learn/<assignment_id>/instructor/regrades")
def regrade(assignment_id: str):
    """Start a regrade of every graded submission (``dry_run`` = 1 reports only)."""
    learner = signed_in(assignment_id, instructor=True)
    assignment = assignment_for(learner, assignment_id)
    refused = _checked(learner, assignment, "regraded")
    if refused is not None:
        return refused
    dry_run = request.form.get("dry_run", "1") != "0"
    run = state().store.regrades.create(learner.course_id, assignment.id, dry_run)
    state().dispatcher.regrade(run.id)
    return redirect(url_for("web.regrade_report", assignment_id=assignment.id, run_id=run.id)
                    + "?wait=1", code=303)


@bp.get("/learn/<assignment_id>/instructor/regrades/<run_id>")
def regrade_report(assignment_id: str, run_id: str):
    """A regrade's status and, once done, what it applies (rubric, key and problem versions old
    -> new) and old score, new score, difference and kept overrides per submission. ``?wait=1``
    waits on the server (up to ``WEB_WAIT_SECONDS``) until it is done."""
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
                           versions=run.versions, points=feedback.points)
