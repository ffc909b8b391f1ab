"""Problem ``attention_backward(Q, K, V, dO, mask=None)``: the gradients of scaled dot-product
attention with respect to Q, K and V.

Categories: ``shapes``, ``gradients`` (d_k = 1, no mask), ``scaling`` (d_k > 1), ``masking``
(causal, per example, padding), ``stability`` (scores in the thousands), ``properties`` (dK sums
to 0 over the keys), ``dtypes`` (float32), ``inputs`` (nothing modified). dQ, dK and dV are each
compared; what isolates the categories is in :mod:`.cases`.
"""
from __future__ import annotations

from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.attention_backward import cases, mistakes, reference
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def attention_backward(Q, K, V, dO, mask=None)

Q: (..., Lq, d_k), K: (..., Lk, d_k), V: (..., Lk, d_v), dO: (..., Lq, d_v) NumPy arrays
(float32 or float64) with the same leading axes (e.g. batch, or batch and heads); Lq may differ
from Lk, d_v from d_k. mask: None, or a boolean array broadcastable to (..., Lq, Lk), True where
the query MAY attend to the key (as in scaled_dot_product_attention); every query row allows at
least one key.
The forward pass is O = P V with P = softmax(S) over the keys, S = Q K^T / sqrt(d_k), blocked
scores -inf. dO is the upstream gradient dL/dO. Return the tuple (dQ, dK, dV) of dL/dQ, dL/dK,
dL/dV, the shapes of Q, K and V. (Recompute P from Q and K; the softmax's gradient is
dS = P * (dP - sum(dP * P, axis=-1, keepdims=True)) with dP = dO V^T.)
The result must be finite for scores in the thousands. Do not modify the inputs. Use NumPy only.
dQ, dK and dV are each compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def attention_backward(Q, K, V, dO, mask=None):
    """Gradients of O = softmax(Q K^T / sqrt(d_k)) V for upstream dO (..., Lq, d_v).

    mask: boolean, True = may attend. Returns (dQ, dK, dV), shaped like Q, K, V.
    """
    raise NotImplementedError
'''

SPEC = ProblemSpec(
    id="attention_backward", title="Attention backward pass",
    contract=Contract("attention_backward", (Param("Q"), Param("K"), Param("V"), Param("dO"),
                                             Param("mask", None)), CONTRACT, STARTER),
    categories={"shapes": 1.0, "gradients": 2.5, "scaling": 2.0, "masking": 2.0,
                "stability": 1.0, "properties": 0.5, "dtypes": 0.5, "inputs": 0.5},
    cases=cases.CASES, reference=reference.attention_backward, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_attention_backward, rules=mistakes.RULES, traits=cases.traits,
    checks=cases.CHECKS,
    # dV of each example: one row per key, its gradient per value feature (a blocked key's row
    # gets nothing from the queries that cannot see it)
    pictures=(Picture("output", "diverging", "key", "value feature", result=2),),
)
