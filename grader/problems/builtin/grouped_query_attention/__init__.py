"""Problem ``grouped_query_attention(Q, K, V, mask=None)``: grouped-query attention (Ainslie et
al. 2023), consecutive groups as ``repeat_kv`` expands them; G = 1 is multi-query attention
(Shazeer 2019).

Categories: ``shapes``, ``groups`` (1 < G < H: consecutive groups, not h % G), ``group sizes``
(G = 1 and G = H), ``scaling`` (1 / sqrt(d_k) of one head), ``masking`` (a causal (L, L) mask and
a padding (B, 1, 1, Lk) mask shared by every head), ``dtypes``, ``inputs``; what isolates them is in
:mod:`.cases`, the mistakes in :mod:`.mistakes`. The first example's picture is the head-to-group
map: one key per group and one-hot values, so head h's output row names its group.
"""
from __future__ import annotations

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.grouped_query_attention import cases, mistakes
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def grouped_query_attention(Q, K, V, mask=None)

Q: (..., H, Lq, d_k), K: (..., G, Lk, d_k), V: (..., G, Lk, d_v) NumPy arrays (float32 or
float64); leading batch axes optional; G divides H (G = 1 is multi-query attention, G = H
multi-head attention). Query head h attends with key/value head h // (H // G): the groups are
consecutive (heads 0 .. H/G - 1 use key/value head 0, and so on), as
np.repeat(K, H // G, axis=-3) expands them.
In every head compute softmax(Q_h K_g^T / sqrt(d_k)) V_g over the key axis, with d_k the size of
one head's query and key vectors.
mask: None, or a boolean array broadcastable to (..., H, Lq, Lk): True where the query MAY attend
to the key (shapes (Lq, Lk) and (B, 1, 1, Lk) occur); every query row allows some key.
Return the output (..., H, Lq, d_v). Do not modify the inputs. Use NumPy only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def grouped_query_attention(Q, K, V, mask=None):
    """Q (..., H, Lq, d_k), K (..., G, Lk, d_k), V (..., G, Lk, d_v); returns (..., H, Lq, d_v)."""
    raise NotImplementedError
'''

SPEC = ProblemSpec(
    id="grouped_query_attention", title="Grouped-query attention (GQA, MQA)",
    contract=Contract("grouped_query_attention",
                      (Param("Q"), Param("K"), Param("V"), Param("mask", None)), CONTRACT,
                      STARTER),
    categories={"shapes": 1.0, "groups": 3.0, "group sizes": 1.5, "scaling": 1.5,
                "masking": 1.5, "dtypes": 0.75, "inputs": 0.75},
    cases=cases.CASES, reference=reference.grouped_query_attention, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_gqa, rules=mistakes.RULES, traits=cases.traits,
    conditions=cases.named_sizes,
    pictures=(Picture("output", "unit", "query head", "key/value group", call="squeezed"),),
)
