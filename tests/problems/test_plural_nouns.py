"""The checks' messages agree the verb with a plural noun: "the returned weights contain NaN",
not "contains" (grader.problems.compare.PLURAL_NOUNS); a singular noun reads as before. The
expected sentences are worked out by hand from the arrays."""
from __future__ import annotations

import numpy as np

from grader.problems import disclosure
from grader.problems.checks import _shape_problem
from grader.problems.compare import PLURAL_NOUNS, agrees, mismatch

NAN = np.nan


def test_every_verb_of_the_templates_agrees_with_a_plural_noun():
    assert {agrees("returned weights", v) for v in ("is", "has", "contains", "differs")} == \
        {"are", "have", "contain", "differ"}
    assert agrees("output", "contains") == "contains"
    assert PLURAL_NOUNS == {"returned weights", "dot products between positions"}


def test_a_nan_in_the_returned_weights():
    # one NaN at (0, 0), the other entry right
    assert mismatch(np.array([[NAN, 1.0]]), np.array([[0.5, 1.0]]), "returned weights") == \
        "the returned weights contain 1 NaN in 1 of 2 checked entries (first at index (0, 0))"
    assert mismatch(np.array([[NAN, 1.0]]), np.array([[0.5, 1.0]])) == \
        "the output contains 1 NaN in 1 of 2 checked entries (first at index (0, 0))"


def test_the_shape_and_the_type_of_the_returned_weights():
    assert mismatch(np.zeros((2, 3)), np.zeros((2, 2)), "returned weights") == \
        "the returned weights have shape (2, 3), expected (2, 2)"
    assert mismatch("x", np.zeros(2), "returned weights") == \
        "the returned weights are not a numeric array (got str)"


def test_dot_products_that_differ():
    # |0.5 - 0.75| = 0.25 at index 1 > 1e-05 + 1e-04 * 0.75
    assert mismatch(np.array([0.5, 0.5]), np.array([0.5, 0.75]),
                    "dot products between positions") == (
        "the dot products between positions differ from the expected values: largest "
        "difference 0.25 at index (1); 1 of 2 checked entries outside tolerance (rtol 0.0001, "
        "atol 1e-05)")


def test_a_shape_test_on_nan_weights():
    assert _shape_problem("returned weights", np.full((2, 2), NAN), (2, 2)) == (
        "the returned weights have the right shape but contain NaN/inf in 4 of 4 entries "
        "(first at index (0, 0)); a shape test counts only for a finite output")


def test_a_hidden_tests_rewording_keeps_the_agreement():
    ctx = disclosure.context([((np.zeros((2, 2)),), {})])
    nan = mismatch(np.array([[NAN, 1.0]]), np.array([[0.5, 1.0]]), "returned weights")
    assert disclosure.numbers(nan, ctx) == \
        "the returned weights contain NaN or inf where the expected values are finite"
    shape = mismatch(np.zeros((2, 3)), np.zeros((2, 2)), "returned weights")
    assert disclosure.numbers(shape, ctx) == \
        "the returned weights do not have the expected shape (…)"
