"""The mistakes ``attention_backward`` is checked for: the softmax Jacobian taken as its diagonal,
its row-sum term left out or summed over the query axis, 1/sqrt(d_k) missing from dQ or from dK
(or 1/d_k throughout), dV computed from the unmasked weights, the mask left out of the
recomputed weights, and a recomputed softmax without the max subtraction."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.base import Rule
from grader.problems.rules import failed_in_category
from grader.problems.spec import mistake

MASKED = ("masked",)


def _softmax(x, stable=True):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True) if stable else x)
    return e / e.sum(axis=-1, keepdims=True)


def buggy_attention_backward(Q, K, V, dO, mask=None, *, scale="sqrt", scale_dq=True,
                             scale_dk=True, jacobian="full", dv_masked=True, ignore_mask=False,
                             stable=True):
    """The backward pass with optional mistakes (no toggle: the reference's values): ``scale``
    "d_k" uses 1/d_k; ``scale_dq`` / ``scale_dk`` False leave the scale out of dQ / dK;
    ``jacobian`` "diagonal" (dS = P (1 - P) dP), "no_row_sum" (dS = P dP), "query_axis" (the
    row sum over the queries); ``dv_masked`` False computes dV from the unmasked weights;
    ``ignore_mask`` leaves the mask out everywhere; ``stable`` False exponentiates unshifted."""
    dtype = np.result_type(np.asarray(Q).dtype, np.float32)
    Q, K, V, dO = (np.asarray(a).astype(dtype) for a in (Q, K, V, dO))
    d_k = Q.shape[-1]
    c = 1.0 / np.sqrt(d_k) if scale == "sqrt" else 1.0 / d_k
    with np.errstate(all="ignore"):
        scores = Q @ np.swapaxes(K, -1, -2) * c
        masked = scores
        if mask is not None and not ignore_mask:
            masked = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
        P = _softmax(masked, stable)
        weights_v = P if dv_masked else _softmax(scores, stable)
        dV = np.swapaxes(weights_v, -1, -2) @ dO
        dP = dO @ np.swapaxes(V, -1, -2)
        if jacobian == "diagonal":
            dS = P * (1 - P) * dP
        elif jacobian == "no_row_sum":
            dS = P * dP
        else:
            dS = P * (dP - np.sum(dP * P, axis=-2 if jacobian == "query_axis" else -1,
                                  keepdims=True))
        dQ = dS @ K * (c if scale_dq else 1.0)
        dK = np.swapaxes(dS, -1, -2) @ Q * (c if scale_dk else 1.0)
        return dQ, dK, dV


MISTAKES = (
    mistake("softmax_jacobian_diagonal", "The softmax's Jacobian is taken as its diagonal "
            "(dS = P (1 - P) dP): each weight depends on every score of its row, so "
            "dS = P * (dP - sum(dP * P, axis=-1, keepdims=True)).", {"jacobian": "diagonal"}),
    mistake("row_sum_missing", "dS = P * dP leaves out the softmax's row-sum term: "
            "dS = P * (dP - sum(dP * P, axis=-1, keepdims=True)).", {"jacobian": "no_row_sum"}),
    mistake("row_sum_query_axis", "The row sum of dP * P is taken over the query axis (axis -2): "
            "each query's weights form one softmax over the keys, so sum over the last axis.",
            {"jacobian": "query_axis"}),
    mistake("dq_missing_scale", "dQ is missing the factor 1/sqrt(d_k): the scores are "
            "Q K^T / sqrt(d_k), so dQ = dS K / sqrt(d_k).", {"scale_dq": False}),
    mistake("dk_missing_scale", "dK is missing the factor 1/sqrt(d_k): the scores are "
            "Q K^T / sqrt(d_k), so dK = dS^T Q / sqrt(d_k).", {"scale_dk": False}),
    mistake("scale_by_d_k", "The scores (and their gradients) are scaled by 1/d_k instead of "
            "1/sqrt(d_k).", {"scale": "d_k"}),
    mistake("dv_unmasked_weights", "dV is computed from the unmasked weights: dV = P^T dO with P "
            "the same masked softmax as the forward pass (blocked keys get no weight, so no "
            "gradient from those queries).", {"dv_masked": False}, needs=MASKED),
    mistake("mask_ignored", "The mask is not applied when the weights are recomputed: blocked "
            "scores must be -inf before the softmax, in the backward pass as in the forward "
            "one.", {"ignore_mask": True}, needs=MASKED),
    mistake("softmax_not_stable", "The recomputed softmax overflows for large scores (inf/NaN): "
            "subtract the row maximum before np.exp.", {"stable": False}),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
)
