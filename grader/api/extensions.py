"""``/api/v1/assignments/<id>/extensions``: a learner's own due date for one assignment. The late
penalty and the ``refuse`` policy use it from then on; a submission graded before is re-judged by
the next regrade (a dry run shows the difference)."""
from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields

from grader.api.assignments import get_assignment, time_zone_of
from grader.api.auth import require_course
from grader.api.errors import ApiError
from grader.api.parsing import Blueprint
from grader.api.schemas import ID, learner_id_text
from grader.api.state import state
from grader.deadlines import check_due, shown_due

blp = Blueprint("extensions", __name__, url_prefix="/api/v1",
                description="Per-learner due dates (extensions).")


class ExtensionSetSchema(Schema):
    class Meta:
        unknown = "raise"

    learner_id = fields.String(required=True, validate=[ID, learner_id_text])
    due_at = fields.DateTime(validate=check_due, required=True, allow_none=True, metadata={
        "description": "ISO 8601; without a UTC offset it is read in the course's time zone; "
                       "null removes the extension"})


class ExtensionSchema(Schema):
    learner_id = fields.String()
    due_at = fields.String(allow_none=True, metadata={"description": "with its UTC offset"})
    by = fields.String()
    at = fields.DateTime()


def _view(row, zone) -> dict:
    return {"learner_id": row.learner_id, "due_at": shown_due(row.due_at, zone),
            "by": row.author, "at": row.created_at}


@blp.route("/assignments/<assignment_id>/extensions")
class Extensions(MethodView):
    @blp.response(200, ExtensionSchema(many=True))
    def get(self, assignment_id):
        """The assignment's extensions (role: instructor)."""
        principal = require_course("instructor")
        assignment = get_assignment(principal, assignment_id)
        zone = time_zone_of(principal.course_id)
        return [_view(r, zone) for r in
                state().store.extensions.of_assignment(principal.course_id, assignment.id)]

    @blp.arguments(ExtensionSetSchema)
    @blp.response(200, ExtensionSchema)
    @blp.alt_response(404, schema="Error", description="Unknown assignment, or no extension "
                                                       "to remove")
    @blp.alt_response(422, schema="Error", description="A built-in assignment")
    def post(self, body, assignment_id):
        """Give a learner their own due date (``due_at``), or remove it (``null``)
        (role: instructor)."""
        principal = require_course("instructor")
        assignment = get_assignment(principal, assignment_id)
        if assignment.course_id is None:
            raise ApiError(422, "validation_error", "A built-in assignment has no due date; "
                           "copy it into your course to set due dates and extensions.",
                           "assignment_id")
        store = state().store
        if body["due_at"] is None:
            if not store.extensions.remove(principal.course_id, assignment.id,
                                           body["learner_id"]):
                raise ApiError(404, "extension_not_found", f"Learner {body['learner_id']!r} "
                               "has no extension for this assignment.", "learner_id")
            return {"learner_id": body["learner_id"], "due_at": None,
                    "by": f"key:{principal.key_id}", "at": None}
        row = store.extensions.set(principal.course_id, assignment.id, body["learner_id"],
                                   body["due_at"].isoformat(), f"key:{principal.key_id}")
        return _view(row, time_zone_of(principal.course_id))
