"""The cases of ``rotary_embedding(x, positions=None)``, each with the constructor that draws it.

Every draw has the condition its case is named after (asserted when drawn): d >= 6 wherever values
are compared (so a pair i >= 1 exists and every exponent mistake changes the output; with d = 2
every frequency is 1 and both layouts coincide), at least three positions, given positions that
are distinct, out of order and not 0 .. L-1 (so ignoring them, or counting from 1, changes every
row but at most one), positions at most 60 (float32 code keeps its angles within the tolerance).
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions
from grader.problems.conditions import require
from grader.problems.spec import Inputs, draw, example, hidden, inputs


def call(x, positions=None) -> tuple[tuple, dict]:
    """The call ``rotary_embedding(x)`` or ``rotary_embedding(x, positions)``."""
    return ((x,) if positions is None else (x, positions)), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``batched`` (leading axes), ``positions`` (positions given)."""
    found = {"batched"} if np.ndim(args[0]) > 2 else set()
    if len(args) > 1 and args[1] is not None:
        found.add("positions")
    return frozenset(found)


def _x(rng, batch, L, d, dtype=np.float64):
    require(d % 2 == 0 and d >= 6, "an even d of at least 6")
    require(L >= 3, "at least three positions")
    return conditions.bounded(rng, *batch, L, d).astype(dtype)


def default_positions(rng, batch=(), L=(5, 9), d=(6, 12), dtype=np.float64) -> Inputs:
    """x (*batch, L, d) with L and even d drawn from the ranges; positions left to default."""
    n = int(rng.integers(*L))
    width = 2 * int(rng.integers(d[0] // 2, d[1] // 2 + 1))
    return inputs(call(_x(rng, batch, n, width, dtype)))


def position_zero(rng) -> Inputs:
    """One row at the default position 0 (x (2, 1, 8)): every angle is 0, so the output is x."""
    x = conditions.bounded(rng, 2, 1, 8)
    require(x.shape[-2] == 1, "a single position")
    return inputs(call(x))


def shuffled_positions(rng, batch=(), L=6, d=8) -> Inputs:
    """Positions: L distinct ints from 10 .. 60 in random order, not sorted (so none is at its
    own index: ignoring them, or shifting them, changes every row)."""
    x = _x(rng, batch, L, d)
    pos = rng.choice(np.arange(10, 61), size=L, replace=False)
    pos = pos[conditions.derangement(rng, L)] if (np.diff(pos) > 0).all() else pos
    require(bool((pos != np.arange(L)).all()), "positions that differ from 0 .. L-1 in every row")
    require(not bool((np.diff(pos) > 0).all()), "positions out of order")
    return inputs(call(x, pos.astype(np.int64)))


def offset_positions(rng, batch=(2, 3), L=4, d=10) -> Inputs:
    """A decoding chunk: positions offset, offset + 1, ... with an offset in 20 .. 40."""
    x = _x(rng, batch, L, d)
    pos = np.arange(L) + int(rng.integers(20, 41))
    require(bool(pos.min() >= 20), "an offset of at least 20")
    return inputs(call(x, pos))


def shifted_positions(rng) -> Inputs:
    """Two calls on the same x (5, 8): positions p, then p + c (c in 5 .. 20): a rotation's dot
    products between rows depend only on the difference of their positions."""
    x = _x(rng, (), 5, 8)
    pos = rng.choice(np.arange(0, 30), size=5, replace=False)
    shift = int(rng.integers(5, 21))
    return inputs(call(x, pos), call(x, pos + shift))


CASES = (
    example("example: the pair (1, 0) at positions 0 .. 5", "values",
            call(np.tile([[1.0, 0.0]], (6, 1)))),
    example("example: x of shape (3, 4)", "values",
            call(np.array([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0]]))),
    hidden("shapes: batch and heads axes", "shapes", draw(default_positions, batch=(2, 3)),
           check="shapes"),
    hidden("values: a 2-D input (L, d)", "values", draw(default_positions)),
    hidden("values: a batch axis", "values", draw(default_positions, batch=(3,))),
    hidden("values: d = 64, all frequencies", "values",
           draw(default_positions, L=(10, 14), d=(64, 64))),
    hidden("values: position 0 alone is left unchanged", "values", draw(position_zero)),
    hidden("positions: given out of order", "positions", draw(shuffled_positions)),
    hidden("positions: an offset, as in a decoding step (batched)", "positions",
           draw(offset_positions)),
    hidden("properties: shifting every position keeps the dot products", "properties",
           draw(shifted_positions), check="relative_positions"),
    hidden("dtypes: float32 input", "dtypes", draw(default_positions, batch=(2,),
                                                   dtype=np.float32)),
    hidden("inputs: x is not modified in place", "inputs", draw(shuffled_positions, batch=(2,)),
           check="inputs"),
)
