"""A hidden test's exception message is judged in time linear in its length (issue 20.1).

The reported example: a correct softmax that raises, on one hidden input only,
``ValueError("cannot reshape array of size 1 into shape (" + "1" * 25 + "x")``. The old shape
grammar ``\\((?:\\s*-?\\d+\\s*,?)*\\s*\\)`` split the digit run between its repeats in 2^(n-1)
ways before giving up: 25 digits held the grading thread for seconds, 40 for about a day. Now
the message is withheld as any unreadable message is, the grading is that of a one-digit
message, and the cost of judging a message grows linearly up to the 8,000 characters the
trusted side keeps of one (``grader/sandbox/collect.py``, ``MAX_ERROR_CHARS``). Variants of the
kind: the other templates with shapes, and text followed by a long run of spaces.
"""
from __future__ import annotations

import pytest

from benchmarks.pattern_bench import RAISES_ON_ONE_HIDDEN_INPUT
from grader.problems import PROBLEMS, disclosure
from grader.problems.scoring import grade
from grader.redos.growth import MAX_GROWTH, cpu_alarm, least_ratio
from grader.sandbox import Limits
from grader.sandbox.collect import MAX_ERROR_CHARS

WITHHELD = f"ValueError ({disclosure.WITHHELD})"
CTX = disclosure.Context(max_int=64, names=frozenset({"softmax", "x"}), lines=9,
                         dims=frozenset({*range(-8, 9), 6, 24}))

#: name -> a message of about n characters that never closes; every one is withheld.
UNCLOSED = {
    "the issue's reshape message": lambda n: "cannot reshape array of size 1 into shape ("
                                             + "1" * n + "x",
    "broadcasting shapes": lambda n: "operands could not be broadcast together with shapes "
                                     "(2,3) (" + "1" * n + "x",
    "an allocation's shape": lambda n: "Unable to allocate 1 MiB for an array with shape ("
                                       + "1" * n + "x",
    "a shape of digits and spaces": lambda n: "shapes (" + "1 " * (n // 2) + "x",
    "spaces after the shapes": lambda n: "operands could not be broadcast together with "
                                         "shapes (2,3)" + " " * n + "x",
    "spaces after the message": lambda n: " " * n + "x",
}


@pytest.mark.parametrize("name", list(UNCLOSED))
@pytest.mark.parametrize("n", [25, 40, MAX_ERROR_CHARS - 80])
def test_a_message_that_never_closes_is_withheld(name, n):
    with cpu_alarm(30.0):  # the old grammar: 2^(n-1) steps; a hang fails here instead
        shown = disclosure.exception_message(f"ValueError: {UNCLOSED[name](n)}", CTX)
    assert shown == WITHHELD


@pytest.mark.parametrize("name", list(UNCLOSED))
def test_judging_a_message_grows_linearly_up_to_the_kept_length(name):
    make = UNCLOSED[name]
    small, large = f"ValueError: {make(100)}", f"ValueError: {make(6400)}"
    with cpu_alarm(30.0):
        measured, _ = least_ratio(lambda: disclosure.exception_message(small, CTX),
                                  lambda: disclosure.exception_message(large, CTX), 64)
    assert measured <= MAX_GROWTH, f"{name}: 64x longer cost {measured:.1f}x 64 short ones"


@pytest.mark.parametrize("message", [
    "cannot reshape array of size 24 into shape (6, 4)",
    "cannot reshape array of size 6 into shape (6,)",
    "cannot reshape array of size 24 into shape (2,3, 4,)",
    "operands could not be broadcast together with shapes (6,4) (4,6) ",
    "operands could not be broadcast together with shapes (2,3) (6,)  (4,)",
    "shapes (6,4) and (6,4) not aligned: 4 (dim 1) != 6 (dim 0)",
])
def test_numpy_messages_with_the_tests_own_sizes_are_still_shown(message):
    assert disclosure.exception_message(f"ValueError: {message}", CTX) == \
        f"ValueError: {message.strip()}"


@pytest.mark.parametrize("message", [
    "cannot reshape array of size 24 into shape (6, 999)",  # 999 is no size of the test
    "cannot reshape array of size 24 into shape (6 4)",  # no comma: not a NumPy shape
    "operands could not be broadcast together with shapes (6,4)(4,",
])
def test_a_shape_that_is_not_the_tests_own_is_withheld(message):
    assert disclosure.exception_message(f"ValueError: {message}", CTX) == WITHHELD


def test_numbers_round_every_decimal_outside_a_shape():
    # a shape's digits are left as they are (the sizes are filtered first), any other decimal
    # is rounded: also in a text that starts with "shape" without being one, and after a
    # "shape (" whose tuple never closes
    assert disclosure.numbers("shape (6, 4) differs by 0.123456", CTX) == \
        "shape (6, 4) differs by 0.1"
    assert disclosure.numbers("shape mismatch 0.123456", CTX) == "shape mismatch 0.1"
    assert disclosure.numbers("shape (6, 4" + " 0.55555" * 3, CTX) == "shape (6, 4 0.6 0.6 0.6"


@pytest.mark.parametrize("digits", [25, 40])
def test_the_issue_example_grades_like_a_one_digit_message(fake_sandbox, digits):
    def graded(n):
        source = RAISES_ON_ONE_HIDDEN_INPUT.replace("DIGITS", str(n))
        with cpu_alarm(30.0):
            return grade(PROBLEMS["softmax"], "softmax", 10.0, source, fake_sandbox, Limits(), 7)

    result, baseline = graded(digits), graded(1)
    failed = [test for test in result.tests if test.status == "failed"]
    assert len(failed) == 1 and failed[0].visibility == "hidden"
    assert failed[0].output.startswith(f"Failed: {WITHHELD} (line 7 of your code)")
    assert (result.score, [t.output for t in result.tests]) == \
        (baseline.score, [t.output for t in baseline.tests])
