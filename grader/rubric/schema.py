"""The rubric document: parsing (YAML or JSON), marshmallow validation, error paths.

A rubric document (full reference: ``rubrics/README.md``)::

    id: seed000-q5-quadratic-cost        # optional, file stem by default
    version: 1
    question: "Why does self-attention cost O(n^2) ...?"
    max_points: 4                         # must equal the sum of the criteria's points
    defaults: {fuzzy: 1, gap: 0, order: fixed, polarity: affirmed, question_words: discount}
    synonyms: {quadratic: ["quadratic*", "O(n^2)", "n^2"]}     # used in phrases as @quadratic
    criteria:
      - id: all-pairs
        description: every position is scored against every position
        points: 1
        require: all                      # all | any | <number of concepts>
        partial: false                    # credit per concept matched when not all are
        concepts:
          - "every pair"                  # a phrase
          - any: ["each token|position", {phrase: "attends all", gap: 2}]
          - all: ["memory", "@quadratic"]
            within: 8                     # content words; same_sentence: true also possible
          - {not: "linear"}
          - {regex: "\\bn\\s*\\^\\s*2\\b"}   # escape hatch
        feedback: {met: "...", missed: "..."}
    misconceptions:
      - id: weights-learned
        patterns: [{all: ["attention weights", "learned|trained"], within: 6}]
        penalty: 1
        voids: [computed-from-inputs]     # criteria that earn nothing when it fires
        message: "The attention weights are computed from the inputs ..."
    statement: false                      # spot-the-error / true-false items whose statement is false
    trap: weights-learned                 # fired by an endorsing verdict (default: first misconception)

Validation collects *every* error with its path (``criteria[2].concepts[0].any[1]: empty
phrase``); phrases are stripped of surrounding white space (pmatch issue #84: a synonym with a
trailing space crashed a page).
"""
from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any

import yaml
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from grader.rubric.calibration import calibration_problems
from grader.rubric.regex_safety import regex_problem

ID_RE = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$"
# Size limits: a rubric is compiled per upload and scored per answer, so its size is bounded.
MAX_CRITERIA = 100
MAX_MISCONCEPTIONS = 50
MAX_CONCEPTS = 50          # per criterion / misconception, and children per any/all group
MAX_DEPTH = 8              # nesting of any/all/not groups
MAX_PHRASE_CHARS = 300
MAX_SYNONYM_SETS = 100
MAX_SYNONYMS = 100         # entries per set
MAX_POINTS = 1000          # points, max_points and penalties are finite and at most this
_depth: ContextVar[int] = ContextVar("rubric_concept_depth", default=0)
_OPTIONS = ("gap", "order", "fuzzy", "polarity")


class RubricError(ValueError):
    """An invalid rubric. ``errors`` lists every problem as ``{"path", "message"}``."""

    def __init__(self, errors: list[dict[str, str]]):
        self.errors = errors
        self.partial: dict[str, Any] = {}  # the fields that did load (validation errors only)
        summary = "; ".join(f"{e['path'] or '<root>'}: {e['message']}" for e in errors[:5])
        more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
        super().__init__(f"invalid rubric: {summary}{more}")


def _option_fields() -> dict[str, fields.Field]:
    return {
        "gap": fields.Integer(validate=validate.Range(0, 10)),
        "order": fields.String(validate=validate.OneOf(["fixed", "any"])),
        "fuzzy": fields.Integer(validate=validate.Range(0, 2)),
        "polarity": fields.String(validate=validate.OneOf(["affirmed", "negated", "any"])),
    }


class ConceptField(fields.Field):
    """A concept: a phrase string, or a mapping with exactly one of ``phrase``, ``any``, ``all``,
    ``not``, ``regex`` plus options. Deserialises to the mapping form."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict[str, Any]:
        if isinstance(value, str):
            text = value.strip()
            if not text:
                raise ValidationError("empty phrase")
            if len(text) > MAX_PHRASE_CHARS:
                raise ValidationError(f"a phrase is at most {MAX_PHRASE_CHARS} characters")
            return {"phrase": text}
        if isinstance(value, dict):
            depth = _depth.get()
            if depth >= MAX_DEPTH:
                raise ValidationError(f"concepts nest at most {MAX_DEPTH} levels deep")
            token = _depth.set(depth + 1)
            try:
                return ConceptSchema().load(value)
            finally:
                _depth.reset(token)
        raise ValidationError("a concept is a phrase (string) or a mapping")


class ConceptSchema(Schema):
    phrase = fields.String(validate=validate.Length(max=MAX_PHRASE_CHARS))
    regex = fields.String()
    any = fields.List(ConceptField(), validate=validate.Length(min=1, max=MAX_CONCEPTS))
    all = fields.List(ConceptField(), validate=validate.Length(min=1, max=MAX_CONCEPTS))
    not_ = fields.Function(data_key="not", deserialize=lambda v: ConceptField().deserialize(v))
    within = fields.Integer(validate=validate.Range(0, 200))
    same_sentence = fields.Boolean()
    locals().update(_option_fields())

    @validates_schema
    def _one_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        kinds = [k for k in ("phrase", "regex", "any", "all", "not_") if k in data]
        if len(kinds) != 1:
            raise ValidationError("a concept needs exactly one of phrase, regex, any, all, not")
        if "phrase" in data:
            data["phrase"] = data["phrase"].strip()
            if not data["phrase"]:
                raise ValidationError("empty phrase", "phrase")
        if ("within" in data or "same_sentence" in data) and "all" not in data:
            raise ValidationError("within/same_sentence apply to an 'all' group", "within")
        if "regex" in data:
            problem = regex_problem(data["regex"])
            if problem:
                raise ValidationError(problem, "regex")


class FeedbackSchema(Schema):
    met = fields.String()
    missed = fields.String()


class CriterionSchema(Schema):
    id = fields.String(required=True, validate=validate.Regexp(ID_RE))
    description = fields.String(required=True, validate=validate.Length(min=1))
    points = fields.Float(required=True, validate=validate.Range(min=0, max=MAX_POINTS, min_inclusive=False))
    concepts = fields.List(ConceptField(), required=True, validate=validate.Length(min=1, max=MAX_CONCEPTS))
    require = fields.Raw(load_default="all")
    partial = fields.Boolean(load_default=False)
    question_words = fields.String(validate=validate.OneOf(["discount", "allow"]))
    feedback = fields.Nested(FeedbackSchema, load_default=dict)
    locals().update(_option_fields())

    @validates_schema
    def _require(self, data: dict[str, Any], **kwargs: Any) -> None:
        req = data.get("require", "all")
        n = len(data.get("concepts") or [])
        if req in ("all", "any"):
            return
        if isinstance(req, bool) or not isinstance(req, int) or not 1 <= req <= max(n, 1):
            raise ValidationError(f"require must be 'all', 'any' or a number from 1 to {n}", "require")


class MisconceptionSchema(Schema):
    id = fields.String(required=True, validate=validate.Regexp(ID_RE))
    description = fields.String()
    patterns = fields.List(ConceptField(), required=True, validate=validate.Length(min=1, max=MAX_CONCEPTS))
    penalty = fields.Float(required=True, validate=validate.Range(min=0, max=MAX_POINTS))
    voids = fields.List(fields.String(validate=validate.Regexp(ID_RE)), load_default=list,
                        validate=validate.Length(max=MAX_CRITERIA))
    message = fields.String(required=True, validate=validate.Length(min=1))
    question_words = fields.String(validate=validate.OneOf(["discount", "allow"]))
    locals().update(_option_fields())


class DefaultsSchema(Schema):
    question_words = fields.String(validate=validate.OneOf(["discount", "allow"]))
    locals().update(_option_fields())


def _synonym_list(value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise ValidationError("a synonym set is a non-empty list of phrases")
    if len(value) > MAX_SYNONYMS:
        raise ValidationError(f"a synonym set has at most {MAX_SYNONYMS} phrases")
    errors = {i: ["empty phrase"] for i, v in enumerate(value) if not isinstance(v, str) or not v.strip()}
    if errors:
        raise ValidationError(errors)
    return [v.strip() for v in value]


class RubricSchema(Schema):
    id = fields.String(validate=validate.Regexp(ID_RE))
    version = fields.Integer(validate=validate.Range(min=1))
    title = fields.String()
    question = fields.String(required=True, validate=validate.Length(min=1))
    reference_answer = fields.String()
    max_points = fields.Float(required=True, validate=validate.Range(min=0, max=MAX_POINTS, min_inclusive=False))
    defaults = fields.Nested(DefaultsSchema, load_default=dict)
    synonyms = fields.Dict(keys=fields.String(validate=validate.Regexp(
        r"^[A-Za-z][A-Za-z0-9_]*$", error="a synonym name is letters, digits and _ (used as @name)")),
                           values=fields.Function(deserialize=_synonym_list), load_default=dict)
    criteria = fields.List(fields.Nested(CriterionSchema), required=True,
                           validate=validate.Length(min=1, max=MAX_CRITERIA))
    misconceptions = fields.List(fields.Nested(MisconceptionSchema), load_default=list,
                                 validate=validate.Length(max=MAX_MISCONCEPTIONS))
    #: spot-the-error / true-false: ``false`` when the question's statement is false; an answer
    #: whose verdict endorses it then earns nothing and fires ``trap`` (default: the first misconception)
    statement = fields.Boolean()
    trap = fields.String(validate=validate.Regexp(ID_RE))
    #: optional monotone map from raw points to the instructor's marks (grader/rubric/calibration.py)
    calibration = fields.Raw()

    @validates_schema(skip_on_field_errors=False)
    def _calibration(self, data: dict[str, Any], **kwargs: Any) -> None:
        """``calibration``: checked by :func:`calibration_problems` against ``max_points``."""
        if "calibration" not in data:
            return
        errors: dict[Any, Any] = {}
        for path, message in calibration_problems(data["calibration"], data.get("max_points")):
            node = errors
            for key in path:
                node = node.setdefault(key, {})
            node.setdefault("_schema", []).append(message)
        if errors:
            raise ValidationError({"calibration": errors})

    @validates_schema(skip_on_field_errors=False)
    def _totals_and_ids(self, data: dict[str, Any], **kwargs: Any) -> None:
        """Cross-field checks; they run even when fields have errors, so one pass reports every
        problem. ``data`` then holds only the fields (and list entries) that loaded."""
        errors: dict[str, Any] = {}
        if len(data.get("synonyms") or {}) > MAX_SYNONYM_SETS:
            errors["synonyms"] = [f"at most {MAX_SYNONYM_SETS} synonym sets"]
        criteria = [c for c in data.get("criteria") or [] if isinstance(c, dict)]
        if "max_points" in data and criteria and all("points" in c for c in criteria):
            total = sum(c["points"] for c in criteria)
            if abs(total - data["max_points"]) > 1e-9:
                errors["max_points"] = [
                    f"max_points is {data['max_points']:g} but the criteria's points add up to {total:g}"]
        for name in ("criteria", "misconceptions"):
            seen: set[str] = set()
            for i, entry in enumerate(data.get(name) or []):
                if not isinstance(entry, dict) or "id" not in entry:
                    continue
                if entry["id"] in seen:
                    errors.setdefault(name, {})[i] = {"id": [f"duplicate id {entry['id']!r}"]}
                seen.add(entry["id"])
        known = {c["id"] for c in criteria if "id" in c}
        for i, entry in enumerate(data.get("misconceptions") or []):
            for j, cid in enumerate(entry.get("voids") or [] if isinstance(entry, dict) else []):
                if data.get("criteria") is not None and cid not in known:
                    errors.setdefault("misconceptions", {}).setdefault(i, {}).setdefault("voids", {})[j] = [
                        f"unknown criterion {cid!r}"]
        trap = data.get("trap")
        if trap is not None and data.get("misconceptions") is not None:
            if trap not in {m["id"] for m in data["misconceptions"] if isinstance(m, dict) and "id" in m}:
                errors["trap"] = [f"unknown misconception {trap!r}"]
        if trap is not None and data.get("statement") is not False:
            errors.setdefault("trap", []).append("trap needs statement: false")
        if errors:
            raise ValidationError(errors)


def flatten_errors(messages: Any, path: str = "") -> list[dict[str, str]]:
    """Turn marshmallow's nested error dict into ``[{"path": "criteria[2].concepts[0]", ...}]``."""
    out: list[dict[str, str]] = []
    if isinstance(messages, dict):
        for key, value in messages.items():
            if key == "_schema":
                sub = path
            elif isinstance(key, int):
                sub = f"{path}[{key}]"
            else:
                name = "not" if key == "not_" else str(key)
                sub = f"{path}.{name}" if path else name
            out.extend(flatten_errors(value, sub))
    elif isinstance(messages, list):
        for item in messages:
            out.extend(flatten_errors(item, path))
    else:
        out.append({"path": path, "message": str(messages)})
    return out


def parse_rubric(text: str, fmt: str | None = None) -> dict[str, Any]:
    """Parse a rubric document. ``fmt`` is ``"yaml"``, ``"json"`` or ``None`` (JSON when the text
    starts with ``{``, else YAML, which also reads JSON). Raises :class:`RubricError` on syntax
    errors or when the top level is not a mapping."""
    if fmt not in (None, "yaml", "json"):
        raise ValueError(f"unknown rubric format {fmt!r}; use 'yaml' or 'json'")
    try:
        if fmt == "json" or (fmt is None and text.lstrip().startswith("{")):
            doc = json.loads(text)
        else:
            doc = yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise RubricError([{"path": "", "message": f"cannot parse rubric: {exc}"}]) from exc
    except RecursionError:
        raise RubricError([{"path": "", "message": "cannot parse rubric: nested too deeply"}]) from None
    if not isinstance(doc, dict):
        raise RubricError([{"path": "", "message": "a rubric document is a mapping"}])
    return doc


def validate_rubric(doc: dict[str, Any]) -> dict[str, Any]:
    """Validate with marshmallow; return the loaded document or raise :class:`RubricError` listing
    every error with its path."""
    try:
        return RubricSchema().load(doc)
    except ValidationError as exc:
        error = RubricError(flatten_errors(exc.messages))
        error.partial = exc.valid_data if isinstance(exc.valid_data, dict) else {}
        raise error from exc
