"""Problem ``linear_attention(Q, K, V, causal=False)``: linear attention with the feature map
elu(x) + 1 (Katharopoulos et al. 2020), non-causal (one sum over the keys) and causal (prefix
sums).

Categories: ``shapes``, ``values`` (non-causal), ``feature map`` (entries in [-4, 4]: elu + 1
against its usual misreadings), ``causal`` (prefix sums over j <= i), ``dtypes``, ``inputs``;
what isolates them is in :mod:`.cases`, the mistakes in :mod:`.mistakes`.
"""
from __future__ import annotations

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.linear_attention import cases, mistakes
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def linear_attention(Q, K, V, causal=False)

Q, K: (..., L, d_k), V: (..., L, d_v) NumPy arrays (float32 or float64), leading axes optional.
With the feature map phi(x) = elu(x) + 1 (x + 1 for x > 0, exp(x) otherwise), elementwise:
    out_i = phi(q_i) . S_i / (phi(q_i) . z_i)
    S_i = sum_j phi(k_j) v_j^T  (d_k, d_v),   z_i = sum_j phi(k_j)  (d_k,)
where the sums run over every j (causal=False), or over j <= i (causal=True: prefix sums, the
token itself included; memory linear in L). Return out (..., L, d_v). Do not modify the inputs.
Use NumPy only. Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not
judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def linear_attention(Q, K, V, causal=False):
    """Q, K (..., L, d_k), V (..., L, d_v); phi(x) = elu(x) + 1. Returns (..., L, d_v)."""
    raise NotImplementedError
'''

SPEC = ProblemSpec(
    id="linear_attention", title="Linear attention (elu + 1 feature map)",
    contract=Contract("linear_attention", (Param("Q"), Param("K"), Param("V"),
                                           Param("causal", False)), CONTRACT, STARTER),
    categories={"shapes": 1.0, "values": 2.5, "feature map": 1.5, "causal": 3.0,
                "dtypes": 1.0, "inputs": 1.0},
    cases=cases.CASES, reference=reference.linear_attention, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_linear_attention, rules=mistakes.RULES, traits=cases.traits,
    pictures=(Picture("output", "diverging", "position", "value feature"),),
)
