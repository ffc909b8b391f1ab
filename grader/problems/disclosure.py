"""What the feedback of a *hidden* test may carry of what the learner's code produced.

The learner's code runs with the hidden inputs in hand, and anything it controls that reaches the
feedback can carry them out: an exception message (``raise ValueError(encode(Q))``, in any
alphabet), the shape of a returned array (``np.zeros((0, *Q.tobytes()))`` costs no memory), the
size of a difference from the expected values, an exit status. So, for hidden tests only:

* an **exception** shows its type (a built-in or NumPy exception, or a name written in the
  learner's source) and the line(s) of the learner's file, and its message only when that message
  cannot carry data: one of a fixed list of messages, or a fixed template (Python's and NumPy's
  usual errors: broadcasting, matmul, reshape, axis, unpacking, argument and name errors) whose
  variable parts are all *plausible*: integers no larger than the test's own array sizes (so a
  dimension, an axis or an index, not a byte of data), identifiers that appear in the learner's
  source, dtype and type names from a fixed list. Anything else is withheld, with the type and
  the line still shown;
* in the grader's own messages (shapes, indices, counts and sizes of differences, row sums),
  every integer larger than the test's array sizes becomes ``?`` and every decimal number is
  rounded to one significant digit.

What remains is a few bits per test (which line raised, which template, the pass/fail pattern),
never a value. Visible examples are not filtered: their inputs are public.
"""
from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

WITHHELD = "message withheld for a hidden test: it could carry the test's inputs"
MAX_NAMES = 2  # identifier placeholders allowed in one shown message

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_INT = r"-?\d+"
# every repeat starts with a comma: linear (the old "(?:\s*-?\d+\s*,?)*" took 2^(n-1) steps on n
# digits that never close: issue 20)
_SHAPE = r"\(\s*(?:-?\d+\s*(?:,\s*-?\d+\s*)*(?:,\s*)?)?\)"
_DTYPES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8",
           "uint16", "uint32", "uint64", "bool", "object", "complex128", "complex64", "<f8",
           "<f4", "<i8", "<i4", "|b1", "float", "int")
_TYPE_NAMES = frozenset({
    "int", "float", "bool", "str", "list", "tuple", "dict", "set", "NoneType", "function",
    "module", "type", "method", "builtin_function_or_method", "ndarray", "numpy.ndarray",
    "generator", "range", "slice", "float64", "float32", "int64", "int32", "bool_", "complex",
    "numpy.float64", "numpy.int64", "numpy.bool_", "matrix", "object"})
_EXCEPTIONS = frozenset(name for name, value in vars(builtins).items()
                        if isinstance(value, type) and issubclass(value, BaseException)) | {
    "LinAlgError", "AxisError", "numpy.linalg.LinAlgError", "numpy.exceptions.AxisError",
    "numpy.AxisError", "numpy.core._exceptions._ArrayMemoryError", "_ArrayMemoryError",
    "UFuncTypeError", "numpy.core._exceptions._UFuncNoLoopError", "ComplexWarning"}

#: Messages shown as they are (they have no variable part).
FIXED = frozenset({
    "division by zero", "float division by zero", "integer division or modulo by zero",
    "integer modulo by zero", "float modulo", "list index out of range",
    "tuple index out of range", "string index out of range", "math domain error",
    "math range error", "maximum recursion depth exceeded",
    "maximum recursion depth exceeded while calling a Python object",
    "maximum recursion depth exceeded in comparison",
    "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
    "cannot unpack non-iterable NoneType object", "too many indices for array",
    "Singular matrix", "array must not contain infs or NaNs", "axes don't match array",
    "repeated axis in transpose", "setting an array element with a sequence.",
    "object too deep for desired array", "assignment destination is read-only",
    "output array is read-only", "only integer scalar arrays can be converted to a scalar index",
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean "
    "arrays are valid indices", "need at least one array to concatenate",
    "need at least one array to stack", "all input arrays must have the same shape",
    "cannot convert float NaN to integer", "cannot convert float infinity to integer",
    "Cannot mask with non-boolean array containing NA / NaN values",
    "matmul: Input operand 0 does not have enough dimensions (has 0, gufunc core with signature "
    "(n?,k),(k,m?)->(n?,m?) requires 1)",
    "matmul: Input operand 1 does not have enough dimensions (has 0, gufunc core with signature "
    "(n?,k),(k,m?)->(n?,m?) requires 1)",
    "not implemented", "NotImplemented",
})

# Templates: {INT} an integer, {SHAPE} a tuple of integers, {NAME} an identifier of the learner's
# source or a type name, {DTYPE} a dtype name, {TEXT} never (kept out on purpose).
_TEMPLATES = [
    "operands could not be broadcast together with shapes {SHAPES}",
    "matmul: Input operand {INT} has a mismatch in its core dimension {INT}, with gufunc signature "
    "(n?,k),(k,m?)->(n?,m?) (size {INT} is different from {INT})",
    "shapes {SHAPE} and {SHAPE} not aligned: {INT} (dim {INT}) != {INT} (dim {INT})",
    "cannot reshape array of size {INT} into shape {SHAPE}",
    "axis {INT} is out of bounds for array of dimension {INT}",
    "index {INT} is out of bounds for axis {INT} with size {INT}",
    "index {INT} is out of bounds for size {INT}",
    "too many indices for array: array is {INT}-dimensional, but {INT} were indexed",
    "all the input array dimensions except for the concatenation axis must match exactly, but "
    "along dimension {INT}, the array at index {INT} has size {INT} and the array at index {INT} "
    "has size {INT}",
    "all the input arrays must have same number of dimensions, but the array at index {INT} has "
    "{INT} dimension(s) and the array at index {INT} has {INT} dimension(s)",
    "all input arrays must have the same shape",
    "could not broadcast input array from shape {SHAPE} into shape {SHAPE}",
    "shape mismatch: value array of shape {SHAPE} could not be broadcast to indexing result of "
    "shape {SHAPE}",
    "boolean index did not match indexed array along dimension {INT}; dimension is {INT} but "
    "corresponding boolean dimension is {INT}",
    "non-broadcastable output operand with shape {SHAPE} doesn't match the broadcast shape {SHAPE}",
    "zero-size array to reduction operation {NAME} which has no identity",
    "not enough values to unpack (expected {INT}, got {INT})",
    "too many values to unpack (expected {INT})",
    "{NAME}() missing {INT} required positional argument: '{NAME}'",
    "{NAME}() missing {INT} required positional arguments: '{NAME}' and '{NAME}'",
    "{NAME}() takes {INT} positional argument but {INT} were given",
    "{NAME}() takes {INT} positional arguments but {INT} were given",
    "{NAME}() takes from {INT} to {INT} positional arguments but {INT} were given",
    "{NAME}() got an unexpected keyword argument '{NAME}'",
    "{NAME}() got multiple values for argument '{NAME}'",
    "name '{NAME}' is not defined",
    "local variable '{NAME}' referenced before assignment",
    "cannot access local variable '{NAME}' where it is not associated with a value",
    "free variable '{NAME}' referenced before assignment in enclosing scope",
    "'{NAME}' object has no attribute '{NAME}'",
    "module '{NAME}' has no attribute '{NAME}'",
    "'{NAME}' object is not callable", "'{NAME}' object is not subscriptable",
    "'{NAME}' object is not iterable", "'{NAME}' object does not support item assignment",
    "object of type '{NAME}' has no len()",
    "unsupported operand type(s) for {OP}: '{NAME}' and '{NAME}'",
    "bad operand type for unary {OP}: '{NAME}'",
    "can only concatenate {NAME} (not \"{NAME}\") to {NAME}",
    "unhashable type: '{NAME}'",
    "No module named '{MODULE}'",
    "Cannot cast ufunc '{NAME}' output from dtype('{DTYPE}') to dtype('{DTYPE}') with casting "
    "rule 'same_kind'",
    "Cannot cast array data from dtype('{DTYPE}') to dtype('{DTYPE}') according to the rule "
    "'{NAME}'",
    "ufunc '{NAME}' not supported for the input types, and the inputs could not be safely coerced "
    "to any supported types according to the casting rule ''{NAME}''",
    "'{NAME}' is an invalid keyword argument for {NAME}()",
    "{NAME} expected {INT} arguments, got {INT}",
    "{NAME} expected at most {INT} arguments, got {INT}",
    "Unable to allocate {SIZE} for an array with shape {SHAPE} and data type {DTYPE}",
    "array split does not result in an equal division",
    "Input operand {INT} does not have enough dimensions",
    "{NAME} must be {NAME}, not {NAME}",
    "'{NAME}' must be {NAME}",
]
_PLACEHOLDERS = {
    "INT": f"({_INT})", "SHAPE": f"({_SHAPE})", "SHAPES": rf"({_SHAPE}(?:\s*{_SHAPE})*)",
    "NAME": rf"({_IDENT}(?:\.{_IDENT})*)", "MODULE": rf"({_IDENT}(?:\.{_IDENT})*)",
    "DTYPE": r"([<>|=]?[a-z]+\d*)", "OP": r"([-+*/@%&|^<>=!~]{1,3}|\*\*|//)",
    "SIZE": r"(\d{1,4}(?:\.\d{1,2})? (?:B|KiB|MiB|GiB|TiB|PiB|EiB))",
}


def _compile(template: str) -> tuple[re.Pattern, list[str]]:
    kinds = re.findall(r"\{([A-Z]+)\}", template)
    pattern = re.escape(template)
    for kind in dict.fromkeys(kinds):
        pattern = pattern.replace(re.escape("{" + kind + "}"), _PLACEHOLDERS[kind])
    return re.compile(f"^{pattern}\\s*$"), kinds


_COMPILED = [_compile(template) for template in _TEMPLATES]


@dataclass(frozen=True)
class Context:
    """What a hidden test's feedback may mention. In an exception message and in a shape: only
    ``dims``, the sizes the test's arrays have (inputs and expected output, their dimensions and
    element counts, a dimension divided by an integer argument such as ``d_model / num_heads``),
    and -8..8 (axes, small counts). In the grader's own counts and indices: integers up to
    ``max_int``. Also the identifiers of the learner's source and its number of lines."""

    max_int: int
    names: frozenset[str]
    lines: int
    dims: frozenset[int] = frozenset(range(-8, 9))

    def int_ok(self, text: str) -> bool:
        return int(text) in self.dims

    def count_ok(self, text: str) -> bool:
        return -8 <= int(text) <= self.max_int

    def name_ok(self, text: str) -> bool:
        return text in self.names or text in _TYPE_NAMES or text in _EXCEPTIONS


def context(calls: Iterable[tuple[tuple, dict]], source: str, output_size: int = 0,
            output_dims: Iterable[int] = ()) -> Context:
    """The :class:`Context` of a test made of ``calls`` (``(args, kwargs)`` pairs) on ``source``:
    integers up to the largest dimension or size of any array argument, integer argument (sizes
    such as ``seq_len``) or ``output_size`` (elements of the expected return), at least 8; in
    shapes and messages, the dimensions and sizes of the array arguments, the integer arguments
    and ``output_dims`` (the expected return's dimensions and sizes); the identifiers in the
    source."""
    largest = max(8, int(output_size))
    dims, divisors = {*range(-8, 9), *(int(n) for n in output_dims)}, set()
    for args, kwargs in calls:
        for value in _flatten(list(args) + list(kwargs.values())):
            if isinstance(value, np.ndarray):
                largest = max([largest, int(value.size), *(int(n) for n in value.shape)])
                dims.update([int(value.size), *(int(n) for n in value.shape)])
            elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                largest = max(largest, abs(int(value)))
                dims.add(abs(int(value)))
                divisors.add(abs(int(value)))
    dims |= {n // d for n in dims for d in divisors if d > 1 and n > 0 and n % d == 0}
    return Context(max_int=largest, names=frozenset(re.findall(_IDENT, source)),
                   lines=source.count("\n") + 1, dims=frozenset(dims))


def _flatten(values: list) -> Iterable[Any]:
    for value in values:
        if isinstance(value, (tuple, list)):
            yield from _flatten(list(value))
        else:
            yield value


def _message_ok(message: str, ctx: Context) -> bool:
    """Whether an exception message can be shown for a hidden test (see the module docstring)."""
    message = message.strip()
    if message in FIXED or not message:
        return True
    for pattern, kinds in _COMPILED:
        match = pattern.match(message)
        if not match:
            continue
        names = 0
        for kind, value in zip(kinds, match.groups()):
            if kind == "SIZE":
                continue  # an allocation's size: at most 6 digits and a unit (its own grammar)
            if kind == "INT" and not ctx.int_ok(value):
                break
            if kind in ("SHAPE", "SHAPES") and not all(ctx.int_ok(n) for n in
                                                      re.findall(_INT, value)):
                break
            if kind in ("NAME", "MODULE"):
                names += 1
                if names > MAX_NAMES or not all(ctx.name_ok(part) or part in ctx.names
                                                for part in value.split(".")):
                    break
            if kind == "DTYPE" and value not in _DTYPES:
                break
        else:
            return True
    return False


_HEADLINE = re.compile(rf"^\s*({_IDENT}(?:\.{_IDENT})*)(?::\s?(.*))?\s*$")  # .* not .*?: linear
_LINE = re.compile(r"\(line (\d+)(?: of your code)?\)")


def exception_message(text: str, ctx: Context) -> str:
    """The part of a learner's exception (``"Type: message (line N of your code)\\n..."``, as
    the runner words it, but possibly forged) that a hidden test may show: the type, the learner's
    line numbers, and the message when :func:`_message_ok` allows it."""
    lines = [line for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return "raised an exception"
    head = lines[0]
    where = [n for n in dict.fromkeys(_LINE.findall(text)) if 1 <= int(n) <= ctx.lines][:3]
    head = _LINE.sub("", head)
    match = _HEADLINE.match(head)
    kind = match.group(1) if match else ""
    if not kind or not (kind in _EXCEPTIONS or kind in ctx.names):
        shown = "an exception"
        message = ""
    else:
        shown = kind
        message = (match.group(2) or "").strip()
    if message and _message_ok(message, ctx):
        shown = f"{shown}: {message}"
    elif message:
        shown = f"{shown} ({WITHHELD})"
    if where:
        shown += f" (line{'s' if len(where) > 1 else ''} {', '.join(where)} of your code)"
    return shown


_SHAPE_TUPLE = re.compile(r"(shapes? )\(([-\d\s,]*)\)")
_DECIMAL = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")


_BAD_RETURN = re.compile(r"^returned (None|[A-Za-z_][\w.]*|ndarray of dtype [<>|=]?\w+); "
                         r"(expected a NumPy array, a number, or a tuple of those"
                         r"(?:; did you forget a return statement\?)?)$")


def learner_failure(status: str, text: str, function: str, ctx: Context) -> str:
    """A hidden test's failure reported from inside the sandbox (``status`` ``exception``,
    ``missing_function`` or ``bad_return``): worded by the runner, but forgeable by the learner's
    code, so rebuilt from what may be shown."""
    if status == "missing_function":
        return f"function '{function}' is not defined in your code"
    if status == "bad_return":
        match = _BAD_RETURN.match((text or "").strip())
        kind = match.group(1).replace("ndarray of dtype ", "") if match else ""
        if match and (kind in _TYPE_NAMES or kind in _DTYPES or kind in ctx.names
                      or kind == "None" or re.fullmatch(r"[<>|=]?[USa]\d+", kind)):
            return f"returned {match.group(1)}; {match.group(2)}"
        return ("returned a value that cannot be graded; expected a NumPy array, a number, or a "
                "tuple of those")
    return exception_message(text, ctx)


def numbers(text: str, ctx: Context) -> str:
    """The grader's own message about a hidden test with every dimension of a shape that is not
    one of the test's own sizes, and every other integer larger than the test's sizes, replaced
    by ``?``, and every decimal number rounded to one significant digit."""

    def shape(match: re.Match) -> str:
        parts = [part.strip() for part in match.group(2).split(",")]
        shown = [part if not part or int(part) in ctx.dims else "?" for part in parts]
        inner = f"{shown[0]}," if len(parts) == 2 and not parts[1] else ", ".join(shown)
        return f"{match.group(1)}({inner})"

    def one(match: re.Match) -> str:
        token = match.group(0)
        if re.fullmatch(r"[-+]?\d+", token):
            return token if ctx.count_ok(token) else "?"
        value = float(token)
        if value == 0 or not np.isfinite(value):
            return token
        return f"{float(f'{value:.1g}'):g}"

    shapes = _SHAPE_TUPLE.sub(shape, text or "")
    # shapes are done: leave their digits (the odd pieces: what the group matched); a shape
    # holds no bracket, so each "shape (" is read to the next bracket only (linear)
    pieces = re.split(r"(shapes? \([^()]*\))", shapes)
    rounded = "".join(piece if index % 2 else _DECIMAL.sub(one, piece)
                      for index, piece in enumerate(pieces))
    # a range whose ends round alike reads "about x", not "between x and x"
    return re.sub(r"between (\S+) and \1(?![\w.])", r"about \1", rounded)
