"""Hidden inputs never leak through feedback (issue 10, part 5).

End to end, through the real isolated sandbox: submissions that try to carry the hidden inputs
out (exception messages in several alphabets, a forged NameError or broadcasting message, an
exception class named after the data, a returned array whose shape is the data, a result frame
forged by hand) are graded on three seeds, i.e. on three different draws of hidden inputs with the
same shapes. The hidden tests' feedback must be the same text on all three draws: then it is a
function of nothing but the code, and no input can be recovered from it. The encodings of the
actual inputs are also looked for in the text, in every alphabet used.
"""
from __future__ import annotations

import base64

import numpy as np
import pytest

from grader.problems import PROBLEMS, disclosure
from grader.problems.grading import grade
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
    result = grade(SDPA, "sdpa", 10, source, sandbox, Limits(wall_seconds=2.0), seed)
    return [result.output] + [f"{t.name}: {t.output}" for t in result.tests
                              if t.visibility == "hidden"]


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


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_feedback_of_hidden_tests_is_the_same_on_every_draw_of_inputs(sandbox, name):
    feedback = [hidden_feedback(sandbox, ATTACKS[name], seed) for seed in SEEDS]
    assert feedback[0] == feedback[1] == feedback[2]
    text = "\n".join(feedback[0])
    assert not [code for code in encodings(SEEDS[0]) if code in text]
    if name != "forged_result_frame":  # that one ends the run: its test reports the crash
        assert "message withheld for a hidden test" in text or "an exception" in text


def test_a_returned_shape_shows_only_the_tests_own_sizes(sandbox):
    for seed in SEEDS:
        for line in hidden_feedback(sandbox, SHAPE_ATTACK, seed)[1:]:
            if "the output has shape (0, " not in line:
                continue
            shown = line.split("the output has shape (0, ", 1)[1].split(")", 1)[0]
            case = next(c for c in SDPA.cases(seed) if line.startswith(c.name + ":"))
            arrays = [a for args, _ in case.calls for a in args if isinstance(a, np.ndarray)]
            arrays += [np.asarray(o) for args, _ in case.calls
                       for o in SDPA.reference(*args)]  # the expected output and weights
            legit = {n for a in arrays for n in (*a.shape, a.size)} | set(range(-8, 9))
            assert all(dim == "?" or int(dim) in legit for dim in shown.split(", ")), line


# -- the rules, one by one ----------------------------------------------------------------------

CTX = disclosure.context([((np.zeros((2, 3, 4)), np.zeros((2, 5, 4)), np.zeros((2, 5, 6))), {})],
                         "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
                         "    scores = Q @ K.T\n    return scores\n", output_size=36,
                         output_dims=(2, 3, 6))


def test_common_errors_with_the_tests_own_sizes_are_shown_with_the_line():
    error = ("ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0, with "
             "gufunc signature (n?,k),(k,m?)->(n?,m?) (size 5 is different from 4) (line 2 of "
             "your code)\nTraceback (most recent call last): ...")
    assert disclosure.exception_message(error, CTX) == error.split(" (line")[0] + \
        " (line 2 of your code)"
    broadcast = "ValueError: operands could not be broadcast together with shapes (2,3,4) (2,4,5) "
    assert "(2,3,4) (2,4,5)" in disclosure.exception_message(broadcast, CTX)
    assert disclosure.exception_message("NameError: name 'scores' is not defined", CTX) == \
        "NameError: name 'scores' is not defined"
    assert disclosure.exception_message("ZeroDivisionError: division by zero (line 3)", CTX) == \
        "ZeroDivisionError: division by zero (line 3 of your code)"


def test_anything_else_keeps_only_the_type_and_the_line():
    assert disclosure.exception_message("ValueError: bad mask (line 2 of your code)", CTX) == \
        f"ValueError ({disclosure.WITHHELD}) (line 2 of your code)"
    smuggled = "ValueError: operands could not be broadcast together with shapes (200,3) (2,3) "
    assert "200" not in disclosure.exception_message(smuggled, CTX)
    invented = "NameError: name 'qabcdef' is not defined"
    assert disclosure.exception_message(invented, CTX) == f"NameError ({disclosure.WITHHELD})"
    assert disclosure.exception_message("Qdeadbeef: x", CTX) == "an exception"
    # a line number beyond the learner's 3 lines is not theirs: dropped
    assert disclosure.exception_message("KeyError (line 977 of your code)", CTX) == "KeyError"


def test_the_graders_own_numbers_keep_sizes_and_lose_precision():
    text = ("the output has shape (2, 3, 500), expected (2, 3, 6); largest difference 0.1234 at "
            "index (1, 2, 3); 17 of 36 checked entries outside tolerance; 4000 of 9999")
    assert disclosure.numbers(text, CTX) == (
        "the output has shape (2, 3, ?), expected (2, 3, 6); largest difference 0.1 at index "
        "(1, 2, 3); 17 of 36 checked entries outside tolerance; ? of ?")


def test_reports_from_inside_the_sandbox_are_rebuilt():
    assert disclosure.learner_failure("missing_function", "function 'qabc' ...", "softmax",
                                      CTX) == "function 'softmax' is not defined in your code"
    assert disclosure.learner_failure(
        "bad_return", "returned None; expected a NumPy array, a number, or a tuple of those; did "
        "you forget a return statement?", "f", CTX).startswith("returned None; expected")
    assert disclosure.learner_failure("bad_return", "returned qdeadbeef", "f", CTX) == (
        "returned a value that cannot be graded; expected a NumPy array, a number, or a tuple "
        "of those")
