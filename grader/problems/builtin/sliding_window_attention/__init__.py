"""Problem ``sliding_window_attention(Q, K, V, window)``: causal local attention, query i
attending to the keys i - window < j <= i (Longformer's one-sided window, as Mistral uses it).

Categories: ``shapes``, ``band`` (1 < window < L - 1), ``window 1`` (the token alone: the output
is V), ``long window`` (window >= L: plain causal attention), ``scaling``, ``dtypes``,
``inputs``; what isolates them is in :mod:`.cases`, the mistakes in :mod:`.mistakes`. The picture
is the weight matrix of the example: the band.
"""
from __future__ import annotations

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.sliding_window_attention import cases, mistakes
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def sliding_window_attention(Q, K, V, window)

Q: (..., L, d_k), K: (..., L, d_k), V: (..., L, d_v) NumPy arrays (float32 or float64), leading
axes optional; window: an int >= 1 (it may exceed L).
Query i attends to key j exactly when i - window < j <= i: the `window` latest keys, itself
included (window 1 is the token alone; window >= L is plain causal attention). Compute
softmax(Q K^T / sqrt(d_k)) over the key axis with every key outside the band getting exactly zero
weight, and return the output (..., L, d_v) = weights @ V. Do not modify the inputs. Use NumPy
only. Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def sliding_window_attention(Q, K, V, window):
    """Q, K (..., L, d_k), V (..., L, d_v); query i sees keys i - window < j <= i."""
    raise NotImplementedError
'''

SPEC = ProblemSpec(
    id="sliding_window_attention", title="Sliding-window (local causal) attention",
    contract=Contract("sliding_window_attention",
                      (Param("Q"), Param("K"), Param("V"), Param("window")), CONTRACT, STARTER),
    categories={"shapes": 1.0, "band": 3.5, "window 1": 1.5, "long window": 1.5,
                "scaling": 1.0, "dtypes": 0.75, "inputs": 0.75},
    cases=cases.CASES, reference=reference.sliding_window_attention, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_sliding_window, rules=mistakes.RULES, traits=cases.traits,
    conditions=cases.named_window,
    pictures=(Picture("weights", "unit", "query", "key", call="identity_values"),),
)
