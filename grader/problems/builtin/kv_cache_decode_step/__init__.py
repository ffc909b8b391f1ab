"""Problem ``kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v)``: one step of
autoregressive decoding with a key/value cache (the new key and value appended at the end, the
query attending over all T + 1 keys, no mask).

Categories: ``shapes`` (all three results), ``output`` (the output only, d_k = 1), ``caches``
(the new caches only), ``empty cache`` (T = 0, the first step), ``scaling``, ``dtypes``,
``inputs`` (nothing given is modified); the checks of this problem compare the three results by
name (:func:`decode_step`). What isolates the categories is in :mod:`.cases`, the mistakes in
:mod:`.mistakes`.
"""
from __future__ import annotations

import numpy as np

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.kv_cache_decode_step import cases, mistakes
from grader.problems.checks import _shape_problem, check
from grader.problems.compare import mismatch
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

CONTRACT = """\
def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v)

One decoding step. q, k_new: (..., 1, d_k); v_new: (..., 1, d_v); cache_k: (..., T, d_k) and
cache_v: (..., T, d_v), the keys and values of the T earlier positions (T >= 0: the cache is
empty at the first step); leading axes (batch, heads) optional, the same for every argument;
float32 or float64.
Append the new key and value at the END of the caches (new_cache_k = the T cached keys, then
k_new), attend q over all T + 1 keys with softmax(q K^T / sqrt(d_k)) V (no mask: every cached
position comes before the new one, and the new token attends to itself too), and return the
tuple (output (..., 1, d_v), new_cache_k (..., T + 1, d_k), new_cache_v (..., T + 1, d_v)).
The given caches are not modified. Use NumPy only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    """q, k_new (..., 1, d_k), v_new (..., 1, d_v), caches (..., T, d_k), (..., T, d_v).

    Returns (output (..., 1, d_v), new_cache_k (..., T + 1, d_k), new_cache_v (..., T + 1, d_v)).
    """
    raise NotImplementedError
'''

#: The three results, in the order returned.
PARTS = ("output", "new_cache_k", "new_cache_v")

#: This problem's own checks.
CHECKS: dict = {}


def _parts(value) -> tuple | None:
    if isinstance(value, (tuple, list)) and len(value) == len(PARTS):
        return tuple(value)
    return None


@check("values", "decode_step", table=CHECKS)
def decode_step(got: list, expected: list, case) -> str | None:
    """The learner's ``(output, new_cache_k, new_cache_v)`` against the reference's, each by
    name; ``options["parts"]`` picks the ones judged (default: all three)."""
    found = _parts(got[0])
    if found is None:
        return ("the function must return a tuple of three arrays (output, new_cache_k, "
                "new_cache_v)")
    for name in case.options.get("parts", PARTS):
        index = PARTS.index(name)
        message = mismatch(found[index], expected[0][index], name)
        if message:
            return message
    return None


@check("shape", "decode_shapes", table=CHECKS)
def decode_shapes(got: list, expected: list, case) -> str | None:
    """Only the shapes of the three results are judged (each finite)."""
    found = _parts(got[0])
    if found is None:
        return ("the function must return a tuple of three arrays (output, new_cache_k, "
                "new_cache_v)")
    for name, value, reference_value in zip(PARTS, found, expected[0]):
        message = _shape_problem(name, value, np.shape(reference_value))
        if message:
            return message
    return None


SPEC = ProblemSpec(
    id="kv_cache_decode_step", title="A decoding step with a key/value cache",
    contract=Contract("kv_cache_decode_step", tuple(Param(n) for n in (
        "q", "k_new", "v_new", "cache_k", "cache_v")), CONTRACT, STARTER),
    categories={"shapes": 1.0, "output": 2.5, "caches": 2.0, "empty cache": 1.5,
                "scaling": 1.5, "dtypes": 0.75, "inputs": 0.75},
    cases=cases.CASES, reference=reference.kv_cache_decode_step, mistakes=mistakes.MISTAKES,
    buggy=mistakes.buggy_decode_step, rules=mistakes.RULES, traits=cases.traits, checks=CHECKS,
    pictures=(Picture("output", "unit", "head", "value feature", call="squeezed"),),
)
