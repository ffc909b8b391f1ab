"""The trusted backward pass of the softmax: the vector-Jacobian product with
J = diag(y) - y y^T (per slice along the axis)."""
from __future__ import annotations

import numpy as np


def softmax_backward(y, dy, axis=-1):
    """dx = y * (dy - sum(dy * y, axis, keepdims=True)) for y = softmax(x) along ``axis`` and the
    upstream gradient ``dy`` (same shape as y); returns dx, the shape of y. Derivation: the
    softmax Jacobian is dy_i/dx_j = y_i (delta_ij - y_j), which is symmetric, so
    dx_j = sum_i dy_i y_i (delta_ij - y_j)."""
    y = np.asarray(y, dtype=np.float64)
    dy = np.asarray(dy, dtype=np.float64)
    return y * (dy - np.sum(dy * y, axis=axis, keepdims=True))
