"""The OpenAPI description of assignment items: one schema per item kind, told apart by ``kind``
(an OpenAPI 3 ``oneOf`` with a ``discriminator``), for the items an instructor sends
(``CodeItem``, ``TextItem``, ``ChoiceItem``) and the items everyone reads (``CodeItemView``,
``TextItemView``, ``ChoiceItemView``).

Validation of a sent item stays where it always was, in each kind's ``load`` (through
:func:`grader.content.compile_assignment`, whose messages name the field); these schemas say the
same thing to readers of ``/api/v1/openapi.json``. ``tests/api/test_openapi_items.py`` checks that
each registered kind has a schema listing exactly the fields it allows
(``allowed_fields`` of :func:`grader.items.kinds`).
"""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from grader.content import HIDDEN_TEST_MODES, MAX_POINTS
from grader.ids import ID_PATTERN
from grader.problems import PROBLEMS
from grader.sandbox.api import LIMIT_RANGES

ITEM_ID = validate.Regexp(ID_PATTERN)


def kind_field(kind: str) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf([kind]),
                         metadata={"description": f"always {kind!r} for this schema"})


class LimitsSchema(Schema):
    """Sandbox limits of a code item's runs (each optional; defaults: wall 5 s, CPU 4 s,
    1 GiB, 64 processes, 64 KiB output kept, 8 MiB files; a run printing 16 times
    output_bytes, at least 1 MiB, is stopped)."""

    class Meta:
        unknown = "raise"


for _name, (_low, _high) in LIMIT_RANGES.items():
    LimitsSchema._declared_fields[_name] = fields.Float(
        validate=validate.Range(min=_low, max=_high),
        metadata={"description": f"{_low:g} to {_high:g}"})
LimitsSchema._declared_fields["imports"] = fields.List(fields.String(), metadata={
    "description": "top-level modules learner code may import besides NumPy and the standard "
                   "library (e.g. [scipy]; installed where the workers run; default none)"})


class _ItemBase(Schema):
    class Meta:
        unknown = "raise"
        ordered = True

    id = fields.String(required=True, validate=ITEM_ID)
    points = fields.Float(required=True, validate=validate.Range(min=0, max=MAX_POINTS,
                                                                  min_inclusive=False))
    prompt = fields.String(metadata={"description": "shown to learners"})
    hidden_tests = fields.String(validate=validate.OneOf(["hidden"]),
                                 metadata={"description": "only code items have hidden tests"})


class CodeItemSchema(_ItemBase):
    """A code item: a built-in or course problem whose hidden tests grade the learner's
    function."""

    kind = kind_field("code")
    problem = fields.String(required=True, validate=validate.Length(min=1, max=220), metadata={
        "description": "a built-in code problem (" + ", ".join(sorted(PROBLEMS)) + "), or one of "
                       "the course's problems (POST /problems): <id> pins its newest version "
                       "when the assignment is saved, <id>@<version> that version"})
    limits = fields.Nested(LimitsSchema)
    contract = fields.Dict(keys=fields.String(), metadata={
        "description": "a built-in problem in the course's own conventions (each key optional, "
                       "defaults = today's contract): function, parameters, mask (allowed, "
                       "blocked, numeric-allowed, numeric-blocked, additive), returns (output, "
                       "output+weights, weights+output, weights), ranks, layout, shape, "
                       "padding_row, default_axis; which apply depends on the problem"})
    hidden_tests = fields.String(validate=validate.OneOf(HIDDEN_TEST_MODES),
                                 metadata={"description": "after_due_date: hidden tests show "
                                                          "only pass/fail until due_at"})


class TextItemSchema(_ItemBase):
    """A free-text item scored by a rubric: a rubric id (the course's uploaded rubric: ``<id>``
    pins its newest version when the assignment is saved, ``<id>@2`` pins version 2,
    ``<id>@latest`` follows every new version; or a built-in one) or a rubric mapping
    (rubrics/README.md)."""

    kind = kind_field("text")
    rubric = fields.Raw(required=True, metadata={
        "description": "rubric id (<id>, <id>@<version>, <id>@latest), or an inline rubric "
                       "mapping",
        "oneOf": [{"type": "string"}, {"type": "object"}]})
    model_answer = fields.String(metadata={"description": "never shown to learners"})
    accepted_explanation = fields.String()


class ChoiceItemSchema(_ItemBase):
    """A multiple-choice or true/false item."""

    kind = kind_field("choice")
    prompt = fields.String(required=True)
    options = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                          metadata={"description": "letter -> option text (at least two)",
                                    "example": {"A": "True", "B": "False"}})
    answer = fields.String(required=True, metadata={"description": "the key: one letter"})
    explanation = fields.String(metadata={"description": "feedback after answering"})
    reveal_answer = fields.Boolean(metadata={"description": "say the key in the feedback "
                                                            "(default true)"})


class _ItemViewBase(Schema):
    id = fields.String()
    points = fields.Float()
    prompt = fields.String()


class CodeItemViewSchema(_ItemViewBase):
    kind = kind_field("code")
    problem = fields.String()
    function = fields.String(metadata={"description": "the function to implement"})
    contract = fields.String(metadata={"description": "signature, shapes, returns"})
    starter = fields.String(metadata={"description": "a starter file"})
    visible_tests = fields.List(fields.Dict(), metadata={"description": "examples with inputs "
                                                                        "and expected values"})
    imports = fields.List(fields.String(), metadata={
        "description": "modules the code may import besides NumPy and the standard library"})
    contract_options = fields.Dict(metadata={
        "description": "the item's contract: options that differ from today's contract (absent "
                       "when none do), as normalised at upload",
        "example": {"function": "sdp_attention", "mask": "numeric-blocked",
                    "returns": "output+weights", "ranks": [3, 4]}})


class RubricVersionSchema(Schema):
    rubric_id = fields.String()
    version = fields.Integer(allow_none=True)
    follows = fields.String(metadata={"enum": ["latest", "pinned"], "description": (
        "latest: the rubric's newest version scores each grading (<id>@latest, or a built-in "
        "rubric's file); pinned: this version always")})


class TextItemViewSchema(_ItemViewBase):
    kind = kind_field("text")
    rubric_version = fields.Nested(RubricVersionSchema, metadata={
        "description": "the rubric version this item scores with (never the rubric itself)"})
    max_characters = fields.Integer(metadata={"description": "longest answer accepted "
                                                             "(characters)"})
    max_words = fields.Integer(metadata={"description": "words of an answer the rubric reads "
                                                        "(only when the rubric sets a limit)"})


class ChoiceItemViewSchema(_ItemViewBase):
    kind = kind_field("choice")
    options = fields.Dict(keys=fields.String(), values=fields.String())


#: (component name, schema) per kind, for what is sent and what is read.
SENT = {"code": ("CodeItem", CodeItemSchema), "text": ("TextItem", TextItemSchema),
        "choice": ("ChoiceItem", ChoiceItemSchema)}
READ = {"code": ("CodeItemView", CodeItemViewSchema), "text": ("TextItemView", TextItemViewSchema),
        "choice": ("ChoiceItemView", ChoiceItemViewSchema)}


class ItemField(fields.Dict):
    """An assignment item as sent: loaded as a mapping (each kind validates it), documented as
    one of :data:`SENT` by ``kind``."""

    variants = SENT


class ItemViewField(fields.Dict):
    """An assignment item as read: dumped as the kind's public view, documented as one of
    :data:`READ` by ``kind``."""

    variants = READ


def register_item_schemas(api) -> None:
    """Add the per-kind schemas to ``api``'s OpenAPI components and render :class:`ItemField` /
    :class:`ItemViewField` as ``oneOf`` + ``discriminator`` on ``kind``."""
    for variants in (SENT, READ):
        for name, schema in variants.values():
            api.spec.components.schema(name, schema=schema)

    def polymorphic(self, field, ret, **_kwargs):
        variants = getattr(field, "variants", None)
        if not variants:
            return {}
        ret.pop("additionalProperties", None)
        ret.pop("type", None)
        refs = {kind: f"#/components/schemas/{name}" for kind, (name, _) in variants.items()}
        return {"oneOf": [{"$ref": ref} for ref in refs.values()],
                "discriminator": {"propertyName": "kind", "mapping": refs}}

    api.ma_plugin.converter.add_attribute_function(polymorphic)
