"""Platform registration: ``/api/v1/lti/platforms``, where an admin registers the LMSs (LTI 1.3
platforms) that may launch the tool, each mapped to one course. Part of the REST API (same
authentication, error shape and OpenAPI document), registered by :func:`grader.lti.init_app` so
that the API package never imports the LTI tool. The answer lists the tool's URLs to enter in the
LMS."""
from __future__ import annotations

import logging

from flask import current_app, request, url_for
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates

from grader.api.auth import require
from grader.api.errors import ApiError
from grader.api.parsing import Blueprint
from grader.api.schemas import HTTP_URL
from grader.api.state import state
from grader.lti.urls import tool_urls
from grader.store.lti import PlatformConflict

log = logging.getLogger(__name__)

#: Fields a registration keeps for life: launches land in the course, and learner ids (prefix +
#: sub) were made with the prefix; changing either would split learners from their grades.
IMMUTABLE = ("course_id", "learner_prefix")

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


class PlatformPatchSchema(PlatformCreateSchema):
    """Fields of a registration to change (JSON Merge Patch): any of those of a registration."""


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


class RegistrationLinkCreateSchema(Schema):
    course_id = fields.String(required=True, validate=validate.Length(min=1, max=64), metadata={
        "description": "The course launches from the platform will land in"})
    learner_prefix = fields.String(load_default="", validate=[
        validate.Length(max=40), validate.Regexp(r"^[A-Za-z0-9_.:-]*$",
                                                 error="letters, digits and _ . : - only")],
        metadata={"description": "As for a registration: prepended to the platform's user ids"})
    label = fields.String(load_default="", validate=validate.Length(max=200))


class RegistrationLinkSchema(Schema):
    url = fields.String(metadata={"description": "Paste it in the LMS's dynamic registration "
                                                 "(Moodle 4.x: Site administration > Plugins > "
                                                 "External tool > Manage tools, Tool URL; "
                                                 "Canvas: Developer Keys > LTI Registration)"})
    course_id = fields.String()
    expires_at = fields.DateTime()


@blp.route("/lti/registration-links")
class RegistrationLinks(MethodView):
    @blp.arguments(RegistrationLinkCreateSchema)
    @blp.response(201, RegistrationLinkSchema)
    @blp.alt_response(404, schema="Error", description="No such course")
    def post(self, body):
        """A one-URL registration link (LTI Dynamic Registration 1.0) for one course (role:
        admin): pasted in the LMS, it registers the tool there and the platform here. Single
        use, valid 7 days; the secret in it is not stored (only its SHA-256)."""
        from grader.lti.dynamic_registration import LINK_LIFETIME, new_link_secret

        require("admin")
        if state().store.courses.get_course(body["course_id"]) is None:
            raise ApiError(404, "course_not_found", f"No course with id {body['course_id']!r}.",
                           "course_id")
        secret, link_id = new_link_secret()
        row = state().store.lti.create_registration_link(
            link_id, body["course_id"], body["learner_prefix"], body["label"], LINK_LIFETIME)
        return {"url": url_for("lti.dynamic_registration", link=secret, _external=True),
                "course_id": row.course_id, "expires_at": row.expires_at}, 201


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

    @blp.arguments(PlatformCreateSchema)
    @blp.response(200, PlatformSchema)
    @blp.alt_response(404, schema="Error", description="No such platform")
    @blp.alt_response(409, schema="Error", description="Issuer and client_id of another "
                      "registration, or a change of course_id or learner_prefix")
    def put(self, body, platform_id):
        """Replace a registration (role: admin): deployments added or retired, keys or
        endpoints changed. The registration keeps its id, grade targets and line items; a
        deployment added back sends the scores its learners were waiting for."""
        require("admin")
        return _update(platform_id, body)

    @blp.arguments(PlatformPatchSchema(partial=True),
                   content_type="application/merge-patch+json")
    @blp.response(200, PlatformSchema)
    @blp.alt_response(404, schema="Error", description="No such platform")
    @blp.alt_response(409, schema="Error", description="As for PUT")
    def patch(self, _body, platform_id):
        """Change some fields of a registration (role: admin) with a JSON Merge Patch (RFC 7386;
        ``application/merge-patch+json`` or ``application/json``): e.g. ``{"deployment_ids":
        ["1:abc", "2:def"]}`` adds a deployment (the list is replaced as a whole), or
        ``{"key_set_url": "..."}`` after the platform moved its keys. Same effects as PUT."""
        require("admin")
        patch = request.get_json()
        for name, value in (patch.items() if isinstance(patch, dict) else ()):
            field = PlatformCreateSchema().fields.get(name)
            if value is None and field is not None and field.required:
                raise ApiError(422, "validation_error", f"{name}: cannot be removed (null in a "
                               "JSON Merge Patch removes a field, and every registration has a "
                               f"{name}); send a new value instead.", name)
        return _update(platform_id, _body)

    @blp.response(204)
    @blp.alt_response(404, schema="Error", description="No such platform")
    def delete(self, platform_id):
        """Remove a platform registration (role: admin): its launches are refused from now on,
        and its grade targets and cached tokens are forgotten."""
        require("admin")
        if not state().store.lti.delete_platform(platform_id):
            raise ApiError(404, "platform_not_found", f"No platform with id {platform_id!r}.",
                           "platform_id")


def _update(platform_id: str, fields: dict) -> dict:
    """Apply ``fields`` to the registration; then forget the platform keys cached for its old
    key-set URL when it changed, and send the pending scores of grade targets whose deployment
    is registered again (:func:`grader.lti.channel.publish_pending`)."""
    repo = state().store.lti
    current = repo.platform(platform_id)
    if current is None:
        raise ApiError(404, "platform_not_found", f"No platform with id {platform_id!r}.",
                       "platform_id")
    for name in IMMUTABLE:
        if name in fields and fields[name] != getattr(current, name):
            raise ApiError(409, "immutable", f"{name} of a registration cannot change (from "
                           f"{getattr(current, name)!r} to {fields[name]!r}): learners and "
                           "their grades belong to it; register the platform again for another "
                           "course or prefix.", name)
    try:
        changed = repo.update_platform(platform_id, **fields)
    except PlatformConflict as exc:
        raise ApiError(409, "conflict", str(exc), exc.field) from None
    if changed is None:  # deleted meanwhile
        raise ApiError(404, "platform_not_found", f"No platform with id {platform_id!r}.",
                       "platform_id")
    before, after = changed
    lti = current_app.extensions["lti"]
    if before.key_set_url != after.key_set_url:
        lti.platform_keys.forget(before.key_set_url)
    added = set(after.deployment_ids) - set(before.deployment_ids)
    if added and lti.notifier is not None:
        from grader.lti.channel import publish_pending

        for target in repo.grade_targets_of_platform(platform_id):
            if target.deployment_id in added:
                publish_pending(lti.notifier, state().store, lti.catalog, target)
    retired = set(before.deployment_ids) - set(after.deployment_ids)
    if added or retired:
        log.warning("platform %s (%s): deployments added %s, retired %s", platform_id,
                    after.issuer, sorted(added), sorted(retired))
    return _answer(after)
