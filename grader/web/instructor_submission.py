"""One submission as its instructor sees it: the whole result (hidden tests' details included),
on time or late, and per item a form to set its score by hand with a comment (the learner sees
both), or to remove that override; and the audit list of every such decision, who made it and
when. The decisions go through the same path as ``POST /api/v1/submissions/<id>/overrides``."""
from __future__ import annotations

import math

from flask import current_app, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFError

from grader.api.errors import ApiError
from grader.api.overrides import decide, overrides_view
from grader.api.state import state
from grader.deadlines import late_words
from grader.grading.adjustments import engine_score, late_summary, override_of
from grader.web import feedback
from grader.web.access import assignment_for, signed_in, submission_for
from grader.web.blueprint import bp


def _author(learner) -> str:
    return f"{learner.learner_id} ({learner.name})" if learner.name else learner.learner_id


def render_submission(learner, assignment, submission, error: str | None = None,
                      form: dict | None = None, status: int = 200):
    result = feedback.submission_view(submission, submission.results or [], assignment)
    late = late_summary(submission.results)
    items = [{"item_id": i.get("item_id"), "score": feedback.points(i.get("score")),
              "max_score": i.get("max_score"), "engine": feedback.points(engine_score(i)),
              "override": override_of(i)} for i in submission.results or []]
    return render_template(
        "web/instructor_submission.html", learner=learner, assignment=assignment,
        submission=submission, result=result, items=items,
        audit=overrides_view(submission)["audit"], late=late,
        late_text=late_words(late) if late else None, error=error, form=form or {},
        learner_url=url_for("web.result", assignment_id=assignment.id,
                            submission_id=submission.id),
        points=feedback.points), status


@bp.get("/learn/<assignment_id>/instructor/submissions/<submission_id>")
def instructor_submission(assignment_id: str, submission_id: str):
    """A submission with its override forms and audit list."""
    learner = signed_in(assignment_id, instructor=True)
    assignment = assignment_for(learner, assignment_id)
    return render_submission(learner, assignment,
                             submission_for(learner, assignment_id, submission_id))


@bp.post("/learn/<assignment_id>/instructor/submissions/<submission_id>/overrides")
def override(assignment_id: str, submission_id: str):
    """Set an item's score (``action=set``, ``score``, ``comment``) or remove its override
    (``action=remove``); 303 back to the page, or the page with the error and the form kept."""
    learner = signed_in(assignment_id, instructor=True)
    assignment = assignment_for(learner, assignment_id)
    submission = submission_for(learner, assignment_id, submission_id)
    form = {k: request.form.get(k, "") for k in ("item_id", "score", "comment", "action")}
    try:
        current_app.extensions["csrf"].protect()
    except CSRFError:
        return render_submission(learner, assignment, submission, "The form had expired; "
                                 "nothing was changed. Send it again.", form, 400)
    score = None
    if form["action"] != "remove":
        try:
            score = float(form["score"].strip().replace(",", "."))
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            return render_submission(learner, assignment, submission, f"Item {form['item_id']}"
                                     ": the score must be a number (for example 7.5).", form, 422)
    try:
        decide(submission.id, form["item_id"], score, form["comment"], _author(learner))
    except ApiError as error:
        return render_submission(learner, assignment, state().store.get(submission.id),
                                 f"Item {form['item_id']}: {error.message}", form, error.status)
    return redirect(url_for("web.instructor_submission", assignment_id=assignment.id,
                            submission_id=submission.id) + f"#override-{form['item_id']}",
                    code=303)
