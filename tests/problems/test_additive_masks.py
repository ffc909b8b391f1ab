"""An additive causal mask is one mistake whatever large negative constant blocks a position:
the same name and the same score (the shape tests' 1.5 of 10 points: causal_mask's categories are
shapes 1.5, values 5.5, edge cases 2, dtypes 1) for -inf, -1e9, -1e10 and the float minimum, and
for either way of building it."""
from __future__ import annotations

import numpy as np
import pytest

from grader.problems import PROBLEMS, scoring
from grader.problems.builtin.causal_mask import additive_as_minus_inf
from grader.sandbox.api import Limits
from tests.problems.problem_helpers import diagnoses

BUILDS = {
    "np.where, -inf": "np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)",
    "(1 - tri) * -1e10": "(1 - np.tri(n)) * -1e10",
    "triu(ones, 1) * -1e9": "np.triu(np.ones((n, n)), 1) * -1e9",
    "float minimum": "np.where(np.tril(np.ones((n, n))) > 0, 0.0, np.finfo(np.float64).min)",
    "float32 -1e9": "(np.triu(np.ones((n, n), dtype=np.float32), k=1) * np.float32(-1e9))",
}


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_an_additive_mask_is_named_and_scored_alike_whatever_its_constant(fake_sandbox, build):
    source = f"import numpy as np\n\ndef causal_mask(n):\n    return {BUILDS[build]}\n"
    result = scoring.grade(PROBLEMS["causal_mask"], "mask", 10.0, source, fake_sandbox,
                           Limits(), 3)
    assert diagnoses(result) == {"additive_mask"}
    assert result.score == pytest.approx(1.5)


def test_only_zero_and_large_negative_entries_read_as_an_additive_mask():
    blocked = np.array([[0.0, -1e9], [-0.0, 0.0]])
    assert np.array_equal(additive_as_minus_inf(blocked), [[0.0, -np.inf], [0.0, 0.0]])
    # a moderate negative number is a value, not a blocked position: unchanged
    values = np.array([[0.0, -5.0], [0.0, 0.0]])
    assert additive_as_minus_inf(values) is values
    # booleans and integers are not additive masks
    boolean = np.tril(np.ones((2, 2), dtype=bool))
    assert additive_as_minus_inf(boolean) is boolean
    assert additive_as_minus_inf([[0, -10 ** 9]]) == [[0, -10 ** 9]]
