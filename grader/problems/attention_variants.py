"""Buggy scaled dot-product attention, parameterised by the mistakes of attention-bugs.md.

:func:`buggy_attention` with default arguments is the correct computation; each keyword switches one
mistake on. The problem modules build their :class:`grader.problems.base.Variant` tables from it,
so a learner's output can be refitted to "the reference with scale 1/d_k", "softmax over the query
axis", "mask applied after softmax", and so on. Computation stays in the inputs' floating dtype (at
least float32) so that overflow behaves as it does in the learner's code.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

Scale = Callable[[int, int], float]


def sqrt_d_k(d_k: int, d_v: int) -> float:
    return 1.0 / np.sqrt(d_k)


def working_dtype(*arrays) -> np.dtype:
    """float64 unless every floating input is float32 (then float32), like NumPy promotion."""
    return np.result_type(np.float32, *[np.asarray(a).dtype for a in arrays])


#: How a mask is applied to the scores, by ``mask_mode`` (``fill`` is correct with -inf; ``after``
#: masks the weights after the softmax instead; ``ignored`` discards the masking).
MASK_MODES: dict[str, Callable[[np.ndarray, np.ndarray, Any], np.ndarray]] = {
    "fill": lambda scores, m, fill: np.where(m, scores, fill),
    "add": lambda scores, m, fill: scores + m.astype(scores.dtype),
    "inverted": lambda scores, m, fill: np.where(m, fill, scores),
    "times_neg_inf": lambda scores, m, fill: scores + (1 - m.astype(scores.dtype))
    * scores.dtype.type(-np.inf),
    "transposed": lambda scores, m, fill: np.where(np.swapaxes(m, -1, -2), scores, fill),
    "after": lambda scores, m, fill: scores,
    "ignored": lambda scores, m, fill: scores,
}


def buggy_attention(Q, K, V, mask=None, *, scale: Scale = sqrt_d_k, axis: int = -1,
                    stable: bool = True, keepdims: bool = True, mask_mode: str = "fill",
                    fill: float = -np.inf, blend_keys: bool = False, k_dot_t: bool = False,
                    global_max: bool = False, scores_transposed: bool = False,
                    key_not_transposed: bool = False, output_from_scores: bool = False):
    """Attention with optional mistakes; returns (output, weights).

    ``scale(d_k, d_v)`` multiplies the scores; ``axis`` is the softmax axis; ``stable=False`` skips
    the max subtraction; ``keepdims=False`` divides by a sum without keepdims; ``mask_mode`` is one
    of ``fill`` (correct with -inf), ``after`` (multiply the weights by the mask, no renormalising),
    ``add`` (add the 0/1 mask as a float), ``inverted`` (fill where the mask is True),
    ``times_neg_inf`` (add ``(1 - mask) * -inf``), ``transposed`` (mask on the query axis),
    ``ignored`` (masking result discarded); ``fill`` is the fill value; ``blend_keys`` multiplies
    the weights with K instead of V; ``k_dot_t`` uses ``K.T`` (reverses every axis);
    ``scores_transposed`` computes K Q^T (..., Lk, Lq) instead of Q K^T; ``key_not_transposed``
    computes Q @ K (no transpose at all); ``output_from_scores`` multiplies the scaled scores,
    not the weights, by V; ``axis=None`` takes the softmax over every entry at once.
    Raises whatever NumPy raises for the mistake (e.g. a broadcasting ValueError).
    """
    dtype = working_dtype(Q, K, V)
    Q, K, V = (np.asarray(a, dtype=dtype) for a in (Q, K, V))
    with np.errstate(all="ignore"):
        key_t = K if key_not_transposed else K.T if k_dot_t else np.swapaxes(K, -1, -2)
        product = K @ np.swapaxes(Q, -1, -2) if scores_transposed else Q @ key_t
        scores = product * dtype.type(scale(Q.shape[-1], V.shape[-1]))
        m = None if mask is None else np.asarray(mask, dtype=bool)
        if m is not None:
            if mask_mode not in MASK_MODES:
                raise ValueError(f"unknown mask_mode {mask_mode!r}")
            scores = MASK_MODES[mask_mode](scores, m, dtype.type(fill))
        if stable:
            peak = scores.max() if global_max else np.max(scores, axis=axis, keepdims=True)
            e = np.exp(scores - peak)
        else:
            e = np.exp(scores)
        weights = e / np.sum(e, axis=axis, keepdims=keepdims)
        if m is not None and mask_mode == "after":
            weights = weights * m
        if output_from_scores:
            return (product * dtype.type(scale(Q.shape[-1], V.shape[-1]))) @ V, weights
        return weights @ (K if blend_keys else V), weights
