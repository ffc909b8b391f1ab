"""``/api/v1/assignments``: the built-in (and later instructor-made) assignments, as learners see them."""
from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint

from grader.api.errors import ApiError
from grader.api.schemas import AssignmentSchema, AssignmentSummarySchema
from grader.api.state import state
from grader.content import public_assignment

blp = Blueprint("assignments", __name__, url_prefix="/api/v1/assignments",
                description="Assignments and their items (never keys or hidden tests).")


def get_assignment(assignment_id: str):
    """The loaded assignment, or a 404 naming ``assignment_id``."""
    assignment = state().catalog.get(assignment_id)
    if assignment is None:
        raise ApiError(404, "assignment_not_found", f"No assignment with id {assignment_id!r}.",
                       "assignment_id")
    return assignment


@blp.route("")
class Assignments(MethodView):
    @blp.response(200, AssignmentSummarySchema(many=True))
    def get(self):
        """List assignments."""
        return [
            {"id": a.id, "title": a.title, "max_score": a.max_score, "item_count": len(a.items)}
            for a in state().catalog.values()
        ]


@blp.route("/<assignment_id>")
class AssignmentById(MethodView):
    @blp.response(200, AssignmentSchema)
    @blp.alt_response(404, schema="Error", description="Unknown assignment")
    def get(self, assignment_id):
        """One assignment with its items: id, kind, prompt, points, and for code items the
        function contract."""
        return public_assignment(get_assignment(assignment_id))
