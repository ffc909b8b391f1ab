"""``/api/v1/submissions/<id>/overrides``: an instructor sets an item's score with a comment, or
removes the override; the audit list of every decision (who, when). See
:mod:`grader.grading.overrides`."""
from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from grader.api.auth import require_course
from grader.api.errors import ApiError
from grader.api.parsing import Blueprint
from grader.api.state import state
from grader.api.submissions import get_own_submission
from grader.grading.overrides import MAX_COMMENT, OverrideRefused, record_override
from grader.store.overrides import in_force

blp = Blueprint("overrides", __name__, url_prefix="/api/v1",
                description="Instructors' score overrides per item, with their audit list.")


class OverrideCreateSchema(Schema):
    class Meta:
        unknown = "raise"

    item_id = fields.String(required=True, validate=validate.Length(min=1, max=200))
    score = fields.Float(required=True, allow_nan=False, metadata={
        "description": "the item's score, 0 to its points (what the learner and the gradebook "
                       "get, whatever the tests and the late penalty gave)"})
    comment = fields.String(load_default="", validate=validate.Length(max=MAX_COMMENT), metadata={
        "description": "shown to the learner with the score"})


class OverrideEntrySchema(Schema):
    item_id = fields.String()
    score = fields.Float(allow_none=True, metadata={"description": "null: the override was "
                                                                   "removed"})
    previous_score = fields.Float(allow_none=True)
    engine_score = fields.Float(allow_none=True, metadata={
        "description": "what the tests (and the late penalty) gave the item then"})
    comment = fields.String()
    by = fields.String()
    at = fields.DateTime()


class OverridesSchema(Schema):
    submission_id = fields.String()
    score = fields.Float(allow_none=True)
    max_score = fields.Float(allow_none=True)
    in_force = fields.List(fields.Nested(OverrideEntrySchema))
    audit = fields.List(fields.Nested(OverrideEntrySchema))


def entry(row) -> dict:
    return {"item_id": row.item_id, "score": row.score, "previous_score": row.previous_score,
            "engine_score": row.engine_score, "comment": row.comment, "by": row.author,
            "at": row.created_at}


def overrides_view(submission) -> dict:
    """A submission's overrides in force and its audit list (oldest first)."""
    rows = state().store.overrides.history(submission.id)
    return {"submission_id": submission.id, "score": submission.score,
            "max_score": submission.max_score,
            "in_force": [entry(r) for r in in_force(rows).values()],
            "audit": [entry(r) for r in rows]}


def decide(submission_id: str, item_id: str, score: float | None, comment: str, author: str):
    """Record the decision (the API's and the instructor page's): the stored submission, or
    the :class:`ApiError` of an :class:`OverrideRefused`."""
    try:
        return record_override(state().store, submission_id, item_id, score, comment, author,
                               notifier=state().notifier)
    except OverrideRefused as refused:
        code = {404: "item_not_found", 409: "not_graded"}.get(refused.status,
                                                               "validation_error")
        raise ApiError(refused.status, code, str(refused), refused.field) from None


@blp.route("/submissions/<submission_id>/overrides")
class Overrides(MethodView):
    @blp.response(200, OverridesSchema)
    @blp.alt_response(404, schema="Error", description="Unknown submission")
    def get(self, submission_id):
        """The overrides in force and the audit list of every decision, with who made it and
        when (role: instructor)."""
        principal = require_course("instructor")
        return overrides_view(get_own_submission(principal, submission_id))

    @blp.arguments(OverrideCreateSchema)
    @blp.response(201, OverridesSchema)
    @blp.alt_response(404, schema="Error", description="Unknown submission or item")
    @blp.alt_response(409, schema="Error", description="The submission is not graded")
    @blp.alt_response(422, schema="Error", description="A score outside 0..the item's points")
    def post(self, body, submission_id):
        """Set one item's score, with a comment the learner sees (role: instructor). The
        submission's score changes at once; regrades keep the override (their report says what
        the tests would give); webhooks get ``submission.regraded`` with ``cause: override``,
        and the LMS gradebook the learner's counted grade."""
        principal = require_course("instructor")
        get_own_submission(principal, submission_id)
        stored = decide(submission_id, body["item_id"], body["score"], body["comment"],
                        f"key:{principal.key_id}")
        return overrides_view(stored), 201


@blp.route("/submissions/<submission_id>/overrides/<item_id>")
class OverrideByItem(MethodView):
    @blp.response(200, OverridesSchema)
    @blp.alt_response(404, schema="Error", description="Unknown submission or item")
    def delete(self, submission_id, item_id):
        """Remove the item's override: the tests' score counts again; the removal joins the
        audit list (role: instructor)."""
        principal = require_course("instructor")
        get_own_submission(principal, submission_id)
        return overrides_view(decide(submission_id, item_id, None, "", f"key:{principal.key_id}"))
