"""Problem ``combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b)``: the merge step of
FlashAttention (Dao et al. 2022, Algorithm 1) and of split-K decoding.

Categories: ``shapes`` (shape only, batch and head axes), ``rescaling`` (maxima that differ in
every row, each partial the larger in some rows), ``empty`` (rows one partial, or both, cover
with no key), ``stability`` (scores in the thousands, or far below zero), ``dtypes`` (float32),
``inputs`` (nothing modified). Each of m, l and o is compared; what every draw guarantees is in
:mod:`.cases`, the mistakes in :mod:`.mistakes`.
"""
from __future__ import annotations

from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.combine_attention_partials import cases, mistakes, reference
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b)

Each partial (m, l, o) summarises one query row's attention over a subset of the keys, with
s_j the scaled scores of those keys:
  m (..., Lq): the maximum of the s_j;
  l (..., Lq): the sum of exp(s_j - m);
  o (..., Lq, d_v): the UNnormalised sum of exp(s_j - m) * v_j.
The attention output over those keys is o / l[..., None]. Partials a and b cover disjoint sets
of keys; return the partial (m, l, o) of their union, as a tuple of three arrays of the same
shapes: m = max(m_a, m_b) and each partial rescaled to it before l and o are added (the merge
step of FlashAttention and split-K decoding). Leading axes (batch, heads) may be present.
A partial over no keys has m = -inf, l = 0, o = 0: merging it must give the other partial, and
merging two of them an empty partial (m = -inf, l = 0, o = 0), never NaN. The result must be
finite for scores in the thousands (positive or negative). Do not modify the inputs. Use NumPy
only.
m, l and o are each compared in float64 with rtol 1e-4, atol 1e-5 (-inf must be -inf); the dtype
is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    """Merge partials (m, l, o) of disjoint key sets: m, l (..., Lq), o (..., Lq, d_v).

    Returns (m, l, o) of the union; the output over all keys is o / l[..., None].
    """
    raise NotImplementedError
'''

PARAMS = tuple(Param(name) for name in ("m_a", "l_a", "o_a", "m_b", "l_b", "o_b"))

SPEC = ProblemSpec(
    id="combine_attention_partials", title="Merging attention partials (FlashAttention)",
    contract=Contract("combine_attention_partials", PARAMS, CONTRACT, STARTER),
    categories={"shapes": 1.0, "rescaling": 3.5, "empty": 2.0, "stability": 2.0, "dtypes": 1.0,
                "inputs": 0.5},
    cases=cases.CASES, reference=reference.combine_attention_partials,
    mistakes=mistakes.MISTAKES, buggy=mistakes.buggy_combine, rules=mistakes.RULES,
    # the merged accumulator o of the example (query rows by value features)
    pictures=(Picture("output", "diverging", "query", "value feature", result=2),),
)
