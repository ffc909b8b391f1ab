"""Problem ``causal_mask(n)``: boolean (n, n), True on and below the diagonal.

Categories: ``shapes``, ``values`` (several n), ``edge cases`` (n = 1 and n = 2), ``dtypes``.
The value tests compare the entries as numbers (True = 1), so a numeric 0/1 mask earns them; the
``dtypes`` test then requires a boolean array, because a mask's dtype is part of its contract
(unlike the float outputs of the other problems, whose dtype is not judged): ``~mask`` and
``scores[mask]`` mean something else for a 0/1 float or int array. An additive float mask
(0 / -inf) is named. Mistakes: attention-bugs.md entries 11 (polarity inverted), 12 (diagonal
masked), 13 (off by one the other way), plus the transposed (upper-triangular) mask.
"""
from __future__ import annotations

import numpy as np

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.causal_mask.mistakes import MISTAKES, buggy_causal_mask
from grader.problems.checks import check
from grader.problems.conditions import require
from grader.problems.spec import (Contract, Inputs, Param, Picture, ProblemSpec, draw, example,
                                  fixed, hidden, inputs)

CONTRACT = """\
def causal_mask(n)

n: a positive int, the sequence length.
Return a boolean NumPy array of shape (n, n) where entry [i, j] is True when query position i may
attend to key position j, i.e. j <= i (True on and below the diagonal, False above it). This is the
polarity scaled_dot_product_attention expects (True = may attend). The dtype must be bool: a
numeric 0/1 mask earns the value tests but fails the dtype test. Use NumPy only.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def causal_mask(n):
    """Boolean (n, n): True where query i may attend to key j (j <= i)."""
    raise NotImplementedError
'''

#: This problem's own checks.
CHECKS: dict = {}


@check("property", "boolean", table=CHECKS)
def boolean(got: list, expected: list, case) -> str | None:
    """The mask must be a boolean array (a property of the learner's output: credited only next
    to a passing value test, see grader/problems/credit.py)."""
    dtype = getattr(got[0], "dtype", None)
    if dtype is not None and dtype == np.bool_:
        return None
    name = str(dtype) if dtype is not None else type(got[0]).__name__
    return (f"the mask has dtype {name}, expected bool: the contract asks for a boolean mask "
            "(np.tril(np.ones((n, n), dtype=bool))), since ~mask and scores[mask] do not work as "
            "masks on 0/1 numbers")


def sized(rng, low: int, high: int) -> Inputs:
    """``causal_mask(n)`` with n drawn from [low, high]; n >= 4, so every known mistake changes
    some entry."""
    n = int(rng.integers(low, high + 1))
    require(n >= 4, "n of at least 4")
    return inputs(((n,), {}))


#: Below this, a float mask's entry reads as a blocked position of an additive mask.
LARGE_NEGATIVE = -1e4


def additive_as_minus_inf(value):
    """A float array whose entries are all 0 or large negative (<= :data:`LARGE_NEGATIVE`, -inf
    included), read as the additive mask 0 / -inf whatever constant the learner chose (-1e9,
    -1e10, ``np.finfo(float).min``); any other value unchanged. Diagnosis only: the score reads
    the learner's own values. Linear in the array's size."""
    array = np.asarray(value) if isinstance(value, np.ndarray) else None
    if array is None or array.dtype.kind != "f" or array.size == 0:
        return value
    blocked = array <= LARGE_NEGATIVE
    if not np.all(blocked | (array == 0)):
        return value
    return np.where(blocked, -np.inf, 0.0)


CASES = (
    example("example: causal_mask(3)", "values", ((3,), {})),
    # allow_neg_inf: an additive mask (0 / -inf) earns the shape points as one with -1e9 does
    hidden("shapes: a square (n, n) array", "shapes", draw(sized, low=4, high=12),
           check="shapes", allow_neg_inf=True),
    hidden("shapes: a larger n", "shapes", draw(sized, low=24, high=32), check="shapes",
           allow_neg_inf=True),
    hidden("values: a short sequence", "values", draw(sized, low=4, high=8)),
    hidden("values: a medium sequence", "values", draw(sized, low=9, high=14)),
    hidden("values: a longer sequence", "values", draw(sized, low=24, high=32)),
    hidden("edge cases: n = 1 (the token sees itself)", "edge cases", fixed(((1,), {}))),
    hidden("edge cases: n = 2", "edge cases", fixed(((2,), {}))),
    hidden("dtypes: the mask is boolean", "dtypes", draw(sized, low=4, high=12),
           check="boolean"),
)

SPEC = ProblemSpec(
    id="causal_mask", title="Causal (look-ahead) mask",
    contract=Contract("causal_mask", (Param("n"),), CONTRACT, STARTER),
    categories={"shapes": 1.5, "values": 5.5, "edge cases": 2.0, "dtypes": 1.0},
    cases=CASES, reference=reference.causal_mask, mistakes=MISTAKES, buggy=buggy_causal_mask,
    checks=CHECKS, canonical=additive_as_minus_inf,
    pictures=(Picture("mask", "unit", "query", "key"),),
)
