"""Problem ``transformer_encoder_block(x, params, mask=None)``: a pre-LN Transformer encoder
block, h = x + MHA(LN1(x)); out = h + FFN(LN2(h)).

Categories: ``shapes``, ``values`` (no mask, one head; one sequence or a batch), ``heads``
(2 to 4 heads, one case under a mask), ``masking`` (causal, padded keys), ``properties``
(permutation equivariance), ``dtypes`` (float32), ``inputs``. What every draw guarantees is
in :mod:`.cases`.
"""
from __future__ import annotations

import functools

from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.transformer_encoder_block import cases, mistakes, reference
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

BLOCKS = {"pre": """\
Compute the pre-LN block
  h = x + MHA(LN1(x)),   out = h + FFN(LN2(h)),   FFN(u) = relu(u @ W_1 + b_1) @ W_2 + b_2,""",
          "post": """\
Compute the post-LN block (the order of Vaswani et al. 2017)
  h = LN1(x + MHA(x)),   out = LN2(h + FFN(h)),   FFN(u) = relu(u @ W_1 + b_1) @ W_2 + b_2,"""}

CONTRACT = """\
def transformer_encoder_block(x, params, mask=None)

x: (..., L, d_model) NumPy array (float32 or float64; leading batch axes optional).
params: a dict with W_q, W_k, W_v, W_o (d_model, d_model), num_heads (an int H dividing
d_model), ln1_gamma, ln1_beta, ln2_gamma, ln2_beta (d_model,), W_1 (d_model, d_ff), b_1 (d_ff,),
W_2 (d_ff, d_model), b_2 (d_model,); every W used as u @ W.
{block}
with MHA exactly as multi_head_attention (Q, K, V = u @ W_q, u @ W_k, u @ W_v split into H
contiguous heads of d_head = d_model / H, softmax(Q_h K_h^T / sqrt(d_head)) V_h per head, heads
concatenated in order, then @ W_o) and the layer norms as layer_norm (over the last axis, biased
variance, eps = 1e-5 inside the square root; LN1 with ln1_gamma and ln1_beta, LN2 with ln2_*).
mask: None, or a boolean array broadcastable to (..., L, L), True where position i MAY attend to
position j, shared by all heads. Return out, shape (..., L, d_model). Do not modify the inputs.
Use NumPy only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def transformer_encoder_block(x, params, mask=None):
    """{doc} x (..., L, d_model)."""
    raise NotImplementedError
'''

DOCS = {"pre": "Pre-LN encoder block: h = x + MHA(LN1(x)); out = h + FFN(LN2(h)).",
        "post": "Post-LN encoder block: h = LN1(x + MHA(x)); out = LN2(h + FFN(h))."}


def encoder_spec(order: str = "pre") -> ProblemSpec:
    """The declaration of the encoder block in ``order``: ``"pre"`` (this package,
    ``transformer_encoder_block``) or ``"post"`` (``transformer_encoder_block_post_ln``, the
    contract option of the 2017 order). One buggy implementation serves both: each problem's
    order is the other's mistake (:func:`.mistakes.mistakes_for`)."""
    suffix = "" if order == "pre" else "_post_ln"
    return ProblemSpec(
        id="transformer_encoder_block" + suffix,
        title=f"Transformer encoder block ({order}-LN)",
        contract=Contract("transformer_encoder_block", (Param("x"), Param("params"),
                                                        Param("mask", None)),
                          CONTRACT.replace("{block}", BLOCKS[order]),
                          STARTER.replace("{doc}", DOCS[order])),
        categories={"shapes": 1.0, "values": 3.0, "heads": 2.0, "masking": 2.0,
                    "properties": 1.0, "dtypes": 0.5, "inputs": 0.5},
        cases=cases.CASES,
        reference=functools.partial(reference.transformer_encoder_block, order=order),
        mistakes=mistakes.mistakes_for(order),
        buggy=functools.partial(mistakes.buggy_encoder_block, norm_first=order == "pre"),
        rules=mistakes.RULES, traits=cases.traits,
        pictures=(Picture("output", "diverging", "position", "feature"),),
    )


SPEC = encoder_spec("pre")
