"""A visible example whose expected (or received) output is a boolean mask shows True/False, not
``1. 0.`` floats; under contract options it shows the course's convention's values (True =
blocked, or 0/1 numbers for a numeric course). causal_mask(3)'s example, worked out by hand:
True on and below the diagonal."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, scoring
from grader.problems.course import compile_course
from grader.sandbox.api import Limits

ALLOWED = "[[ True False False]\n [ True  True False]\n [ True  True  True]]"
BLOCKED = "[[False  True  True]\n [False False  True]\n [False False False]]"
NUMERIC = "[[1. 0. 0.]\n [1. 1. 0.]\n [1. 1. 1.]]"


def _example_output(sandbox, options, expression):
    problem = PROBLEMS["causal_mask"] if options is None else compile_course(
        PROBLEMS["causal_mask"], options)
    source = f"import numpy as np\n\n\ndef causal_mask(n):\n    return {expression}\n"
    result = scoring.grade(problem, "item", 10.0, source, sandbox, Limits(), 3)
    example = next(t for t in result.tests if t.visibility == "visible")
    assert example.status == "failed"
    return example.output


@pytest.mark.parametrize("options,expression,expected,received", [
    # today's contract: the transposed mask received (True on and above the diagonal)
    (None, "np.triu(np.ones((n, n), dtype=bool))", ALLOWED,
     "[[ True  True  True]\n [False  True  True]\n [False False  True]]"),
    # True = blocked: a learner who returned today's mask
    ({"mask": "blocked"}, "np.tril(np.ones((n, n), dtype=bool))", BLOCKED, ALLOWED),
    # a numeric course's 0/1 mask stays numbers
    ({"mask": "numeric-allowed"}, "np.triu(np.ones((n, n)))", NUMERIC,
     "[[1. 1. 1.]\n [0. 1. 1.]\n [0. 0. 1.]]"),
])
def test_the_example_shows_the_mask_as_the_course_writes_it(fake_sandbox, options, expression,
                                                            expected, received):
    output = _example_output(fake_sandbox, options, expression)
    assert f"Expected output:\n{expected}\nReceived output:\n{received}" in output
