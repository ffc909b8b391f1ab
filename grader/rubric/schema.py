"""The rubric document: marshmallow validation, size limits, error paths (parsing the text:
:mod:`grader.rubric.parsing`).

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

from contextvars import ContextVar
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from grader.rubric.calibration import calibration_problems
from grader.ids import ID_PATTERN

ID_RE = ID_PATTERN  # the one id pattern of assignments, items and rubrics (grader/ids.py)
# Size limits: a rubric is compiled per upload and scored per answer, so its size is bounded.
MAX_CRITERIA = 100
MAX_MISCONCEPTIONS = 50
MAX_CONCEPTS = 50          # per criterion / misconception, and children per any/all group
MAX_DEPTH = 8              # nesting of any/all/not groups
MAX_PHRASE_CHARS = 300
MAX_SYNONYM_SETS = 100
MAX_SYNONYMS = 100         # entries per set
MAX_POINTS = 1000          # points, max_points and penalties are finite and at most this
#: Values in a rubric document (mappings, lists and scalars), counted with YAML aliases expanded:
#: a 376-byte "billion laughs" document (aliases of aliases) is refused before anything is built.
#: The largest built-in rubric has about 250.
MAX_DOCUMENT_NODES = 20_000
#: Concepts in a rubric, nested ones and synonym entries included (built-in rubrics: at most ~140).
MAX_CONCEPT_NODES = 2_000
#: Regular-expression concepts in a rubric (each is searched in every answer).
MAX_REGEX_CONCEPTS = 20
_depth: ContextVar[int] = ContextVar("rubric_concept_depth", default=0)
_OPTIONS = ("gap", "order", "fuzzy", "polarity", "not_after")


class RubricError(ValueError):
    """An invalid rubric. ``errors`` lists every problem as ``{"path", "message"}``."""

    def __init__(self, errors: list[dict[str, str]]):
        self.errors = errors
        self.partial: dict[str, Any] = {}  # the fields that did load (validation errors only)
        self.oversized = False  # over a size cap: nothing else was checked (nor should be)
        summary = "; ".join(f"{e['path'] or '<root>'}: {e['message']}" for e in errors[:5])
        more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
        super().__init__(f"invalid rubric: {summary}{more}")


def yaml_hint(value: Any) -> str:
    """Why a YAML scalar that should be text is not, and how to quote it ("" when it is text).
    YAML 1.1 (PyYAML) reads unquoted ``null``/``~``/nothing as no value, ``yes``/``no``/``on``/
    ``off``/``true``/``false`` as booleans and ``1.0``/``2`` as numbers."""
    if value is None:
        return (" (YAML reads an unquoted null, ~ or a missing value as no value: to mean the word, "
                'quote it, e.g. id: "null")')
    if isinstance(value, bool):
        return (f" (YAML reads an unquoted yes/no/on/off/true/false as the boolean {str(value).lower()}: "
                'to mean the word, quote it, e.g. "no")')
    if isinstance(value, (int, float)):
        return f' (YAML reads {value!r} as a number: to mean the text, quote it, e.g. "{value}")'
    return ""


class Text(fields.String):
    """A string field whose errors say how YAML turned the value into something else."""

    def deserialize(self, value: Any, attr: str | None = None, data: Any = None, **kwargs: Any):
        if value is None and not self.allow_none:
            raise ValidationError("Field may not be null." + yaml_hint(None))
        return super().deserialize(value, attr, data, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any):
        if not isinstance(value, str) and yaml_hint(value):
            raise ValidationError("Not a valid string." + yaml_hint(value))
        return super()._deserialize(value, attr, data, **kwargs)


class WordList(fields.Field):
    """Words written as ``"non|un"`` or ``["non", "un"]`` (at most 20, each 1-20 letters)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list[str]:
        items = value.split("|") if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(w, str) for w in items):
            raise ValidationError('a word or a list of words, e.g. "non|un" or ["non", "un"]' + yaml_hint(value))
        words = [w.strip().lower().rstrip("-") for w in items if w.strip()]
        if not words or len(words) > 20 or not all(w.isalpha() and len(w) <= 20 for w in words):
            raise ValidationError("1 to 20 words of letters only, e.g. \"non|un\"")
        return words


def _option_fields() -> dict[str, fields.Field]:
    return {
        "gap": fields.Integer(validate=validate.Range(0, 10)),
        "order": Text(validate=validate.OneOf(["fixed", "any"])),
        "fuzzy": fields.Integer(validate=validate.Range(0, 2)),
        "polarity": Text(validate=validate.OneOf(["affirmed", "negated", "any"])),
        # a match does not count right after one of these words: "constant" not in "non-constant"
        "not_after": WordList(),
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
        raise ValidationError("a concept is a phrase (string) or a mapping" + yaml_hint(value))


class ConceptSchema(Schema):
    phrase = Text(validate=validate.Length(max=MAX_PHRASE_CHARS))
    regex = Text()
    any = fields.List(ConceptField(), validate=validate.Length(min=1, max=MAX_CONCEPTS))
    all = fields.List(ConceptField(), validate=validate.Length(min=1, max=MAX_CONCEPTS))
    not_ = fields.Function(data_key="not", deserialize=lambda v: ConceptField().deserialize(v))
    within = fields.Integer(validate=validate.Range(0, 200))
    same_sentence = fields.Boolean()
    #: share of the criterion's credit when this is the alternative that matches (default 1)
    weight = fields.Float(validate=validate.Range(0, 1))
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


class FeedbackSchema(Schema):
    met = Text()
    missed = Text()


class CriterionSchema(Schema):
    id = Text(required=True, validate=validate.Regexp(ID_RE))
    description = Text(required=True, validate=validate.Length(min=1))
    points = fields.Float(required=True, validate=validate.Range(min=0, max=MAX_POINTS, min_inclusive=False))
    concepts = fields.List(ConceptField(), required=True, validate=validate.Length(min=1, max=MAX_CONCEPTS))
    require = fields.Raw(load_default="all")
    partial = fields.Boolean(load_default=False)
    question_words = Text(validate=validate.OneOf(["discount", "allow"]))
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
    id = Text(required=True, validate=validate.Regexp(ID_RE))
    description = Text()
    patterns = fields.List(ConceptField(), required=True, validate=validate.Length(min=1, max=MAX_CONCEPTS))
    penalty = fields.Float(required=True, validate=validate.Range(min=0, max=MAX_POINTS))
    voids = fields.List(Text(validate=validate.Regexp(ID_RE)), load_default=list,
                        validate=validate.Length(max=MAX_CRITERIA))
    message = Text(required=True, validate=validate.Length(min=1))
    question_words = Text(validate=validate.OneOf(["discount", "allow"]))
    locals().update(_option_fields())


class CreditSchema(Schema):
    """How the criteria's points become the answer's points (``credit:``; see rubrics/README.md)."""

    #: share of the points the criteria did not award that an on-topic answer earns
    base = fields.Float(validate=validate.Range(0, 1))
    #: share of an unmet criterion's points earned by a near miss (some of a phrase's words)
    near_miss = fields.Float(validate=validate.Range(0, 1))


GUARD_PARAMETERS: dict[str, dict[str, tuple[float, float]]] = {
    # guard -> parameter -> allowed range (defaults in grader/rubric/guards.py)
    "copies_question": {"coverage": (0.1, 1.0), "new_words": (0.0, 1.0)},
    "keyword_list": {"min_words": (2, 1000), "max_function_share": (0.0, 1.0),
                     "max_distinct_share": (0.0, 1.0), "min_adjacent_repeats": (1, 1000)},
    "word_salad": {"min_sentence_words": (10, 100_000), "max_function_share": (0.0, 1.0)},
    "filler": {"min_words": (10, 100_000), "max_distinct_share": (0.0, 1.0)},
    "repetition": {"min_repeated_words": (1, 100_000), "max_repeated_share": (0.0, 1.0)},
}


def _guard_setting(name: str):
    def deserialize(value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if not isinstance(value, dict):
            raise ValidationError("true, false, or a mapping of the guard's parameters" + yaml_hint(value))
        known = GUARD_PARAMETERS[name]
        errors = {}
        for key, v in value.items():
            if key == "enabled":
                if not isinstance(v, bool):
                    errors[key] = ["true or false"]
                continue
            if key not in known:
                errors[key] = [f"unknown parameter (known: enabled, {', '.join(known)})"]
            elif isinstance(v, bool) or not isinstance(v, (int, float)) or not known[key][0] <= v <= known[key][1]:
                errors[key] = [f"a number from {known[key][0]:g} to {known[key][1]:g}"]
        if errors:
            raise ValidationError(errors)
        return value
    return fields.Function(deserialize=deserialize)


class GuardsSchema(Schema):
    """Engine-wide guards switched off (``false``) or tuned per rubric (``guards:``)."""

    locals().update({name: _guard_setting(name) for name in GUARD_PARAMETERS})


class DefaultsSchema(Schema):
    question_words = Text(validate=validate.OneOf(["discount", "allow"]))
    locals().update(_option_fields())


def _synonym_list(value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise ValidationError("a synonym set is a non-empty list of phrases")
    if len(value) > MAX_SYNONYMS:
        raise ValidationError(f"a synonym set has at most {MAX_SYNONYMS} phrases")
    errors = {i: ["empty phrase" if isinstance(v, str) else "a synonym is a phrase (string)" + yaml_hint(v)]
              for i, v in enumerate(value) if not isinstance(v, str) or not v.strip()}
    if errors:
        raise ValidationError(errors)
    return [v.strip() for v in value]


class RubricSchema(Schema):
    id = Text(validate=validate.Regexp(ID_RE))
    version = fields.Integer(validate=validate.Range(min=1))
    title = Text()
    question = Text(required=True, validate=validate.Length(min=1))
    reference_answer = Text()
    max_points = fields.Float(required=True, validate=validate.Range(min=0, max=MAX_POINTS, min_inclusive=False))
    defaults = fields.Nested(DefaultsSchema, load_default=dict)
    synonyms = fields.Dict(keys=Text(validate=validate.Regexp(
        r"^[A-Za-z][A-Za-z0-9_]*$", error="a synonym name is letters, digits and _ (used as @name)")),
                           values=fields.Function(deserialize=_synonym_list), load_default=dict)
    criteria = fields.List(fields.Nested(CriterionSchema), required=True,
                           validate=validate.Length(min=1, max=MAX_CRITERIA))
    misconceptions = fields.List(fields.Nested(MisconceptionSchema), load_default=list,
                                 validate=validate.Length(max=MAX_MISCONCEPTIONS))
    #: spot-the-error / true-false: ``false`` when the question's statement is false; an answer
    #: whose verdict endorses it then earns nothing and fires ``trap`` (default: the first misconception)
    statement = fields.Boolean()
    trap = Text(validate=validate.Regexp(ID_RE))
    credit = fields.Nested(CreditSchema, load_default=dict)
    guards = fields.Nested(GuardsSchema, load_default=dict)
    #: words read from an answer (the rest is ignored, and learners are told): shown with the item
    max_words = fields.Integer(validate=validate.Range(1, 100_000))
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
            elif key == "value" and path.startswith("synonyms."):
                sub = path  # marshmallow's Dict reports a set's entries under "value"
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


def _size_errors(doc: dict[str, Any]) -> list[dict[str, str]]:
    """Count the concepts and regular expressions of a raw document (before marshmallow walks it)
    and report the caps exceeded: :data:`MAX_CONCEPT_NODES`, :data:`MAX_REGEX_CONCEPTS`."""
    concepts = regexes = 0
    first_regex_over = ""
    stack: list[tuple[Any, str]] = []
    for section, key in (("criteria", "concepts"), ("misconceptions", "patterns")):
        entries = doc.get(section)
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            values = entry.get(key) if isinstance(entry, dict) else None
            for j, value in enumerate(values if isinstance(values, list) else []):
                stack.append((value, f"{section}[{i}].{key}[{j}]"))
    synonyms = doc.get("synonyms")
    if isinstance(synonyms, dict):
        concepts += sum(len(v) for v in synonyms.values() if isinstance(v, list))
    stack.reverse()  # walk in document order, so the first regex over the cap is named
    while stack and concepts <= MAX_CONCEPT_NODES:
        value, path = stack.pop()
        concepts += 1
        if not isinstance(value, dict):
            continue
        if "regex" in value:
            regexes += 1
            if regexes == MAX_REGEX_CONCEPTS + 1:
                first_regex_over = path
        if "not" in value:
            stack.append((value["not"], f"{path}.not"))
        for group in ("all", "any"):
            children = value.get(group)
            if isinstance(children, list):
                stack.extend(reversed([(c, f"{path}.{group}[{n}]") for n, c in enumerate(children)]))
    errors = []
    if concepts > MAX_CONCEPT_NODES:
        errors.append({"path": "", "message": f"a rubric has at most {MAX_CONCEPT_NODES:,} concepts "
                       "(nested concepts and synonym entries included)"})
    if regexes > MAX_REGEX_CONCEPTS:
        errors.append({"path": first_regex_over, "message": f"a rubric has at most {MAX_REGEX_CONCEPTS} "
                       "regular-expression concepts (each is searched in every answer); use phrases"})
    return errors


def validate_rubric(doc: dict[str, Any]) -> dict[str, Any]:
    """Validate with marshmallow; return the loaded document or raise :class:`RubricError` listing
    every error with its path. The size caps (:func:`_size_errors`) are checked first, so an
    oversized document is refused before it is walked field by field."""
    sized = _size_errors(doc)
    if sized:
        error = RubricError(sized)
        error.oversized = True
        raise error
    try:
        return RubricSchema().load(doc)
    except ValidationError as exc:
        error = RubricError(flatten_errors(exc.messages))
        error.partial = exc.valid_data if isinstance(exc.valid_data, dict) else {}
        raise error from exc
