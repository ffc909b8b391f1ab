"""Problem ``rotary_embedding(x, positions=None)``: rotary position embedding (Su et al. 2021,
RoFormer, eq. 14-15), interleaved pairs.

Categories: ``shapes``, ``values`` (default positions; 2-D, batched, d = 64), ``positions``
(given positions: out of order, an offset as in a decoding step), ``properties`` (shifting every
position keeps the dot products between positions, judged on the learner's own outputs: the
property RoPE exists for), ``dtypes`` (float32), ``inputs``; what isolates them is in
:mod:`.cases`, the mistakes in :mod:`.mistakes`.
"""
from __future__ import annotations

import functools

import numpy as np

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.rotary_embedding import cases, mistakes
from grader.problems.checks import check
from grader.problems.compare import as_array, mismatch
from grader.problems.spec import Contract, Param, Picture, ProblemSpec

#: The pairs of each layout, as the contract states them.
PAIRS = {
    "interleaved": (
        "Rotate each pair (x[..., 2i], x[..., 2i+1]) (interleaved pairs, as in RoFormer)",
        "    out[..., 2i]     = x[..., 2i] * cos(p theta_i) - x[..., 2i+1] * sin(p theta_i)\n"
        "    out[..., 2i + 1] = x[..., 2i] * sin(p theta_i) + x[..., 2i+1] * cos(p theta_i)"),
    "halves": (
        "Rotate each pair (x[..., i], x[..., i + d/2]) (the two halves, as GPT-NeoX and\n"
        "LLaMA's rotate_half do)",
        "    out[..., i]       = x[..., i] * cos(p theta_i) - x[..., i + d/2] * sin(p theta_i)\n"
        "    out[..., i + d/2] = x[..., i] * sin(p theta_i) + x[..., i + d/2] * cos(p theta_i)"),
}


def contract(layout: str) -> str:
    """The contract of the problem whose pairs are ``layout``."""
    pairs, formula = PAIRS[layout]
    return f"""\
def rotary_embedding(x, positions=None)

x: (..., L, d) NumPy array (float32 or float64), d even; leading axes (batch, heads) optional.
positions: None (the positions 0, 1, ..., L-1) or an int array (L,), the position of each row.
{pairs} of the row at
position p by the angle p * theta_i, theta_i = 10000 ** (-2i / d), i = 0 .. d/2 - 1:
{formula}
Return the rotated array, same shape as x. Do not modify x. Use NumPy only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE


STARTER = '''\
import numpy as np


def rotary_embedding(x, positions=None):
    """x (..., L, d), d even; positions None (0 .. L-1) or int (L,). Returns (..., L, d)."""
    raise NotImplementedError
'''

#: This problem's own checks.
CHECKS: dict = {}


@check("property", "relative_positions", table=CHECKS)
def relative_positions(got: list, expected: list, case) -> str | None:
    """Two calls on the same x at positions p and p + c: the dot products between the rows of
    the learner's two outputs (out @ out^T) must agree, as they do for any rotation by
    position times a frequency (RoFormer, section 3.4.1: q_m . k_n depends on m - n only)."""
    first, second = (as_array(v) for v in got)
    shape = np.shape(case.calls[0][0][0])
    if first is None or second is None or first.shape != shape or second.shape != shape:
        return "the output is not a numeric array of the input's shape"
    gram = [y @ np.swapaxes(y, -1, -2) for y in (first, second)]
    message = mismatch(gram[1], gram[0], "dot products between positions")
    return None if message is None else ("shifting every position by the same amount changed "
                                         f"the dot products between rows: {message}")


def rotary_spec(layout: str = "interleaved") -> ProblemSpec:
    """The declaration of rotary embeddings with pairs ``layout``: ``"interleaved"`` (this
    package, ``rotary_embedding``) or ``"halves"`` (``rotary_embedding_halves``, the contract
    option of GPT-NeoX and LLaMA). One buggy implementation serves both: each problem's
    reference is the other's mistake (:func:`.mistakes.mistakes_for`)."""
    suffix = "" if layout == "interleaved" else f"_{layout}"
    title = "Rotary position embedding (RoPE)" + ("" if layout == "interleaved" else
                                                  ", pairs as two halves (GPT-NeoX / LLaMA)")
    return ProblemSpec(
        id="rotary_embedding" + suffix, title=title,
        contract=Contract("rotary_embedding", (Param("x"), Param("positions", None)),
                          contract(layout), STARTER),
        categories={"shapes": 1.0, "values": 3.0, "positions": 2.5, "properties": 1.5,
                    "dtypes": 1.0, "inputs": 1.0},
        cases=cases.CASES, reference=functools.partial(reference.rotary_embedding, layout=layout),
        mistakes=mistakes.mistakes_for(layout),
        buggy=functools.partial(mistakes.buggy_rotary, layout=layout), rules=mistakes.RULES,
        traits=cases.traits, checks=CHECKS,
        pictures=(Picture("output", "diverging", "position", "feature"),),
    )


SPEC = rotary_spec("interleaved")
