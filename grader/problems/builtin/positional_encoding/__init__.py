"""Problem ``positional_encoding(seq_len, d_model)``: the sinusoidal encoding of Vaswani et al.
(2017), section 3.5, with interleaved columns (sine on even, cosine on odd columns).

Categories: ``shapes``, ``values`` (even d_model), ``odd d_model`` (the last column is a sine),
``long sequences`` (many positions and a wide model, where the frequencies matter most),
``properties`` (row 0 is 0, 1, 0, 1, ...; sin^2 + cos^2 = 1 per pair, judged on the learner's
own output). Sizes are drawn, parities and orders are not (asserted when drawn): even d_model where
the name says nothing, odd where it says odd, seq_len != d_model in the shape cases (a transposed
result then has the wrong shape), at least four positions and columns wherever values are compared.
"""
from __future__ import annotations

import numpy as np

from grader.problems import reference
from grader.problems.base import CREDIT_NOTE
from grader.problems.builtin.positional_encoding.mistakes import MISTAKES, RULES, buggy_encoding
from grader.problems.checks import check
from grader.problems.compare import as_array, mismatch
from grader.problems.conditions import require
from grader.problems.spec import (Contract, Inputs, Param, Picture, ProblemSpec, draw, example,
                                  hidden, inputs)

CONTRACT = """\
def positional_encoding(seq_len, d_model)

seq_len, d_model: positive ints. Return a float array PE of shape (seq_len, d_model) with
positions counted from 0 and, for each pair index i = 0, 1, ...:
    PE[pos, 2i]     = sin(pos / 10000 ** (2i / d_model))
    PE[pos, 2i + 1] = cos(pos / 10000 ** (2i / d_model))
Sine and cosine columns are interleaved (not two halves). For odd d_model the last column is a
sine. Use NumPy only. Outputs are compared in float64 with rtol 1e-4, atol 1e-4 (float32 is
fine).
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def positional_encoding(seq_len, d_model):
    """Sinusoidal positional encoding, shape (seq_len, d_model)."""
    raise NotImplementedError
'''

# float32 solutions (the PyTorch tutorial's exp/log form) carry about 3e-5 absolute error in the
# angle at positions in the hundreds; every mistake of entry 24 moves values by far more than 1e-4.
ATOL = 1e-4

#: This problem's own checks.
CHECKS: dict = {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``odd`` for an odd d_model."""
    return frozenset({"odd"} if args[1] % 2 else ())


@check("property", "row_zero", table=CHECKS)
def row_zero(got: list, expected: list, case) -> str | None:
    """Row 0 (position 0) is (0, 1, 0, 1, ...): sin 0 and cos 0."""
    pe = as_array(got[0])
    if pe is None or pe.ndim != 2:
        return "the output is not a 2-D numeric array"
    expected = np.tile([0.0, 1.0], pe.shape[1] // 2 + 1)[: pe.shape[1]]
    message = mismatch(pe[0], expected, "row for position 0")
    return None if message is None else message


@check("property", "unit_circle", table=CHECKS)
def unit_circle(got: list, expected: list, case) -> str | None:
    """sin^2 + cos^2 = 1 for each column pair (2i, 2i+1)."""
    pe = as_array(got[0])
    if pe is None or pe.ndim != 2 or pe.shape[1] < 2:
        return "the output is not a 2-D numeric array with at least two columns"
    pairs = pe[:, 0: pe.shape[1] // 2 * 2]
    norms = pairs[:, 0::2] ** 2 + pairs[:, 1::2] ** 2
    message = mismatch(norms, np.ones_like(norms), "value of sin^2 + cos^2 per column pair")
    return None if message is None else message


def _draw(rng, size) -> int:
    """``size`` itself, or an int drawn from [low, high) for ``(low, high)``; with
    ``("even", low, high)`` or ``("odd", low, high)`` an even (odd) one."""
    if isinstance(size, int):
        return size
    if size[0] in ("even", "odd"):
        even = int(rng.integers(size[1] // 2, size[2] // 2)) * 2
        return even + (size[0] == "odd")
    return int(rng.integers(*size))


def sized(rng, seq_len, d_model, minimum: int = 4) -> Inputs:
    """A case of ``seq_len`` positions and ``d_model`` columns (see :func:`_draw`), with at
    least ``minimum`` positions and columns (4 for value cases: a position other than 0 and a
    pair index other than 0 occur)."""
    seq, d = _draw(rng, seq_len), _draw(rng, d_model)
    require(seq >= minimum and d >= minimum, f"at least {minimum} positions and columns")
    if isinstance(d_model, tuple) and d_model[0] in ("even", "odd"):
        require(d % 2 == (d_model[0] == "odd"), f"an {d_model[0]} d_model")
    return inputs(((seq, d), {}))


def shaped(rng, odd: bool) -> Inputs:
    """A shape case: d_model even in [6, 14] (plus 1 when ``odd``) and seq_len = d_model + 1..5,
    so a transposed result has the wrong shape."""
    d = int(rng.integers(3, 8)) * 2 + int(odd)
    L = d + int(rng.integers(1, 6))
    require(L != d, "seq_len != d_model")
    require(d % 2 == int(odd), "an odd d_model" if odd else "an even d_model")
    return inputs(((L, d), {}))


def _values(name, category, seq_len, d_model):
    return hidden(name, category, draw(sized, seq_len=seq_len, d_model=d_model), atol=ATOL)


CASES = (
    example("example: positional_encoding(3, 4)", "values", ((3, 4), {}), atol=ATOL),
    hidden("shapes: (seq_len, d_model)", "shapes", draw(shaped, odd=False), check="shapes"),
    hidden("shapes: odd d_model", "shapes", draw(shaped, odd=True), check="shapes"),
    _values("values: a short sequence", "values", (4, 9), ("even", 4, 10)),
    _values("values: a medium sequence", "values", (10, 30), ("even", 10, 24)),
    _values("odd d_model: the last column is a sine", "odd d_model", (4, 12), ("odd", 4, 12)),
    _values("odd d_model: a wider model", "odd d_model", (10, 20), ("odd", 14, 30)),
    _values("long sequences: many positions, wide model", "long sequences", (150, 250),
            ("even", 48, 80)),
    _values("long sequences: d_model = 512", "long sequences", (60, 100), 512),
    hidden("properties: position 0 is (0, 1, 0, 1, ...)", "properties",
           draw(sized, seq_len=(3, 9), d_model=("even", 6, 14), minimum=3), check="row_zero"),
    hidden("properties: sin^2 + cos^2 = 1 for each column pair", "properties",
           draw(sized, seq_len=(20, 40), d_model=("even", 8, 20)), check="unit_circle"),
)

SPEC = ProblemSpec(
    id="positional_encoding", title="Sinusoidal positional encoding",
    contract=Contract("positional_encoding", (Param("seq_len"), Param("d_model")), CONTRACT,
                      STARTER),
    categories={"shapes": 1.5, "values": 3.0, "odd d_model": 1.5, "long sequences": 2.0,
                "properties": 2.0},
    cases=CASES, reference=reference.positional_encoding, mistakes=MISTAKES, rules=RULES,
    buggy=buggy_encoding,
    traits=traits, checks=CHECKS,
    pictures=(Picture("encoding", "diverging", "position", "dimension"),),
)
