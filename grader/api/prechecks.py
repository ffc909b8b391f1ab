"""``POST /api/v1/assignments/<id>/prechecks``: check a submission's code on the visible examples
only, answered at once (:mod:`grader.grading.prechecks`). Nothing is stored, nothing counts as
an attempt or is passed back, no hidden test runs; limited per learner
(``PRECHECK_RATE_LIMIT``)."""
from __future__ import annotations

from flask import current_app
from flask.views import MethodView
from marshmallow import Schema, fields

from grader.api.assignments import get_assignment
from grader.api.auth import require_course
from grader.api.errors import ApiError
from grader.api.parsing import Blueprint
from grader.api.ratelimit import page_limits
from grader.api.schemas import SubmissionCreateSchema
from grader.api.state import state
from grader.api.submissions import SUBMITTERS, validate_responses
from grader.grading.prechecks import Prechecks
from grader.results import InfrastructureError

blp = Blueprint("prechecks", __name__, url_prefix="/api/v1",
                description="Check code on the visible examples before submitting.")


class PrecheckBodySchema(SubmissionCreateSchema):
    """The body of a submission (``callback_url`` is accepted and ignored: nothing is sent)."""


class PrecheckTestSchema(Schema):
    name = fields.String()
    status = fields.String(metadata={"description": "passed | failed"})
    output = fields.String()


class PrecheckItemSchema(Schema):
    item_id = fields.String()
    kind = fields.String()
    problem = fields.String()
    passed = fields.Integer()
    total = fields.Integer()
    tests = fields.List(fields.Nested(PrecheckTestSchema))
    output = fields.String()
    stdout = fields.String(metadata={"description": "What the code printed while importing and "
                                                    "running the visible examples (at most 4000 "
                                                    "characters)."})
    pictures = fields.List(fields.Dict(), metadata={
        "description": "The visible examples' pictures (heatmaps' values), as a graded item's "
                       "extra_data.pictures."})
    seconds = fields.Float()


class PrecheckSchema(Schema):
    assignment_id = fields.String()
    learner_id = fields.String()
    stored = fields.Boolean(metadata={"description": "Always false: a precheck is not kept."})
    items = fields.List(fields.Nested(PrecheckItemSchema))


def prechecks():
    """This app's prechecks: a :class:`Prechecks` on this process's sandbox (the embedded
    default, ``state().sandbox_factory``), or in production mode a
    :class:`~grader.queue.prechecks.QueuedPrechecks` that a grading worker answers on its own
    sandbox (the API process has none). Made on first use."""
    found = current_app.extensions.get("grader_prechecks")
    if found is None:
        factory = state().sandbox_factory
        if factory is not None:
            found = Prechecks(factory)
        else:
            found = _queued()
        found = current_app.extensions.setdefault("grader_prechecks", found)
    return found


def _queued():
    """Prechecks through the grading queue, when grading runs on Celery over Redis."""
    from grader.queue.prechecks import QueuedPrechecks

    config = state().config
    broker = str(config.get("CELERY_BROKER_URL") or "")
    dispatcher = state().dispatcher
    if not broker.startswith(("redis://", "rediss://", "unix://")) or \
            not hasattr(dispatcher, "precheck"):
        raise ApiError(503, "sandbox_unavailable", "this process runs no prechecks and has no "
                       "Redis grading queue to send them to", None)
    import redis

    return QueuedPrechecks(redis.Redis.from_url(broker), dispatcher.precheck,
                           float(config.get("PRECHECK_WAIT_SECONDS", 20.0)))


def check_precheck_rate(course_id: str, learner_id: str) -> None:
    """Count one precheck of the learner; 429 ``rate_limited`` with ``Retry-After`` past
    ``PRECHECK_RATE_LIMIT``."""
    breach = page_limits().check("precheck-learner", str(state().config.get(
        "PRECHECK_RATE_LIMIT", "")), f"{course_id}\0{learner_id}")
    if breach is not None:
        raise ApiError(429, "rate_limited",
                       f"Too many prechecks for this learner (the limit is {breach.limit}); "
                       f"nothing was run: try again in {breach.retry_after} s.", "learner_id",
                       headers={"Retry-After": str(breach.retry_after)})


def run_prechecks(assignment, responses: dict) -> list[dict]:
    """The prechecks of ``responses`` (validated already); 503 ``sandbox_unavailable`` when the
    sandbox cannot run them, 503 ``precheck_timeout`` (``Retry-After``) when, in production
    mode, no grading worker answered within ``PRECHECK_WAIT_SECONDS``."""
    from grader.queue.prechecks import PrecheckTimeout
    from grader.sandbox import SandboxUnavailable

    try:
        return prechecks().check(assignment, responses)
    except PrecheckTimeout as exc:
        raise ApiError(503, "precheck_timeout", f"the precheck could not run: {exc}; nothing "
                       "was run, try again in a minute", None,
                       headers={"Retry-After": "30"}) from None
    except (SandboxUnavailable, InfrastructureError) as exc:
        raise ApiError(503, "sandbox_unavailable", f"the precheck could not run: {exc}",
                       None) from None


@blp.route("/assignments/<assignment_id>/prechecks")
class PrecheckView(MethodView):
    @blp.arguments(PrecheckBodySchema)
    @blp.response(200, PrecheckSchema)
    @blp.alt_response(404, schema="Error", description="Unknown assignment or item")
    @blp.alt_response(422, schema="Error", description="Malformed submission")
    @blp.alt_response(429, schema="Error", description="Too many prechecks for the learner")
    @blp.alt_response(503, schema="Error", description="The sandbox cannot run the check "
                      "(sandbox_unavailable), or no grading worker answered in time "
                      "(precheck_timeout, production mode)")
    def post(self, body, assignment_id):
        """Check code on the visible examples only (roles: lms, instructor).

        The body is a submission's; the answer (200, at once) has each code item's visible
        examples passed or failed with their feedback, and what the code printed. Nothing is
        stored, nothing counts as an attempt or is passed back, and no hidden test runs. At
        most ``PRECHECK_RATE_LIMIT`` per learner (default 20 per minute, 200 per hour)."""
        principal = require_course(*SUBMITTERS)
        assignment = get_assignment(principal, assignment_id)
        validate_responses(assignment, body["responses"])
        check_precheck_rate(principal.course_id, body["learner_id"])
        return {"assignment_id": assignment.id, "learner_id": body["learner_id"],
                "stored": False, "items": run_prechecks(assignment, body["responses"])}
