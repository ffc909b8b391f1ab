"""``/api/v1/.../submissions``: intake (store first, then queue) and reading results."""
from __future__ import annotations

from datetime import timezone

from flask import url_for
from flask.views import MethodView
from flask_smorest import Blueprint

from grader.api.assignments import get_assignment
from grader.api.errors import ApiError
from grader.api.schemas import SubmissionCreatedSchema, SubmissionCreateSchema, SubmissionSchema
from grader.api.state import state
from grader.items import get_kind

blp = Blueprint("submissions", __name__, url_prefix="/api/v1",
                description="Submit responses and read graded results.")


def _aware(value):
    """Timestamps are UTC; SQLite returns them without a zone."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


def validate_responses(assignment, responses: dict) -> None:
    """404 for an item the assignment does not have, 422 for a response of the wrong shape."""
    for item_id, response in responses.items():
        item = assignment.items.get(item_id)
        if item is None:
            raise ApiError(404, "item_not_found",
                           f"Assignment {assignment.id!r} has no item {item_id!r}; its items are "
                           f"{', '.join(assignment.items)}.", f"responses.{item_id}")
        problem = get_kind(item.kind).validate_response(item, response)
        if problem:
            raise ApiError(422, "validation_error", f"responses.{item_id}: {problem}",
                           f"responses.{item_id}")


def submission_view(submission) -> dict:
    return {
        "id": submission.id,
        "assignment_id": submission.assignment_id,
        "learner_id": submission.learner_id,
        "status": submission.status,
        "content_sha256": submission.content_sha256,
        "received_at": _aware(submission.received_at),
        "started_at": _aware(submission.started_at),
        "finished_at": _aware(submission.finished_at),
        "attempts": submission.attempts,
        "score": submission.score,
        "max_score": submission.max_score,
        "failure_reason": submission.failure_reason,
        "items": submission.results or [],
    }


@blp.route("/assignments/<assignment_id>/submissions")
class SubmissionIntake(MethodView):
    @blp.arguments(SubmissionCreateSchema)
    @blp.response(202, SubmissionCreatedSchema)
    @blp.alt_response(404, schema="Error", description="Unknown assignment or item")
    @blp.alt_response(413, schema="Error", description="Body over the size limit")
    @blp.alt_response(415, schema="Error", description="Body is not application/json")
    @blp.alt_response(422, schema="Error", description="Malformed submission")
    def post(self, body, assignment_id):
        """Submit responses. The submission is stored durably before it is queued; the answer is
        202 with its id and a ``Location`` to poll."""
        assignment = get_assignment(assignment_id)
        validate_responses(assignment, body["responses"])
        app_state = state()
        submission = app_state.store.create_submission(assignment.id, body["learner_id"],
                                                       body["responses"])
        app_state.dispatcher.enqueue(submission.id)
        location = url_for("submissions.SubmissionById", submission_id=submission.id)
        return ({"id": submission.id, "status": submission.status,
                 "content_sha256": submission.content_sha256,
                 "received_at": _aware(submission.received_at)},
                202, {"Location": location})


@blp.route("/submissions/<submission_id>")
class SubmissionById(MethodView):
    @blp.response(200, SubmissionSchema)
    @blp.alt_response(404, schema="Error", description="Unknown submission")
    def get(self, submission_id):
        """A submission's status, timestamps, score and results per item."""
        submission = state().store.get(submission_id)
        if submission is None:
            raise ApiError(404, "submission_not_found", f"No submission with id {submission_id!r}.",
                           "submission_id")
        return submission_view(submission)
