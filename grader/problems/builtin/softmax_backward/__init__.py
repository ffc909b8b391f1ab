"""Problem ``softmax_backward(y, dy, axis=-1)``: the gradient of a softmax, given its output.

Categories: ``shapes``, ``values`` (default axis, 1-D to 3-D), ``axis`` (a non-default axis),
``properties`` (a constant dy gives 0; slices of dx sum to 0), ``dtypes`` (float32),
``inputs`` (nothing modified). What every draw guarantees is in :mod:`.cases`.
"""
from __future__ import annotations

from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.softmax_backward import cases, mistakes, reference
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def softmax_backward(y, dy, axis=-1)

y: a NumPy array (any number of dimensions, float32 or float64), y = softmax(x) along `axis`
(every slice along `axis` is positive and sums to 1); dy: the upstream gradient dL/dy, the shape
of y; axis: the softmax's axis (negative values count from the end; default the last).
Return dx = dL/dx, the shape of y: the vector-Jacobian product of the softmax,
  dx = y * (dy - sum(dy * y, axis, keepdims=True)),
since dy_i/dx_j = y_i (delta_ij - y_j) within each slice. Do not modify the inputs. Use NumPy
only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def softmax_backward(y, dy, axis=-1):
    """dx for y = softmax(x) along axis and upstream gradient dy; same shape as y."""
    raise NotImplementedError
'''

SPEC = ProblemSpec(
    id="softmax_backward", title="Softmax backward pass",
    contract=Contract("softmax_backward", (Param("y"), Param("dy"), Param("axis", -1)), CONTRACT,
                      STARTER),
    categories={"shapes": 1.0, "values": 3.0, "axis": 2.5, "properties": 1.5, "dtypes": 1.0,
                "inputs": 1.0},
    cases=cases.CASES, reference=reference.softmax_backward, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_softmax_backward, rules=mistakes.RULES, traits=cases.traits,
    checks=cases.CHECKS,
    pictures=(Picture("output", "diverging", "row", "column"),),
)
