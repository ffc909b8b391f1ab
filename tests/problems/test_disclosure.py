"""Hidden inputs never leak through feedback (issue 10, part 5; issue 20, part 4).

End to end, through the real isolated sandbox: submissions that try to carry the hidden inputs
out (exception messages in several alphabets, a forged NameError or broadcasting message, an
exception class named after the data, names and lines picked by the data among the many of the
learner's own file, a returned array whose shape, NaN count or exit status is the data, a result
frame forged by hand) are graded on three seeds, i.e. on three different draws of hidden inputs
with the same shapes. The hidden tests' feedback must be the same text on all three draws: then
it is a function of nothing but the code, and no input can be recovered from it. The encodings
of the actual inputs are also looked for in the text, in every alphabet used.

Without the sandbox, the same kind through every path a hidden test's message takes: every
template of ``disclosure._TEMPLATES`` filled with values an input would pick (names, numbers,
shapes, dtypes, lines, exception classes), every report from inside the sandbox, and the
grader's own message of every hidden case of every problem on values that encode an input (in
the shape, the place and size of a difference, the number of NaN, the dtype): each shows the
same text whatever the value.
"""
from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

from grader.problems import PROBLEMS, disclosure, scoring
from grader.problems.base import CaseResult
from grader.problems.scoring import grade, hidden_context
from grader.sandbox import Limits, get_sandbox

SDPA = PROBLEMS["scaled_dot_product_attention"]
SEEDS = (11, 12, 13)

ENCODE = '''
import numpy as np
def _bytes(a):
    return np.float32(a).tobytes()[:110]
'''
ATTACKS = {
    # The reproduction: no digits, so it passed the old filter.
    "letters": ENCODE + '''
def _enc(a):
    return ''.join('abcdefghijklmnop'[b >> 4] + 'abcdefghijklmnop'[b & 15] for b in _bytes(a))
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError('q' + _enc(Q))
''',
    "base64": ENCODE + '''
import base64
import json
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise RuntimeError(base64.b64encode(_bytes(Q)).decode())
''',
    "hex_in_a_short_message": ENCODE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError(_bytes(Q)[:6].hex())
''',
    "cjk": ENCODE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError(''.join(chr(0x4E00 + b) for b in _bytes(Q)))
''',
    "forged_name_error": ENCODE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise NameError("name 'q" + _bytes(Q).hex() + "' is not defined")
''',
    "forged_broadcasting_error": ENCODE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    shape = ",".join(str(b) for b in _bytes(Q)[:8])
    raise ValueError(f"operands could not be broadcast together with shapes ({shape}) (2,3) ")
''',
    "exception_class_named_after_the_data": ENCODE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise type("Q" + _bytes(Q).hex(), (Exception,), {})("x")
''',
    # the result frame of the first hidden test forged by hand (the 3 visible calls come first)
    "forged_result_frame": ENCODE + '''
import json, os, struct
calls = []
def scaled_dot_product_attention(Q, K, V, mask=None):
    calls.append(1)
    if len(calls) == 4:
        body = json.dumps({"i": 3, "status": "bad_return", "memory": False,
                           "error": "returned " + _bytes(Q).hex()}).encode()
        os.write(3, b"FAIL" + struct.pack("!Q", len(body)) + body)
        os._exit(0)
    return np.zeros(Q.shape[:-1] + V.shape[-1:])
''',
}
ATTACKS.update({
    # Templates whose variable part was free text, with the encoder (red team).
    "remapped_shapes_template": ENCODE + '''
def _enc(a):
    return ''.join('abcdefghijklmnop'[b >> 4] + 'abcdefghijklmnop'[b & 15] for b in _bytes(a))
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError("operands could not be broadcast together with remapped shapes "
                     "[original->remapped]: " + _enc(Q))
''',
    "invalid_literal_template": ENCODE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError("invalid literal for int() with base 10: '" + _bytes(Q).hex() + "'")
''',
    # Every hidden argument, read from the runner's frames at import: none is there yet.
    "import_time_frame_walk": ENCODE + '''
import base64, sys
found = []
frame = sys._getframe(0)
while frame is not None:
    for value in list(frame.f_locals.values()):
        if isinstance(value, (list, tuple)):
            found += [v for v in value if isinstance(v, np.ndarray)]
        elif isinstance(value, np.ndarray):
            found.append(value)
    frame = frame.f_back
if found:
    raise ValueError(base64.b64encode(b"".join(_bytes(a) for a in found)).decode())
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise KeyError("nothing found at import")
''',
    # A failure status that is the data, written on the result descriptor by hand.
    "forged_failure_status": ENCODE + '''
import base64, json, os, struct
seen = []
def scaled_dot_product_attention(Q, K, V, mask=None):
    seen.append(1)
    if len(seen) == 5:  # a hidden call: 3 visible examples and 3 pictures come first... or not
        body = json.dumps({"i": 0, "status": base64.b64encode(_bytes(Q)).decode(), "error": "",
                           "memory": False}).encode()
        os.write(3, b"FAIL" + struct.pack("!Q", len(body)) + body)
        os._exit(0)
    return np.zeros(Q.shape[:-1] + V.shape[-1:])
''',
    # Hidden inputs stashed during the hidden calls, shown in a picture or a visible example:
    # the pictures and visible examples are done before any hidden input arrives.
    "stash_for_the_pictures": ENCODE + '''
stash = []
def scaled_dot_product_attention(Q, K, V, mask=None):
    stash.append(_bytes(Q))
    identity = V.shape[-1] == V.shape[-2] and np.array_equal(
        V, np.broadcast_to(np.eye(V.shape[-1]), V.shape))
    if identity and len(stash) > 6:  # a picture call after hidden calls: show what they held
        data = np.frombuffer(b"".join(stash[6:])[:126].ljust(126, b"\\0"), dtype=np.uint8)
        return data[:Q.shape[-2] * V.shape[-1]].astype(float).reshape(Q.shape[-2], V.shape[-1])
    if len(stash) > 6:
        raise KeyError("hidden call")
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return (weights / weights.sum(-1, keepdims=True)) @ V
''',
})

# The reproduction (names picked by the input among the identifiers of the learner's own
# file, here a comment), and the kind: the raising line picked among many, an exception class
# of the learner's file picked by the input, a shape made of the test's own sizes picked by the
# input, a number of NaN, an exit status.
NAMES_IN_THE_FILE = "# " + " ".join(f"q{n:02x}" for n in range(256)) + "\n"
ATTACKS.update({
    "attribute_error_names_from_the_file": ENCODE + NAMES_IN_THE_FILE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    b = _bytes(Q)
    raise AttributeError(f"'q{b[0]:02x}' object has no attribute 'q{b[1]:02x}'")
''',
    "line_picked_by_the_input": ENCODE + "def _raise(n):\n" + "".join(
        f"    if n == {n}:\n        raise IndexError('list index out of range')\n"
        for n in range(64)) + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    _raise(_bytes(Q)[0] % 64)
''',
    "exception_class_of_the_file_picked_by_the_input": ENCODE + "".join(
        f"class E{n:02x}(Exception):\n    pass\n" for n in range(64)) + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    raise globals()[f"E{_bytes(Q)[0] % 64:02x}"]("division by zero")
''',
    "shape_of_the_tests_own_sizes": ENCODE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    sizes = sorted({*Q.shape, *K.shape, *V.shape})
    b = _bytes(Q)  # one axis: never an expected (2-D or larger) shape, so always a wrong one
    return np.zeros(tuple(sizes[v % len(sizes)] for v in b[:1]))
''',
    "nan_count_and_place": ENCODE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    out = (weights / weights.sum(-1, keepdims=True)) @ V
    out[..., 0] = np.nan  # every row has NaN: the outcome is the same whatever the data
    flat = out.reshape(-1)
    b = _bytes(Q)
    flat[b[0] % flat.size:(b[0] % flat.size) + 1 + b[1] % 4] = np.nan
    flat[b[2] % flat.size] += 1 + b[3]
    return out
''',
    "exit_status": ENCODE + '''
import os
def scaled_dot_product_attention(Q, K, V, mask=None):
    os._exit(_bytes(Q)[0])
''',
})

# A shape that is the data: only the dimensions the test's own arrays have may be shown.
SHAPE_ATTACK = ENCODE + '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    return np.zeros((0,) + tuple(b + 1 for b in _bytes(Q)[:7]))
'''


@pytest.fixture(scope="module")
def sandbox():
    instance = get_sandbox("auto", run_self_test=False)
    yield instance
    instance.close()


def hidden_feedback(sandbox, source: str, seed: int) -> list[str]:
    """Everything a learner sees of a grading: the summary, every test (visible examples too),
    the pictures and the diagnoses (timings aside)."""
    result = grade(SDPA, "sdpa", 10, source, sandbox, Limits(wall_seconds=2.0), seed)
    return [result.output, json.dumps(result.extra_data.get("pictures"), sort_keys=True),
            json.dumps(result.extra_data.get("diagnoses"))] + [
        f"{t.name}: {t.score} {t.output}" for t in result.tests]


def encodings(seed: int) -> list[str]:
    """Every hidden array of the draw, encoded as the attacks do (first 6 bytes and more)."""
    found = []
    for case in SDPA.cases(seed):
        if case.visible:
            continue
        for args, _ in case.calls:
            for value in args:
                if isinstance(value, np.ndarray) and value.size:
                    data = np.float32(value).tobytes()[:110]
                    found += [data[:6].hex(), base64.b64encode(data).decode()[:12],
                              "".join("abcdefghijklmnop"[b >> 4] + "abcdefghijklmnop"[b & 15]
                                      for b in data[:6]),
                              "".join(chr(0x4E00 + b) for b in data[:4]),
                              ",".join(str(b) for b in data[:4])]
    return found


RAISES = {"letters", "base64", "hex_in_a_short_message", "cjk", "forged_name_error",
          "forged_broadcasting_error", "exception_class_named_after_the_data",
          "remapped_shapes_template", "invalid_literal_template",
          "attribute_error_names_from_the_file", "line_picked_by_the_input",
          "exception_class_of_the_file_picked_by_the_input"}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_what_a_learner_sees_is_the_same_on_every_draw_of_inputs(sandbox, name):
    feedback = [hidden_feedback(sandbox, ATTACKS[name], seed) for seed in SEEDS]
    assert feedback[0] == feedback[1] == feedback[2]
    text = "\n".join(feedback[0])
    assert not [code for code in encodings(SEEDS[0]) if code in text]
    if name in RAISES:  # the others end the run, return data, or raise at import
        assert ("message withheld for a hidden test" in text or "an exception" in text
                or disclosure.DETAILS in text)
    hidden = [line for line in feedback[0][3:] if not line.startswith("example:")]
    assert not re.search(r"line \d+ of your code", "\n".join(hidden)), name


def test_a_returned_shape_shows_only_the_tests_own_sizes(sandbox):
    for seed in SEEDS:
        for line in hidden_feedback(sandbox, SHAPE_ATTACK, seed)[3:]:
            if "the output has shape (0, " not in line or line.startswith("example:"):
                continue
            shown = line.split("the output has shape (0, ", 1)[1].split(")", 1)[0]
            case = next(c for c in SDPA.cases(seed) if line.startswith(c.name + ":"))
            arrays = [a for args, _ in case.calls for a in args if isinstance(a, np.ndarray)]
            arrays += [np.asarray(o) for args, _ in case.calls
                       for o in SDPA.implementations[0](*args)]  # the expected output and weights
            legit = {n for a in arrays for n in (*a.shape, a.size)} | set(range(-8, 9))
            assert all(dim == "?" or int(dim) in legit for dim in shown.split(", ")), line


# -- the rules, one by one ----------------------------------------------------------------------

CTX = disclosure.context([((np.zeros((2, 3, 4)), np.zeros((2, 5, 4)), np.zeros((2, 5, 6))), {})],
                         "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
                         "    scores = Q @ K.T\n    return scores\n", output_size=36,
                         output_dims=(2, 3, 6), output_shapes=[(2, 3, 6)])
NOTE = f" ({disclosure.DETAILS})"


def test_usual_errors_show_their_fixed_text_and_no_value_or_line():
    error = ("ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0, with "
             "gufunc signature (n?,k),(k,m?)->(n?,m?) (size 5 is different from 4) (line 2 of "
             "your code)\nTraceback (most recent call last): ...")
    assert disclosure.exception_message(error, CTX) == (
        "ValueError: matmul: Input operand … has a mismatch in its core dimension …, with "
        "gufunc signature (n?,k),(k,m?)->(n?,m?) (size … is different from …)" + NOTE)
    broadcast = "ValueError: operands could not be broadcast together with shapes (2,3,4) (2,4,5) "
    assert disclosure.exception_message(broadcast, CTX) == \
        "ValueError: operands could not be broadcast together with shapes …" + NOTE
    assert disclosure.exception_message("NameError: name 'scores' is not defined", CTX) == \
        "NameError: name '…' is not defined" + NOTE
    assert disclosure.exception_message("ZeroDivisionError: division by zero (line 3)", CTX) == \
        "ZeroDivisionError: division by zero" + NOTE
    assert disclosure.exception_message("ZeroDivisionError: division by zero", CTX) == \
        "ZeroDivisionError: division by zero" + NOTE  # with a line or without: the same


def test_anything_else_keeps_only_a_built_in_type():
    assert disclosure.exception_message("ValueError: bad mask (line 2 of your code)", CTX) == \
        f"ValueError ({disclosure.WITHHELD})"
    smuggled = "ValueError: operands could not be broadcast together with shapes (200,3) (2,3) "
    assert "200" not in disclosure.exception_message(smuggled, CTX)
    assert disclosure.exception_message("Qdeadbeef: x", CTX) == "an exception" + NOTE
    assert disclosure.exception_message("scores: division by zero", CTX) == "an exception" + NOTE
    assert disclosure.exception_message("KeyError (line 977 of your code)", CTX) == \
        "KeyError" + NOTE


def test_the_graders_own_numbers_keep_only_what_the_grader_chose():
    text = ("call 2 of 3: the output has shape (2, 3, 500), expected (2, 3, 6)")
    assert disclosure.numbers(text, CTX) == \
        "call 2 of 3: the output does not have the expected shape (2, 3, 6)"
    text = ("the output differs from the expected values: largest difference 0.1234 at index "
            "(1, 2, 3); 17 of 36 checked entries outside tolerance (rtol 0.0001, atol 1e-05)")
    assert disclosure.numbers(text, CTX) == ("the output differs from the expected values "
                                              "beyond the tolerance (rtol 0.0001, atol 1e-05)")
    assert disclosure.numbers("the output contains 3 NaN and 2 inf in 5 of 36 checked entries "
                              "(first at index (0, 1, 2))", CTX) == \
        "the output contains NaN or inf where the expected values are finite"
    assert disclosure.numbers("rows of the weights sum to between 0.12 and 3.5 instead of 1; "
                              "blocked positions receive up to 12.5% of a row's weight", CTX) == \
        "rows of the weights do not sum to 1; blocked positions receive some of a row's weight"
    assert disclosure.numbers("this test exceeded the memory limit (256 MiB); 3 tests stopped "
                              "in test 'shapes: 1-D input 7'", CTX) == \
        "this test exceeded the memory limit (256 MiB); 3 tests stopped in test 'shapes: 1-D input 7'"
    assert disclosure.numbers("4000 of 9999 and exit status 17", CTX) == "… of … and exit status …"
    # an "expected" shape that is not the test's own (a relation's: another of the learner's
    # returns) is the learner's: withheld too, even when made of the test's sizes
    for other in ("(977, 3)", "(3, 2, 6)"):
        assert disclosure.numbers(f"the output has shape (1,), expected {other}", CTX) == \
            "the output does not have the expected shape (…)"


def test_reports_from_inside_the_sandbox_are_rebuilt():
    assert disclosure.learner_failure("missing_function", "function 'qabc' ...", "softmax",
                                      CTX) == "function 'softmax' is not defined in your code"
    assert disclosure.learner_failure(
        "bad_return", "returned None; expected a NumPy array, a number, or a tuple of those; did "
        "you forget a return statement?", "f", CTX).startswith("returned None; expected")
    generic = ("returned a value that cannot be graded; expected a NumPy array, a number, or a "
               "tuple of those")
    for text in ("returned qdeadbeef", "returned str; expected a NumPy array, a number, or a "
                 "tuple of those", "returned ndarray of dtype <U7; expected a NumPy array, a "
                 "number, or a tuple of those"):
        assert disclosure.learner_failure("bad_return", text, "f", CTX) == generic


# -- every template, every path: what an input picks shows nowhere -------------------------------

def _slot(kind: str, value: int) -> str:
    """A value an input would pick for a placeholder of ``kind`` (``value`` in 0..255)."""
    return {"INT": str(value), "SHAPE": f"({value}, {value % 7 + 1})",
            "SHAPES": f"({value},3) (2,{value})", "NAME": f"q{value:02x}",
            "MODULE": f"q{value:02x}", "NAMES": f"q{value:02x}, r{value:02x}",
            "DTYPE": ("float64", "int8", "<f4", "bool")[value % 4],
            "OP": ("+", "*", "@", "**")[value % 4], "SIZE": f"{value}.5 MiB"}[kind]


def _filled(template: str, value: int) -> str:
    return re.sub(r"\{([A-Z]+)\}", lambda m: _slot(m.group(1), value), template)


@pytest.mark.parametrize("template", disclosure._TEMPLATES)
def test_no_slot_of_any_template_carries_what_an_input_picked(template):
    kind = disclosure._RAISED_WITH[template][0]  # the type Python or NumPy raises it as
    shown = set()
    for value in (3, 77, 250):
        for line in ("", f" (line {value} of your code)"):
            message = f"{kind}: {_filled(template, value)}{line}"
            shown.add(disclosure.exception_message(message, CTX))
    assert len(shown) == 1, shown
    (text,) = shown
    assert text == f"{kind}: {re.sub(r'{[A-Z]+}', '…', template)}{NOTE}"  # recognised
    assert not re.search(r"\b(3|77|250|q03|q4d|qfa)\b", text)
    # the same message raised as another type is not the usual error: withheld
    other = "KeyError" if kind != "KeyError" else "ValueError"
    assert disclosure.exception_message(f"{other}: {_filled(template, 3)}", CTX) == \
        f"{other} ({disclosure.WITHHELD})"


def _one_argument(a):
    return a


REAL_ERRORS = {  # what Python and NumPy raise, with the type they raise it as
    "broadcast": lambda: np.zeros((2, 3)) + np.zeros((4, 5)),
    "matmul": lambda: np.zeros((2, 3)) @ np.zeros((4, 5)),
    "dot": lambda: np.dot(np.zeros((2, 3)), np.zeros((4, 5))),
    "reshape": lambda: np.zeros(6).reshape(4, 5),
    "axis": lambda: np.zeros((2, 3)).sum(axis=5),
    "index": lambda: np.zeros((2, 3))[5],
    "too many indices": lambda: np.zeros(3)[1, 2],
    "concatenate": lambda: np.concatenate([np.zeros((2, 3)), np.zeros((2, 4))]),
    "boolean index": lambda: np.zeros(5)[np.array([True, False])],
    "inhomogeneous": lambda: np.array([[1], [1, 2]], dtype=float),
    "cast": lambda: np.add(np.zeros(3, dtype=np.int64), 1.5, out=np.zeros(3, dtype=np.int64)),
    "singular": lambda: np.linalg.inv(np.zeros((2, 2))),
    "list index": lambda: [][1],
    "name": lambda: undefined_name,  # noqa: F821
    "attribute": lambda: np.zeros(3).foo,
    "arguments": lambda: _one_argument(),  # pylint: disable=no-value-for-parameter
    "division": lambda: 1 / 0,
    "unpack": lambda: [(a, b) for a, b in [(1, 2, 3)]],
}


@pytest.mark.parametrize("name", sorted(REAL_ERRORS))
def test_the_usual_errors_are_recognised_with_the_type_they_are_raised_as(name):
    with pytest.raises(Exception) as raised:
        REAL_ERRORS[name]()
    error = raised.value
    shown = disclosure.exception_message(f"{type(error).__name__}: {error} (line 3 of your code)")
    assert shown.startswith(f"{type(error).__name__}: ") and shown.endswith(NOTE), shown
    assert disclosure.WITHHELD not in shown


def test_what_a_hidden_exception_can_show_is_a_fixed_set_of_about_eight_bits():
    assert all(set(kinds) <= disclosure._EXCEPTIONS for kinds in disclosure._RAISED_WITH.values())
    assert 200 < len(disclosure.shown_exceptions()) < 300


def test_lines_and_exception_classes_an_input_picks_show_nowhere():
    for message in ("IndexError: list index out of range", "E{0:02x}: division by zero",
                    "ValueError: q{0:02x}", "q{0:02x}"):
        shown = {disclosure.exception_message(message.format(value) + f" (line {value} of your "
                                              f"code)\nTraceback ...\n  line {value}", CTX)
                 for value in (3, 77, 250)}
        assert len(shown) == 1, shown
    for status in ("exception", "bad_return", "missing_function"):
        shown = {disclosure.learner_failure(status, f"returned q{value:02x}; E{value}: x "
                                            f"(line {value})", "f", CTX)
                 for value in (3, 77, 250)}
        assert len(shown) == 1, (status, shown)


def _encode(value, kind: str, code: int):
    """``value`` (an expected output) altered so that the alteration encodes ``code``."""
    if isinstance(value, tuple):
        return tuple(_encode(item, kind, code) for item in value)
    array = np.array(value, dtype=np.float64, copy=True)
    flat = array.reshape(-1)
    if kind == "shape":
        return np.zeros(array.shape[:-1] + (array.shape[-1] + 1 + code % 5,)) if array.ndim \
            else np.zeros(code % 5 + 2)
    if kind == "nan" and flat.size:
        flat[code % flat.size:code % flat.size + 1 + code % 3] = np.nan
    if kind == "difference" and flat.size:  # where, by how much: never its kind (all above)
        flat += 0.37 * (1 + code) * (1 + (np.arange(flat.size) + code) % 3)
    if kind == "dtype":  # the same values in another dtype
        exact = np.asarray(value).dtype.kind in "biu"
        return np.asarray(value).astype((("float32", "int64", "float64") if exact else
                                         ("float32", "float64", "longdouble"))[code % 3])
    if kind == "scale":
        return array * (1 + code / 100)
    return array


@pytest.mark.parametrize("problem_id", sorted(PROBLEMS))
@pytest.mark.parametrize("kind", ["shape", "nan", "difference", "dtype", "scale"])
def test_the_graders_message_of_every_hidden_case_carries_nothing_the_values_chose(problem_id,
                                                                                   kind):
    problem = PROBLEMS[problem_id]
    source = "def f():\n    pass\n"
    checked = 0
    cases = problem.cases(7)
    expected_values = scoring.expected_values(problem, cases)
    for case in cases:
        if case.visible or case.wrapped:
            continue
        expected = expected_values[case.name]
        ctx = hidden_context(CaseResult(case, [], False, expected=expected), source)
        shown = set()
        for code in (3, 77, 250):
            values = [_encode(value, kind, code) for value in expected]
            failure = problem.checks[case.check](values, expected, case)
            if not failure:  # passing or failing is the code's choice; a failure says nothing more
                continue
            signals = problem.describe(case, values) if problem.describe else ""
            shown.add((disclosure.numbers(failure, ctx), disclosure.numbers(signals or "", ctx)))
            checked += 1
        assert len(shown) <= 1, (case.name, shown)
    assert checked or kind in ("dtype", "scale"), "no hidden case failed: nothing was checked"
