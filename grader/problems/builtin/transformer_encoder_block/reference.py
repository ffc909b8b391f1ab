"""The trusted pre-LN Transformer encoder block (Xiong et al. 2020, "On Layer Normalization in
the Transformer Architecture", fig. 1 (b); the post-LN order is Vaswani et al. 2017)."""
from __future__ import annotations

import numpy as np

from grader.problems import reference
from grader.problems.builtin.layer_norm.reference import layer_norm

#: The keys of ``params``.
KEYS = ("W_q", "W_k", "W_v", "W_o", "num_heads", "ln1_gamma", "ln1_beta", "ln2_gamma",
        "ln2_beta", "W_1", "b_1", "W_2", "b_2")


def feed_forward(u, p) -> np.ndarray:
    """relu(u @ W_1 + b_1) @ W_2 + b_2, u (..., L, d_model)."""
    return np.maximum(u @ p["W_1"] + p["b_1"], 0.0) @ p["W_2"] + p["b_2"]


def transformer_encoder_block(x, params, mask=None, order="pre"):
    """h = x + MHA(LN1(x)); out = h + FFN(LN2(h)) for x (..., L, d_model) (``order`` "pre"; with
    "post", Vaswani et al.'s h = LN1(x + MHA(x)); out = LN2(h + FFN(h))), with MHA as
    :func:`grader.problems.reference.multi_head_attention` (contiguous heads, scale
    1/sqrt(d_head), mask (..., L, L) shared by the heads, True = may attend), layer norms over
    the last axis (eps 1e-5) and FFN of :func:`feed_forward`. Returns (..., L, d_model)."""
    x = np.asarray(x, dtype=np.float64)
    p = {k: (v if k == "num_heads" else np.asarray(v, dtype=np.float64))
         for k, v in params.items()}

    def attention(u):
        return reference.multi_head_attention(u, p["W_q"], p["W_k"], p["W_v"], p["W_o"],
                                              int(p["num_heads"]), mask)[0]

    if order == "post":
        h = layer_norm(x + attention(x), p["ln1_gamma"], p["ln1_beta"])
        return layer_norm(h + feed_forward(h, p), p["ln2_gamma"], p["ln2_beta"])
    h = x + attention(layer_norm(x, p["ln1_gamma"], p["ln1_beta"]))
    return h + feed_forward(layer_norm(h, p["ln2_gamma"], p["ln2_beta"]), p)
