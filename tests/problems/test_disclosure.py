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
import json

import numpy as np
import pytest

from grader.problems import PROBLEMS, disclosure
from grader.problems.scoring import grade
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
          "remapped_shapes_template", "invalid_literal_template"}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_what_a_learner_sees_is_the_same_on_every_draw_of_inputs(sandbox, name):
    feedback = [hidden_feedback(sandbox, ATTACKS[name], seed) for seed in SEEDS]
    assert feedback[0] == feedback[1] == feedback[2]
    text = "\n".join(feedback[0])
    assert not [code for code in encodings(SEEDS[0]) if code in text]
    if name in RAISES:  # the others end the run, return data, or raise at import
        assert "message withheld for a hidden test" in text or "an exception" in text


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


def test_a_range_whose_ends_round_alike_is_not_said_twice():
    assert disclosure.numbers("slices sum to between 1.63 and 2.41 instead of 1", CTX) == \
        "slices sum to about 2 instead of 1"  # 1.63 -> 2, 2.41 -> 2 (one significant digit)
    assert disclosure.numbers("rows sum to between 0.12 and 3.5 instead of 1", CTX) == \
        "rows sum to between 0.1 and 4 instead of 1"


def test_reports_from_inside_the_sandbox_are_rebuilt():
    assert disclosure.learner_failure("missing_function", "function 'qabc' ...", "softmax",
                                      CTX) == "function 'softmax' is not defined in your code"
    assert disclosure.learner_failure(
        "bad_return", "returned None; expected a NumPy array, a number, or a tuple of those; did "
        "you forget a return statement?", "f", CTX).startswith("returned None; expected")
    assert disclosure.learner_failure("bad_return", "returned qdeadbeef", "f", CTX) == (
        "returned a value that cannot be graded; expected a NumPy array, a number, or a tuple "
        "of those")
