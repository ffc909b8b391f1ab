"""The mistakes ``softmax_backward`` is checked for: the Jacobian taken as its diagonal
(y (1 - y) dy, the elementwise sigmoid rule), the factor y or the y inside the sum left out,
the sign of the correction flipped, the sum without keepdims, over the last axis whatever
``axis`` says or over the whole array, and the softmax applied again to y as if it were the
logits."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.base import Rule
from grader.problems.rules import failed_in_category
from grader.problems.spec import mistake


def buggy_softmax_backward(y, dy, axis=-1, *, diagonal=False, y_factor=True, inner="dy*y",
                           sign=1, keepdims=True, ignore_axis=False, whole_array=False,
                           reapply=False):
    """The backward pass with optional mistakes (no toggle: the reference's values):
    ``diagonal`` returns y (1 - y) dy; ``y_factor`` False leaves out the outer factor y;
    ``inner`` "dy" sums dy instead of dy * y; ``sign`` -1 returns y (sum - dy); ``keepdims``
    False sums without keepdims; ``ignore_axis`` uses the last axis; ``whole_array`` sums every
    entry; ``reapply`` takes softmax(y) for y."""
    y = np.asarray(y)
    y = y.astype(np.result_type(y.dtype, np.float32))
    dy = np.asarray(dy).astype(y.dtype)
    axis = -1 if ignore_axis else axis
    with np.errstate(all="ignore"):
        if reapply:
            e = np.exp(y - y.max(axis=axis, keepdims=True))
            y = e / e.sum(axis=axis, keepdims=True)
        if diagonal:
            return y * (1 - y) * dy
        product = dy * y if inner == "dy*y" else dy
        total = product.sum() if whole_array else np.sum(product, axis=axis, keepdims=keepdims)
        inside = dy - total if sign > 0 else total - dy
        return y * inside if y_factor else inside


MISTAKES = (
    mistake("diagonal_jacobian", "Only the diagonal of the softmax Jacobian is used "
            "(dx = y (1 - y) dy, as for an elementwise sigmoid): every output depends on every "
            "input of its slice, dy_i/dx_j = y_i (delta_ij - y_j), so "
            "dx = y * (dy - sum(dy * y, axis, keepdims=True)).", {"diagonal": True}),
    mistake("missing_y_factor", "The outer factor y is missing: dx = y * (dy - sum(dy * y)), not "
            "dy - sum(dy * y).", {"y_factor": False}),
    mistake("sum_of_dy_only", "The sum inside is of dy alone: it must be sum(dy * y, axis, "
            "keepdims=True), the upstream gradient weighted by the softmax output.",
            {"inner": "dy"}),
    mistake("sign_flipped", "The correction has the wrong sign: dx = y * (dy - s) with "
            "s = sum(dy * y, axis, keepdims=True), not y * (s - dy).", {"sign": -1}),
    mistake("no_keepdims", "The sum is taken without keepdims=True, so it broadcasts against the "
            "wrong axis: use np.sum(dy * y, axis=axis, keepdims=True).", {"keepdims": False}),
    mistake("ignores_axis", "The axis argument is ignored (the sum is always over the last "
            "axis): sum over `axis`, the axis the softmax was taken along.",
            {"ignore_axis": True}),
    mistake("whole_array_sum", "The sum runs over the whole array instead of along the axis: "
            "each slice's correction is its own sum(dy * y) along `axis`.",
            {"whole_array": True}),
    mistake("softmax_reapplied", "The softmax is applied to y again, as if y were the logits: y "
            "is already the softmax output, use it as it is.", {"reapply": True}),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
)
