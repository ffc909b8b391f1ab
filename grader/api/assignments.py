"""``/api/v1/assignments``: built-in and course assignments as learners see them; instructors create
and edit their course's assignments, export grades and regrade."""
from __future__ import annotations

import copy
import csv
import io
import time

import numpy
import json_merge_patch
from flask import Response, request, url_for
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate

from grader.api.auth import require_course
from grader.api.errors import ApiError, first_field
from grader.api.item_schemas import ItemField
from grader.api.parsing import Blueprint, read_body
from grader.api.problems import resolve_problems
from grader.api.schemas import AssignmentSchema, AssignmentSummarySchema, PollArgsSchema
from grader.api.state import state
from grader.content import (ATTEMPT_POLICIES, ContentError, builtin_document,
                            compile_assignment, public_assignment)
from grader.deadlines import LATE_MODES, check_due
from grader.grading.due import course_zone
from grader.grading.gradebook import columns as gradebook_columns, gradebook
from grader.ids import ID_PATTERN
from grader.rubric.refs import parse_ref

blp = Blueprint("assignments", __name__, url_prefix="/api/v1",
                description="Assignments and their items (never keys or hidden tests).")

READERS = ("lms", "instructor")


def get_assignment(principal, assignment_id: str):
    """The assignment visible to the caller's course, or a 404 naming ``assignment_id``."""
    assignment = state().catalog.get(principal.course_id, assignment_id)
    if assignment is None:
        raise ApiError(404, "assignment_not_found", f"No assignment with id {assignment_id!r}.",
                       "assignment_id")
    return assignment


ASSIGNMENT_ID = validate.Regexp(ID_PATTERN,
                                error="1-100 of letters, digits, '.', '_', '-', starting with a "
                                      "letter or digit")
WHOLE = {"required": "Missing data for required field (POST and PUT take the whole assignment; "
                     "to change some fields, send PATCH with a JSON Merge Patch)."}


class LatePolicySchema(Schema):
    """What a submission received after its learner's due date gets (README "Late work"):
    ``accept`` (the default), ``penalty_per_day`` or ``fixed_penalty`` (``percent`` of the
    assignment's points possible per started day late, or once), ``refuse``."""

    class Meta:
        unknown = "raise"

    mode = fields.String(required=True, validate=validate.OneOf(LATE_MODES))
    percent = fields.Float(validate=validate.Range(min=0, max=100), metadata={
        "description": "of the points possible; required for the two penalty modes"})


class AssignmentDocumentSchema(Schema):
    """An instructor's assignment: items reference built-in code problems, the course's uploaded
    rubrics (``rubric: <id>``) or carry a choice item inline; see README "Assignments"."""

    class Meta:
        unknown = "raise"

    id = fields.String(required=True, validate=ASSIGNMENT_ID, error_messages=WHOLE)
    title = fields.String(required=True, validate=validate.Length(min=1, max=300),
                          error_messages=WHOLE)
    description = fields.String(load_default="")
    due_at = fields.DateTime(validate=check_due, load_default=None, allow_none=True)
    callback_url = fields.Url(schemes={"http", "https"}, require_tld=False, load_default=None,
                              allow_none=True)
    items = fields.List(ItemField(), required=True, validate=validate.Length(min=1, max=200),
                        error_messages=WHOLE)
    published = fields.Boolean(load_default=None, allow_none=True, metadata={
        "description": "learners may open it (the learner pages, /learn); a new assignment is a "
                       "draft until this is true; PUT without it keeps the current state"})
    attempt_policy = fields.String(load_default="latest", validate=validate.OneOf(
        ATTEMPT_POLICIES), metadata={"description": "which attempt counts: latest (graded), "
                                                    "best, or best_per_item"})
    late_policy = fields.Nested(LatePolicySchema, load_default=None, allow_none=True)


class AssignmentPatchSchema(Schema):
    """``PATCH /assignments/<id>``: a JSON Merge Patch (RFC 7386) of the assignment document:
    the fields given replace the current ones, ``null`` removes an optional field (``due_at``,
    ``callback_url``, ``description``), and ``items``, a list, is replaced as a whole. The
    result must be a valid assignment; ``id`` cannot change."""

    class Meta:
        unknown = "raise"

    id = fields.String(validate=ASSIGNMENT_ID)
    title = fields.String(allow_none=True, validate=validate.Length(min=1, max=300))
    description = fields.String(allow_none=True)
    due_at = fields.DateTime(validate=check_due, allow_none=True)
    callback_url = fields.String(allow_none=True)
    items = fields.List(ItemField(), allow_none=True)
    published = fields.Boolean(allow_none=True)
    attempt_policy = fields.String(allow_none=True, validate=validate.OneOf(ATTEMPT_POLICIES))
    late_policy = fields.Nested(LatePolicySchema, allow_none=True)


class CopySchema(Schema):
    """``POST /assignments/<id>/copy``: the copy's id in the course, and optionally its title."""

    class Meta:
        unknown = "raise"

    id = fields.String(required=True, validate=ASSIGNMENT_ID)
    title = fields.String(load_default=None, validate=validate.Length(min=1, max=300))
    published = fields.Boolean(load_default=False, metadata={
        "description": "a copy is a new assignment: a draft unless this is true"})


class RegradeCreateSchema(Schema):
    dry_run = fields.Boolean(load_default=True)


class GradesArgsSchema(Schema):
    attempts = fields.String(load_default="latest", validate=validate.OneOf(["latest", "all"]))


def resolve_rubrics(course_id: str, document: dict) -> dict:
    """Inline the course's uploaded rubrics into text items, pinned, so an assignment version
    always scores with the same rubric version: ``rubric: <id>`` pins the newest version now (as
    it always did), ``<id>@<n>`` pins version n; ``<id>@latest`` is kept as it is and follows
    the newest version at each grading (:mod:`grader.rubric.refs`). A built-in rubric's id is
    kept (its file is read). 422 naming ``items[i].rubric`` for a rubric that does not exist."""
    from grader.rubric.files import find_rubric_file

    document = copy.deepcopy(document)
    for index, item in enumerate(document["items"]):
        if not isinstance(item, dict):
            continue  # compile_assignment names the field
        text = item.get("rubric")
        if item.get("kind") != "text" or not isinstance(text, str):
            continue
        field = f"items[{index}].rubric"
        try:
            ref = parse_ref(text)
        except ValueError as exc:
            raise ApiError(422, "validation_error", f"{field}: {exc}", field) from None
        content = state().store.content
        record = content.rubric(course_id, ref.rubric_id, ref.version)
        if record is not None:
            if not ref.latest:
                item["rubric"] = {**record.document, "id": record.rubric_id,
                                  "version": record.version}
            continue
        versions = [r.version for r in content.rubric_versions(course_id, ref.rubric_id)]
        if versions:
            raise ApiError(422, "validation_error", f"{field}: the course's rubric "
                           f"{ref.rubric_id!r} has no version {ref.version} (its versions: "
                           f"{', '.join(map(str, versions))})", field)
        try:
            find_rubric_file(ref.rubric_id, state().catalog.content_dir)
        except ValueError:
            raise ApiError(422, "validation_error", f"{field}: {ref.rubric_id!r} is "
                           "neither a rubric of this course nor a built-in rubric",
                           field) from None
    return document


def read_only_builtin(assignment_id: str) -> ApiError:
    """The answer to an edit of a built-in assignment: they are shared by every course."""
    return ApiError(
        405, "read_only_assignment",
        f"{assignment_id!r} is a built-in assignment and cannot be edited. Copy it into your "
        f"course with POST /api/v1/assignments/{assignment_id}/copy and a body "
        '{"id": "<new id>"}, then edit the copy.', "assignment_id", headers={"Allow": "GET"})


def loaded(schema: Schema, document: dict) -> dict:
    """``document`` validated by ``schema``; 422 naming the first field at fault."""
    try:
        return schema.load(document)
    except ValidationError as exc:
        field, message = first_field(exc.messages)
        raise ApiError(422, "validation_error", f"{field}: {message}" if field else message,
                       field, errors=exc.messages) from None


def time_zone_of(course_id: str | None) -> str | None:
    """The course's time zone (``None``: UTC), in which due dates without an offset are read."""
    return course_zone(state().store, course_id)


def assignment_view(assignment) -> dict:
    """:func:`public_assignment` with the due date in the course's time zone."""
    return public_assignment(assignment, time_zone_of(assignment.course_id))


def save_assignment(principal, body: dict, status: int, current=None):
    """Store ``body`` (validated by :class:`AssignmentDocumentSchema`) as the assignment's next
    version. ``current``: its latest stored record (PUT, PATCH), whose ``published`` state is
    kept when ``body`` does not say; a new assignment is a draft unless it says."""
    app_state = state()
    if body["id"] in app_state.catalog.builtins:
        raise ApiError(409, "conflict", f"{body['id']!r} is a built-in assignment id; choose "
                       "another.", "id")
    published = body.get("published")
    if published is None:
        published = bool(current.document.get("published", True)) if current is not None \
            else False
    document = {**body, "due_at": body["due_at"].isoformat() if body["due_at"] else None,
                "published": published}
    if document.get("late_policy") is None:
        document.pop("late_policy", None)
    document = resolve_problems(principal.course_id, resolve_rubrics(principal.course_id,
                                                                      document))
    try:
        checked, _following = app_state.catalog.follow_latest(principal.course_id, document)
        checked = app_state.catalog.with_problems(principal.course_id, checked)
        compile_assignment(checked, app_state.catalog.content_dir, where="assignment")
    except ContentError as exc:
        message = str(exc).removeprefix("assignment: ")
        field = message.split(":", 1)[0].split(" (", 1)[0]
        raise ApiError(422, "validation_error", message, field) from None
    record = app_state.store.content.add_assignment_version(principal.course_id, body["id"],
                                                            document)
    assignment = app_state.catalog.get(principal.course_id, body["id"], record.version)
    headers = {"Location": url_for("assignments.AssignmentById", assignment_id=body["id"])}
    return assignment_view(assignment), status, headers


@blp.route("/assignments")
class Assignments(MethodView):
    @blp.response(200, AssignmentSummarySchema(many=True))
    def get(self):
        """List the assignments the caller's course can use: built-in ones and its own."""
        principal = require_course(*READERS)
        return [{"id": a.id, "title": a.title, "max_score": a.max_score,
                 "item_count": len(a.items), "published": a.published}
                for a in state().catalog.visible(principal.course_id)]

    @blp.arguments(AssignmentDocumentSchema)
    @blp.response(201, AssignmentSchema)
    @blp.alt_response(409, schema="Error", description="The id is taken")
    @blp.alt_response(422, schema="Error", description="Invalid assignment or item")
    def post(self, body):
        """Create an assignment in the caller's course (role: instructor)."""
        principal = require_course("instructor")
        if state().store.content.assignment(principal.course_id, body["id"]) is not None:
            raise ApiError(409, "conflict", f"Assignment {body['id']!r} exists; PUT to add a "
                           "version.", "id")
        return save_assignment(principal, body, 201)


@blp.route("/assignments/<assignment_id>")
class AssignmentById(MethodView):
    @blp.response(200, AssignmentSchema)
    @blp.alt_response(404, schema="Error", description="Unknown assignment")
    def get(self, assignment_id):
        """One assignment with its items: id, kind, prompt, points, and for code items the
        function contract."""
        principal = require_course(*READERS)
        return assignment_view(get_assignment(principal, assignment_id))

    @blp.arguments(AssignmentDocumentSchema)
    @blp.response(200, AssignmentSchema)
    @blp.alt_response(404, schema="Error", description="Unknown assignment")
    @blp.alt_response(405, schema="Error", description="A built-in assignment (read-only)")
    @blp.alt_response(422, schema="Error", description="Invalid assignment or item")
    def put(self, body, assignment_id):
        """Replace a course assignment with the whole document given: stores a new version;
        earlier submissions keep the version they were made against (role: instructor). To
        change some fields only, use PATCH. Built-in assignments are read-only (405): copy
        one with ``POST /assignments/<id>/copy``."""
        principal = require_course("instructor")
        if body["id"] != assignment_id:
            raise ApiError(422, "validation_error", "id must equal the assignment id in the path.",
                           "id")
        return save_assignment(principal, body, 200, own_record(principal, assignment_id))

    @blp.arguments(AssignmentPatchSchema, content_type="application/merge-patch+json")
    @blp.response(200, AssignmentSchema)
    @blp.alt_response(404, schema="Error", description="Unknown assignment")
    @blp.alt_response(405, schema="Error", description="A built-in assignment (read-only)")
    @blp.alt_response(422, schema="Error", description="The patched assignment is invalid")
    def patch(self, _fields, assignment_id):
        """Change some fields of a course assignment with a JSON Merge Patch (RFC 7386; content
        type ``application/merge-patch+json`` or ``application/json``): e.g. ``{"title":
        "renamed"}``, or ``{"due_at": null}`` to remove the due date. ``items`` is replaced as a
        whole. Stores a new version, like PUT (role: instructor)."""
        principal = require_course("instructor")
        record = own_record(principal, assignment_id)
        read_body(request)  # a chunked body over the limit is a 413, not a cut document
        patch = request.get_json()
        schema = AssignmentDocumentSchema()
        for name, value in (patch.items() if isinstance(patch, dict) else ()):
            if value is None and name in schema.fields and schema.fields[name].required:
                raise ApiError(422, "validation_error", f"{name}: cannot be removed (null in a JSON "
                               f"Merge Patch removes a field, and every assignment has a {name}); "
                               "send a new value instead.", name)
        document = json_merge_patch.merge(copy.deepcopy(record.document), patch)
        if document.get("id") != assignment_id:
            raise ApiError(422, "validation_error", "id: an assignment's id cannot change; "
                           "copy it to a new id instead.", "id")
        return save_assignment(principal, loaded(AssignmentDocumentSchema(), document), 200,
                               record)


def set_published(course_id: str, assignment_id: str, published: bool):
    """Publish a course assignment (or take it back to a draft): its next version, the same
    document with ``published`` changed (the instructor page's button; the API does it with
    ``PATCH {"published": true}``). Returns the stored record; ``None`` for no such assignment."""
    content = state().store.content
    record = content.assignment(course_id, assignment_id)
    if record is None:
        return None
    if bool(record.document.get("published", True)) == published:
        return record
    return content.add_assignment_version(course_id, assignment_id,
                                          {**record.document, "published": published})


def own_record(principal, assignment_id: str):
    """The latest stored version of a course's own assignment, or 404."""
    record = state().store.content.assignment(principal.course_id, assignment_id)
    if record is None:
        raise ApiError(404, "assignment_not_found",
                       f"No assignment with id {assignment_id!r} in this course.",
                       "assignment_id")
    return record


@blp.before_request
def _builtins_are_read_only():
    """PUT or PATCH of a built-in assignment: 405 saying how to copy it (before the body is
    read, so the answer does not depend on what was sent)."""
    assignment_id = (request.view_args or {}).get("assignment_id")
    if request.method in ("PUT", "PATCH") and request.endpoint == "assignments.AssignmentById" \
            and assignment_id in state().catalog.builtins:
        require_course("instructor")
        raise read_only_builtin(assignment_id)


@blp.route("/assignments/<assignment_id>/copy")
class AssignmentCopy(MethodView):
    @blp.arguments(CopySchema)
    @blp.response(201, AssignmentSchema)
    @blp.alt_response(404, schema="Error", description="Unknown assignment")
    @blp.alt_response(409, schema="Error", description="The new id is taken")
    def post(self, body, assignment_id):
        """Copy a built-in assignment (or one of the course's own) into the course under a new
        id, as version 1 of an assignment the instructor can edit (role: instructor). Items keep
        their problems, rubrics (built-in rubrics by id; course rubrics at the pinned version)
        and keys."""
        principal = require_course("instructor")
        if assignment_id in state().catalog.builtins:
            source = builtin_document(state().catalog.content_dir, assignment_id)
        else:
            source = own_record(principal, assignment_id).document
        if body["id"] in state().catalog.builtins or \
                state().store.content.assignment(principal.course_id, body["id"]) is not None:
            raise ApiError(409, "conflict", f"Assignment {body['id']!r} exists; choose another "
                           "id for the copy.", "id")
        document = {**copy.deepcopy(source), "id": body["id"], "published": body["published"]}
        if body["title"]:
            document["title"] = body["title"]
        return save_assignment(principal, loaded(AssignmentDocumentSchema(), document), 201)


@blp.route("/assignments/<assignment_id>/grades.csv")
class Grades(MethodView):
    @blp.arguments(GradesArgsSchema, location="query")
    @blp.response(200, content_type="text/csv")
    def get(self, args, assignment_id):
        """Grades as CSV: learner_id, score, max_score, submitted_at, graded_at, status,
        submission_id, then attempt_policy, counted_submissions, attempts, late, days_late,
        late_penalty, and per item ``<item>:score``, ``<item>:max_score``, ``<item>:override``.
        By default each learner's counted grade under the assignment's ``attempt_policy`` (the
        latest graded submission by default; learners with no graded one show their latest
        attempt); ``?attempts=all`` lists every attempt (roles: lms, instructor). ``graded_at``
        is when the score last changed (a regrade or an override that changed it)."""
        principal = require_course(*READERS)
        assignment = get_assignment(principal, assignment_id)
        return grades_csv(principal.course_id, assignment, args["attempts"])


def grades_csv(course_id: str, assignment, attempts: str = "latest") -> Response:
    """The grades.csv response of ``assignment`` in ``course_id`` (``attempts``: each learner's
    counted grade under the assignment's attempt policy, or ``all`` attempts); also served by
    the instructor view (grader/web). Columns: :mod:`grader.grading.gradebook`."""
    store = state().store
    rows = store.submissions_of(course_id, assignment.id)
    item_ids = list(assignment.items)
    table = gradebook(rows, item_ids, assignment.attempt_policy,
                      store.grade_timeline(course_id, assignment.id), attempts)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = gradebook_columns(item_ids)
    writer.writerow([csv_safe(name) for name in header])
    for row in table:
        writer.writerow([csv_cell(row[name]) for name in header])
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{assignment.id}-grades.csv"'})


def csv_cell(value) -> str:
    """One grades.csv cell: numbers as :func:`csv_number`, times in ISO 8601, text neutralised
    (:func:`csv_safe`), nothing for ``None``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return csv_number(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return csv_safe(str(value))


def csv_safe(text: str) -> str:
    """Neutralise spreadsheet formulas (OWASP "CSV injection"): a cell starting with = + - @ tab
    or carriage return gets a leading apostrophe."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_number(value: float | None) -> str:
    """A score as the API shows it, in positional notation: the shortest decimal that reads back
    as the same float (what JSON writes: 4033.3334, not ``%g``'s 4033.33), never an exponent
    (1000000, not 1e+06, which LMS importers reject or misread); a whole number without ``.0``;
    empty for no score."""
    if value is None:
        return ""
    return numpy.format_float_positional(float(value), unique=True, trim="-")


@blp.route("/assignments/<assignment_id>/regrades")
class Regrades(MethodView):
    @blp.arguments(RegradeCreateSchema)
    @blp.response(202)
    def post(self, body, assignment_id):
        """Regrade every graded submission of the course to this assignment with its current
        rubrics and tests (role: instructor). ``dry_run`` (default true) reports old score, new
        score and difference without changing anything; otherwise new results are stored beside
        the old ones. Poll the ``Location`` for the report."""
        principal = require_course("instructor")
        assignment = get_assignment(principal, assignment_id)
        run = state().store.regrades.create(principal.course_id, assignment.id, body["dry_run"])
        state().dispatcher.regrade(run.id)
        location = url_for("assignments.RegradeById", run_id=run.id)
        return {"id": run.id, "status": run.status, "dry_run": run.dry_run}, 202, {
            "Location": location}


@blp.route("/regrades/<run_id>")
class RegradeById(MethodView):
    @blp.arguments(PollArgsSchema, location="query")
    @blp.response(200)
    def get(self, args, run_id):
        """A regrade run: status and, once done, per submission old score, new score and
        difference (role: instructor). ``?wait=N`` holds the request up to N seconds (capped at
        30) and answers as soon as the run is done or failed."""
        principal = require_course("instructor")
        run = state().store.regrades.get(run_id)
        if run is None or run.course_id != principal.course_id:
            raise ApiError(404, "regrade_not_found", f"No regrade with id {run_id!r}.", "run_id")
        deadline = time.monotonic() + min(args.get("wait", 0.0),
                                          state().config["LONG_POLL_MAX_SECONDS"])
        delay = 0.02
        while run.status not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 1.5, 0.2)
            run = state().store.regrades.get(run_id)
        return {"id": run.id, "assignment_id": run.assignment_id, "dry_run": run.dry_run,
                "status": run.status, "versions": run.versions, "report": run.report}
