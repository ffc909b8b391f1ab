"""The mistakes scaled dot-product attention is checked for: each known bug with the buggy
implementations that reproduce it (:data:`MISTAKES`, named after the misconception; entry numbers
refer to docs/references.md, "Attention mistakes"), the cross-test patterns (:data:`RULES`), and the
signals a failing case's numbers show (:func:`describe`). grader/problems/MISTAKES.md lists every
message."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from grader.problems import inputs
from grader.problems.attention_variants import buggy_attention, sqrt_d_k
from grader.problems.base import Case, Rule
from grader.problems.compare import as_array, split_return
from grader.problems.rules import crashes_only_with, failed_in_category
from grader.problems.signals import output_signals, weight_signals
from grader.problems.spec import mistake

MASKED = ("masked",)


def _scale(spec: Any, Q, mask) -> Callable[[int, int], float]:
    """The scale of the scores as :func:`buggy_attention` takes it: a function of (d_k, d_v), or
    ``"query_axis:<n>"`` (1/sqrt of ``Q.shape[n]``: Lq, or the heads, taken for d_k),
    ``"unscaled_with_mask"`` (1/sqrt(d_k) without a mask, none with one)."""
    if callable(spec):
        return spec
    if spec == "unscaled_with_mask":
        return sqrt_d_k if mask is None else (lambda d_k, d_v: 1.0)
    size = np.shape(Q)[int(spec.split(":")[1])]
    return lambda d_k, d_v: 1.0 / np.sqrt(size)


def buggy_sdpa(Q, K, V, mask=None, *, scale: Any = sqrt_d_k, returns: str = "output+weights",
               **attention: Any):
    """Scaled dot-product attention with the mistakes ``attention`` of :func:`buggy_attention`
    and two of its own: ``scale`` (see :func:`_scale`) and ``returns``: ``"output+weights"``
    (correct: output, or the pair), ``"weights+output"`` or ``"weights"``."""
    out, weights = buggy_attention(Q, K, V, mask, scale=_scale(scale, Q, mask), **attention)
    return {"output+weights": (out, weights), "weights+output": (weights, out),
            "weights": weights}[returns]


_INTEGER_SQRT = ("The scale uses an integer square root of d_k (math.isqrt(d_k), int(np.sqrt(d_k)) "
                 "or round(np.sqrt(d_k))), which is right only when d_k is a perfect square: "
                 "divide the scores by np.sqrt(d_k), a float.")
_FIXED_AXIS = ("The softmax uses a fixed positive axis (axis=1 or axis=2), which is the key axis "
               "only for inputs with exactly that many leading axes: with batch or head axes it "
               "normalises another axis. Use axis=-1, the last (key) axis, whatever the number of "
               "leading axes.")
_INVERTED = ("The mask polarity is inverted: True means the query MAY attend, so fill the scores "
             "where the mask is False, not where it is True.")

MISTAKES = (
    mistake("scale_by_d_k", "The scores are divided by d_k instead of sqrt(d_k): scale Q K^T by "
            "1/sqrt(d_k), which keeps the scores' variance near 1 (dividing by d_k makes the "
            "weights too flat).", {"scale": lambda d_k, d_v: 1.0 / d_k}, bug="1"),
    # Before no_scaling: on the one case both explain, the narrower mistake is named.
    mistake("no_scaling_with_mask", "The scores are scaled by 1/sqrt(d_k) only when no mask is "
            "given: with a mask they are left unscaled. Scale Q K^T by 1/sqrt(d_k) in every case, "
            "then apply the mask.", {"scale": "unscaled_with_mask"}, bug="2", needs=MASKED),
    mistake("no_scaling", "The scores are not scaled at all: divide Q K^T by sqrt(d_k), otherwise "
            "large d_k makes the softmax nearly one-hot and its gradients vanish.",
            {"scale": lambda d_k, d_v: 1.0}, bug="2"),
    mistake("scale_multiplied", "The scores are multiplied by sqrt(d_k) instead of divided by it: "
            "use Q K^T / sqrt(d_k).", {"scale": lambda d_k, d_v: float(np.sqrt(d_k))}, bug="4"),
    mistake("scale_by_sqrt_d_v", "The scores are scaled with d_v (the value size) instead of d_k: "
            "the scale is 1/sqrt(d_k), d_k being the size of the query and key vectors.",
            {"scale": lambda d_k, d_v: 1.0 / np.sqrt(d_v)}, bug="1"),
    mistake("scale_integer_sqrt", _INTEGER_SQRT,
            {"scale": lambda d_k, d_v: 1.0 / np.floor(np.sqrt(d_k))},
            {"scale": lambda d_k, d_v: 1.0 / np.round(np.sqrt(d_k))}, bug="1"),
    mistake("scale_by_query_length", "The scores are scaled with the wrong axis of Q: with batch "
            "axes, Q.shape[1] or Q.shape[-2] is the query length Lq (or the number of heads), not "
            "d_k. d_k is the size of the query and key vectors, Q.shape[-1]; scale by "
            "1/np.sqrt(Q.shape[-1]).", {"scale": "query_axis:-2"}, {"scale": "query_axis:1"},
            bug="1"),
    mistake("softmax_query_axis", "The softmax normalised the query axis, so columns of the "
            "weights sum to 1 instead of rows: take the softmax over the last (key) axis.",
            {"axis": -2}, bug="5"),
    mistake("softmax_batch_axis", "The softmax is taken over axis 0 (the batch axis, or the query "
            "axis when there is no batch axis) instead of over the keys: use axis=-1 so each "
            "query's weights over the keys sum to 1.", {"axis": 0}, bug="5"),
    mistake("softmax_all_entries", "The softmax is taken over all entries at once (one max and one "
            "sum over the whole array), so the weights of all queries together sum to 1: use "
            "axis=-1 and keepdims=True so each query's row sums to 1.", {"axis": None}, bug="5"),
    mistake("softmax_fixed_axis", _FIXED_AXIS, {"axis": 1}, {"axis": 2}, bug="5"),
    mistake("softmax_no_keepdims", "The softmax divides by a sum taken without keepdims=True, so it "
            "broadcasts against the wrong axis: use e.sum(axis=-1, keepdims=True).",
            {"keepdims": False}, bug="6"),
    mistake("softmax_not_stable", "The softmax overflows for large scores (inf/NaN): subtract the "
            "row maximum before np.exp; softmax is unchanged by that shift.", {"stable": False},
            bug="7"),
    mistake("softmax_global_max", "The softmax subtracts one global maximum instead of each row's "
            "maximum, so rows far below it underflow to 0/0: subtract "
            "np.max(scores, axis=-1, keepdims=True).", {"global_max": True}, bug="7"),
    mistake("mask_after_softmax", "The mask is applied after the softmax without renormalising, so "
            "rows sum to less than 1: mask the scores (set blocked ones to -inf) before the "
            "softmax, or renormalise the rows after masking.", {"mask_mode": "after"}, bug="8",
            needs=MASKED),
    mistake("mask_fill_zero", "Blocked positions still receive weight because their scores are set "
            "to 0 (or multiplied by the mask) rather than to -inf: a score of 0 is not small, use "
            "np.where(mask, scores, -np.inf).", {"fill": 0.0}, bug="9", needs=MASKED),
    mistake("mask_added_as_float", "The 0/1 mask was added to the scores as a number, so blocked "
            "positions still get large weight: use the boolean mask to set blocked scores to "
            "-inf.", {"mask_mode": "add"}, bug="10", needs=MASKED),
    mistake("mask_inverted", _INVERTED, {"mask_mode": "inverted"},
            {"mask_mode": "inverted", "fill": -1e9}, bug="11", needs=MASKED),
    mistake("mask_times_neg_inf", "The additive mask was built as (1 - mask) * -inf, and 0 * -inf "
            "is NaN, so the whole output is NaN: use np.where(mask, scores, -np.inf).",
            {"mask_mode": "times_neg_inf"}, bug="14", needs=MASKED),
    mistake("mask_ignored", "The output equals attention without the mask: the mask is never "
            "applied (not used at all, or the masking result is discarded, e.g. np.where or "
            "masked_fill without assigning the result).",
            {"mask_mode": "ignored"}, bug="15", needs=MASKED),
    mistake("mask_on_query_axis", "The mask is applied along the query axis (transposed): "
            "mask[..., i, j] says whether query i may attend to key j, so it must block scores "
            "column-wise for padding.", {"mask_mode": "transposed"}, bug="23", needs=MASKED),
    mistake("blends_keys", "The output blends the keys, not the values: multiply the weights by "
            "V.", {"blend_keys": True}),
    mistake("scores_transposed", "The scores are computed as K Q^T (transposed) instead of Q K^T: "
            "scores[..., i, j] must be q_i . k_j, shape (..., Lq, Lk), i.e. "
            "Q @ np.swapaxes(K, -1, -2).", {"scores_transposed": True}),
    mistake("returns_weights_first", "You return (weights, output): return (output, weights) in "
            "that order, the output (..., Lq, d_v) first and the weights (..., Lq, Lk) second.",
            {"returns": "weights+output"}, strict_return=True),
    mistake("returns_weights_only", "You return the attention weights (..., Lq, Lk) instead of the "
            "output: return weights @ V, shape (..., Lq, d_v), or the tuple (output, weights).",
            {"returns": "weights"}, strict_return=True),
    mistake("k_transpose_all_axes", "K.T reverses every axis of a batched array, mixing the batch "
            "into the scores: transpose only the last two axes with np.swapaxes(K, -1, -2).",
            {"k_dot_t": True}),
    mistake("key_not_transposed", "The scores are Q @ K, with K not transposed: the scores are "
            "Q K^T, each query dotted with each key, so transpose the last two axes of K "
            "(np.swapaxes(K, -1, -2), or K.T without batch axes); Q @ K runs only when Lk "
            "happens to equal d_k, and then its values are wrong.", {"key_not_transposed": True}),
    mistake("output_from_scores", "The output multiplies the raw scores by V, not the attention "
            "weights: the output is softmax(scores) @ V.", {"output_from_scores": True}),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
    Rule(tag="assumes_lq_equals_lk", bug="22", explains=crashes_only_with("cross"),
         message="Your code fails exactly when the query and key lengths differ (Lq != Lk, as in "
                 "cross-attention): take Lk from K.shape[-2], not from Q."),
    Rule(tag="fails_with_mask", explains=crashes_only_with("masked", every=True),
         message="Your code fails whenever a mask is given: the mask is boolean, broadcastable to "
                 "(..., Lq, Lk); use np.where(mask, scores, -np.inf)."),
    Rule(tag="fails_with_some_masks", explains=crashes_only_with("masked", every=False),
         message="Your code fails with some mask shapes but not others (the failing tests name "
                 "them): masks may be (Lq, Lk), (B, Lq, Lk), (B, 1, Lq, Lk) or (B, 1, 1, Lk); let "
                 "the mask broadcast against the scores with np.where(mask, scores, -np.inf) "
                 "instead of indexing with it."),
    Rule(tag="fails_with_batch_axes", explains=crashes_only_with("batched"),
         message="Your code fails whenever the inputs have leading batch axes: write it for "
                 "(..., L, d) arrays (matmul broadcasts; transpose with np.swapaxes(K, -1, -2))."),
)


def describe(case: Case, values: list) -> str | None:
    """Signals of the first call of a failing case: the returned weights (or the output, when
    V is the identity and the output therefore is the weights), else the output's NaN share."""
    args = case.calls[0][0]
    Q, K, V = args[:3]
    mask = args[3] if len(args) > 3 else None
    out, weights = split_return(values[0])
    is_identity = (V.shape[-1] == V.shape[-2]
                   and np.array_equal(np.asarray(V), np.broadcast_to(np.eye(V.shape[-1]), V.shape)))
    if weights is None and is_identity:
        weights = out
    transposed = transposed_weights(out, weights, V)
    if transposed:
        return transposed  # row and column sums of a transposed matrix would mislead
    found = weight_signals(weights, mask) if weights is not None else []
    return "; ".join(found or output_signals(out, case.rows_for(0))) or None


def transposed_weights(out: Any, weights: Any, V: Any) -> str | None:
    """The signal of returned weights that are the transpose of those the output was computed
    with: the learner's own output equals ``swapaxes(weights, -1, -2) @ V`` and not
    ``weights @ V`` (read off the learner's two returns alone, so it holds whatever the scores
    were). None otherwise. Shapes: weights (..., Lk, Lq), V (..., Lk, d_v), out (..., Lq, d_v)."""
    out, weights, V = as_array(out), as_array(weights), as_array(V)
    if out is None or weights is None or V is None or weights.ndim < 2 or out.ndim < 2:
        return None
    swapped = np.swapaxes(weights, -1, -2)
    if swapped.shape[-1] != V.shape[-2] or swapped.shape[:-1] != out.shape[:-1]:
        return None  # (and the product costs no more than the output's size times Lk)
    with np.errstate(all="ignore"):
        try:
            product = swapped @ V
        except ValueError:
            return None
        if (product.shape != out.shape or not np.isfinite(product).any()
                or not np.allclose(product, out, rtol=1e-4, atol=1e-5,
                                   equal_nan=True)):
            return None
        if weights.shape[-1] == V.shape[-2]:
            try:
                if np.allclose(weights @ V, out, rtol=1e-4, atol=1e-5, equal_nan=True):
                    return None  # symmetric weights: nothing tells the two apart
            except ValueError:
                pass
    lq, lk = swapped.shape[-2], swapped.shape[-1]
    return (f"your output is the transpose of the weights you return times V: the returned "
            f"weights are transposed, shape (..., {lk}, {lq}) with one row per key, where "
            f"(..., {lq}, {lk}) is expected, one row per query (return the weights your output "
            "uses, without swapping their last two axes)")
