"""Problem ``softmax(x, axis=-1)``: a numerically stable softmax.

Categories: ``shapes`` (shape only), ``axis`` (a non-default axis on 2-D and 3-D inputs),
``values`` (default axis), ``stability`` (rows at fixed, far-apart offsets in the hundreds and
thousands: a naive exp overflows and no single shift, such as one global maximum, brings every
row into exp's range, on every draw; also a 1-D input and axis=0 on a 3-D input),
``properties`` (shift invariance judged on the learner's own outputs, equal entries give a uniform
row, one dominant entry gives one-hot), ``dtypes`` (float32), ``inputs`` (x unchanged). Every
category has tests on 1-D input and on inputs with leading axes, each side worth half its points
(``balance``), so code right on one rank only scores 5 of 10 whichever rank it handles.
"""
from __future__ import annotations

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.softmax import cases, mistakes
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def softmax(x, axis=-1)

x: a NumPy array (any number of dimensions, float32 or float64); axis: the axis to normalise
(negative values count from the end; default the last axis).
Return exp(x) / sum(exp(x)) along `axis`, same shape as x: every slice along `axis` is
non-negative and sums to 1. The result must be finite for entries in the thousands (positive or
negative). Do not modify x. Use NumPy only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def softmax(x, axis=-1):
    """Softmax of x along axis; same shape as x, slices along axis sum to 1."""
    raise NotImplementedError
'''

SPEC = ProblemSpec(
    id="softmax", title="Numerically stable softmax",
    contract=Contract("softmax", (Param("x"), Param("axis", -1)), CONTRACT, STARTER),
    categories={"shapes": 1.0, "axis": 2.5, "values": 2.0, "stability": 2.0, "properties": 1.0,
                "dtypes": 1.0, "inputs": 0.5},
    cases=cases.CASES, reference=reference.softmax, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_softmax,
    rules=mistakes.RULES + cases.RULES, balance=cases.BALANCE, describe=mistakes.describe,
    traits=cases.traits,
    pictures=(Picture("output", "unit", "row", "column"),),
)
