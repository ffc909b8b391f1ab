"""The cases of ``softmax_backward(y, dy, axis=-1)``, each with the constructor that draws it.

Every y is a real softmax output (the softmax of bounded logits along the case's axis: entries
in (0, 1), slices summing to 1, no slice close to one-hot), every dy bounded normal. Axis cases
use an axis whose length differs from the last one's (the wrong axis then changes the slices);
2-D shapes are not square, so a sum without keepdims raises instead of broadcasting. The
property cases: dy constant along the axis gives dx = 0 (the softmax is invariant to a shift),
and every slice of dx sums to 0, judged on the learner's own output.
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions
from grader.problems.builtin.softmax_backward.reference import softmax_backward
from grader.problems.checks import check
from grader.problems.compare import as_array, mismatch
from grader.problems.conditions import require
from grader.problems.reference import softmax
from grader.problems.spec import Inputs, draw, example, hidden, inputs

#: This problem's own checks.
CHECKS: dict = {}


def call(y, dy, axis=None) -> tuple[tuple, dict]:
    """The call ``f(y, dy)`` or ``f(y, dy, axis)``."""
    return ((y, dy) if axis is None else (y, dy, axis)), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``"axis"`` when the call names an axis other than the last."""
    y, axis = args[0], args[2] if len(args) > 2 else None
    return frozenset({"axis"} if axis is not None and axis not in (-1, np.ndim(y) - 1) else ())


def outputs(rng, shape, axis=-1, dy_shape=None, dtype=np.float64):
    """y = softmax of bounded logits (scale 1) along ``axis``, and dy, bounded normal."""
    y = softmax(conditions.bounded(rng, *shape, limit=2.0), axis=axis)
    require(bool(y.max(axis=axis).max() < 0.9), "no slice close to one-hot")
    require(bool(np.allclose(y.sum(axis=axis), 1.0)), "slices of y that sum to 1")
    dy = conditions.bounded(rng, *shape)
    return y.astype(dtype), dy.astype(dtype)


def gradients(rng, shape, axis=None, dtype=np.float64) -> Inputs:
    """y and dy of ``shape`` along ``axis`` (default the last); an ``axis`` given must differ in
    length from the last axis."""
    y, dy = outputs(rng, shape, -1 if axis is None else axis, dtype=dtype)
    if axis is not None:
        require(y.shape[axis] != y.shape[-1], "an axis whose length differs from the last axis's")
    if y.ndim == 2:
        require(y.shape[0] != y.shape[1], "a 2-D input that is not square")
    return inputs(call(y, dy, axis))


def constant_gradient(rng, shape) -> Inputs:
    """dy constant along the last axis (one constant per slice, in [0.5, 2] or [-2, -0.5]): the
    exact dx is 0 everywhere."""
    y, _ = outputs(rng, shape)
    c = conditions.away_from_zero(rng, *shape[:-1], 1, low=0.5, high=2.0)
    dy = np.broadcast_to(c, shape).copy()
    require(bool(np.allclose(softmax_backward(y, dy), 0.0)), "an exact dx of 0")
    return inputs(call(y, dy))


@check("property", "slices_sum_to_zero", table=CHECKS)
def slices_sum_to_zero(got: list, expected: list, case) -> str | None:
    """Every slice of the learner's dx along the axis sums to 0 (the softmax's outputs always sum
    to 1, so no change of x moves their sum): judged on the learner's own output."""
    args = case.calls[0][0]
    axis = args[2] if len(args) > 2 else -1
    dx = as_array(got[0])
    if dx is None or dx.shape != np.shape(args[0]):
        return "the output is not an array of y's shape"
    sums = dx.sum(axis=axis)
    message = mismatch(sums, np.zeros(sums.shape), "sum of each slice of dx along the axis")
    return None if message is None else f"the slices of dx must sum to 0: {message}"


CASES = (
    example("example: y of two rows of 3, the default axis", "values",
            call(np.round(softmax(np.array([[1.0, 2.0, 0.0], [0.5, -1.0, 0.5]])), 6),
                 np.array([[1.0, 0.0, -1.0], [0.5, 2.0, 0.0]]))),
    hidden("shapes: a 3-D input", "shapes", draw(gradients, shape=(2, 3, 5)), check="shapes"),
    hidden("values: default axis on a 2-D input", "values", draw(gradients, shape=(4, 6))),
    hidden("values: default axis on a 3-D input", "values", draw(gradients, shape=(2, 3, 5))),
    hidden("values: a 1-D input", "values", draw(gradients, shape=(7,))),
    hidden("axis: axis=0 on a 2-D input", "axis", draw(gradients, shape=(5, 3), axis=0)),
    hidden("axis: axis=1 on a 3-D input", "axis", draw(gradients, shape=(2, 4, 3), axis=1)),
    hidden("axis: a negative axis (-2) on a 3-D input", "axis",
           draw(gradients, shape=(3, 5, 4), axis=-2)),
    hidden("properties: a gradient constant along the axis gives dx = 0", "properties",
           draw(constant_gradient, shape=(3, 5))),
    hidden("properties: every slice of dx sums to 0", "properties",
           draw(gradients, shape=(4, 5)), check="slices_sum_to_zero"),
    hidden("dtypes: float32 inputs", "dtypes",
           draw(gradients, shape=(4, 5), dtype=np.float32)),
    hidden("inputs: y and dy are not modified in place", "inputs",
           draw(gradients, shape=(3, 4)), check="inputs"),
)
