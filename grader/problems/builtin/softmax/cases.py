"""The cases of ``softmax(x, axis=-1)``, each with the constructor that draws it.

Every draw meets the condition its case is named after (grader/problems/conditions.py): entries
are bounded except where a case wants them large; axis cases use an axis whose length differs from
the last one's, so normalising the wrong axis changes the slice sums; the stability cases overflow
a naive exp in float64 (so in float32 too) and spread their rows' maxima wider than exp's whole
range, on 2-D rows, on a 1-D input and along axis 0 of a 3-D input, so a shift skipped for 1-D
input or for a non-last axis costs points; their entries are exact in float32
(:func:`grader.problems.conditions.float32_exact`), so correct code that casts to float32 loses
nothing to the rounding of its inputs.
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions
from grader.problems.conditions import require
from grader.problems.base import Rule
from grader.problems.rules import crashes_only_with
from grader.problems.spec import Inputs, draw, example, hidden, inputs


def call(x, axis=None) -> tuple[tuple, dict]:
    """The call ``softmax(x)`` or ``softmax(x, axis)``."""
    return ((x,) if axis is None else (x, axis)), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``"axis"`` when the call normalises an axis other than the last; ``"vector"`` when x is
    1-D, ``"leading-axes"`` when it has two axes or more (the two sides the problem's balance
    gives half of each category, :data:`BALANCE`)."""
    x, axis = args[0], args[1] if len(args) > 1 else None
    found = {"vector" if np.ndim(x) == 1 else "leading-axes"}
    if axis is not None and axis not in (-1, np.ndim(x) - 1):
        found.add("axis")
    return frozenset(found)


#: The trait that splits every category in two halves (:class:`grader.problems.spec.ProblemSpec`
#: ``balance``): tests on 1-D input and tests on inputs with leading axes, so code right on one
#: rank only scores the same whichever rank it handles.
BALANCE = "vector"


def bounded_input(rng, shape, axis=None, scale=1.0, dtype=np.float64) -> Inputs:
    """Bounded standard normal entries of ``shape`` (times ``scale``)."""
    x = (scale * conditions.bounded(rng, *shape)).astype(dtype)
    require(x.dtype == np.dtype(dtype), f"a {np.dtype(dtype)} input")
    return inputs(call(x, axis))


def axis_input(rng, shape, axis) -> Inputs:
    """A value case on a non-default ``axis`` whose length differs from the last axis's: the
    slices then number differently along the two axes, so an implementation that normalises the
    last axis instead gets slice sums that differ from 1 (by construction, whatever the draw)."""
    x = conditions.bounded(rng, *shape)
    require(x.shape[axis] != x.shape[-1], "an axis whose length differs from the last axis's")
    return inputs(call(x, axis))


def stability_rows(rng, offsets, jitter, spread, width, dtype=np.float64) -> Inputs:
    """Rows ``offset + U(-spread, spread)`` with the ``offsets`` (each moved by up to ``jitter``)
    in random order. Guaranteed on every draw: a naive exp overflows (some entry above 709.8, so
    in float32 and float64), the rows' maxima are spread wider than exp's whole range (no single
    shift such as one global maximum rescues every row; only the top row survives it), and every
    row's fate under a naive exp or a global maximum is clear-cut in float64 (and in float32 for
    float32 inputs), never at a rounding edge."""
    rows = rng.permutation(np.asarray(offsets, dtype=np.float64))
    rows = rows + rng.uniform(-jitter, jitter, rows.shape)
    x = conditions.float32_exact(rows[:, None] + rng.uniform(-spread, spread, (rows.size, width)))
    x = x.astype(dtype)
    dtypes = (np.float64,) if dtype == np.float64 else (np.float64, dtype)
    require(conditions.exact_in_float32(x), "entries exact in float32")
    require(conditions.overflows_exp(x), "a naive exp that overflows")
    require(conditions.maxima_spread(x) > conditions.EXP_RANGE_FLOAT64,
            "row maxima spread wider than exp's range")
    require(conditions.exp_outcomes_clear(x, -1, dtypes), "rows clearly in or out of exp's range")
    return inputs(call(x))


def spread_rows(rng) -> Inputs:
    """Rows at offsets -3000, 0 and 3000 (random order), each spread over 1600 (six entries
    evenly 320 apart, shuffled): every row spans more than twice the largest finite exponent
    (709.8), so subtracting the row's MINIMUM (not its maximum) overflows in every row, and so
    does subtracting its MEAN (each row is symmetric about its offset: max - mean = 800); a
    naive exp overflows, and a global maximum leaves the lower rows at 0/0."""
    rows = rng.permutation(np.array([-3000.0, 0.0, 3000.0])) + rng.uniform(-50, 50, 3)
    x = conditions.float32_exact(rows[:, None] + np.stack(
        [rng.permutation(np.linspace(-800.0, 800.0, 6)) for _ in range(3)]))
    require(conditions.exact_in_float32(x), "entries exact in float32")
    largest = conditions.EXP_OVERFLOW[np.dtype(np.float64)]
    require(bool((np.ptp(x, axis=-1) > 2 * largest).all()),
            "every row spread over more than twice the largest finite exponent")
    require(conditions.overflows_exp(x), "a naive exp that overflows")
    require(conditions.maxima_spread(x) > conditions.EXP_RANGE_FLOAT64,
            "row maxima spread wider than exp's range")
    return inputs(call(x), traits={"wide-rows"})


def vector_in_thousands(rng) -> Inputs:
    """A 1-D input (7 entries) at an offset in [1500, 3000], spread over 500 at most (entries
    evenly 500/6 apart, jittered less than a tenth of that, shuffled): a naive exp overflows on
    every draw, while the maximum, the minimum or one global maximum subtracted are all exact
    (the spread stays far below exp's range), so only code that skips the shift for 1-D input,
    or overflows otherwise, fails it."""
    grid = np.linspace(-250.0, 250.0, 7) + rng.uniform(-8.0, 8.0, 7)
    x = conditions.float32_exact(rng.uniform(1500.0, 3000.0) + rng.permutation(grid))
    require(conditions.exact_in_float32(x), "entries exact in float32")
    largest = conditions.EXP_OVERFLOW[np.dtype(np.float64)]
    require(x.ndim == 1, "a 1-D input")
    require(bool(x.min() > largest + 10), "a naive exp that overflows everywhere")
    require(bool(np.ptp(x) < largest - 10 - np.log(x.size)),
            "entries that any shift by one of them brings within exp's range")
    return inputs(call(x), traits={"stable-1d"})


def axis0_in_thousands(rng) -> Inputs:
    """A (4, 3, 5) input normalised over axis 0: each of the 15 slices along axis 0 sits at its
    own offset (the 15 offsets -3500, -3000, ..., 3500 in random order, each moved by up to 50),
    its 4 entries spread over 60 at most. Guaranteed on every draw: a naive exp overflows, the
    slices' maxima spread wider than exp's range (one global maximum leaves slices at 0/0), every
    slice's fate under either is clear-cut, a shift by the slice's minimum is exact, and the
    axis's length differs from the last one's, so code that is stable on the last axis only, or
    ignores the axis, fails it."""
    offsets = rng.permutation(np.arange(-3500.0, 3501.0, 500.0)) + rng.uniform(-50, 50, 15)
    x = conditions.float32_exact(offsets.reshape(1, 3, 5) + rng.uniform(-30.0, 30.0, (4, 3, 5)))
    require(conditions.exact_in_float32(x), "entries exact in float32")
    require(x.shape[0] != x.shape[-1], "an axis whose length differs from the last axis's")
    require(conditions.overflows_exp(x), "a naive exp that overflows")
    require(conditions.maxima_spread(x, axis=0) > conditions.EXP_RANGE_FLOAT64,
            "slice maxima spread wider than exp's range")
    require(conditions.exp_outcomes_clear(x, 0), "slices clearly in or out of exp's range")
    return inputs(call(x, 0), traits={"stable-axis"})


def shifted_rows(rng) -> Inputs:
    """Two calls: x (4, 6), then x with each row shifted by its own constant (shifts in [-45, 45]
    at least 20 apart)."""
    x = conditions.bounded(rng, 4, 6)
    shift = conditions.spaced(rng, 4, -45.0, 45.0, min_gap=20.0)[:, None]
    require(conditions.min_gap(shift) >= 20.0, "row shifts that differ from row to row by at "
            "least 20")
    return inputs(call(x), call(x + shift))


def shifted_vector(rng) -> Inputs:
    """Two calls: a 1-D x (5 entries), then x plus one constant in [-45, 45] at least 20 away
    from 0 (so the shift changes every entry by 20 or more)."""
    x = conditions.bounded(rng, 5)
    shift = rng.choice([-1.0, 1.0]) * rng.uniform(20.0, 45.0)
    require(20.0 <= abs(shift) <= 45.0, "a shift between 20 and 45 away from 0")
    return inputs(call(x), call(x + shift))


def equal_entries(rng) -> Inputs:
    """Rows of 5 equal entries (3 rows): the softmax is uniform. Degenerate: a softmax that
    returns 1/n everywhere passes it, so it unlocks no property points (trait ``degenerate``,
    :mod:`grader.problems.credit`)."""
    return inputs(call(np.repeat(conditions.bounded(rng, 3, 1), 5, axis=1)), traits={"degenerate"})


def dominant_entries(rng) -> Inputs:
    """Each row has one entry 500 above the others (bounded by 3), in a random column: its
    weight is 1 to within exp(-494), far below the tolerance."""
    x = conditions.bounded(rng, 3, 5)
    x[np.arange(3), rng.permutation(5)[:3]] += 500.0
    require(conditions.row_gaps(x).min() > 50.0, "one entry per row at least 50 above the rest")
    return inputs(call(x))


CASES = (
    example("example: softmax([1, 2, 3])", "values", call(np.array([1.0, 2.0, 3.0]))),
    example("example: a 2x3 array with axis=0", "axis",
            call(np.array([[1.0, 2.0, 0.5], [0.0, 2.0, -1.0]]), 0)),
    hidden("shapes: 1-D input", "shapes", draw(bounded_input, shape=(7,)), check="shapes"),
    hidden("shapes: 3-D input", "shapes", draw(bounded_input, shape=(3, 4, 5)), check="shapes"),
    hidden("axis: axis=0 on a 2-D input", "axis", draw(axis_input, shape=(4, 6), axis=0)),
    hidden("axis: axis=1 on a 3-D input", "axis", draw(axis_input, shape=(3, 4, 5), axis=1)),
    hidden("axis: a negative axis (-2) on a 3-D input", "axis",
           draw(axis_input, shape=(3, 5, 4), axis=-2)),
    hidden("axis: axis=0 on a 1-D input", "axis", draw(bounded_input, shape=(6,), axis=0)),
    hidden("values: default axis on a 2-D input", "values", draw(bounded_input, shape=(5, 7))),
    hidden("values: default axis on a 3-D input", "values",
           draw(bounded_input, shape=(2, 3, 4))),
    hidden("values: a 1-D input", "values", draw(bounded_input, shape=(9,))),
    hidden("stability: entries in the thousands", "stability",
           draw(stability_rows, offsets=(-4000, -2000, 0, 2000, 4000), jitter=100.0,
                spread=300.0, width=6)),
    hidden("stability: rows at very different offsets", "stability",
           draw(stability_rows, offsets=(-1500, 0, 1500, 3000), jitter=50.0, spread=3.0,
                width=5)),
    hidden("stability: entries in the hundreds (float32)", "stability",
           draw(stability_rows, offsets=(-900, 0, 900), jitter=20.0, spread=30.0, width=6,
                dtype=np.float32)),
    hidden("stability: entries spread over thousands within each row", "stability",
           draw(spread_rows)),
    hidden("stability: a 1-D input in the thousands", "stability", draw(vector_in_thousands)),
    hidden("stability: axis=0 on a 3-D input in the thousands", "stability",
           draw(axis0_in_thousands)),
    hidden("properties: adding a constant to a row changes nothing", "properties",
           draw(shifted_rows), check="relation", what="shift invariance"),
    hidden("properties: adding a constant to a 1-D input changes nothing", "properties",
           draw(shifted_vector), check="relation", what="shift invariance"),
    hidden("properties: equal entries give a uniform row", "properties", draw(equal_entries)),
    hidden("properties: one dominant entry gives a one-hot row", "properties",
           draw(dominant_entries)),
    hidden("dtypes: float32 input", "dtypes",
           draw(bounded_input, shape=(4, 5), dtype=np.float32)),
    hidden("dtypes: float32 1-D input", "dtypes",
           draw(bounded_input, shape=(8,), dtype=np.float32)),
    hidden("inputs: x is not modified in place", "inputs",
           draw(bounded_input, shape=(4, 5), axis=0, scale=10.0), check="inputs"),
    hidden("inputs: a 1-D x is not modified in place", "inputs",
           draw(bounded_input, shape=(6,), scale=10.0), check="inputs"),
)


#: Cross-case rules that read the ranks of the cases: code that runs on one rank only.
RULES = (
    Rule(tag="fails_on_1d_input", explains=crashes_only_with("vector", every=True),
         message="Your code works only with a leading axis: it fails whenever x is 1-D. Write "
                 "it for any number of axes: reduce along `axis` with np.max(x, axis=axis, "
                 "keepdims=True) and np.sum(e, axis=axis, keepdims=True), without indexing rows "
                 "(x[i]) or assuming x.shape has two entries."),
    Rule(tag="fails_with_leading_axes", explains=crashes_only_with("leading-axes", every=True),
         message="Your code works only on 1-D input: it fails whenever x has two axes or more. "
                 "Reduce along `axis` (np.max(x, axis=axis, keepdims=True), np.sum(e, axis=axis, "
                 "keepdims=True)) instead of over the whole array or with a 1-D loop."),
)
