"""The mistakes ``linear_attention`` is checked for, as toggles of one buggy implementation
(:func:`buggy_linear_attention`), and its cross-case rule. Seen in public linear-attention code
and course threads: the feature map elu(x) without the + 1 (or none at all), the normaliser
phi(q_i) . z left out, softmax attention written instead, the feature map applied to the scores
Q K^T (the quadratic form), and in the causal form: the flag ignored, an exclusive prefix sum
(j < i, the token left out of its own sums) and a causal numerator over a normaliser summed over
every position."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs, reference
from grader.problems.attention_variants import working_dtype
from grader.problems.base import Rule
from grader.problems.rules import failed_in_category
from grader.problems.spec import mistake

CAUSAL = ("causal",)


def _phi(x, feature: str):
    if feature == "elu":
        return np.where(x > 0, x, np.exp(np.minimum(x, 0)) - 1)
    if feature == "identity":
        return x
    return np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))


def buggy_linear_attention(Q, K, V, causal=False, *, feature="elu+1", normalise=True,
                           ignore_causal=False, exclusive=False, global_normaliser=False,
                           softmax=False, phi_on_scores=False):
    """Linear attention with optional mistakes, in the inputs' floating dtype: ``feature``
    ``"elu"`` or ``"identity"``; ``normalise=False`` returns phi(q) S; ``ignore_causal``;
    ``exclusive`` prefix sums over j < i; ``global_normaliser`` divides the causal numerator by
    phi(q_i) . sum over every j of phi(k_j); ``softmax`` computes softmax attention (scaled by
    1 / sqrt(d_k), causal when asked); ``phi_on_scores`` normalises phi(Q K^T) over the keys."""
    dtype = working_dtype(Q, K, V)
    Q, K, V = (np.asarray(a, dtype) for a in (Q, K, V))
    causal = causal and not ignore_causal
    L = Q.shape[-2]
    with np.errstate(all="ignore"):
        if softmax or phi_on_scores:
            scores = Q @ np.swapaxes(K, -1, -2)
            if softmax:
                mask = reference.causal_mask(L) if causal else None
                return reference.attention(Q, K, V, mask)[0].astype(dtype)
            A = _phi(scores, feature) * (reference.causal_mask(L) if causal else 1)
            return (A @ V) / A.sum(-1, keepdims=True)
        q, k = _phi(Q, feature), _phi(K, feature)
        if causal:
            S = np.cumsum(k[..., :, :, None] * V[..., :, None, :], axis=-3)
            z = np.cumsum(k, axis=-2)
            if exclusive:
                S, z = S - k[..., :, :, None] * V[..., :, None, :], z - k
            if global_normaliser:
                z = np.broadcast_to(k.sum(-2, keepdims=True), z.shape)
            num = np.einsum("...ld,...ldv->...lv", q, S)
            den = (q * z).sum(-1, keepdims=True)
        else:
            num = q @ (np.swapaxes(k, -1, -2) @ V)
            den = q @ k.sum(-2)[..., None]
        return num / den if normalise else num


MISTAKES = (
    mistake("elu_without_plus_one", "The feature map is elu(x), which is negative for x < 0, so "
            "the normaliser can reach 0: use phi(x) = elu(x) + 1 (x + 1 for x > 0, exp(x) "
            "otherwise), which is positive everywhere.", {"feature": "elu"}),
    mistake("no_feature_map", "No feature map is applied (Q and K are used as they are): apply "
            "phi(x) = elu(x) + 1 to Q and K before forming S and z.", {"feature": "identity"}),
    mistake("no_normaliser", "The output is phi(q_i) . S without the normaliser: divide by "
            "phi(q_i) . z with z = sum_j phi(k_j), so each output is a weighted mean of the "
            "values.", {"normalise": False}),
    mistake("softmax_instead", "This is softmax attention: linear attention replaces "
            "exp(q . k / sqrt(d_k)) by the kernel phi(q) . phi(k), with phi(x) = elu(x) + 1, and "
            "sums phi(k_j) v_j^T once over the keys.", {"softmax": True}),
    mistake("feature_map_on_scores", "The feature map is applied to the scores Q K^T: apply "
            "phi to Q and to K separately, then out_i = phi(q_i) . S / (phi(q_i) . z).",
            {"phi_on_scores": True}),
    mistake("causal_ignored", "causal=True is ignored: with causal, S and z of query i sum over "
            "the keys j <= i only (prefix sums, np.cumsum over the sequence axis).",
            {"ignore_causal": True}, needs=CAUSAL),
    mistake("causal_excludes_current", "The causal prefix sums leave out the current position "
            "(j < i): query i sums over j <= i, itself included (np.cumsum is inclusive), so "
            "row 0 is v_0.", {"exclusive": True}, needs=CAUSAL),
    mistake("causal_global_normaliser", "The causal numerator is divided by a normaliser summed "
            "over every position: z, too, is a prefix sum over j <= i.",
            {"global_normaliser": True}, needs=CAUSAL),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
)
