"""Platform registration: ``/api/v1/lti/platforms``, where an admin registers the LMSs (LTI 1.3
platforms) that may launch the tool, each mapped to one course. Part of the REST API (same
authentication, error shape and OpenAPI document), registered by :func:`grader.lti.init_app` so
that the API package never imports the LTI tool. The answer lists the tool's URLs to enter in the
LMS."""
from __future__ import annotations

from flask import url_for
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates

from grader.api.auth import require
from grader.api.errors import ApiError
from grader.api.parsing import Blueprint
from grader.api.schemas import HTTP_URL
from grader.api.state import state
from grader.lti.urls import tool_urls
from grader.store.lti import PlatformConflict

blp = Blueprint("lti_platforms", __name__, url_prefix="/api/v1",
                description="LTI 1.3 platform registrations (admin).")

URL = [validate.Length(max=2000), HTTP_URL]
TEXT = validate.Length(min=1, max=255)


class PlatformCreateSchema(Schema):
    """What the LMS shows when the tool is registered there (Canvas: the developer key's client
    id and the deployment id; Moodle: "Tool configuration details")."""

    issuer = fields.String(required=True, validate=[TEXT, HTTP_URL], metadata={
        "description": "The platform's iss, e.g. https://canvas.instructure.com or the Moodle "
                       "site URL", "example": "https://canvas.instructure.com"})
    client_id = fields.String(required=True, validate=TEXT, metadata={
        "description": "The client id the platform issued to this tool", "example": "10000000000042"})
    deployment_ids = fields.List(fields.String(validate=TEXT), required=True,
                                 validate=validate.Length(min=1, max=100), metadata={
                                     "description": "Deployment ids the platform uses for this "
                                                    "tool", "example": ["1:abc123"]})
    auth_login_url = fields.String(required=True, validate=URL, metadata={
        "description": "The platform's OIDC authorization endpoint",
        "example": "https://sso.canvaslms.com/api/lti/authorize_redirect"})
    auth_token_url = fields.String(required=True, validate=URL, metadata={
        "description": "The platform's OAuth 2 token endpoint (for grade passback)",
        "example": "https://sso.canvaslms.com/login/oauth2/token"})
    key_set_url = fields.String(required=True, validate=URL, metadata={
        "description": "The platform's public keys (JWKS)",
        "example": "https://sso.canvaslms.com/api/lti/security/jwks"})
    auth_audience = fields.String(load_default=None, allow_none=True, validate=URL, metadata={
        "description": "The aud of our token requests when it is not auth_token_url (some "
                       "platforms, e.g. Brightspace, name another)"})
    course_id = fields.String(required=True, validate=validate.Length(min=1, max=64), metadata={
        "description": "The course launches from this platform land in"})
    learner_prefix = fields.String(load_default="", validate=[
        validate.Length(max=40), validate.Regexp(r"^[A-Za-z0-9_.:-]*$",
                                                 error="letters, digits and _ . : - only")],
        metadata={"description": "Prepended to the platform's user id (sub) to make the learner "
                                 "id; the prefixes of platforms mapped to one course must "
                                 "not start one another ('' and 'c:' clash, a 409; 'canvas:' "
                                 "and 'moodle:' do not)",
                  "example": "canvas:"})
    label = fields.String(load_default="", validate=validate.Length(max=200))

    @validates("deployment_ids")
    def _distinct(self, value, **_kwargs):
        if len(set(value)) != len(value):
            raise ValidationError("deployment ids must be distinct")


class ToolUrlsSchema(Schema):
    login_url = fields.String(metadata={"description": "OIDC login initiation URL"})
    launch_url = fields.String(metadata={"description": "Redirect (launch) URL and target link "
                                                        "URI; also the deep-linking URL"})
    redirect_uris = fields.List(fields.String())
    deep_linking_url = fields.String()
    jwks_url = fields.String(metadata={"description": "The tool's public keyset URL"})
    canvas_configuration_url = fields.String(metadata={
        "description": "A Canvas developer key's JSON configuration"})


class PlatformSchema(Schema):
    id = fields.String()
    issuer = fields.String()
    client_id = fields.String()
    deployment_ids = fields.List(fields.String())
    auth_login_url = fields.String()
    auth_token_url = fields.String()
    key_set_url = fields.String()
    auth_audience = fields.String(allow_none=True)
    course_id = fields.String()
    learner_prefix = fields.String()
    label = fields.String()
    created_at = fields.DateTime()
    tool = fields.Nested(ToolUrlsSchema, metadata={"description": "What to enter in the LMS"})


def _answer(row) -> dict:
    return {**{c: getattr(row, c) for c in PlatformSchema._declared_fields if c != "tool"},
            "tool": tool_urls()}


@blp.route("/lti/platforms")
class Platforms(MethodView):
    @blp.response(200, PlatformSchema(many=True))
    def get(self):
        """List registered platforms (role: admin)."""
        require("admin")
        return [_answer(row) for row in state().store.lti.platforms()]

    @blp.arguments(PlatformCreateSchema)
    @blp.response(201, PlatformSchema)
    @blp.alt_response(404, schema="Error", description="No such course")
    @blp.alt_response(409, schema="Error", description="Issuer and client_id registered already, "
                                                       "or the learner prefix is taken in the course")
    def post(self, body):
        """Register a platform (role: admin). Launches from it land in ``course_id``; the
        answer's ``tool`` lists the URLs to enter in the LMS."""
        require("admin")
        if state().store.courses.get_course(body["course_id"]) is None:
            raise ApiError(404, "course_not_found", f"No course with id {body['course_id']!r}.",
                           "course_id")
        try:
            row = state().store.lti.create_platform(**body)
        except PlatformConflict as exc:
            raise ApiError(409, "conflict", str(exc), exc.field) from None
        return _answer(row), 201, {"Location": url_for("lti_platforms.PlatformById",
                                                       platform_id=row.id)}


@blp.route("/lti/platforms/<platform_id>")
class PlatformById(MethodView):
    @blp.response(200, PlatformSchema)
    @blp.alt_response(404, schema="Error", description="No such platform")
    def get(self, platform_id):
        """One platform registration (role: admin)."""
        require("admin")
        row = state().store.lti.platform(platform_id)
        if row is None:
            raise ApiError(404, "platform_not_found", f"No platform with id {platform_id!r}.",
                           "platform_id")
        return _answer(row)

    @blp.response(204)
    @blp.alt_response(404, schema="Error", description="No such platform")
    def delete(self, platform_id):
        """Remove a platform registration (role: admin): its launches are refused from now on,
        and its grade targets and cached tokens are forgotten."""
        require("admin")
        if not state().store.lti.delete_platform(platform_id):
            raise ApiError(404, "platform_not_found", f"No platform with id {platform_id!r}.",
                           "platform_id")
