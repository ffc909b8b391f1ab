"""``/api/v1/rubrics``: instructors upload rubrics (YAML or JSON), version them, and try them
against responses with human marks before using them (role: instructor)."""
from __future__ import annotations

from flask import current_app, request, url_for
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from grader.api.auth import require_course
from grader.api.errors import ApiError, found_version
from grader.api.parsing import Blueprint, read_body
from grader.api.state import state
from grader.rubric import (RubricError, TrialTooSlow, compile_rubric, load_rubric_file,
                           parse_rubric, trial_report)
from grader.rubric.files import find_rubric_file

blp = Blueprint("rubrics", __name__, url_prefix="/api/v1/rubrics",
                description="Instructor rubrics for text items: upload, version, trial, explain.")

#: Wall-clock seconds one trial request may spend scoring (app config ``RUBRIC_TRIAL_SECONDS``);
#: each response also has the engine's per-answer budget. Past either, the trial answers 422.
TRIAL_BUDGET_SECONDS = 5.0
YAML_TYPES = {"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"}
RUBRIC_BODY = {"content": {
    "application/yaml": {"schema": {"type": "string"}},
    "application/json": {"schema": {"type": "object"}},
}, "required": True, "description": "A rubric document (see rubrics/README.md)."}


class TrialResponseSchema(Schema):
    text = fields.String(required=True, validate=validate.Length(max=100_000))
    mark = fields.Float(required=True, validate=validate.Range(min=0, max=1e6))
    id = fields.Raw(load_default=None)


MAX_VERSION = 2**31 - 1  # rubric versions are stored as 32-bit integers


class TrialSchema(Schema):
    responses = fields.List(fields.Nested(TrialResponseSchema), required=True,
                            validate=validate.Length(min=1, max=5000))
    max_mark = fields.Float(load_default=None,
                            validate=validate.Range(min=0, max=1e6, min_inclusive=False))
    version = fields.Integer(load_default=None, validate=validate.Range(min=1, max=MAX_VERSION))


class ExplainSchema(Schema):
    text = fields.String(required=True, validate=validate.Length(max=100_000),
                         metadata={"description": "the answer to explain"})
    version = fields.Integer(load_default=None, validate=validate.Range(min=1, max=MAX_VERSION),
                             metadata={"description": "a stored version (default: the latest)"})


class VersionArgsSchema(Schema):
    version = fields.Integer(load_default=None, validate=validate.Range(min=1, max=MAX_VERSION))


def read_rubric_body(expected_id: str | None = None) -> tuple[dict, str, list[dict]]:
    """Parse and compile the request's rubric; 422 listing every error with its path. Returns the
    document, its source and the compiler's warnings (valid but probably not meant)."""
    source = read_body(request).decode("utf-8", errors="replace")
    fmt = "json" if request.mimetype == "application/json" else "yaml"
    try:
        document = parse_rubric(source, fmt)
        if expected_id is not None:
            document.setdefault("id", expected_id)
        warnings = compile_rubric(document, upload=True).warnings  # a new document: its own checks
    except RubricError as exc:
        first = exc.errors[0] if exc.errors else {"path": None, "message": str(exc)}
        raise ApiError(422, "invalid_rubric", str(exc), first["path"] or None,
                       errors=exc.errors) from None
    rubric_id = document.get("id")
    if not rubric_id:
        raise ApiError(422, "invalid_rubric", "id: required to upload a rubric", "id")
    if expected_id is not None and rubric_id != expected_id:
        raise ApiError(422, "invalid_rubric", f"id: {rubric_id!r} differs from the path's "
                       f"{expected_id!r}", "id")
    return document, source, warnings


def rubric_view(record, warnings: list[dict] | None = None) -> dict:
    """A stored rubric version; ``warnings`` (what is valid but probably not meant, each with its
    path) are computed from the document each time, so older versions show them too."""
    if warnings is None:
        try:
            warnings = compile_rubric(record.document).warnings
        except RubricError:  # stored before a check that now refuses it: say so, do not fail
            warnings = [{"path": "", "message": "this version no longer compiles; upload a new one"}]
    return {"id": record.rubric_id, "version": record.version,
            "created_at": record.created_at.isoformat(), "document": record.document,
            "warnings": warnings}


def get_rubric(principal, rubric_id: str, version: int | None = None):
    return found_version(state().store.content.rubric(principal.course_id, rubric_id, version),
                         "rubric", rubric_id, version)


@blp.route("")
class Rubrics(MethodView):
    @blp.response(200)
    def get(self):
        """The course's rubrics with their versions."""
        principal = require_course("instructor")
        listing: dict[str, dict] = {}
        for record in state().store.content.rubric_versions(principal.course_id):
            entry = listing.setdefault(record.rubric_id, {"id": record.rubric_id, "versions": []})
            entry["versions"].append({"version": record.version,
                                      "created_at": record.created_at.isoformat()})
            entry["latest"] = record.version
        return list(listing.values())

    @blp.doc(requestBody=RUBRIC_BODY)
    @blp.response(201)
    @blp.alt_response(409, schema="Error", description="A rubric with this id exists")
    @blp.alt_response(422, schema="Error", description="Invalid rubric: every error with its path")
    def post(self):
        """Upload a new rubric (YAML or JSON body; its ``id`` names it). The response lists
        ``warnings``: what is valid but probably not meant (e.g. ``dot product*|similarity``,
        where ``|`` binds tighter than the space), each with its path."""
        principal = require_course("instructor")
        document, source, warnings = read_rubric_body()
        content = state().store.content
        if content.rubric(principal.course_id, document["id"]) is not None:
            raise ApiError(409, "conflict", f"Rubric {document['id']!r} exists; PUT to add a "
                           "version.", "id")
        record = content.add_rubric_version(principal.course_id, document["id"], document, source)
        return rubric_view(record, warnings), 201, {
            "Location": url_for("rubrics.RubricById", rubric_id=record.rubric_id)}


@blp.route("/<rubric_id>")
class RubricById(MethodView):
    @blp.arguments(VersionArgsSchema, location="query")
    @blp.response(200)
    def get(self, args, rubric_id):
        """A rubric (latest version, or ``?version=N``) and the list of its versions."""
        principal = require_course("instructor")
        record = get_rubric(principal, rubric_id, args["version"])
        versions = [r.version for r in
                    state().store.content.rubric_versions(principal.course_id, rubric_id)]
        return {**rubric_view(record), "versions": versions}

    @blp.doc(requestBody=RUBRIC_BODY)
    @blp.response(200)
    @blp.alt_response(422, schema="Error", description="Invalid rubric: every error with its path")
    def put(self, rubric_id):
        """Update a rubric: stores a new version (results keep the version they were scored
        with; regrade an assignment to apply it)."""
        principal = require_course("instructor")
        get_rubric(principal, rubric_id)
        document, source, warnings = read_rubric_body(rubric_id)
        record = state().store.content.add_rubric_version(principal.course_id, rubric_id,
                                                          document, source)
        return rubric_view(record, warnings)


def compiled_rubric(principal, rubric_id: str, version: int | None):
    """The course's rubric (``version``, default the latest) or a built-in one (rubrics/text/),
    compiled, and its version; 404 ``rubric_not_found`` when there is neither."""
    record = state().store.content.rubric(principal.course_id, rubric_id, version)
    if record is not None:
        return compile_rubric(record.document), record.version
    try:
        compiled = load_rubric_file(find_rubric_file(rubric_id, state().catalog.content_dir))
    except ValueError:
        get_rubric(principal, rubric_id, version)  # the 404
        raise
    return compiled, compiled.version


@blp.route("/<rubric_id>/explain")
class RubricExplain(MethodView):
    @blp.arguments(ExplainSchema)
    @blp.response(200)
    @blp.alt_response(422, schema="Error", description="rubric_too_slow: the explanation ran out of its CPU budget")
    def post(self, body, rubric_id):
        """Why the rubric scores this answer as it does: per criterion and misconception, each
        concept's phrases with the word sequences they compiled to (``variants``), which answer
        words matched which pattern word and how (as written, stem, misspelling, prefix), matches
        that were discounted (only question words) or negated (the cue, and the negation scopes of
        the answer in ``negations``: where each began and ended), near misses with the pattern words
        ``found`` and ``missing``, base credit and the guards that fired. Course rubrics and
        built-in ones; ``version`` picks a stored version. Bounded: 1 s of CPU, then 422
        ``rubric_too_slow``."""
        from grader.rubric import ScoringTimeout
        from grader.rubric.explain import explain

        principal = require_course("instructor")
        compiled, version = compiled_rubric(principal, rubric_id, body["version"])
        try:
            report = explain(compiled, body["text"])
        except ScoringTimeout as exc:
            raise ApiError(422, "rubric_too_slow", str(exc), "text") from None
        return {**report, "rubric_version": version}


@blp.route("/<rubric_id>/trial")
class RubricTrial(MethodView):
    @blp.arguments(TrialSchema)
    @blp.response(200)
    def post(self, body, rubric_id):
        """Score responses with human marks and report agreement: Pearson r, quadratic weighted
        kappa, exact and within-one agreement, over- and under-marked responses (each with its
        ``explanation``, as ``POST /rubrics/<id>/explain`` gives it), and how many
        responses each criterion and misconception matched. Also ``calibration`` (a monotone map
        from raw points to the marks, RMSE and r before and after, cross-validated; ``map`` is the
        rubric's optional ``calibration`` field, to PUT in its next version),
        ``unmatched_phrases`` (what under-marked responses say that no criterion matched, with
        counts) and ``suggestions`` (WordNet relatives of the rubric's words that those responses
        use; ``available: false`` without WordNet). Every number is rounded to 4 decimals.

        Synchronous and bounded: the trial scores for at most ``RUBRIC_TRIAL_SECONDS`` (5 s) and
        each response for at most the engine's per-answer budget (0.25 s). Past the first it
        answers 422 ``trial_too_large`` (how many responses were scored; send fewer), past the
        second 422 ``rubric_too_slow`` naming the response (the rubric needs fixing)."""
        principal = require_course("instructor")
        compiled, version = compiled_rubric(principal, rubric_id, body["version"])  # built-in ones too
        budget = float(current_app.config.get("RUBRIC_TRIAL_SECONDS", TRIAL_BUDGET_SECONDS))
        try:
            report = trial_report(compiled, body["responses"], max_mark=body["max_mark"],
                                  budget=budget)
        except TrialTooSlow as exc:
            if exc.index is not None:
                raise ApiError(422, "rubric_too_slow", str(exc), f"responses[{exc.index}]") from None
            raise ApiError(422, "trial_too_large", str(exc), "responses") from None
        except ValueError as exc:
            raise ApiError(422, "validation_error", str(exc), str(exc).split(":", 1)[0]) from None
        return {**report, "rubric_version": version}
