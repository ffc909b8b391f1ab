"""The problem document an instructor uploads (YAML or JSON), read with marshmallow.

:func:`load_document` parses and validates a document and returns it as plain data; every fault is
reported with its path (``arguments.Q.shape[1]: unknown dimension 'Lx' (dims: B, Lq, Lk, d)``),
all at once, as :class:`DocumentError`. The fields are documented in the README ("Authored code
problems") and shown complete in ``examples/problems/``. Nothing here runs the document's code:
the reference and the mistakes are source text, parsed (never executed) to check that they define
the function.
"""
from __future__ import annotations

import ast
import keyword
from typing import Any

import yaml
from marshmallow import RAISE, Schema, ValidationError, fields, pre_load, validate, validates_schema

from grader.ids import ID_PATTERN

MAX_SOURCE_CHARS = 100_000
MAX_DIM = 512  # the largest size a dimension may be drawn with
MAX_CASES = 50  # hidden cases per category
MAX_ENTRIES = 1 << 20  # entries of one drawn array (8 MiB in float64)
DTYPES = ("float64", "float32", "int64", "bool")
MASKS = ("causal", "random", "padding")
CHECKS = ("values", "shapes", "inputs", "invariance")
RETURNS = ("output", "output_and_weights")
ID_MESSAGE = "1-100 of letters, digits, '.', '_', '-', starting with a letter or digit"
#: Comparisons a category's ``where`` conditions may use (``"Lq != Lk"``, ``"d % H == 0"``).
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


class DocumentError(ValueError):
    """A document that cannot be read; ``errors`` lists ``{"path", "message"}`` for every fault."""

    def __init__(self, errors: list[dict[str, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{e['path']}: {e['message']}" if e["path"] else e["message"]
                                   for e in errors))


def _flatten(messages: Any, path: str = "") -> list[dict[str, str]]:
    """marshmallow's nested error dict as ``{"path", "message"}`` rows."""
    if isinstance(messages, dict):
        found = []
        for key, value in messages.items():
            if key in ("_schema", "value"):  # a Dict field's value errors nest under "value"
                found += _flatten(value, path)
                continue
            step = f"[{key}]" if isinstance(key, int) else (f".{key}" if path else str(key))
            found += _flatten(value, path + step)
        return found
    if isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        return [{"path": path, "message": m} for m in messages]
    if isinstance(messages, list):
        return [row for m in messages for row in _flatten(m, path)]
    return [{"path": path, "message": str(messages)}]


def _python_name(value: str) -> bool:
    return isinstance(value, str) and value.isidentifier() and not keyword.iskeyword(value)


class Range(fields.List):
    """``[lo, hi]``, inclusive, lo <= hi; items are numbers (or dimension names when
    ``names``)."""

    def __init__(self, kind: str = "float", names: bool = False, **kwargs):
        item = fields.Raw() if names else (fields.Integer(strict=True) if kind == "int"
                                           else fields.Float(allow_nan=False))
        super().__init__(item, validate=validate.Length(equal=2), **kwargs)
        self.kind, self.names = kind, names

    def _deserialize(self, value, attr, data, **kwargs):
        found = super()._deserialize(value, attr, data, **kwargs)
        for bound in found:
            if isinstance(bound, bool) or not isinstance(bound, (int, float, str)) or (
                    isinstance(bound, str) and not self.names) or (
                    isinstance(bound, float) and self.kind == "int"):
                raise ValidationError(f"bounds must be {self.kind}s"
                                      + (" or dimension names" if self.names else ""))
        if all(isinstance(b, (int, float)) for b in found) and found[0] > found[1]:
            raise ValidationError(f"[lo, hi] with lo <= hi, got {found}")
        return found


class ArgumentSchema(Schema):
    """One argument: an array (``shape``), a scalar (``float``/``int``), a dimension's value
    (``dim``), a fixed value (``value``) or a boolean mask (``mask`` + ``shape``)."""

    class Meta:
        unknown = RAISE

    shape = fields.List(fields.Raw(), validate=validate.Length(min=0, max=8))
    dtype = fields.String(validate=validate.OneOf(DTYPES))
    scale = fields.Float(allow_nan=False, validate=validate.Range(min=0, min_inclusive=False))
    float = Range("float")
    int = Range("int", names=True)
    dim = fields.String()
    value = fields.Raw(allow_none=True)
    mask = fields.String(validate=validate.OneOf(MASKS))
    offsets = fields.List(fields.Float(allow_nan=False), validate=validate.Length(min=1, max=64))
    jitter = fields.Float(allow_nan=False, validate=validate.Range(min=0))
    axis = fields.Integer(strict=True, validate=validate.Range(min=-8, max=7))
    spacing = fields.String(validate=validate.OneOf(("random", "even")))
    float32_exact = fields.Boolean()

    @validates_schema
    def _one_kind(self, data, **kwargs):
        kinds = [k for k in ("float", "int", "dim", "value", "mask") if k in data]
        if "shape" not in data and not kinds:
            raise ValidationError("give a shape (an array), float or int (a scalar), dim, "
                                  "value or mask")
        if len(kinds) > 1:
            raise ValidationError(f"{' and '.join(kinds)} exclude each other")
        if "mask" in data and "shape" not in data:
            raise ValidationError("a mask needs a shape", "shape")
        if "value" in data and not isinstance(data["value"], (bool, int, float, type(None))):
            raise ValidationError("a number, true, false or null", "value")
        if any(k in data for k in ("offsets", "spacing", "float32_exact")) and (
                "shape" not in data or any(k in data for k in ("int", "mask"))):
            raise ValidationError("offsets, spacing and float32_exact are for float arrays")
        if data.get("spacing") == "even" and "float" not in data:
            raise ValidationError("even spacing needs float: [lo, hi]", "spacing")
        if data.get("dtype") == "bool" and "mask" not in data:
            raise ValidationError("bool arrays are masks: use mask: causal|random|padding",
                                  "dtype")


class OverridesSchema(Schema):
    """What a category (or one of its ``tests``) changes in the document's draw and check."""

    class Meta:
        unknown = RAISE

    description = fields.String(validate=validate.Length(max=200))
    shapes = fields.Dict(fields.String(),
                         fields.List(fields.Raw(), validate=validate.Length(max=8)))
    scale = fields.Dict(fields.String(), fields.Float(allow_nan=False, validate=validate.Range(
        min=0, min_inclusive=False)))
    dims = fields.Dict(fields.String(), Range("int"))
    arguments = fields.Dict(fields.String(), fields.Nested(ArgumentSchema))
    where = fields.List(fields.String(validate=validate.Length(max=100)),
                        validate=validate.Length(max=10))
    check = fields.String(validate=validate.OneOf(CHECKS))
    then = fields.Dict(fields.String(), fields.Nested(lambda: ShiftSchema()))
    what = fields.String(validate=validate.Length(min=1, max=100))

    @validates_schema
    def _relation(self, data, **kwargs):
        if (data.get("check") == "invariance") != bool(data.get("then")) and (
                "check" in data or "then" in data):
            raise ValidationError("check: invariance and then: {...} go together", "then")


class TestSchema(OverridesSchema):
    """One test of a category's ``tests`` list: a hidden case (or a visible example)."""

    visible = fields.Boolean(load_default=False)


class CategorySchema(OverridesSchema):
    points = fields.Float(required=True, allow_nan=False,
                          validate=validate.Range(min=0, min_inclusive=False, max=1000))
    cases = fields.Integer(strict=True, validate=validate.Range(min=0, max=MAX_CASES))
    visible = fields.Integer(strict=True, load_default=0, validate=validate.Range(min=0, max=10))
    tests = fields.List(fields.Nested(TestSchema), validate=validate.Length(min=1, max=MAX_CASES))

    @validates_schema
    def _count(self, data, **kwargs):
        if "tests" in data and "cases" in data:
            raise ValidationError("give cases (a count) or tests (a list), not both", "tests")
        if "tests" not in data and "cases" not in data:
            raise ValidationError("give cases (a count) or tests (a list)", "cases")
        if data.get("cases") == 0 and not data.get("visible"):
            raise ValidationError("a category needs a hidden case or a visible example", "cases")


class ShiftSchema(Schema):
    """``then: {x: {add: <argument>}}``: the second call's argument is the first's plus a draw."""

    class Meta:
        unknown = RAISE

    add = fields.Nested(ArgumentSchema, required=True)


class MistakeSchema(Schema):
    class Meta:
        unknown = RAISE

    id = fields.String(required=True, validate=validate.Regexp(
        ID_PATTERN, error=ID_MESSAGE))
    message = fields.String(required=True, validate=validate.Length(min=1, max=1000))
    source = fields.String(required=True, validate=validate.Length(min=1, max=MAX_SOURCE_CHARS))


class VisibleSchema(Schema):
    class Meta:
        unknown = RAISE

    count = fields.Integer(strict=True, load_default=2, validate=validate.Range(min=0, max=10))
    category = fields.String()


class PictureSchema(Schema):
    class Meta:
        unknown = RAISE

    shows = fields.String(load_default="output",
                          validate=validate.OneOf(("weights", "output", "mask", "encoding")))
    scale = fields.String(load_default="diverging", validate=validate.OneOf(("unit", "diverging")))
    rows = fields.String(load_default="row", validate=validate.Length(max=40))
    columns = fields.String(load_default="column", validate=validate.Length(max=40))
    call = fields.String(load_default="example",
                         validate=validate.OneOf(("example", "identity_values")))


class ToleranceSchema(Schema):
    class Meta:
        unknown = RAISE

    rtol = fields.Float(load_default=1e-4, validate=validate.Range(min=0, max=1))
    atol = fields.Float(load_default=1e-5, validate=validate.Range(min=0, max=1))


class DocumentSchema(Schema):
    """The whole document (README, "Authored code problems")."""

    class Meta:
        unknown = RAISE
        ordered = True

    id = fields.String(required=True, validate=validate.Regexp(
        ID_PATTERN, error=ID_MESSAGE))
    version = fields.Integer()  # set by the store; ignored on upload
    title = fields.String(required=True, validate=validate.Length(min=1, max=200))
    function = fields.String(required=True)
    contract = fields.String(required=True, validate=validate.Length(min=1, max=10_000))
    starter = fields.String(validate=validate.Length(max=MAX_SOURCE_CHARS))
    reference = fields.String(required=True, validate=validate.Length(min=1, max=MAX_SOURCE_CHARS))
    dims = fields.Dict(fields.String(), Range("int"), load_default=dict)
    arguments = fields.Dict(fields.String(), fields.Nested(ArgumentSchema), required=True,
                            validate=validate.Length(min=1, max=12))
    categories = fields.Dict(fields.String(validate=validate.Length(min=1, max=60)),
                             fields.Nested(CategorySchema), required=True,
                             validate=validate.Length(min=1, max=20))
    visible = fields.Raw(load_default=2)
    tolerance = fields.Nested(ToleranceSchema, load_default=lambda: {"rtol": 1e-4, "atol": 1e-5})
    returns = fields.String(load_default="output", validate=validate.OneOf(RETURNS))
    picture = fields.Nested(PictureSchema, allow_none=True, load_default=None)
    mistakes = fields.List(fields.Nested(MistakeSchema), load_default=list,
                           validate=validate.Length(max=30))

    @pre_load
    def _mapping(self, data, **kwargs):
        if not isinstance(data, dict):
            raise ValidationError("the document must be a mapping")
        return data


def _visible(raw: Any, categories: dict) -> tuple[dict, list[dict]]:
    if isinstance(raw, bool):
        return {}, [{"path": "visible", "message": "a count or {count, category}"}]
    if isinstance(raw, int):
        raw = {"count": raw}
    try:
        found = VisibleSchema().load(raw if isinstance(raw, dict) else {"count": raw})
    except ValidationError as exc:
        return {}, _flatten(exc.messages, "visible")
    found.setdefault("category", next(iter(categories), ""))
    if found["category"] not in categories:
        return found, [{"path": "visible.category", "message": f"{found['category']!r} is not "
                        f"one of the categories ({', '.join(categories)})"}]
    return found, []


def _shape_errors(shape: list, dims: dict, path: str) -> list[dict]:
    errors = []
    for index, size in enumerate(shape):
        if isinstance(size, bool) or not isinstance(size, (int, str)):
            errors.append({"path": f"{path}[{index}]", "message": "a dimension name or a size"})
        elif isinstance(size, int) and not 1 <= size <= MAX_DIM:
            errors.append({"path": f"{path}[{index}]", "message": f"sizes are 1 to {MAX_DIM}"})
        elif isinstance(size, str) and size not in dims:
            errors.append({"path": f"{path}[{index}]", "message": f"unknown dimension {size!r} "
                           f"(dims: {', '.join(dims) or 'none'})"})
    return errors


def _argument_errors(spec: dict, dims: dict, path: str) -> list[dict]:
    errors = _shape_errors(spec.get("shape", []), dims, f"{path}.shape")
    if "dim" in spec and spec["dim"] not in dims:
        errors.append({"path": f"{path}.dim", "message": f"unknown dimension {spec['dim']!r}"})
    for index, bound in enumerate(spec.get("int", [])):
        if isinstance(bound, str) and bound not in dims:
            errors.append({"path": f"{path}.int[{index}]",
                           "message": f"unknown dimension {bound!r}"})
    if "shape" in spec and all(isinstance(s, int) for s in spec["shape"]):
        entries = 1
        for size in spec["shape"]:
            entries *= size
        if entries > MAX_ENTRIES:
            errors.append({"path": f"{path}.shape", "message": f"more than {MAX_ENTRIES} entries"})
    return errors


def condition_terms(text: str) -> tuple[list[str], str, str] | None:
    """``"Lq != Lk"`` -> (["Lq"], "!=", "Lk"); ``"d % H == 0"`` -> (["d", "%", "H"], "==", "0");
    None when the text is neither form (tokens are separated by spaces; no regex)."""
    tokens = text.split()
    if len(tokens) == 3 and tokens[1] in COMPARISONS:
        return [tokens[0]], tokens[1], tokens[2]
    if len(tokens) == 5 and tokens[1] == "%" and tokens[3] in COMPARISONS:
        return tokens[:3], tokens[3], tokens[4]
    return None


def _condition_errors(text: str, dims: dict, path: str) -> list[dict]:
    terms = condition_terms(text)
    if terms is None:
        return [{"path": path, "message": "write 'A op B' or 'A % B op C' with op one of "
                 + ", ".join(COMPARISONS) + ", spaces between the parts"}]
    left, _, right = terms
    return [{"path": path, "message": f"{term!r} is neither a dimension nor an integer"}
            for term in (left[0], *left[2:], right) if term not in dims and not term.isdigit()]


def _defines(source: str, function: str, path: str) -> list[dict]:
    """The source parses and defines ``function`` at top level (parsed, never run)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [{"path": path, "message": f"SyntaxError: {exc.msg} (line {exc.lineno})"}]
    except (RecursionError, MemoryError, ValueError):
        return [{"path": path, "message": "nested too deeply to parse"}]
    names = {node.name for node in tree.body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if function not in names:
        return [{"path": path, "message": f"defines no top-level function {function!r}"}]
    return []


def _override_errors(found: dict, dims: dict, arguments: dict, here: str) -> list[dict]:
    errors = []
    for name, shape in found.get("shapes", {}).items():
        if name not in arguments or "shape" not in arguments[name]:
            errors.append({"path": f"{here}.shapes.{name}", "message": "not an array argument"})
        errors += _shape_errors(shape, dims, f"{here}.shapes.{name}")
    for name in found.get("scale", {}):
        if name not in arguments or "shape" not in arguments[name]:
            errors.append({"path": f"{here}.scale.{name}", "message": "not an array argument"})
    for name, bounds in found.get("dims", {}).items():
        if name not in dims:
            errors.append({"path": f"{here}.dims.{name}", "message": "unknown dimension"})
        elif not 1 <= bounds[0] <= bounds[1] <= MAX_DIM:
            errors.append({"path": f"{here}.dims.{name}", "message": f"sizes are 1 to {MAX_DIM}"})
    for name, spec in found.get("arguments", {}).items():
        if name not in arguments:
            errors.append({"path": f"{here}.arguments.{name}", "message": "not an argument"})
        errors += _argument_errors(spec, dims, f"{here}.arguments.{name}")
    for name, shift in found.get("then", {}).items():
        if name not in arguments:
            errors.append({"path": f"{here}.then.{name}", "message": "not an argument"})
        errors += _argument_errors(shift["add"], dims, f"{here}.then.{name}.add")
    for index, text in enumerate(found.get("where", [])):
        errors += _condition_errors(text, dims, f"{here}.where[{index}]")
    return errors


def _semantic_errors(doc: dict) -> list[dict]:
    errors = []
    function, dims, arguments = doc["function"], doc["dims"], doc["arguments"]
    if not _python_name(function):
        errors.append({"path": "function", "message": f"{function!r} is not a Python name"})
    for name in dims:
        if not _python_name(name):
            errors.append({"path": f"dims.{name}", "message": "dimension names are Python names"})
        elif not 1 <= dims[name][0] <= dims[name][1] <= MAX_DIM:
            errors.append({"path": f"dims.{name}", "message": f"sizes are 1 to {MAX_DIM}"})
    for name, spec in arguments.items():
        if not _python_name(name):
            errors.append({"path": f"arguments.{name}", "message": "not a Python name"})
        errors += _argument_errors(spec, dims, f"arguments.{name}")
    for cat, found in doc["categories"].items():
        errors += _override_errors(found, dims, arguments, f"categories.{cat}")
        for index, test in enumerate(found.get("tests", [])):
            errors += _override_errors(test, dims, arguments, f"categories.{cat}.tests[{index}]")
    errors += _defines(doc["reference"], function, "reference")
    seen = set()
    for index, found in enumerate(doc["mistakes"]):
        if found["id"] in seen:
            errors.append({"path": f"mistakes[{index}].id", "message": "another mistake has it"})
        seen.add(found["id"])
        errors += _defines(found["source"], function, f"mistakes[{index}].source")
    return errors


def parse(text: str, fmt: str = "yaml") -> Any:
    """The document in ``text`` (``fmt`` ``"yaml"`` or ``"json"``: YAML reads JSON too);
    :class:`DocumentError` when it does not parse."""
    from grader.rubric.parsing import RubricError, load_yaml

    try:  # bounded as rubric uploads are: long integers, alias bombs
        return load_yaml(text)
    except yaml.YAMLError as exc:
        raise DocumentError([{"path": "", "message": f"not valid {fmt.upper()}: "
                              f"{str(exc).splitlines()[0]}"}]) from None
    except RubricError as exc:
        raise DocumentError(exc.errors) from None


def load_document(raw: Any) -> dict:
    """The validated document (defaults filled in, ``visible`` as ``{count, category}``).
    Raises :class:`DocumentError` listing every fault with its path."""
    try:
        doc = DocumentSchema().load(raw)
    except ValidationError as exc:
        raise DocumentError(_flatten(exc.messages)) from None
    doc["visible"], errors = _visible(doc["visible"], doc["categories"])
    errors += _semantic_errors(doc)
    if errors:
        raise DocumentError(errors)
    return doc


__all__ = ["DocumentError", "DocumentSchema", "condition_terms", "load_document", "parse"]
