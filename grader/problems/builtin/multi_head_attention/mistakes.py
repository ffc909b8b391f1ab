"""The mistakes multi-head attention is checked for: attention-bugs.md entries 3, 18-21 (and the
scaling, softmax and masking entries inherited from scaled dot-product attention), recognised by
refitting :func:`buggy_mha` and by the single-head and mask-shape rules."""
from __future__ import annotations

import math

import numpy as np

from grader.problems import inputs, reference
from grader.problems.attention_variants import buggy_attention, working_dtype
from grader.problems.base import Case, Rule
from grader.problems.compare import split_return
from grader.problems.rules import crashes_only_with, failed_in_category, fails_only_with_any
from grader.problems.signals import output_signals, weight_signals
from grader.problems.spec import mistake

MASKED = ("masked",)


def _split(Y, H, mode):
    *batch, L, d = Y.shape
    if mode == "no_transpose":  # reshape straight to (..., H, L, d_head)
        return Y.reshape(*batch, H, L, d // H)
    if mode == "interleaved":  # features split as (d_head, H)
        return np.moveaxis(Y.reshape(*batch, L, d // H, H), -1, -3)
    return reference.split_heads(Y, H)


def _merge(Y, mode):
    *batch, H, L, d_head = Y.shape
    if mode == "no_transpose":
        return Y.reshape(*batch, L, H * d_head)
    if mode == "interleaved":
        return np.moveaxis(Y, -3, -1).reshape(*batch, L, d_head * H)
    return reference.merge_heads(Y)


def buggy_mha(X, W_q, W_k, W_v, W_o, num_heads, mask=None, *, split="contiguous",
              merge="contiguous", scale="d_head", transpose_w=False, skip_w_o=False,
              v_from_w_q=False, mask_head_axis=True, no_projections=False,
              always_causal=False, residual=False, **attention_bugs):
    """Multi-head attention with optional mistakes; returns (output, weights).

    ``split``/``merge``: ``contiguous`` (correct), ``no_transpose`` or ``interleaved``; ``scale``:
    ``d_head`` (correct), ``d_model`` (1/sqrt(d_model)), ``by_d_head`` (1/d_head), ``none``,
    ``isqrt`` (1/math.isqrt(d_head)), ``round_sqrt`` (1/round(sqrt(d_head)));
    ``transpose_w`` uses every W transposed; ``skip_w_o`` leaves W_o out; ``v_from_w_q`` projects V
    with W_q; ``mask_head_axis=False`` passes the mask to the heads without a head axis;
    ``no_projections`` splits X itself into the heads (no W_q, W_k, W_v); ``always_causal`` adds
    a causal mask to whatever mask is given; ``residual`` returns X + the output;
    ``attention_bugs`` go to :func:`buggy_attention` (softmax axis, mask handling...).
    """
    dtype = working_dtype(X, W_q, W_k, W_v, W_o)
    X = np.asarray(X, dtype=dtype)
    Ws = [np.asarray(w, dtype=dtype) for w in (W_q, W_k, W_v, W_o)]
    if transpose_w:
        Ws = [w.T for w in Ws]
    W_q, W_k, W_v, W_o = Ws
    H = int(num_heads)
    d_model = X.shape[-1]
    d_head = d_model // H
    scales = {"d_head": 1 / np.sqrt(d_head), "d_model": 1 / np.sqrt(d_model),
              "by_d_head": 1.0 / d_head, "none": 1.0, "isqrt": 1.0 / math.isqrt(d_head),
              "round_sqrt": 1.0 / round(np.sqrt(d_head))}
    projected = [X if no_projections else X @ w for w in (W_q, W_k, W_q if v_from_w_q else W_v)]
    heads = [_split(Y, H, split) for Y in projected]
    if mask is not None and mask_head_axis:
        mask = np.expand_dims(np.asarray(mask, dtype=bool), -3)
    if always_causal:
        L = X.shape[-2]
        causal = np.tril(np.ones((L, L), dtype=bool))
        mask = causal if mask is None else np.asarray(mask, dtype=bool) & causal
    out, weights = buggy_attention(*heads, mask, scale=lambda d_k, d_v: scales[scale],
                                   **attention_bugs)
    merged = _merge(out, merge)
    out = merged if skip_w_o else merged @ W_o
    return (X + out if residual else out), weights


MISTAKES = (
    mistake("scale_by_sqrt_d_model",
            "The scores are scaled by sqrt(d_model) instead of sqrt(d_head): each head works in "
            "d_head = d_model / num_heads dimensions, so divide by sqrt(d_head).",
            {"scale": "d_model"}, bug="3"),
    mistake("scale_by_d_head",
            "The scores are divided by d_head instead of sqrt(d_head): scale by 1/sqrt(d_head) so "
            "their variance stays near 1.",
            {"scale": "by_d_head"}, bug="1"),
    mistake("no_scaling",
            "The scores are not scaled: divide Q_h K_h^T by sqrt(d_head).",
            {"scale": "none"}, bug="2"),
    mistake("scale_integer_sqrt",
            "The scale uses an integer square root of d_head (math.isqrt(d_head), "
            "int(np.sqrt(d_head)) or round(np.sqrt(d_head))), which is right only when d_head is "
            "a perfect square: divide the scores by np.sqrt(d_head), a float.",
            {"scale": "isqrt"}, {"scale": "round_sqrt"}, bug="1"),
    mistake("split_without_transpose",
            "The heads were split with a reshape but no transpose, which mixes positions across "
            "heads, so the output is no longer permutation-equivariant: reshape to (..., L, H, "
            "d_head), then swap L and H.",
            {"split": "no_transpose"}, bug="18"),
    mistake("merge_without_transpose",
            "The heads were concatenated back without transposing, which mixes positions, so the "
            "output is no longer permutation-equivariant: move H back after L (..., L, H, "
            "d_head), then reshape to (..., L, d_model).",
            {"merge": "no_transpose"}, bug="19"),
    mistake("split_and_merge_without_transpose",
            "The heads were split and merged with reshapes but no transposes, which mixes "
            "positions across heads: reshape to (..., L, H, d_head) and swap L and H (and back "
            "before concatenating).",
            {"split": "no_transpose", "merge": "no_transpose"}, bug="18"),
    mistake("interleaved_heads",
            "The features were split into heads interleaved (reshape to (..., d_head, H)) instead "
            "of contiguous blocks: head h takes features h*d_head to (h+1)*d_head - 1, i.e. "
            "reshape to (..., L, H, d_head).",
            {"split": "interleaved"}, {"split": "interleaved", "merge": "interleaved"}, bug="20"),
    mistake("weights_transposed",
            "The projection matrices are used transposed: the convention here is X @ W with W "
            "shaped (d_in, d_out), not W @ X or X @ W.T.",
            {"transpose_w": True}, bug="21"),
    mistake("output_projection_missing",
            "The output projection W_o is missing: return concat(heads) @ W_o.",
            {"skip_w_o": True}, bug="21"),
    mistake("values_projected_with_w_q",
            "V is projected with W_q: the values are X @ W_v.",
            {"v_from_w_q": True}, bug="21"),
    mistake("mask_without_head_axis",
            "The mask is used without a head axis, so a (B, L, L) mask is matched against the "
            "heads instead of the batch: insert the head axis with mask[..., None, :, :] "
            "(np.expand_dims(mask, -3)).",
            {"mask_head_axis": False}, needs=MASKED),
    mistake("softmax_query_axis",
            "The softmax normalised the query axis, so columns of the weights sum to 1 instead of "
            "rows: take the softmax over the last (key) axis.",
            {"axis": -2}, bug="5"),
    mistake("mask_inverted",
            "The mask polarity is inverted: True means the position MAY be attended to, so fill "
            "the scores where the mask is False.",
            {"mask_mode": "inverted"}, {"mask_mode": "inverted", "fill": -1e9}, bug="11",
            needs=MASKED),
    mistake("mask_fill_zero",
            "Blocked positions still receive weight because their scores are set to 0 (or "
            "multiplied by the mask) rather than -inf.",
            {"fill": 0.0}, bug="9", needs=MASKED),
    mistake("mask_after_softmax",
            "The mask is applied after the softmax without renormalising, so rows sum to less "
            "than 1: mask the scores before the softmax.",
            {"mask_mode": "after"}, bug="8", needs=MASKED),
    mistake("mask_ignored",
            "The output equals attention without the mask: the mask is never applied (not "
            "used at all, or the masking result is discarded).",
            {"mask_mode": "ignored"}, bug="15", needs=MASKED),
    mistake("no_projections",
            "The heads are cut from X itself: queries, keys and values must be the projections "
            "X @ W_q, X @ W_k and X @ W_v before they are split into heads.",
            {"no_projections": True}),
    mistake("always_causal",
            "The attention is always causal: a causal (look-ahead) mask is applied although this "
            "function is given its mask as an argument; apply only the mask it is given (none when "
            "mask is None), so every position may attend to every key.",
            {"always_causal": True}),
    mistake("residual_added",
            "The output adds the input X (a residual connection): multi_head_attention returns "
            "the attention output projected by W_o only; the residual X + ... belongs to the "
            "block around it.", {"residual": True}),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
    Rule(tag="fails_with_2d_mask", explains=crashes_only_with("mask-2d"),
         message="Your code fails with a single (L, L) mask shared by the batch, though masks "
                 "with a batch axis work: a head axis inserted at a fixed position "
                 "(np.expand_dims(mask, 1)) fits only (B, L, L) masks; insert it just before the "
                 "last two axes, np.expand_dims(mask, -3), which fits every mask shape."),
    Rule(tag="fails_with_mask", explains=crashes_only_with("masked", every=True),
         message="Your code fails whenever a mask is given: the mask is boolean, broadcastable to "
                 "(..., L, L) and shared by the heads (insert a head axis before using it)."),
    Rule(tag="fails_with_some_masks", explains=crashes_only_with("masked", every=False),
         message="Your code fails with some mask shapes but not others (the failing tests name "
                 "them): masks may be (L, L), (B, L, L) or (B, 1, L); give the mask a head axis "
                 "with np.expand_dims(mask, -3) and let it broadcast against the scores with "
                 "np.where(mask, scores, -np.inf) instead of indexing with it."),
    Rule(tag="fails_with_batch_axes", explains=crashes_only_with("batched"),
         message="Your code fails when X has a batch axis: write it for (..., L, d_model) arrays "
                 "and transpose only the last axes (np.swapaxes)."),
    Rule(tag="fails_with_several_heads", explains=fails_only_with_any("multihead"),
         message="Your code is right with one head but wrong with several: check that the "
                 "features are split into contiguous blocks of d_head (reshape to "
                 "(..., L, H, d_head), then swap L and H), merged back in the same order, and "
                 "that the scale uses d_head, not d_model."),
)


def describe(case: Case, values: list) -> str | None:
    """Signals of the first call of a failing case: returned weights (..., H, L, L) with the mask
    given a head axis, else the output's NaN share."""
    args = case.calls[0][0]
    mask = args[6] if len(args) > 6 else None
    out, weights = split_return(values[0])
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask, dtype=bool), -3)
    found = weight_signals(weights, mask) if weights is not None else []
    return "; ".join(found or output_signals(out, case.rows_for(0))) or None


