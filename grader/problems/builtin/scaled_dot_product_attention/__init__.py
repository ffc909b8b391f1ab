"""Problem ``scaled_dot_product_attention(Q, K, V, mask=None)``.

Categories: ``shapes``, ``scaling`` (d_k not a perfect square; one case under a mask),
``softmax`` (the key axis), ``values``, ``masking`` (causal, padding, per-example, shared by the
heads, fully blocked rows), ``stability`` (one case under a mask), ``properties``, ``dtypes``,
``inputs``; what isolates them is in :mod:`.cases`. Mistakes are recognised by refitting the
learner's numbers to the buggy implementations of :mod:`grader.problems.attention_variants`
(attention-bugs.md, entries 1-2, 4-15, 22, 23) and by cross-case rules (:mod:`.mistakes`).
"""
from __future__ import annotations

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.scaled_dot_product_attention import cases, mistakes
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def scaled_dot_product_attention(Q, K, V, mask=None)

Q: (..., Lq, d_k), K: (..., Lk, d_k), V: (..., Lk, d_v) NumPy arrays (float32 or float64). Leading
batch axes (e.g. a batch axis, or batch and heads) broadcast. Lq may differ from Lk, d_v from d_k.
mask: None, or a boolean array broadcastable to (..., Lq, Lk): True where the query MAY attend to the
key, False where it is blocked. Masks of shape (Lq, Lk), (B, Lq, Lk), (B, 1, Lq, Lk) and (B, 1, 1, Lk)
occur.
Compute softmax(Q K^T / sqrt(d_k)) over the key axis (rows of the weights sum to 1), blocked
positions getting exactly zero weight, and return the output (..., Lq, d_v) = weights @ V, or the
tuple (output, weights) with weights (..., Lq, Lk); returned weights are checked too.
Query rows whose mask blocks every key are not checked (any value, NaN included, is accepted).
The result must be finite for logits in the thousands. Do not modify the inputs. Use NumPy only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Q (..., Lq, d_k), K (..., Lk, d_k), V (..., Lk, d_v); mask boolean, True = may attend.

    Returns the output (..., Lq, d_v), or (output, weights) with weights (..., Lq, Lk).
    """
    raise NotImplementedError
'''

SPEC = ProblemSpec(
    id="scaled_dot_product_attention", title="Scaled dot-product attention",
    contract=Contract("scaled_dot_product_attention",
                      (Param("Q"), Param("K"), Param("V"), Param("mask", None)), CONTRACT,
                      STARTER),
    categories={"shapes": 1.0, "scaling": 2.0, "softmax": 1.5, "values": 1.0, "masking": 2.0,
                "stability": 1.0, "properties": 0.5, "dtypes": 0.5, "inputs": 0.5},
    cases=cases.CASES, reference=reference.attention, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_sdpa,
    rules=mistakes.RULES + cases.RULES, balance="batched", describe=mistakes.describe, traits=cases.traits, rows=cases.rows,
    conditions=cases.named_shapes, returns_weights=True, show_weights=True,
    pictures=(Picture("weights", "unit", "query", "key", call="identity_values"),),
)
