"""marshmallow schemas of the HTTP interface (they also generate the OpenAPI document)."""
from __future__ import annotations

import re
import unicodedata

from marshmallow import Schema, ValidationError, fields, validate

from grader.api.item_schemas import ItemViewField

ID = validate.Length(min=1, max=200)
HTTP_URL = validate.URL(schemes={"http", "https"}, require_tld=False)

_WHITESPACE = re.compile(r"\s")


def learner_id_text(value: str) -> None:
    """What ``learner_id`` refuses besides its length, each with its own reason: blank (empty or
    whitespace only), a leading control character (e.g. a tab) or other leading whitespace
    (e.g. a space), named by code point; and U+0000 anywhere, which PostgreSQL cannot store.
    Everything else is accepted as before, trailing whitespace and inner control characters
    included (LMS ids are opaque; a request valid before stays valid)."""
    if not value or not value.strip():
        raise ValidationError("must not be blank")
    first = value[0]
    if _WHITESPACE.match(first):
        code = f"U+{ord(first):04X}"
        if unicodedata.category(first) == "Cc":
            raise ValidationError(f"must not start with a control character ({code})")
        name = unicodedata.name(first, "")
        raise ValidationError(f"must not start with whitespace ({code} {name})".replace(" )", ")"))
    if "\x00" in value:
        raise ValidationError(f"must not contain U+0000 (NUL, at position {value.index(chr(0))}),"
                              " which cannot be stored")


class SubmissionCreateSchema(Schema):
    """``POST /assignments/<id>/submissions``: one response per item id. A response is
    ``{"code": "..."}`` or ``{"notebook": <a Jupyter notebook, as JSON or as its text>}`` (code
    items), ``{"text": "..."}`` (text items) or ``{"choice": "B"}``."""

    learner_id = fields.String(
        required=True, validate=[ID, learner_id_text],
        metadata={"description": "The LMS's identifier of the learner: 1-200 characters, not "
                                 "blank, not starting with whitespace or a control character, "
                                 "without U+0000."})
    responses = fields.Dict(
        keys=fields.String(validate=ID), values=fields.Dict(), required=True,
        validate=validate.Length(min=1, error="at least one response is required (item id -> "
                                              "response); an empty submission is not graded"),
        metadata={"description": "item id -> {code|notebook|text|choice: value}",
                  "example": {"sdpa": {"code": "def scaled_dot_product_attention(...): ..."},
                              "quadratic-cost": {"text": "Every pair of positions ..."},
                              "no-positions": {"choice": "B"}}},
    )
    callback_url = fields.String(
        validate=[validate.Length(max=2000), HTTP_URL], load_default=None, allow_none=True,
        metadata={"description": "Receives a signed webhook when the submission is final."})


class BatchCreateSchema(Schema):
    """Each entry is validated on its own (an invalid one gets its own error, the others are
    accepted); an entry may carry its own ``idempotency_key``."""

    submissions = fields.List(fields.Dict(), required=True, validate=validate.Length(min=1),
                              metadata={"description": "submission bodies, each as for a single "
                                                       "POST, plus an optional idempotency_key"})


class PollArgsSchema(Schema):
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0, max=3600),
                        metadata={"description": "Seconds to wait for a final status (max 30)."})


class LinkSchema(Schema):
    url = fields.String()
    token = fields.String()
    expires_at = fields.DateTime()


class TestResultSchema(Schema):
    name = fields.String()
    number = fields.String(allow_none=True)
    score = fields.Float()
    max_score = fields.Float()
    status = fields.String(metadata={"enum": ["passed", "failed"]})
    output = fields.String()
    output_format = fields.String()
    visibility = fields.String(metadata={"enum": ["hidden", "after_due_date", "after_published",
                                                  "visible"]})
    tags = fields.List(fields.String())
    extra_data = fields.Dict()


class ItemResultSchema(Schema):
    item_id = fields.String()
    kind = fields.String()
    score = fields.Float()
    max_score = fields.Float()
    status = fields.String(metadata={"enum": ["graded", "failed"]})
    output = fields.String()
    tests = fields.List(fields.Nested(TestResultSchema))
    extra_data = fields.Dict()


class SubmissionSchema(Schema):
    """A submission and, once graded, its results per item in Gradescope's results.json layout."""

    id = fields.String()
    assignment_id = fields.String()
    assignment_version = fields.Integer()
    learner_id = fields.String()
    status = fields.String(metadata={"enum": ["queued", "running", "graded", "failed"]})
    content_sha256 = fields.String()
    received_at = fields.DateTime()
    started_at = fields.DateTime(allow_none=True)
    finished_at = fields.DateTime(allow_none=True)
    attempts = fields.Integer()
    score = fields.Float(allow_none=True)
    max_score = fields.Float(allow_none=True)
    failure_reason = fields.String(allow_none=True)
    late = fields.Dict(allow_none=True, metadata={
        "description": "against the learner's due date, as graded: status (on_time | late), "
                       "due_at, submitted_at, seconds_late, days_late, policy, penalty_percent "
                       "(of the points possible), penalty_points (taken), extended; null "
                       "without a due date"})
    items = fields.List(fields.Nested(ItemResultSchema))


class LinkedTestSchema(TestResultSchema):
    """A test as a learner's signed result link shows it: no timing, no internal data."""

    visibility = fields.String()
    extra_data = fields.Dict(metadata={"description": "only evidence (the character spans of "
                                                      "the answer a criterion matched)"})


class LinkedItemSchema(ItemResultSchema):
    tests = fields.List(fields.Nested(LinkedTestSchema))
    extra_data = fields.Dict(metadata={"description": "only pictures (the heatmaps of visible "
                                                      "examples the result page draws)"})


class LinkedResultSchema(SubmissionSchema):
    """A learner's own result through a signed link (``GET /results/<token>``): what the result
    page shows. Without the internal fields (``content_sha256``, ``attempts``) and without any
    timing of the grading (``started_at``, ``finished_at``, ``sandbox_seconds``,
    ``grading_seconds``, ``execution_time``): learner code could turn a duration into a covert
    channel. ``GET /submissions/<id>`` with a key has everything."""

    class Meta:
        exclude = ("content_sha256", "started_at", "finished_at", "attempts")

    items = fields.List(fields.Nested(LinkedItemSchema))


class SubmissionCreatedSchema(Schema):
    id = fields.String()
    status = fields.String()
    content_sha256 = fields.String()
    received_at = fields.DateTime()
    created = fields.Boolean(metadata={"description": "False when an Idempotency-Key replayed "
                                                      "an earlier submission"})


class BatchEntrySchema(SubmissionCreatedSchema):
    index = fields.Integer()
    error = fields.Dict()


class BatchResultSchema(Schema):
    submissions = fields.List(fields.Nested(BatchEntrySchema))


class AssignmentSchema(Schema):
    id = fields.String()
    title = fields.String()
    description = fields.String()
    max_score = fields.Float()
    version = fields.Integer()
    due_at = fields.String(allow_none=True, metadata={
        "description": "ISO 8601 with its UTC offset, in the course's time zone"})
    time_zone = fields.String(metadata={"description": "the course's IANA time zone (UTC when "
                                                      "it has none)"})
    published = fields.Boolean(metadata={"description": "false: a draft, which learners cannot "
                                                        "open"})
    attempt_policy = fields.String(metadata={"enum": ["latest", "best", "best_per_item"]})
    late_policy = fields.Dict(metadata={"description": "{mode, percent}"})
    items = fields.List(ItemViewField(), metadata={
        "description": "one schema per kind (discriminator: kind); never keys, rubrics or "
                       "hidden tests"})


class AssignmentSummarySchema(Schema):
    id = fields.String()
    title = fields.String()
    max_score = fields.Float()
    item_count = fields.Integer()
    published = fields.Boolean()


class ErrorSchema(Schema):
    status = fields.Integer()
    code = fields.String()
    message = fields.String()
    field = fields.String(allow_none=True)
    errors = fields.Raw()
