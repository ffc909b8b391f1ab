"""Problem ``multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None)``.

Categories: ``shapes``, ``scaling`` (sqrt(d_head), with several heads so sqrt(d_model) differs),
``heads`` (split into contiguous blocks and merged back; one case with a single head, which the
"right with one head, wrong with several" rule compares against), ``projections`` (each W used as
``X @ W``, W_o applied), ``masking`` (causal (L, L), per-example (B, L, L), key padding (B, 1, L)),
``properties`` (permutation equivariance without a mask, judged on the learner's own outputs;
length 1), ``dtypes`` (float32), ``inputs``.
"""
from __future__ import annotations

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.multi_head_attention import cases, mistakes
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None)

X: (..., L, d_model) (leading batch axes optional); W_q, W_k, W_v, W_o: (d_model, d_model), each
used as X @ W (W shaped (d_in, d_out)); num_heads: an int H dividing d_model.
Project Q = X @ W_q, K = X @ W_k, V = X @ W_v; split each into H heads of d_head = d_model / H
features: head h takes the contiguous block of features [h * d_head, (h + 1) * d_head) (reshape to
(..., L, H, d_head), then move H before L). In every head compute
softmax(Q_h K_h^T / sqrt(d_head)) V_h over the key axis; concatenate the heads back in order to
(..., L, d_model) and return concat @ W_o, shape (..., L, d_model).
mask: None, or a boolean array broadcastable to (..., L, L), True where position i MAY attend to
position j, shared by all heads (shapes (L, L), (B, L, L) and (B, 1, L) occur).
Returning (output, weights) is accepted, with weights (..., H, L, L) or averaged over the heads
(..., L, L) as PyTorch returns them; returned weights are checked too.
Do not modify the inputs. Use NumPy only. Outputs are compared in float64 with rtol 1e-4,
atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """X (..., L, d_model); W_* (d_model, d_model) used as X @ W; returns (..., L, d_model)."""
    raise NotImplementedError
'''

SPEC = ProblemSpec(
    id="multi_head_attention", title="Multi-head self-attention",
    contract=Contract("multi_head_attention",
                      tuple(Param(n) for n in ("X", "W_q", "W_k", "W_v", "W_o", "num_heads"))
                      + (Param("mask", None),), CONTRACT, STARTER),
    categories={"shapes": 1.0, "scaling": 1.5, "heads": 2.0, "projections": 1.5, "masking": 1.5,
                "properties": 1.5, "dtypes": 0.5, "inputs": 0.5},
    cases=cases.CASES, reference=reference.multi_head_attention, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_mha,
    rules=mistakes.RULES + cases.RULES, balance="batched", describe=mistakes.describe, traits=cases.traits, rows=cases.rows,
    returns_weights=True, pictures=(Picture("output", "diverging", "position", "feature"),),
)
