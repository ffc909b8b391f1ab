"""``/api/v1/webhooks/deliveries``: the delivery log, and replay (role: instructor)."""
from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from grader.api.auth import require_course
from grader.api.errors import ApiError
from grader.api.state import state

blp = Blueprint("webhooks", __name__, url_prefix="/api/v1/webhooks",
                description="Webhook deliveries: list and replay.")


class DeliveryArgsSchema(Schema):
    submission_id = fields.String(load_default=None)
    status = fields.String(load_default=None,
                           validate=validate.OneOf(["pending", "delivered", "gave_up"]))


class DeliverySchema(Schema):
    id = fields.String(metadata={"description": "Also the event id (Grader-Event-Id)"})
    submission_id = fields.String()
    event = fields.String()
    url = fields.String()
    status = fields.String()
    attempts = fields.Integer()
    created_at = fields.DateTime()
    next_attempt_at = fields.DateTime()
    delivered_at = fields.DateTime(allow_none=True)
    last_status_code = fields.Integer(allow_none=True)
    last_error = fields.String(allow_none=True)
    payload = fields.Dict()


@blp.route("/deliveries")
class Deliveries(MethodView):
    @blp.arguments(DeliveryArgsSchema, location="query")
    @blp.response(200, DeliverySchema(many=True))
    def get(self, args):
        """The course's webhook deliveries, newest first (role: instructor)."""
        principal = require_course("instructor")
        return state().store.webhooks.list(principal.course_id, args["submission_id"],
                                           args["status"])


@blp.route("/deliveries/<delivery_id>/replay")
class Replay(MethodView):
    @blp.response(202, DeliverySchema)
    def post(self, delivery_id):
        """Deliver an event again now, with the same event id (role: instructor)."""
        principal = require_course("instructor")
        store = state().store
        delivery = store.webhooks.get(delivery_id)
        if delivery is None or delivery.course_id != principal.course_id:
            raise ApiError(404, "delivery_not_found", f"No delivery with id {delivery_id!r}.",
                           "delivery_id")
        store.webhooks.reopen(delivery_id)
        state().dispatcher.deliver_webhook(delivery_id)
        return store.webhooks.get(delivery_id)
