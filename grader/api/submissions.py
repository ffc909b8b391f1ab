"""``/api/v1/.../submissions``: intake (store first, then queue), batches, idempotency, long-poll,
and signed result links for learners."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from flask import current_app, jsonify, request, url_for
from flask.views import MethodView
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from marshmallow import ValidationError

from grader.api.assignments import get_assignment
from grader.api.auth import require_course
from grader.api.errors import ApiError, first_field
from grader.api.fastdump import compile_dump
from grader.api.parsing import Blueprint
from grader.api.schemas import (BatchCreateSchema, BatchResultSchema, LinkedResultSchema,
                                LinkSchema, PollArgsSchema, SubmissionCreatedSchema,
                                SubmissionCreateSchema, SubmissionSchema)
from grader.api.state import state
from grader.items import get_kind
from grader.store.db import IdempotencyConflict, canonical_digest
from grader.grading.adjustments import late_summary
from grader.grading.due import learner_due
from grader.store.pending import TooManyPending, create_capped, replays

blp = Blueprint("submissions", __name__, url_prefix="/api/v1",
                description="Submit responses and read graded results.")

SUBMITTERS = ("lms", "instructor")
FINAL = ("graded", "failed")


def validate_responses(assignment, responses: dict, prefix: str = "") -> None:
    """404 for an item the assignment does not have, 422 for a response of the wrong shape."""
    for item_id, response in responses.items():
        item = assignment.items.get(item_id)
        field = f"{prefix}responses.{item_id}"
        if item is None:
            raise ApiError(404, "item_not_found",
                           f"Assignment {assignment.id!r} has no item {item_id!r}; its items are "
                           f"{', '.join(assignment.items)}.", field)
        problem = get_kind(item.kind).validate_response(item, response)
        if problem:
            raise ApiError(422, "validation_error", f"{field}: {problem}", field)


BEFORE_DUE = "Details of this test are shown after the due date."


def learner_items(submission) -> list[dict]:
    """Item results as the caller may see them: before the learner's due date (the
    assignment's, or their extension's), a test marked ``after_due_date`` shows only its name,
    points and pass/fail, and its item shows no diagnosis (neither in the summary nor in
    ``extra_data``). The seed an item's grading took from an authored problem's pool or
    a built-in's shared seeds (``extra_data["seed"]``, kept for regrades) is never shown."""
    items = [_unseeded(item) for item in submission.results or []]
    if not any(t.get("visibility") == "after_due_date" for i in items for t in i["tests"]):
        return items
    # the learner's current due date (an instructor may move it, or give an extension, after
    # the submission was made), in the course's time zone when written without an offset
    due, _extended, _policy = learner_due(state().store, state().catalog, submission.course_id,
                                          submission.assignment_id, submission.learner_id)
    if due is not None and due <= datetime.now(timezone.utc):
        return items
    return [_before_due(item) for item in items]


def _unseeded(item: dict) -> dict:
    extra = item.get("extra_data") if isinstance(item, dict) else None
    if not isinstance(extra, dict) or "seed" not in extra:
        return item
    return {**item, "extra_data": {k: v for k, v in extra.items() if k != "seed"}}


def _before_due(item: dict) -> dict:
    if not any(t.get("visibility") == "after_due_date" for t in item["tests"]):
        return item
    tests = [{**t, "output": BEFORE_DUE, "extra_data": {},
              "tags": [g for g in t["tags"] if not g.startswith("diagnosis")]}
             if t.get("visibility") == "after_due_date" else t for t in item["tests"]]
    passed = sum(t["status"] == "passed" for t in tests)
    summary = (f"Passed {passed} of {len(tests)} tests; {BEFORE_DUE.lower().replace('this test', 'hidden tests')}")
    extra = {k: v for k, v in item.get("extra_data", {}).items()
             if k not in ("diagnoses", "diagnosis", "evidence")}
    return {**item, "tests": tests, "output": summary, "extra_data": extra}


def submission_view(submission) -> dict:
    return {
        "id": submission.id,
        "assignment_id": submission.assignment_id,
        "assignment_version": submission.assignment_version,
        "learner_id": submission.learner_id,
        "status": submission.status,
        "content_sha256": submission.content_sha256,
        "received_at": submission.received_at,
        "started_at": submission.started_at,
        "finished_at": submission.finished_at,
        "attempts": submission.attempts,
        "score": submission.score,
        "max_score": submission.max_score,
        "failure_reason": submission.failure_reason,
        "late": late_summary(submission.results),
        "items": learner_items(submission),
    }


#: ``extra_data`` a learner's link keeps, per item and per test: what the result page draws.
#: Everything else (timings such as ``sandbox_seconds``, ``grading_seconds``, ``execution_time``,
#: and whatever is added later) stays behind a key.
LINKED_ITEM_DATA = ("pictures", "visible_output")
LINKED_TEST_DATA = ("evidence",)
LINKED_FIELDS = ("id", "assignment_id", "assignment_version", "learner_id", "status",
                 "received_at", "score", "max_score", "failure_reason")


def _kept(data, names: tuple[str, ...]) -> dict:
    return {k: data[k] for k in names if k in data} if isinstance(data, dict) else {}


def linked_view(submission) -> dict:
    """A learner's own result as the signed link serves it to API clients
    (:class:`~grader.api.schemas.LinkedResultSchema`): :func:`learner_items` (details of
    ``after_due_date`` tests withheld before the due date), without ``content_sha256``,
    ``attempts``, ``started_at`` or ``finished_at``, and ``extra_data`` cut down to what the
    result page shows (pictures per item, evidence per test): no timing of the grading."""
    items = []
    for item in learner_items(submission):
        tests = [{**{k: v for k, v in test.items() if k != "extra_data"},
                  "extra_data": _kept(test.get("extra_data"), LINKED_TEST_DATA)}
                 for test in item.get("tests", [])]
        items.append({**{k: v for k, v in item.items() if k not in ("tests", "extra_data")},
                      "tests": tests,
                      "extra_data": _kept(item.get("extra_data"), LINKED_ITEM_DATA)})
    return {**{name: getattr(submission, name) for name in LINKED_FIELDS},
            "late": late_summary(submission.results), "items": items}


def created_view(submission, created: bool) -> dict:
    return {"id": submission.id, "status": submission.status,
            "content_sha256": submission.content_sha256,
            "received_at": submission.received_at, "created": created}


#: The longest ``Idempotency-Key`` kept (the ``idempotency_keys.key`` column).
MAX_IDEMPOTENCY_KEY = 255


def checked_idempotency_key(key, field: str) -> str | None:
    """``key`` (the ``Idempotency-Key`` header, or a batch entry's ``idempotency_key``) when it is
    absent (``None``) or a string of 1-255 characters; otherwise a 422 naming ``field``."""
    if key is not None and not (isinstance(key, str) and 1 <= len(key) <= MAX_IDEMPOTENCY_KEY):
        raise ApiError(422, "validation_error",
                       f"{field} must be 1-{MAX_IDEMPOTENCY_KEY} characters.", field)
    return key


def request_digest(assignment_id: str, body: dict) -> str:
    """SHA-256 (hex) of a submission request (the assignment and the body): the digest an
    ``Idempotency-Key`` is stored with, so that a post is a replay only when it is the same
    request (:func:`grader.store.pending.replays`)."""
    return canonical_digest({"assignment_id": assignment_id, **body})


def intake(principal, assignment, body: dict, idempotency_key: str | None = None,
           field_prefix: str = "", max_pending: int | None = None):
    """Validate, store durably, then queue. Returns (submission, created). With
    ``max_pending`` (the learner page), a learner who already has that many submissions queued
    or running gets a 409 ``submission_pending`` whose ``errors.pending`` lists their ids, newest
    first (:mod:`grader.store.pending`); the REST API passes none."""
    validate_responses(assignment, body["responses"], field_prefix)
    app_state = state()
    digest = request_digest(assignment.id, body) if idempotency_key else None
    if assignment.late_policy.mode == "refuse":
        refuse_late(app_state, principal.course_id, assignment, body["learner_id"],
                    idempotency_key, digest)
    fields = dict(course_id=principal.course_id, assignment_version=assignment.version,
                  callback_url=body.get("callback_url"), idempotency_key=idempotency_key,
                  request_sha256=digest)
    try:
        if max_pending is None:
            submission, created = app_state.store.create_submission(
                assignment.id, body["learner_id"], body["responses"], **fields)
        else:
            submission, created = create_capped(app_state.store, max_pending, assignment.id,
                                                body["learner_id"], body["responses"], **fields)
    except TooManyPending as busy:
        raise ApiError(409, "submission_pending",
                       f"You already have {len(busy.pending)} "
                       f"submission{'' if len(busy.pending) == 1 else 's'} being graded (at most "
                       f"{busy.cap} at a time): submit again once "
                       f"{'it is' if len(busy.pending) == 1 else 'one is'} graded.", None,
                       errors={"pending": busy.pending}) from None
    except IdempotencyConflict as conflict:
        raise ApiError(409, "idempotency_conflict",
                       "This Idempotency-Key was used with a different request (another body or "
                       f"another assignment: submission {conflict.submission_id}); use a new key "
                       "for a new submission.", "Idempotency-Key") from None
    if created:
        app_state.dispatcher.enqueue(submission.id)
    return submission, created


def refuse_late(app_state, course_id: str, assignment, learner_id: str,
                idempotency_key: str | None, request_sha256: str | None = None) -> None:
    """409 ``past_due`` when the learner's due date (theirs, or the assignment's) has passed and
    the assignment's late policy refuses late work; a true replay (an Idempotency-Key already
    accepted, with the same request digest ``request_sha256``) is let through (it creates
    nothing)."""
    due, extended, _policy = learner_due(app_state.store, app_state.catalog, course_id,
                                         assignment.id, learner_id)
    if due is None or datetime.now(timezone.utc) <= due:
        return
    if replays(app_state.store, course_id, idempotency_key, request_sha256):
        return
    whose = "your extended due date" if extended else "the due date"
    raise ApiError(409, "past_due", f"{whose[0].upper()}{whose[1:]} ({due.isoformat()}) has "
                   "passed and this assignment does not accept late work; ask your instructor "
                   "for an extension.", "due_at", errors={"due_at": due.isoformat()})


def wakeups():
    """This app's :class:`grader.wakeup.Wakeups` (long-polls wait on it)."""
    return current_app.extensions["grader_wakeups"]


def get_own_submission(principal, submission_id: str, read=None):
    """The submission if it belongs to the caller's course; else 404 (as if it did not exist).
    ``read(submission_id)``: how it is read (default ``store.get``)."""
    submission = (read or state().store.get)(submission_id)
    if submission is None or submission.course_id != principal.course_id:
        raise ApiError(404, "submission_not_found", f"No submission with id {submission_id!r}.",
                       "submission_id")
    return submission


@blp.route("/assignments/<assignment_id>/submissions")
class SubmissionIntake(MethodView):
    @blp.arguments(SubmissionCreateSchema)
    @blp.response(202, SubmissionCreatedSchema)
    @blp.alt_response(200, schema=SubmissionCreatedSchema,
                      description="Replay of an earlier request with the same Idempotency-Key")
    @blp.alt_response(404, schema="Error", description="Unknown assignment or item")
    @blp.alt_response(409, schema="Error", description="Idempotency-Key reused with another body")
    @blp.alt_response(413, schema="Error", description="Body over the size limit")
    @blp.alt_response(415, schema="Error", description="Body is not application/json")
    @blp.alt_response(422, schema="Error", description="Malformed submission")
    def post(self, body, assignment_id):
        """Submit responses (roles: lms, instructor).

        The submission is stored durably (server timestamp, SHA-256 of its content) before it is
        queued; the answer is 202 with its id and a ``Location`` to poll. With an
        ``Idempotency-Key`` header, the same key and body return the same submission (200), a
        different body 409; keys are kept 48 h per course."""
        principal = require_course(*SUBMITTERS)
        assignment = get_assignment(principal, assignment_id)
        key = checked_idempotency_key(request.headers.get("Idempotency-Key"), "Idempotency-Key")
        submission, created = intake(principal, assignment, body, key)
        location = url_for("submissions.SubmissionById", submission_id=submission.id)
        return created_view(submission, created), 202 if created else 200, {"Location": location}


@blp.route("/assignments/<assignment_id>/submissions/batch")
class SubmissionBatch(MethodView):
    @blp.arguments(BatchCreateSchema)
    @blp.response(202, BatchResultSchema)
    @blp.alt_response(404, schema="Error", description="Unknown assignment")
    @blp.alt_response(422, schema="Error", description="Malformed batch")
    def post(self, body, assignment_id):
        """Submit up to ``BATCH_MAX_SUBMISSIONS`` (100) submissions at once (roles: lms,
        instructor). Each entry gets its own id and status, or its own error; one bad entry does
        not reject the others."""
        principal = require_course(*SUBMITTERS)
        assignment = get_assignment(principal, assignment_id)
        limit = state().config["BATCH_MAX_SUBMISSIONS"]
        if len(body["submissions"]) > limit:
            raise ApiError(422, "validation_error",
                           f"submissions: at most {limit} per batch, got {len(body['submissions'])}.",
                           "submissions")
        results = []
        for index, entry in enumerate(body["submissions"]):
            prefix = f"submissions[{index}]."
            try:
                entry = dict(entry)
                key = checked_idempotency_key(entry.pop("idempotency_key", None),
                                              prefix + "idempotency_key")
                try:
                    parsed = SubmissionCreateSchema().load(entry)
                except ValidationError as exc:
                    field, message = first_field(exc.messages)
                    raise ApiError(422, "validation_error", f"{prefix}{field}: {message}",
                                   prefix + (field or "")) from None
                submission, created = intake(principal, assignment, parsed, key,
                                             field_prefix=prefix)
                results.append({"index": index, **created_view(submission, created)})
            except ApiError as error:
                results.append({"index": index, "error": {"status": error.status,
                                                          "code": error.code,
                                                          "message": error.message,
                                                          "field": error.field}})
        return {"submissions": results}


@blp.route("/submissions/<submission_id>")
class SubmissionById(MethodView):
    @blp.arguments(PollArgsSchema, location="query")
    @blp.response(200, SubmissionSchema)
    @blp.alt_response(404, schema="Error", description="Unknown submission")
    def get(self, args, submission_id):
        """A submission's status, timestamps, score and results per item (roles: lms,
        instructor). ``?wait=N`` holds the request up to N seconds (capped at 30) and answers as
        soon as the submission is final."""
        principal = require_course(*SUBMITTERS)
        wait = min(args.get("wait", 0.0), state().config["LONG_POLL_MAX_SECONDS"])
        # registered before the first read: woken when the grading side announces the
        # submission final (grader.wakeup); the row is read again when woken, else once a
        # second as a safety net
        store = state().store
        with wakeups().watching(submission_id) as watch:
            # (without its responses, which the view does not show: Store.get_shown)
            submission = get_own_submission(principal, submission_id, store.get_shown)
            if submission.status not in FINAL and wait > 0:
                submission = watch.until_final(
                    lambda: store.get_shown(submission_id), wait, first=submission,
                    status=lambda row: row.status if row is not None else None) or submission
        # SubmissionSchema's dump, compiled (grader/api/fastdump.py): the same JSON
        return jsonify(compile_dump(SubmissionSchema)(submission_view(submission)))


@blp.route("/submissions/<submission_id>/history")
class SubmissionHistory(MethodView):
    @blp.response(200)
    def get(self, submission_id):
        """Every stored grading of the submission (initial and regrades) with the versions it was
        scored with (role: instructor)."""
        principal = require_course("instructor")
        get_own_submission(principal, submission_id)
        return [{"kind": r.trigger, "created_at": r.created_at.isoformat(), "score": r.score,
                 "max_score": r.max_score, "versions": r.versions}
                for r in state().store.history(submission_id)]


def _link_serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(state().config["GRADER_SECRET_KEY"], salt="result-link")


@blp.route("/submissions/<submission_id>/link")
class SubmissionLink(MethodView):
    @blp.response(201, LinkSchema)
    def post(self, submission_id):
        """A signed, expiring link through which the learner reads their own result without a
        key (roles: lms, instructor). The link shows what the learner may see, never hidden
        inputs or expected values."""
        principal = require_course(*SUBMITTERS)
        get_own_submission(principal, submission_id)
        token = _link_serializer().dumps({"s": submission_id})
        max_age = state().config["RESULT_LINK_MAX_AGE_SECONDS"]
        return {"url": url_for("submissions.ResultByToken", token=token, _external=True),
                "token": token,
                "expires_at": datetime.now(timezone.utc) + timedelta(seconds=max_age)}


@blp.route("/results/<token>")
class ResultByToken(MethodView):
    @blp.response(200, LinkedResultSchema)
    @blp.alt_response(404, schema="Error", description="Invalid or expired link")
    def get(self, token):
        """A learner's own result through a signed link (no key needed). With ``Accept:
        text/html`` (a browser) the answer is the result page: score, tests, diagnosis,
        criteria with evidence and heatmaps. Either way without internal fields
        (``content_sha256``, ``attempts``) and without timings of the grading (``started_at``,
        ``finished_at``, ``extra_data`` other than pictures and evidence), which learner code
        could use as a covert channel; ``GET /submissions/<id>`` with a key has everything."""
        try:
            data = _link_serializer().loads(token,
                                            max_age=state().config["RESULT_LINK_MAX_AGE_SECONDS"])
        except SignatureExpired:
            raise ApiError(404, "link_expired", "This result link has expired; ask for a new one.",
                           "token") from None
        except BadSignature:
            raise ApiError(404, "link_invalid", "This result link is not valid.", "token") from None
        submission = state().store.get(data.get("s", ""))
        if submission is None:
            raise ApiError(404, "link_invalid", "This result link is not valid.", "token")
        page = current_app.extensions.get(RESULT_PAGE)
        if page is not None and prefers_html():  # a browser: the result page, no internal fields
            return page(submission)
        return linked_view(submission)


#: ``app.extensions`` key of the function rendering a linked result as a page (registered by
#: ``grader.web``, so the API does not import the pages, which use the API's intake).
RESULT_PAGE = "grader.result_page"


def prefers_html() -> bool:
    """Whether the caller asks for HTML before JSON (a browser sends ``Accept: text/html,...``;
    API clients send ``application/json`` or ``*/*``, and get JSON)."""
    accept = request.accept_mimetypes
    return accept.best_match(["application/json", "text/html"]) == "text/html" and \
        accept["text/html"] > accept["application/json"]
