"""Problem ``layer_norm(x, gamma, beta, eps=1e-5)``: layer normalisation over the last axis.

Categories: ``shapes``, ``values`` (1-D to 3-D), ``eps`` (variances near eps, an eps given,
rows of equal entries), ``properties`` (shift invariance; standardised rows), ``dtypes``
(float32), ``inputs`` (nothing modified). What every draw guarantees is in :mod:`.cases`.
"""
from __future__ import annotations

from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.layer_norm import cases, mistakes, reference
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def layer_norm(x, gamma, beta, eps=1e-5)

x: a NumPy array (..., d) (float32 or float64; one vector or any number of leading axes);
gamma, beta: (d,). Normalise every vector over the last axis (Ba et al. 2016):
  mean = mean(x, axis=-1), var = mean((x - mean) ** 2, axis=-1) (the biased variance, 1/d),
  y = (x - mean) / sqrt(var + eps) * gamma + beta   (eps inside the square root),
and return y, the shape of x. A vector of equal entries gives beta. Do not modify the inputs.
Use NumPy only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    """Normalise x (..., d) over its last axis, then scale by gamma (d,) and shift by beta (d,)."""
    raise NotImplementedError
'''

SPEC = ProblemSpec(
    id="layer_norm", title="Layer normalisation",
    contract=Contract("layer_norm", (Param("x"), Param("gamma"), Param("beta"),
                                     Param("eps", 1e-5)), CONTRACT, STARTER),
    categories={"shapes": 1.0, "values": 3.5, "eps": 2.5, "properties": 1.5, "dtypes": 0.5,
                "inputs": 1.0},
    cases=cases.CASES, reference=reference.layer_norm, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_layer_norm, rules=mistakes.RULES, checks=cases.CHECKS,
    pictures=(Picture("output", "diverging", "vector", "feature"),),
)
