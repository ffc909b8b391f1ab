"""``/api/v1/webhooks/deliveries``: the delivery log, and replay (role: instructor)."""
from __future__ import annotations

from flask import url_for
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from grader.api.auth import require_course
from grader.api.errors import ApiError
from grader.api.parsing import Blueprint
from grader.api.state import state
from grader.store.webhooks import STATUSES

blp = Blueprint("webhooks", __name__, url_prefix="/api/v1/webhooks",
                description="Webhook deliveries: list and replay.")


class DeliveryArgsSchema(Schema):
    submission_id = fields.String(load_default=None)
    status = fields.String(load_default=None, validate=validate.OneOf(STATUSES))
    channel = fields.String(load_default=None, validate=validate.Length(min=1, max=32),
                            metadata={"description": "e.g. webhook"})


class DeliverySchema(Schema):
    id = fields.String(metadata={"description": "Also the event id (Grader-Event-Id)"})
    submission_id = fields.String()
    event = fields.String(metadata={"enum": ["submission.graded", "submission.failed",
                                             "submission.regraded"]})
    channel = fields.String(metadata={"description": "The kind of delivery: webhook"})
    url = fields.String()
    status = fields.String(metadata={"enum": list(STATUSES)})
    attempts = fields.Integer()
    created_at = fields.DateTime()
    next_attempt_at = fields.DateTime(allow_none=True,
                                      metadata={"description": "Only while pending"})
    delivered_at = fields.DateTime(allow_none=True)
    last_status_code = fields.Integer(allow_none=True)
    last_error = fields.String(allow_none=True)
    replay_of = fields.String(allow_none=True,
                              metadata={"description": "The delivery this one replays"})
    payload = fields.Dict()


def delivery_view(delivery) -> dict:
    """A delivery as the log shows it: a next attempt time only while it is pending."""
    view = {name: getattr(delivery, name) for name in DeliverySchema._declared_fields}
    if delivery.status != "pending":
        view["next_attempt_at"] = None
    return view


def own_delivery(principal, delivery_id: str):
    delivery = state().store.webhooks.get(delivery_id)
    if delivery is None or delivery.course_id != principal.course_id:
        raise ApiError(404, "delivery_not_found", f"No delivery with id {delivery_id!r}.",
                       "delivery_id")
    return delivery


@blp.route("/deliveries")
class Deliveries(MethodView):
    @blp.arguments(DeliveryArgsSchema, location="query")
    @blp.response(200, DeliverySchema(many=True))
    def get(self, args):
        """The course's deliveries, newest first (role: instructor)."""
        principal = require_course("instructor")
        return [delivery_view(d) for d in state().store.webhooks.list(
            principal.course_id, args["submission_id"], args["status"],
            channel=args["channel"])]


@blp.route("/deliveries/<delivery_id>")
class DeliveryById(MethodView):
    @blp.response(200, DeliverySchema)
    @blp.alt_response(404, schema="Error", description="Unknown delivery")
    def get(self, delivery_id):
        """One delivery with its attempts (role: instructor)."""
        return delivery_view(own_delivery(require_course("instructor"), delivery_id))


@blp.route("/deliveries/<delivery_id>/replay")
class Replay(MethodView):
    @blp.response(202, DeliverySchema)
    @blp.alt_response(404, schema="Error", description="Unknown delivery")
    def post(self, delivery_id):
        """Deliver again, now, what a delivery announced (role: instructor).

        The replay is a new delivery (new event id, ``replay_of`` naming the old one, which
        stays as it was) to the same URL, carrying the submission's **current** result with
        ``"replay": true``: replaying an old event after a regrade sends the new score, never
        the old one."""
        principal = require_course("instructor")
        old = own_delivery(principal, delivery_id)
        replay = state().notifier.replay(old.id)
        if replay is None:
            raise ApiError(404, "delivery_not_found", f"Delivery {delivery_id!r} cannot be "
                           "replayed: its submission or channel is gone.", "delivery_id")
        location = url_for("webhooks.DeliveryById", delivery_id=replay.id)
        return delivery_view(state().store.webhooks.get(replay.id)), 202, {
            "Location": location}
