"""A causal mask that blocks every position is named for that (``all_blocked``), never as an
additive float mask that allows everything: False == 0.0, so an all-False boolean mask has the
numbers of ``np.where(all_true, 0.0, -inf)`` but is no additive mask. causal_mask's categories
are shapes 1.5, values 5.5, edge cases 2, dtypes 1: an all-blocked (n, n) mask keeps the shape
tests only (every value test, n = 1 included, expects True on the diagonal)."""
from __future__ import annotations

import numpy as np
import pytest

from grader.problems import PROBLEMS, scoring
from grader.problems.builtin.causal_mask.mistakes import buggy_causal_mask
from grader.problems.course import compile_course
from grader.problems.diagnosis import _call_explained
from grader.sandbox.api import CallOutcome, Limits
from tests.problems.problem_helpers import diagnoses


def _source(expression: str) -> str:
    return f"import numpy as np\n\n\ndef causal_mask(n):\n    return {expression}\n"


def _grade(source, sandbox, options=None):
    problem = PROBLEMS["causal_mask"] if options is None else compile_course(
        PROBLEMS["causal_mask"], options)
    return scoring.grade(problem, "item", 10.0, source, sandbox, Limits(), 3)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_the_all_blocked_variant_is_all_false(n):
    assert np.array_equal(buggy_causal_mask(n, nothing=True), np.full((n, n), False))
    assert buggy_causal_mask(n, nothing=True).dtype == np.bool_


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_a_float_variant_does_not_explain_a_boolean_return_with_the_same_numbers(n):
    # additive + everything allowed: 0.0 everywhere, numerically the all-False boolean mask
    additive_all_allowed = buggy_causal_mask(n, additive=-np.inf, everything=True)
    assert np.array_equal(additive_all_allowed, np.zeros((n, n)))
    blocked = CallOutcome("ok", value=np.zeros((n, n), dtype=bool))
    assert not _call_explained((additive_all_allowed, None), blocked, None, False)
    # a 0/1 return still matches a boolean variant, as a numeric mask always has
    numeric = CallOutcome("ok", value=np.zeros((n, n), dtype=np.uint8))
    assert _call_explained((buggy_causal_mask(n, nothing=True), None), numeric, None, False)
    # and the float return of an additive mask that allows everything is that mistake
    floats = CallOutcome("ok", value=np.zeros((n, n)))
    assert _call_explained((additive_all_allowed, None), floats, None, False)


@pytest.mark.parametrize("dtype", ["bool", "np.uint8"])
def test_an_all_false_mask_is_named_all_blocked(fake_sandbox, dtype):
    result = _grade(_source(f"np.zeros((n, n), dtype={dtype})"), fake_sandbox)
    failed = [t for t in result.tests if t.status == "failed"]
    # the example (n = 3), the three value tests, both edge cases and the dtype test
    assert [t.name for t in failed] == [
        "example: causal_mask(3)", "values: a short sequence", "values: a medium sequence",
        "values: a longer sequence", "edge cases: n = 1 (the token sees itself)",
        "edge cases: n = 2", "dtypes: the mask is boolean"]
    assert diagnoses(result) == {"all_blocked"}
    assert "Every position is blocked" in result.output
    assert "additive" not in result.output
    assert result.score == pytest.approx(1.5)


@pytest.mark.parametrize("dtype", ["bool", "np.uint8"])
def test_an_all_true_mask_under_a_blocked_course_is_named_all_blocked(fake_sandbox, dtype):
    result = _grade(_source(f"np.ones((n, n), dtype={dtype})"), fake_sandbox, {"mask": "blocked"})
    assert diagnoses(result) == {"all_blocked"}
    assert "additive" not in result.output
    assert result.score == pytest.approx(1.5)


def test_an_all_false_mask_under_a_blocked_course_is_named_all_true(fake_sandbox):
    # True = blocked, so all False allows every position: the all_true mistake, told as such
    result = _grade(_source("np.zeros((n, n), dtype=bool)"), fake_sandbox, {"mask": "blocked"})
    assert diagnoses(result) == {"all_true"}
    assert "Every position is allowed" in result.output
