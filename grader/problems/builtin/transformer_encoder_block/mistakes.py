"""The mistakes ``transformer_encoder_block`` is checked for: the post-LN order where pre-LN is
asked, a residual connection left out (around the attention or the FFN), the residual added to
the normalised input, the two layer norms' parameters swapped, a ReLU after the FFN's second
layer, the heads' scores scaled by sqrt(d_model) (attention-bugs.md entry 3) and the mask not
passed to the attention."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.base import Rule
from grader.problems.reference import merge_heads, split_heads
from grader.problems.rules import failed_in_category
from grader.problems.spec import mistake

MASKED = ("masked",)


def _layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def _attention(u, p, mask, d_scale):
    heads = int(p["num_heads"])
    Q, K, V = (split_heads(u @ p[w], heads) for w in ("W_q", "W_k", "W_v"))
    d = Q.shape[-1] if d_scale == "head" else u.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d)
    if mask is not None:
        scores = np.where(np.expand_dims(np.asarray(mask, dtype=bool), -3), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return merge_heads(e / e.sum(axis=-1, keepdims=True) @ V) @ p["W_o"]


def buggy_encoder_block(x, params, mask=None, *, norm_first=True, attention_residual=True,
                        ffn_residual=True, residual_of="x", swap_norms=False, relu_out=False,
                        d_scale="head", ignore_mask=False):
    """The block with optional mistakes (no toggle: the reference's values): ``norm_first``
    False is post-LN (h = LN1(x + MHA(x)), out = LN2(h + FFN(h))); ``attention_residual`` /
    ``ffn_residual`` False leave a residual out; ``residual_of`` "normalised" adds LN1(x) (and
    LN2(h)) instead of x (and h); ``swap_norms`` uses ln2's parameters first and ln1's second;
    ``relu_out`` applies a ReLU after W_2 + b_2 too; ``d_scale`` "model" scales by
    sqrt(d_model); ``ignore_mask`` attends everywhere."""
    x = np.asarray(x)
    dtype = np.result_type(x.dtype, np.float32)
    x = x.astype(dtype)
    p = {k: (v if k == "num_heads" else np.asarray(v).astype(dtype)) for k, v in params.items()}
    first, second = ("ln2", "ln1") if swap_norms else ("ln1", "ln2")
    mask = None if ignore_mask else mask
    with np.errstate(all="ignore"):
        def norm(u, which):
            return _layer_norm(u, p[f"{which}_gamma"], p[f"{which}_beta"])

        def ffn(u):
            out = np.maximum(u @ p["W_1"] + p["b_1"], 0.0) @ p["W_2"] + p["b_2"]
            return np.maximum(out, 0.0) if relu_out else out

        if not norm_first:
            h = norm(_attention(x, p, mask, d_scale) + (x if attention_residual else 0.0), first)
            return norm(ffn(h) + (h if ffn_residual else 0.0), second)
        u = norm(x, first)
        h = _attention(u, p, mask, d_scale) + ((u if residual_of == "normalised" else x)
                                                if attention_residual else 0.0)
        v = norm(h, second)
        return ffn(v) + ((v if residual_of == "normalised" else h) if ffn_residual else 0.0)


#: The block's formulas in each order, for the messages.
FORMULAS = {"pre": ("h = x + MHA(LN1(x))", "out = h + FFN(LN2(h))"),
            "post": ("h = LN1(x + MHA(x))", "out = LN2(h + FFN(h))")}


def mistakes_for(order: str = "pre") -> tuple:
    """The mistakes of the block in ``order`` ("pre" or "post"): each order is the other's
    mistake; the residual of the normalised input exists in the pre-LN block only."""
    attn, out = FORMULAS[order]
    other = "post" if order == "pre" else "pre"
    where = {"post": "after the residual additions (post-LN, " + FORMULAS["post"][0] + ")",
             "pre": "to the sublayers' inputs, before the residual additions (pre-LN, "
                    + FORMULAS["pre"][0] + ")"}[other]
    wrong_order = mistake(f"{other}_ln", f"The layer norms are applied {where}: this block is "
                          f"{order}-LN, {attn}, {out}.", {"norm_first": other == "pre"})
    found = [
        wrong_order,
        mistake("attention_residual_missing", "The residual connection around the attention is "
                f"missing: {attn}, with x added to the attention's output.",
                {"attention_residual": False}),
        mistake("ffn_residual_missing", "The residual connection around the feed-forward "
                f"network is missing: {out}, with h added to the network's output.",
                {"ffn_residual": False}),
    ]
    if order == "pre":
        found.append(mistake(
            "residual_of_normalised", "The residual adds the normalised input (LN1(x) + "
            "MHA(LN1(x))): the skip path carries x itself, h = x + MHA(LN1(x)) (and "
            "out = h + FFN(LN2(h))). Keep x unchanged when you normalise it.",
            {"residual_of": "normalised"}))
    return tuple(found) + (
        mistake("layer_norms_swapped", "The two layer norms' parameters are swapped: ln1_gamma "
                "and ln1_beta belong to the norm of the attention sublayer, ln2_* to the one of "
                "the feed-forward sublayer.", {"swap_norms": True}),
        mistake("relu_on_output", "A ReLU is applied after the feed-forward network's second "
                "layer too: FFN(u) = relu(u @ W_1 + b_1) @ W_2 + b_2, with no activation at the "
                "end.", {"relu_out": True}),
        mistake("scale_by_sqrt_d_model", "The attention scores are scaled by 1/sqrt(d_model) "
                "instead of 1/sqrt(d_head) (d_head = d_model / num_heads, the size of each "
                "head's queries and keys).", {"d_scale": "model"}, bug="3"),
        mistake("mask_ignored", "The mask is not applied in the attention: pass it to every "
                "head, blocked scores -inf before the softmax.", {"ignore_mask": True},
                needs=MASKED),
    )


MISTAKES = mistakes_for("pre")

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
)
