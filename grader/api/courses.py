"""``/api/v1/courses`` and keys: administration (role: admin), and a course's webhook secret
(role: instructor)."""
from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate

from grader.api.auth import require, require_course
from grader.api.errors import ApiError
from grader.api.parsing import Blueprint
from grader.api.state import state
from grader.deadlines import time_zone_problem

blp = Blueprint("courses", __name__, url_prefix="/api/v1",
                description="Courses and API keys (admin); webhook secret (instructor).")


def time_zone_name(value) -> None:
    """An IANA time zone name, or a 422 saying what one looks like."""
    problem = time_zone_problem(value)
    if problem:
        raise ValidationError(problem)


TIME_ZONE_DOC = {"description": "IANA time zone (Europe/Berlin) in which due dates without a "
                                "UTC offset are read; null or absent: UTC"}


class CourseCreateSchema(Schema):
    id = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9][a-z0-9_-]{0,63}$"))
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    time_zone = fields.String(load_default=None, allow_none=True, validate=time_zone_name,
                              metadata=TIME_ZONE_DOC)


class CoursePatchSchema(Schema):
    """``PATCH /course``: the fields given replace the current ones (``time_zone: null``: UTC)."""

    class Meta:
        unknown = "raise"

    name = fields.String(validate=validate.Length(min=1, max=200))
    time_zone = fields.String(allow_none=True, validate=time_zone_name, metadata=TIME_ZONE_DOC)


class CourseSummarySchema(Schema):
    id = fields.String()
    name = fields.String()
    created_at = fields.DateTime()
    time_zone = fields.String(allow_none=True, metadata=TIME_ZONE_DOC)


class CourseSchema(CourseSummarySchema):
    webhook_secret = fields.String(metadata={"description": "Shown at creation only"})


class KeyCreateSchema(Schema):
    role = fields.String(required=True, validate=validate.OneOf(["instructor", "lms"]))
    label = fields.String(load_default="", validate=validate.Length(max=200))


class KeySummarySchema(Schema):
    id = fields.String()
    role = fields.String()
    course_id = fields.String(allow_none=True)
    label = fields.String()
    created_at = fields.DateTime()
    revoked = fields.Boolean()


class KeySchema(KeySummarySchema):
    key = fields.String(metadata={"description": "The key itself: shown once, at creation"})


def _course_or_404(course_id: str):
    course = state().store.courses.get_course(course_id)
    if course is None:
        raise ApiError(404, "course_not_found", f"No course with id {course_id!r}.", "course_id")
    return course


@blp.route("/courses")
class Courses(MethodView):
    @blp.response(200, CourseSummarySchema(many=True))
    def get(self):
        """List courses (role: admin)."""
        require("admin")
        return state().store.courses.list_courses()

    @blp.arguments(CourseCreateSchema)
    @blp.response(201, CourseSchema)
    @blp.alt_response(409, schema="Error", description="The id is taken")
    def post(self, body):
        """Create a course (role: admin). The answer shows its webhook-signing secret."""
        require("admin")
        try:
            return state().store.courses.create_course(body["id"], body["name"],
                                                       body["time_zone"])
        except ValueError as exc:
            raise ApiError(409, "conflict", str(exc), "id") from None


@blp.route("/courses/<course_id>/keys")
class CourseKeys(MethodView):
    @blp.response(200, KeySummarySchema(many=True))
    def get(self, course_id):
        """List a course's keys, without their secrets (role: admin)."""
        require("admin")
        _course_or_404(course_id)
        return state().store.courses.list_keys(course_id)

    @blp.arguments(KeyCreateSchema)
    @blp.response(201, KeySchema)
    def post(self, body, course_id):
        """Create an ``instructor`` or ``lms`` key for a course (role: admin). The key is in the
        answer once; only its hash is stored."""
        require("admin")
        _course_or_404(course_id)
        row, plaintext = state().store.courses.create_key(body["role"], course_id, body["label"])
        return {**{c: getattr(row, c) for c in ("id", "role", "course_id", "label", "created_at",
                                                "revoked")}, "key": plaintext}


@blp.route("/keys/<key_id>")
class KeyById(MethodView):
    @blp.response(204)
    def delete(self, key_id):
        """Revoke a key (role: admin)."""
        require("admin")
        if not state().store.courses.revoke_key(key_id):
            raise ApiError(404, "key_not_found", f"No key with id {key_id!r}.", "key_id")


@blp.route("/webhooks/secret")
class WebhookSecret(MethodView):
    @blp.response(200)
    def get(self):
        """The secret that signs this course's webhooks (role: instructor)."""
        principal = require_course("instructor")
        return {"course_id": principal.course_id,
                "webhook_secret": _course_or_404(principal.course_id).webhook_secret}


@blp.route("/course")
class OwnCourse(MethodView):
    @blp.response(200, CourseSummarySchema)
    def get(self):
        """The caller's course: id, name and time zone (roles: lms, instructor)."""
        principal = require_course("lms", "instructor")
        return _course_or_404(principal.course_id)

    @blp.arguments(CoursePatchSchema)
    @blp.response(200, CourseSummarySchema)
    @blp.alt_response(422, schema="Error", description="Not an IANA time zone")
    def patch(self, body):
        """Change the course's name or time zone (role: instructor). Due dates written
        without a UTC offset are read in the new zone from now on; those with one keep it."""
        principal = require_course("instructor")
        _course_or_404(principal.course_id)
        return state().store.courses.update_course(principal.course_id, **body)
