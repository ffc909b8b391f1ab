"""What the feedback of a *hidden* test may carry of what the learner's code produced.

The learner's code runs with the hidden inputs in hand, and anything it controls that reaches the
feedback can carry them out: an exception message (``raise ValueError(encode(Q))``, in any
alphabet), a name or a line the input picks among the many in the learner's file (an
``AttributeError`` naming ``'qXXX' object has no attribute 'qYYY'`` carried 24 bits, the line
8 more), the shape of a returned array (``np.zeros((0, *Q.tobytes()))`` costs no memory), which
of the test's sizes it shows, the size, place and count of its differences from the expected
values, an exit status. So, for hidden tests only, **no slot of a shown message holds anything
the learner's code chose**:

* an **exception** shows its type only when it is a built-in or NumPy exception (else "an
  exception"), never a line of the learner's file, and of its message either one of a fixed
  list (:data:`FIXED`), or the fixed text of one of Python's and NumPy's usual error templates
  (:data:`_TEMPLATES`: broadcasting, matmul, reshape, axis, unpacking, argument, name and
  attribute errors ...) with every variable part (a name, a number, a shape, a dtype) shown as
  ``…``, each only with the type Python or NumPy raises it as, or nothing (:data:`WITHHELD`);
* a failure reported from inside the sandbox is rebuilt from those same fixed sentences
  (:func:`learner_failure`);
* the **grader's own messages** (shapes, indices, counts and sizes of differences, row sums,
  shares of NaN) keep their words and the numbers the grader itself chose (the expected shape,
  the tolerance, the limits, the test's name) and lose every number read off the learner's
  values (:func:`numbers`).

What remains is which fixed sentence a test shows, and whether it passed: a choice among a fixed,
finite set per test (:func:`shown_exceptions`: about 300 for an exception, 8 bits, where a type
and a message are one choice), never a value, a name, a line or a length. Visible examples are
not filtered: their inputs are public.
"""
from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

WITHHELD = "message withheld for a hidden test: it could carry the test's inputs"
DETAILS = "details withheld for a hidden test"
HIDDEN_SLOT = "…"

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_INT = r"-?\d+"
# every repeat starts with a comma: linear (the old "(?:\s*-?\d+\s*,?)*" took 2^(n-1) steps on n
# digits that never close: issue 20)
_SHAPE = r"\(\s*(?:-?\d+\s*(?:,\s*-?\d+\s*)*(?:,\s*)?)?\)"
_EXCEPTIONS = frozenset(name for name, value in vars(builtins).items()
                        if isinstance(value, type) and issubclass(value, BaseException)) | {
    "LinAlgError", "AxisError", "numpy.linalg.LinAlgError", "numpy.exceptions.AxisError",
    "numpy.AxisError", "numpy.core._exceptions._ArrayMemoryError", "_ArrayMemoryError",
    "UFuncTypeError", "numpy.core._exceptions._UFuncNoLoopError", "_UFuncOutputCastingError",
    "ComplexWarning"}

#: The messages a hidden test may show, by the exceptions Python and NumPy raise them as: a
#: message is shown only with one of them, so the type and the message are one choice, not two.
#: (A name and its qualified form are both listed: the runner gives ``type(error).__name__``.)
#: A message without placeholders is shown as it is (:data:`FIXED`); one with placeholders is a
#: template (:data:`_TEMPLATES`), shown as its fixed text with every placeholder as "…": {INT}
#: an integer, {SHAPE} a tuple of integers, {SHAPES} several, {NAME} an identifier, {MODULE} a
#: module, {NAMES} a list of modules, {DTYPE} a dtype name, {OP} an operator, {SIZE} an
#: allocation size. None of their values is ever shown.
_RAISED_AS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("ZeroDivisionError",): (
        "division by zero", "float division by zero", "integer division or modulo by zero",
        "integer modulo by zero", "float modulo"),
    ("IndexError",): (
        "list index out of range", "tuple index out of range", "string index out of range",
        "too many indices for array", "only integers, slices (`:`), ellipsis (`...`), "
        "numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
        "index {INT} is out of bounds for axis {INT} with size {INT}",
        "index {INT} is out of bounds for size {INT}",
        "too many indices for array: array is {INT}-dimensional, but {INT} were indexed",
        "boolean index did not match indexed array along dimension {INT}; dimension is {INT} "
        "but corresponding boolean dimension is {INT}",
        "boolean index did not match indexed array along axis {INT}; size of axis is {INT} but "
        "size of corresponding boolean axis is {INT}"),
    ("ValueError", "OverflowError"): ("math domain error", "math range error"),
    ("RecursionError",): (
        "maximum recursion depth exceeded",
        "maximum recursion depth exceeded while calling a Python object",
        "maximum recursion depth exceeded in comparison"),
    ("ValueError",): (
        "The truth value of an array with more than one element is ambiguous. Use a.any() or "
        "a.all()", "array must not contain infs or NaNs", "axes don't match array",
        "repeated axis in transpose", "setting an array element with a sequence.",
        "object too deep for desired array", "assignment destination is read-only",
        "output array is read-only", "need at least one array to concatenate",
        "need at least one array to stack", "all input arrays must have the same shape",
        "cannot convert float NaN to integer",
        "Cannot mask with non-boolean array containing NA / NaN values",
        "matmul: Input operand 0 does not have enough dimensions (has 0, gufunc core with "
        "signature (n?,k),(k,m?)->(n?,m?) requires 1)",
        "matmul: Input operand 1 does not have enough dimensions (has 0, gufunc core with "
        "signature (n?,k),(k,m?)->(n?,m?) requires 1)",
        "operands could not be broadcast together with shapes {SHAPES}",
        "matmul: Input operand {INT} has a mismatch in its core dimension {INT}, with gufunc "
        "signature (n?,k),(k,m?)->(n?,m?) (size {INT} is different from {INT})",
        "shapes {SHAPE} and {SHAPE} not aligned: {INT} (dim {INT}) != {INT} (dim {INT})",
        "cannot reshape array of size {INT} into shape {SHAPE}",
        "all the input array dimensions except for the concatenation axis must match exactly, "
        "but along dimension {INT}, the array at index {INT} has size {INT} and the array at "
        "index {INT} has size {INT}",
        "all the input arrays must have same number of dimensions, but the array at index {INT} "
        "has {INT} dimension(s) and the array at index {INT} has {INT} dimension(s)",
        "could not broadcast input array from shape {SHAPE} into shape {SHAPE}",
        "shape mismatch: value array of shape {SHAPE} could not be broadcast to indexing result "
        "of shape {SHAPE}",
        "non-broadcastable output operand with shape {SHAPE} doesn't match the broadcast shape "
        "{SHAPE}",
        "zero-size array to reduction operation {NAME} which has no identity",
        "not enough values to unpack (expected {INT}, got {INT})",
        "too many values to unpack (expected {INT})",
        "array split does not result in an equal division",
        "Input operand {INT} does not have enough dimensions",
        "setting an array element with a sequence. The requested array has an inhomogeneous "
        "shape after {INT} dimensions. The detected shape was {SHAPE} + inhomogeneous part."),
    ("AxisError", "numpy.exceptions.AxisError", "numpy.AxisError"): (
        "axis {INT} is out of bounds for array of dimension {INT}",),
    ("LinAlgError", "numpy.linalg.LinAlgError"): ("Singular matrix",),
    ("OverflowError",): ("cannot convert float infinity to integer",),
    ("NotImplementedError",): ("not implemented", "NotImplemented"),
    ("TypeError",): (
        "cannot unpack non-iterable NoneType object",
        "only integer scalar arrays can be converted to a scalar index",
        "{NAME}() missing {INT} required positional argument: '{NAME}'",
        "{NAME}() missing {INT} required positional arguments: '{NAME}' and '{NAME}'",
        "{NAME}() takes {INT} positional argument but {INT} were given",
        "{NAME}() takes {INT} positional arguments but {INT} were given",
        "{NAME}() takes from {INT} to {INT} positional arguments but {INT} were given",
        "{NAME}() got an unexpected keyword argument '{NAME}'",
        "{NAME}() got multiple values for argument '{NAME}'",
        "'{NAME}' object is not callable", "'{NAME}' object is not subscriptable",
        "'{NAME}' object is not iterable", "'{NAME}' object does not support item assignment",
        "object of type '{NAME}' has no len()",
        "unsupported operand type(s) for {OP}: '{NAME}' and '{NAME}'",
        "bad operand type for unary {OP}: '{NAME}'",
        "can only concatenate {NAME} (not \"{NAME}\") to {NAME}", "unhashable type: '{NAME}'",
        "Cannot cast array data from dtype('{DTYPE}') to dtype('{DTYPE}') according to the rule "
        "'{NAME}'",
        "ufunc '{NAME}' not supported for the input types, and the inputs could not be safely "
        "coerced to any supported types according to the casting rule ''{NAME}''",
        "'{NAME}' is an invalid keyword argument for {NAME}()",
        "{NAME} expected {INT} arguments, got {INT}",
        "{NAME} expected at most {INT} arguments, got {INT}",
        "{NAME} must be {NAME}, not {NAME}", "'{NAME}' must be {NAME}"),
    ("UFuncTypeError", "_UFuncOutputCastingError", "TypeError"): (
        "Cannot cast ufunc '{NAME}' output from dtype('{DTYPE}') to dtype('{DTYPE}') with "
        "casting rule 'same_kind'",),
    ("NameError",): (
        "name '{NAME}' is not defined",
        "free variable '{NAME}' referenced before assignment in enclosing scope"),
    ("UnboundLocalError",): (
        "local variable '{NAME}' referenced before assignment",
        "cannot access local variable '{NAME}' where it is not associated with a value"),
    ("AttributeError",): (
        "'{NAME}' object has no attribute '{NAME}'", "module '{NAME}' has no attribute '{NAME}'"),
    ("ModuleNotFoundError", "ImportError"): (
        "No module named '{MODULE}'",
        "import of '{MODULE}' refused: this item's code may import only NumPy and the Python "
        "standard library",
        "import of '{MODULE}' refused: this item's code may import only NumPy, the Python "
        "standard library and {NAMES}"),
    ("MemoryError", "_ArrayMemoryError", "numpy.core._exceptions._ArrayMemoryError"): (
        "Unable to allocate {SIZE} for an array with shape {SHAPE} and data type {DTYPE}",),
}
_RAISED_WITH: dict[str, tuple[str, ...]] = {}
for _kinds, _messages in _RAISED_AS.items():  # a message in two groups: its types combined
    for _message in _messages:
        _RAISED_WITH[_message] = tuple(dict.fromkeys(_RAISED_WITH.get(_message, ()) + _kinds))
#: Messages shown as they are (they have no variable part).
FIXED = frozenset(message for message in _RAISED_WITH if "{" not in message)
_TEMPLATES = [message for message in _RAISED_WITH if "{" in message]

_PLACEHOLDERS = {
    "INT": f"({_INT})", "SHAPE": f"({_SHAPE})", "SHAPES": rf"({_SHAPE}(?:\s*{_SHAPE})*)",
    "NAME": rf"({_IDENT}(?:\.{_IDENT})*)", "MODULE": rf"({_IDENT}(?:\.{_IDENT})*)",
    "NAMES": rf"({_IDENT}(?:, {_IDENT})*)",
    "DTYPE": r"([<>|=]?[a-z]+\d*)", "OP": r"([-+*/@%&|^<>=!~]{1,3}|\*\*|//)",
    "SIZE": r"(\d{1,4}(?:\.\d{1,2})? (?:B|KiB|MiB|GiB|TiB|PiB|EiB))",
}


def _compile(template: str) -> tuple[re.Pattern, str]:
    """A template's pattern (each placeholder a bounded group, every repeat consuming a
    separator: linear) and the text shown for it, each placeholder as :data:`HIDDEN_SLOT`."""
    kinds = re.findall(r"\{([A-Z]+)\}", template)
    pattern = re.escape(template)
    for kind in dict.fromkeys(kinds):
        pattern = pattern.replace(re.escape("{" + kind + "}"), _PLACEHOLDERS[kind])
    return re.compile(f"^{pattern}\\s*$"), re.sub(r"\{[A-Z]+\}", HIDDEN_SLOT, template)


_COMPILED = [(*_compile(template), _RAISED_WITH[template]) for template in _TEMPLATES]


@dataclass(frozen=True)
class Context:
    """What a hidden test's feedback may mention of the test itself: ``shapes``, the shapes of
    its expected return (the reference's). An "expected" shape in the grader's message is shown
    only when it is one of them: a check that compares the learner's return with another of its
    returns (a relation, e.g. permutation equivariance) words that one as "expected" too. Every
    number the learner's values gave is withheld whatever it is. ``dims``: the sizes the test's
    arrays have (inputs and expected return, their dimensions and element counts, a dimension
    divided by an integer argument such as ``d_model / num_heads``) and -8..8."""

    dims: frozenset[int] = frozenset(range(-8, 9))
    shapes: frozenset[tuple[int, ...]] = frozenset()


def context(calls: Iterable[tuple[tuple, dict]], source: str = "", output_size: int = 0,
            output_dims: Iterable[int] = (), output_shapes: Iterable[tuple] = ()) -> Context:
    """The :class:`Context` of a test made of ``calls`` (``(args, kwargs)`` pairs): the
    dimensions and sizes of the array arguments, the integer arguments, ``output_size`` and
    ``output_dims``, and ``output_shapes`` (the expected return's). ``source`` is not read: no
    name or line of the learner's file is shown on a hidden test (kept so that callers need
    not change)."""
    dims, divisors = {*range(-8, 9), int(output_size), *(int(n) for n in output_dims)}, set()
    for args, kwargs in calls:
        for value in _flatten(list(args) + list(kwargs.values())):
            if isinstance(value, np.ndarray):
                dims.update([int(value.size), *(int(n) for n in value.shape)])
            elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                dims.add(abs(int(value)))
                divisors.add(abs(int(value)))
    dims |= {n // d for n in dims for d in divisors if d > 1 and n > 0 and n % d == 0}
    return Context(dims=frozenset(dims),
                   shapes=frozenset(tuple(int(n) for n in shape) for shape in output_shapes))


def _flatten(values: list) -> Iterable[Any]:
    for value in values:
        if isinstance(value, (tuple, list)):
            yield from _flatten(list(value))
        else:
            yield value


def shown_message(kind: str, message: str) -> str | None:
    """The text a hidden test shows of an exception's ``message`` raised as ``kind``: nothing
    for an empty message, the message itself when it is one of :data:`FIXED`, the fixed text of
    the first template it matches, each only with a type Python or NumPy raises it as
    (:data:`_RAISED_AS`); else None."""
    message = message.strip()
    if not message:
        return ""
    if message in FIXED:
        return message if kind in _RAISED_WITH[message] else None
    for pattern, shown, kinds in _COMPILED:
        if kind in kinds and pattern.match(message):
            return shown
    return None


def shown_exceptions() -> frozenset[str]:
    """Every text :func:`exception_message` can show: what a hidden test's exception can choose
    from (its size is the whole of what a hidden test's exception can carry)."""
    texts = {"raised an exception", f"an exception ({DETAILS})"}
    for kind in _EXCEPTIONS:
        texts |= {f"{kind} ({WITHHELD})", f"{kind} ({DETAILS})"}
    for message, kinds in _RAISED_WITH.items():
        shown = re.sub(r"\{[A-Z]+\}", HIDDEN_SLOT, message)
        texts |= {f"{kind}: {shown} ({DETAILS})" for kind in kinds}
    return frozenset(texts)


_TYPE = re.compile(rf"{_IDENT}(?:\.{_IDENT})*")
_LINE = re.compile(r"\(lines? [\d, ]{1,40}(?: of your code)?\)")


def exception_message(text: str, ctx: Context | None = None) -> str:
    """What a hidden test may show of a learner's exception (``"Type: message (line N of your
    code)\\n..."``, as the runner words it, but possibly forged): the type when it is a built-in
    or NumPy exception, and :func:`shown_message` of the message, then always :data:`DETAILS`
    (never a line number or a traceback: the learner's code could pick them among many).
    ``ctx`` is not needed (kept for callers)."""
    lines = [line for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return "raised an exception"
    kind, colon, message = _LINE.sub("", lines[0][:MAX_HEADLINE]).partition(":")
    kind = kind.strip()
    if not _TYPE.fullmatch(kind) or kind not in _EXCEPTIONS:
        return f"an exception ({DETAILS})"
    shown = shown_message(kind, message) if colon else ""
    if shown is None:
        return f"{kind} ({WITHHELD})"
    return f"{kind}: {shown} ({DETAILS})" if shown else f"{kind} ({DETAILS})"


MAX_HEADLINE = 4096  # characters of an exception's first line that are looked at

_BAD_RETURN = re.compile(r"^returned (None|[A-Za-z_][\w.]*|ndarray of dtype [<>|=]?\w+); "
                         r"(expected a NumPy array, a number, or a tuple of those"
                         r"(?:; did you forget a return statement\?)?)$")


def learner_failure(status: str, text: str, function: str, ctx: Context | None = None) -> str:
    """A hidden test's failure reported from inside the sandbox (``status`` ``exception``,
    ``missing_function`` or ``bad_return``): worded by the runner, but forgeable by the learner's
    code, so rebuilt from fixed sentences only (a returned ``None`` is told apart: it is the
    usual forgotten ``return``)."""
    if status == "missing_function":
        return f"function '{function}' is not defined in your code"
    if status == "bad_return":
        match = _BAD_RETURN.match((text or "").strip()[:MAX_HEADLINE])
        if match and match.group(1) == "None":
            return f"returned None; {match.group(2)}"
        return ("returned a value that cannot be graded; expected a NumPy array, a number, or a "
                "tuple of those")
    return exception_message(text, ctx)


# -- the grader's own messages -------------------------------------------------------------------

#: Phrases of the grader's messages whose numbers were read off the learner's values, reworded
#: without them (the regular expressions bound every repeat: linear).
_REWORDED = [(re.compile(pattern), replacement) for pattern, replacement in (
    (r": largest difference [^;]{1,40}; [^(]{1,80} checked entries outside tolerance \(",
     " beyond the tolerance ("),
    (r"\b(contains?) [0-9 NaNinfd]{1,40} in \d+ of \d+ checked entries \(first at index "
     r"\([-\d, ]{0,200}\)\)", r"\1 NaN or inf where the expected values are finite"),
    (r"NaN/inf in \d+ of \d+ entries \(first at index \([-\d, ]{0,200}\)\)", "NaN or inf entries"),
    (r"\b\d{1,3}% of the (weights|output entries) are", r"some of the \1 are"),
    (r" sum to between \S{1,40} and \S{1,40} instead of 1", " do not sum to 1"),
    (r"receive up to [\d.]{1,20}% of a row's weight", "receive some of a row's weight"),
    (r"has shape \([-\d, ]{0,200}\), expected \(", "does not have the expected shape ("),
    (r"have shape \([-\d, ]{0,200}\), expected \(", "do not have the expected shape ("),
    (r"has shape \([-\d, ]{0,200}\), which", "has a shape which"),
    (r"has dtype [\w<>|=]{1,40}, expected (\w{1,40})", r"does not have the expected dtype \1"),
    (r" \(got [\w.]{1,80}\)", ""),
    # a law judged on two of the learner's own outputs (equivariance): which way it fails is
    # the learner's choice, so only that it fails is said
    (r"^([\w -]{1,80}) does not hold: .{0,400}$", r"\1 does not hold"),
    (r"^the output has a shape which the ([\w -]{1,80}) check cannot use$", r"\1 does not hold"),
)]
#: Numbers of the grader's messages that the grader chose (kept), and any other number (lost).
_NUMBERS = re.compile(
    r"(?P<kept>(?<!\w)'[^'\n]{0,200}'(?!\w)|\(rtol [-+\d.e]{1,20}, atol [-+\d.e]{1,20}\)|call \d+ of \d+"
    r"|instead of 1\b|sum to 1\b|\b0/1\b|\b\d+(?:\.\d+)? (?:s|ms|bytes|KiB|MiB|GiB)\b"
    r"|\b\d+ tests? stopped|syntax error on line \d+)"
    r"|expected shape (?P<expected>\([-\d, ]{0,200}\))"
    r"|(?P<shape>\([-\d, ]{0,200}\))"
    r"|(?P<number>(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.]))")


def numbers(text: str, ctx: Context) -> str:
    """The grader's own message about a hidden test without any number the learner's values
    gave: its phrases about differences, NaN shares, row sums, shapes and dtypes reworded
    (:data:`_REWORDED`), then every other number shown as :data:`HIDDEN_SLOT`, but for the
    numbers the grader chose itself: quoted names, the tolerance, ``call i of n``, the constants
    of its sentences (``instead of 1``, ``sum to 1``, ``0/1``), limits with their unit, how many
    tests stopped, the line of a syntax error (found before any input exists), and an expected
    shape that is the test's own (``ctx.shapes``)."""

    def one(match: re.Match) -> str:
        if match.group("kept"):
            return match.group("kept")
        expected = match.group("expected")
        if expected is not None:
            parts = [part.strip() for part in expected[1:-1].split(",") if part.strip()]
            own = all(re.fullmatch(r"\d{1,12}", part) for part in parts) and \
                tuple(int(part) for part in parts) in ctx.shapes
            return f"expected shape {expected if own else '(' + HIDDEN_SLOT + ')'}"
        if match.group("shape"):
            return f"({HIDDEN_SLOT})"
        return HIDDEN_SLOT

    text = (text or "")[:MAX_HEADLINE * 4]  # the grader's messages are far shorter
    for pattern, replacement in _REWORDED:
        text = pattern.sub(replacement, text)
    return _NUMBERS.sub(one, text)
