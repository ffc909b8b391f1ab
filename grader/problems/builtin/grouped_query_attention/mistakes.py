"""The mistakes ``grouped_query_attention`` is checked for, as toggles of one buggy
implementation (:func:`buggy_gqa`) over :func:`grader.problems.attention_variants.buggy_attention`,
and its cross-case rules. Seen in public GQA code and its issues: key/value heads expanded with
``np.tile`` (or ``repeat(1, n_rep, 1, 1)``, or ``h % G``) instead of ``repeat_kv``'s consecutive
groups, every query head sent to the first key/value head, the scale taken from the model width
H * d_k or from the value size d_v, and the SDPA mistakes that carry over (no scaling, softmax over the query axis, mask
ignored or inverted)."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.attention_variants import buggy_attention
from grader.problems.base import Rule
from grader.problems.rules import crashes_only_with, failed_in_category
from grader.problems.spec import mistake

MASKED = ("masked",)


def _expand(K, H: int, groups: str):
    G = K.shape[-3]
    if groups == "interleaved":  # head h gets group h % G
        return np.concatenate([K] * (H // G), axis=-3)
    if groups == "first":
        return np.repeat(K[..., :1, :, :], H, axis=-3)
    return np.repeat(K, H // G, axis=-3)


def buggy_gqa(Q, K, V, mask=None, *, groups="consecutive", scale="sqrt_d_k", **attention):
    """Grouped-query attention with optional mistakes: ``groups`` ``"interleaved"`` (query head
    h uses group h % G) or ``"first"`` (every head uses group 0); ``scale`` ``"none"`` or
    ``"sqrt_d_model"`` (1 / sqrt(H d_k)) or ``"sqrt_d_v"`` (1 / sqrt(d_v)); ``attention`` the toggles of :func:`buggy_attention`
    (``axis``, ``mask_mode``). Returns the output (..., H, Lq, d_v)."""
    H = np.shape(Q)[-3]
    factor = {"sqrt_d_k": lambda d_k, d_v: 1.0 / np.sqrt(d_k), "none": lambda d_k, d_v: 1.0,
              "sqrt_d_model": lambda d_k, d_v: 1.0 / np.sqrt(H * d_k),
              "sqrt_d_v": lambda d_k, d_v: 1.0 / np.sqrt(d_v)}[scale]
    out, _ = buggy_attention(Q, _expand(np.asarray(K), H, groups),
                             _expand(np.asarray(V), H, groups), mask, scale=factor, **attention)
    return out


MISTAKES = (
    mistake("interleaved_groups", "Query head h uses key/value head h % G (np.tile, or "
            "repeat(1, n_rep, 1, 1)): the groups are consecutive, head h uses key/value head "
            "h // (H // G), as np.repeat(K, H // G, axis=-3) expands them.",
            {"groups": "interleaved"}),
    mistake("first_group_only", "Every query head uses the first key/value head: head h uses "
            "key/value head h // (H // G) (multi-query attention only when G = 1).",
            {"groups": "first"}),
    mistake("no_scaling", "The scores are not scaled: divide Q K^T by sqrt(d_k), the size of "
            "one head's query and key vectors.", {"scale": "none"}, bug="2"),
    mistake("scale_by_sqrt_d_model", "The scores are divided by sqrt(H * d_k) (the model width) "
            "instead of sqrt(d_k), the size of one head's query and key vectors.",
            {"scale": "sqrt_d_model"}, bug="3"),
    # before this row, a sqrt(d_v) scale was named "the model width" on the tests whose draw
    # has d_v = H * d_k, the only ones sqrt(H d_k) explained
    mistake("scale_by_sqrt_d_v", "The scores are divided by sqrt(d_v) (the size of the value "
            "vectors) instead of sqrt(d_k), the size of one head's query and key vectors: "
            "d_k = Q.shape[-1].", {"scale": "sqrt_d_v"}, bug="1"),
    mistake("softmax_query_axis", "The softmax normalised the query axis, so columns of the "
            "weights sum to 1 instead of rows: take the softmax over the last (key) axis.",
            {"axis": -2}, bug="5"),
    mistake("mask_ignored", "The output equals attention without the mask: the mask is never "
            "applied (not used at all, or the masking result is discarded, e.g. np.where "
            "without assigning the result).",
            {"mask_mode": "ignored"}, bug="15", needs=MASKED),
    mistake("mask_inverted", "The mask polarity is inverted: True means the query MAY attend, "
            "so fill the scores where the mask is False, not where it is True.",
            {"mask_mode": "inverted"}, {"mask_mode": "inverted", "fill": -1e9}, bug="11",
            needs=MASKED),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
    Rule(tag="fails_with_batch_axes", explains=crashes_only_with("batched"),
         message="Your code fails whenever the inputs have a batch axis before the heads: index "
                 "the heads as axis -3 (H = Q.shape[-3], G = K.shape[-3]) and transpose with "
                 "np.swapaxes(K, -1, -2)."),
)
