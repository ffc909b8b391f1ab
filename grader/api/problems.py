"""``/api/v1/problems``: instructors upload their own code problems (YAML or JSON documents,
:mod:`grader.problems.authored`), version them, and try them before learners see them (role:
instructor, course-scoped).

An upload is validated (422 ``invalid_problem``, every error with its path), then tried in the
sandbox (:func:`grader.problems.authored.trial.trial`); a problem whose reference fails is refused
(422 ``problem_refused`` with the trial). A stored version keeps its trial and the visible
examples' values the sandbox computed, so the API shows the examples without running anything.

Where the trial runs: in this process, with a sandbox of its own, on the embedded default (the
answer carries the trial at once); in production mode the API process has no sandbox, so the
upload is stored as ``pending`` and its trial queued for a Celery worker
(:mod:`grader.grading.problem_trials`): 202 with ``Location``, the trial run to poll
(``GET /problems/<id>/trials/<trial_id>?wait=N``); the version becomes ``passed`` (usable by code
items) or ``refused`` when it is done. ``POST /problems/<id>/trial`` is queued the same way.
"""
from __future__ import annotations

import json
import time
from typing import Any

from flask import request, url_for
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from grader import jsontext
from grader.api.auth import require_course
from grader.api.errors import ApiError, found_version
from grader.api.parsing import Blueprint, invalid_json, read_body
from grader.api.schemas import PollArgsSchema
from grader.api.state import state
from grader.problems import PROBLEMS
from grader.problems.authored import DocumentError, compile_document, load_document, parse
from grader.problems.authored import registry
from grader.problems.authored.executor import encode
from grader.problems.authored.trial import trial
from grader.results import InfrastructureError

blp = Blueprint("problems", __name__, url_prefix="/api/v1/problems",
                description="Instructor-authored code problems: upload, version, trial.")

YAML_TYPES = {"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"}
PROBLEM_BODY = {"content": {
    "application/yaml": {"schema": {"type": "string"}},
    "application/json": {"schema": {"type": "object"}},
}, "required": True, "description": "A problem document (README, \"Authored code problems\")."}
MAX_VERSION = 2**31 - 1


class VersionArgsSchema(Schema):
    version = fields.Integer(load_default=None, validate=validate.Range(min=1, max=MAX_VERSION))


class TrialBodySchema(Schema):
    version = fields.Integer(load_default=None, validate=validate.Range(min=1, max=MAX_VERSION))
    mutants = fields.Boolean(load_default=True)


def _sandbox():
    from grader.sandbox import SandboxUnavailable

    factory = state().sandbox_factory
    if factory is None:
        raise ApiError(503, "sandbox_unavailable", "this process runs no trials", None)
    try:
        return factory()
    except SandboxUnavailable as exc:
        raise ApiError(503, "sandbox_unavailable", f"the trial needs the sandbox: {exc}",
                       None) from None


def trials_here() -> bool:
    """Whether this process runs trials itself (it has a sandbox: the embedded default), or
    queues them for a worker (production mode, a dispatcher that can)."""
    return state().sandbox_factory is not None or not hasattr(state().dispatcher,
                                                              "problem_trial")


def validate(raw: dict):
    """``(document, compiled problem)`` of ``raw``; 422 ``invalid_problem`` naming the field.
    Runs nothing of the document's code."""
    try:
        return load_document(raw), compile_document(raw)
    except DocumentError as exc:
        first = exc.errors[0] if exc.errors else {"path": None}
        raise ApiError(422, "invalid_problem", str(exc), first["path"] or None,
                       errors=exc.errors) from None


def run_trial(raw: dict, with_mutants: bool = True) -> tuple[dict, dict, dict]:
    """Compile ``raw`` and try it in a fresh sandbox: ``(document, trial report, the visible
    examples' values encoded)``. 422 ``invalid_problem`` naming the field."""
    doc, _, report, expected = try_problem(raw, with_mutants)
    return doc, report, expected


def try_problem(raw: dict, with_mutants: bool = True) -> tuple[dict, Any, dict, dict]:
    """:func:`run_trial` with the compiled problem second: its cache and pool of seeds, which
    :func:`grader.problems.authored.registry.adopt` keeps for the version's gradings."""
    doc, problem = validate(raw)
    sandbox = _sandbox()
    try:
        report = trial(problem, doc, sandbox, with_mutants=with_mutants)
    except InfrastructureError as exc:
        raise ApiError(503, "sandbox_unavailable", str(exc), None) from None
    finally:
        sandbox.close()
    return doc, problem, report, encode(problem.executor.visible_values())


def read_problem_body(expected_id: str | None = None) -> tuple[dict, str]:
    source = read_body(request).decode("utf-8", errors="replace")
    fmt = "json" if request.mimetype == "application/json" else "yaml"
    if fmt == "json":  # read as every JSON body is: a 400 naming the reason
        try:
            jsontext.loads(source)
        except json.JSONDecodeError as exc:
            raise invalid_json(exc) from None
    try:
        raw = parse(source, fmt)
    except DocumentError as exc:
        raise ApiError(422, "invalid_problem", str(exc), None, errors=exc.errors) from None
    if not isinstance(raw, dict):
        raise ApiError(422, "invalid_problem", "the document must be a mapping", None)
    if expected_id is not None:
        raw.setdefault("id", expected_id)
        if raw["id"] != expected_id:
            raise ApiError(422, "invalid_problem", f"id: {raw['id']!r} differs from the path's "
                           f"{expected_id!r}", "id")
    if raw.get("id") in PROBLEMS:
        raise ApiError(422, "invalid_problem", f"id: {raw['id']!r} is a built-in problem; "
                       "choose another id", "id")
    return raw, source


def _store(principal, raw: dict, source: str) -> tuple[dict, int, dict]:
    """Store a new version: tried here (``(view, 201 or 200, {})``), or stored ``pending`` with
    its trial queued for a worker (``(view, 202, {"Location": the trial run})``)."""
    if not trials_here():
        doc, _ = validate(raw)
        record = state().store.content.add_problem_version(
            principal.course_id, doc["id"], raw, source, {}, {}, status="pending")
        run = queue_trial(record, mutants=True, decides=True)
        return {**problem_view(record), "trial_id": run.id}, 202, {"Location": trial_url(run)}
    doc, problem, report, expected = try_problem(raw)
    if report["refused"]:
        raise ApiError(422, "problem_refused", f"the trial refuses the problem: "
                       f"{report['refused']}", report.get("refused_field", "reference"),
                       errors=report["findings"])
    record = state().store.content.add_problem_version(principal.course_id, doc["id"], raw,
                                                       source, expected, report)
    registry.adopt(registry.inline(record), problem)  # its pool of seeds, filled by the trial
    return problem_view(record), None, {}


def queue_trial(record, mutants: bool, decides: bool):
    """Store a trial run of ``record`` and queue it for a worker; returns the run."""
    run = state().store.problem_trials.create(record.course_id, record.problem_id,
                                              record.version, mutants=mutants, decides=decides)
    state().dispatcher.problem_trial(run.id)
    return run


def trial_url(run) -> str:
    return url_for("problems.ProblemTrialById", problem_id=run.problem_id, trial_id=run.id)


def problem_view(record) -> dict:
    """A stored version: id, version, title, status (``passed``; or, while its trial runs on a
    worker, ``pending``, then ``refused`` or ``failed``), the document and its trial (None
    while pending)."""
    status = record.status or "passed"
    return {"id": record.problem_id, "version": record.version,
            "title": record.document.get("title"), "created_at": record.created_at.isoformat(),
            "status": status, "document": record.document,
            "trial": record.trial if status != "pending" else None}


def trial_run_view(run) -> dict:
    """A queued trial: status (``queued``, ``running``, ``done``, ``failed``), how many times a
    worker started it (``attempts``: the sweep queues one whose worker died again), the report
    once done, the reason once failed, and the version's status when the run decides it."""
    view = {"id": run.id, "problem_id": run.problem_id, "version": run.version,
            "status": run.status, "attempts": run.attempts or 0, "mutants": run.mutants,
            "report": run.report, "error": run.error}
    if run.decides:
        record = state().store.content.problem(run.course_id, run.problem_id, run.version)
        view["problem_status"] = record.status if record is not None else None
    return view


def get_problem(principal, problem_id: str, version: int | None = None):
    return found_version(state().store.content.problem(principal.course_id, problem_id, version),
                         "problem", problem_id, version)


@blp.route("")
class Problems(MethodView):
    @blp.response(200)
    def get(self):
        """The course's authored problems with their versions."""
        principal = require_course("instructor")
        listing: dict[str, dict] = {}
        for record in state().store.content.problem_versions(principal.course_id):
            entry = listing.setdefault(record.problem_id, {"id": record.problem_id,
                                                           "versions": []})
            entry["versions"].append({"version": record.version,
                                      "created_at": record.created_at.isoformat(),
                                      "status": record.status or "passed"})
            entry["latest"], entry["title"] = record.version, record.document.get("title")
        return list(listing.values())

    @blp.doc(requestBody=PROBLEM_BODY)
    @blp.response(201)
    @blp.alt_response(202, description="Production mode: stored as pending, its trial queued "
                      "for a worker; poll the Location")
    @blp.alt_response(409, schema="Error", description="A problem with this id exists")
    @blp.alt_response(422, schema="Error", description="Invalid or refused problem")
    def post(self):
        """Upload a new problem (YAML or JSON; its ``id`` names it): validated, then tried in
        the sandbox (``trial`` in the answer: the reference's score, each mistake's score and
        whether it is named and separable, each automatic mutant caught or not, the time per
        grading). 422 ``problem_refused`` (with the trial) when the reference fails."""
        principal = require_course("instructor")
        raw, source = read_problem_body()
        if state().store.content.problem(principal.course_id, str(raw.get("id"))) is not None:
            raise ApiError(409, "conflict", f"Problem {raw['id']!r} exists; PUT to add a "
                           "version.", "id")
        view, status, headers = _store(principal, raw, source)
        return view, status or 201, headers or {
            "Location": url_for("problems.ProblemById", problem_id=view["id"])}


@blp.route("/<problem_id>")
class ProblemById(MethodView):
    @blp.arguments(VersionArgsSchema, location="query")
    @blp.response(200)
    def get(self, args, problem_id):
        """A problem (latest version, or ``?version=N``) and the list of its versions."""
        principal = require_course("instructor")
        record = get_problem(principal, problem_id, args["version"])
        versions = [r.version for r in
                    state().store.content.problem_versions(principal.course_id, problem_id)]
        return {**problem_view(record), "versions": versions}

    @blp.doc(requestBody=PROBLEM_BODY)
    @blp.response(200)
    @blp.alt_response(202, description="Production mode: stored as pending (see POST)")
    @blp.alt_response(422, schema="Error", description="Invalid or refused problem")
    def put(self, problem_id):
        """A new version of the problem (tried like an upload); assignments saved before keep
        the version they pinned."""
        principal = require_course("instructor")
        raw, source = read_problem_body(problem_id)  # a body it cannot read: 400/422 first
        get_problem(principal, problem_id)
        view, status, headers = _store(principal, raw, source)
        return view, status or 200, headers


@blp.route("/<problem_id>/trial")
class ProblemTrial(MethodView):
    @blp.arguments(TrialBodySchema)
    @blp.response(200)
    @blp.alt_response(202, description="Production mode: queued for a worker; poll the "
                      "Location")
    def post(self, body, problem_id):
        """Run the trial of a stored version again (``version``, default the latest;
        ``mutants: false`` skips the mutants) and return its report. In production mode it is
        queued for a worker: 202 with the run (``Location``) to poll; the trial of a version
        not passed yet (pending, failed) decides its status."""
        principal = require_course("instructor")
        record = get_problem(principal, problem_id, body["version"])
        if not trials_here():
            run = queue_trial(record, body["mutants"], decides=record.status != "passed")
            return trial_run_view(run), 202, {"Location": trial_url(run)}
        _, report, _ = run_trial(record.document, body["mutants"])
        return {**report, "version": record.version}


@blp.route("/<problem_id>/trials/<trial_id>")
class ProblemTrialById(MethodView):
    @blp.arguments(PollArgsSchema, location="query")
    @blp.response(200)
    def get(self, args, problem_id, trial_id):
        """A trial queued for a worker: its status, the report once ``done`` (the reason once
        ``failed``) and, for an upload's, the version's status (``problem_status``).
        ``?wait=N`` holds the request up to N seconds (capped at 30) and answers as soon as
        the run is final."""
        principal = require_course("instructor")
        run = state().store.problem_trials.get(trial_id)
        if run is None or run.course_id != principal.course_id or run.problem_id != problem_id:
            raise ApiError(404, "trial_not_found", f"No trial {trial_id!r} of problem "
                           f"{problem_id!r}.", "trial_id")
        deadline = time.monotonic() + min(args.get("wait", 0.0),
                                          state().config["LONG_POLL_MAX_SECONDS"])
        delay = 0.02
        while run.status not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 1.5, 0.2)
            run = state().store.problem_trials.get(trial_id)
        return trial_run_view(run)


def resolve_problems(course_id: str, document: dict) -> dict:
    """Pin the course's authored problems in code items: ``problem: <id>`` becomes
    ``<id>@<newest version>`` now, ``<id>@<n>`` stays; a built-in problem's id is kept (the
    catalogue inlines the pinned version when it compiles the assignment,
    :meth:`grader.content.Catalog.with_problems`). 422 naming ``items[i].problem`` for a problem
    that does not exist, or has no version whose trial passed (``<id>`` pins the newest passed
    one; ``<id>@<n>`` must have passed). ``document`` is changed in place."""
    for index, item in enumerate(document.get("items") or []):
        if not isinstance(item, dict) or item.get("kind") != "code":
            continue
        ref = item.get("problem")
        if not isinstance(ref, str) or ref in PROBLEMS:
            continue
        field = f"items[{index}].problem"
        problem_id, _, version = ref.partition("@")
        if version and not version.isdigit():
            raise ApiError(422, "validation_error", f"{field}: write <id> or <id>@<version>",
                           field)
        content = state().store.content
        record = content.problem(course_id, problem_id, int(version) if version else None)
        if record is None:
            raise ApiError(422, "validation_error", f"{field}: {ref!r} is neither a built-in "
                           "problem nor one of this course's problems", field)
        if (record.status or "passed") != "passed":
            passed = None if version else content.problem(course_id, problem_id, passed=True)
            if passed is None:
                raise ApiError(422, "validation_error", f"{field}: {ref!r} cannot be used until "
                               f"its trial passes (version {record.version} is "
                               f"{record.status})", field)
            record = passed
        item["problem"] = f"{record.problem_id}@{record.version}"
    return document
