"""Problem ``softmax(x, axis=-1)``.

Categories: ``shapes`` (shape only), ``axis`` (a non-default axis on 2-D and 3-D inputs),
``values`` (default axis), ``stability`` (rows at fixed, far-apart offsets in the hundreds and
thousands: a naive exp overflows and no single shift, such as one global maximum, brings every
row into exp's range, on every draw; also a 1-D input and axis=0 on a 3-D input, so a shift
skipped for 1-D input or for a non-last axis costs points), ``properties`` (shift invariance judged on the learner's
own outputs, equal entries give a uniform row, one dominant entry gives one-hot), ``dtypes``
(float32).
Mistakes: attention-bugs.md entries 5 (wrong axis), 6 (no keepdims), 7 (no max subtraction), plus
subtracting a global maximum and normalising over the whole array.
"""
from __future__ import annotations

import numpy as np

from grader.problems import checks, conditions, inputs, reference
from grader.problems.base import CREDIT_NOTE, Case, CodeProblem, Rule, Variant
from grader.problems.compare import as_array
from grader.problems.rules import failed_in_category
from grader.problems.signals import output_signals

FUNCTION = "softmax"

CONTRACT = """\
def softmax(x, axis=-1)

x: a NumPy array (any number of dimensions, float32 or float64); axis: the axis to normalise
(negative values count from the end; default the last axis).
Return exp(x) / sum(exp(x)) along `axis`, same shape as x: every slice along `axis` is
non-negative and sums to 1. The result must be finite for entries in the thousands (positive or
negative). Do not modify x. Use NumPy only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def softmax(x, axis=-1):
    """Softmax of x along axis; same shape as x, slices along axis sum to 1."""
    raise NotImplementedError
'''

CATEGORIES = {"shapes": 1.0, "axis": 2.5, "values": 2.0, "stability": 2.0, "properties": 1.0,
              "dtypes": 1.0, "inputs": 0.5}


def _call(x, axis):
    return ((x,) if axis is None else (x, axis)), {}


def value_case(name: str, category: str, x, axis=None, visible: bool = False) -> Case:
    expected = reference.softmax(x, -1 if axis is None else axis)
    traits = {"axis"} if axis is not None and axis not in (-1, x.ndim - 1) else set()
    case = Case(name=name, category=category, calls=[_call(x, axis)],
                check=checks.values([(expected, None)]), traits=frozenset(traits), visible=visible)
    if visible:
        case.public = {"inputs": {"x": np.asarray(x).tolist(),
                                  **({} if axis is None else {"axis": axis})},
                       "expected_output": np.round(expected, 6).tolist()}
    return case


def visible_cases() -> list[Case]:
    return [
        value_case("example: softmax([1, 2, 3])", "values", np.array([1.0, 2.0, 3.0]),
                   visible=True),
        value_case("example: a 2x3 array with axis=0", "axis",
                   np.array([[1.0, 2.0, 0.5], [0.0, 2.0, -1.0]]), axis=0, visible=True),
    ]


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    """The hidden cases for one submission, drawn from ``rng``. Every draw meets the condition
    its case is named after (grader/problems/conditions.py): entries are bounded except where a
    case wants them large; axis cases use an axis whose length differs from the last one's, so
    normalising the wrong axis changes the slice sums; the stability cases overflow a naive exp
    in float64 (so in float32 too) and spread their rows' maxima wider than exp's whole range."""
    n = lambda *s: conditions.bounded(rng, *s)  # noqa: E731
    cases = [
        Case(name="shapes: 1-D input", category="shapes", calls=[_call(n(7), None)],
             check=checks.shapes([((7,), None)])),
        Case(name="shapes: 3-D input", category="shapes", calls=[_call(n(3, 4, 5), None)],
             check=checks.shapes([((3, 4, 5), None)])),
        _axis_case("axis: axis=0 on a 2-D input", n(4, 6), 0),
        _axis_case("axis: axis=1 on a 3-D input", n(3, 4, 5), 1),
        _axis_case("axis: a negative axis (-2) on a 3-D input", n(3, 5, 4), -2),
        value_case("values: default axis on a 2-D input", "values", n(5, 7)),
        value_case("values: default axis on a 3-D input", "values", n(2, 3, 4)),
        _stability_case("stability: entries in the thousands", rng, [-4000, -2000, 0, 2000, 4000],
                        jitter=100.0, spread=300.0, width=6),
        _stability_case("stability: rows at very different offsets", rng, [-1500, 0, 1500, 3000],
                        jitter=50.0, spread=3.0, width=5),
        _stability_case("stability: entries in the hundreds (float32)", rng, [-900, 0, 900],
                        jitter=20.0, spread=30.0, width=6, dtype=np.float32),
        _spread_case(rng),
        _vector_stability_case(rng),
        _axis_stability_case(rng),
    ]
    x = n(4, 6)
    shift = conditions.spaced(rng, 4, -45.0, 45.0, min_gap=20.0)[:, None]
    conditions.require(conditions.min_gap(shift) >= 20.0, "properties: adding a constant",
                       "row shifts that differ from row to row by at least 20")
    cases += [
        Case(name="properties: adding a constant to a row changes nothing", category="properties",
             calls=[_call(x, None), _call(x + shift, None)],
             check=checks.relation(lambda out: out, "shift invariance")),
        value_case("properties: equal entries give a uniform row", "properties",
                   np.repeat(n(3, 1), 5, axis=1)),
        _dominant_case(rng),
        _float32_case("dtypes: float32 input", n(4, 5).astype(np.float32)),
        inputs.case("inputs: x is not modified in place", _call(10.0 * n(4, 5), 0), ("x",)),
    ]
    return cases


def _axis_case(name: str, x: np.ndarray, axis: int) -> Case:
    """A value case on a non-default ``axis`` whose length differs from the last axis's: the
    slices then number differently along the two axes, so an implementation that normalises the
    last axis instead gets slice sums that differ from 1 (by construction, whatever the draw)."""
    conditions.require(x.shape[axis] != x.shape[-1], name,
                       "an axis whose length differs from the last axis's")
    return value_case(name, "axis", x, axis)


def _stability_case(name: str, rng: np.random.Generator, offsets: list[float], jitter: float,
                    spread: float, width: int, dtype=np.float64) -> Case:
    """Rows ``offset + U(-spread, spread)`` with the ``offsets`` (each moved by up to ``jitter``)
    in random order. Guaranteed on every draw: a naive exp overflows (some entry above 709.8, so
    in float32 and float64), the rows' maxima are spread wider than exp's whole range (no single
    shift such as one global maximum rescues every row; only the top row survives it), and every
    row's fate under a naive exp or a global maximum is clear-cut in float64 (and in float32 for
    float32 inputs), never at a rounding edge."""
    rows = rng.permutation(np.asarray(offsets, dtype=np.float64))
    rows = rows + rng.uniform(-jitter, jitter, rows.shape)
    x = (rows[:, None] + rng.uniform(-spread, spread, (rows.size, width))).astype(dtype)
    dtypes = (np.float64,) if dtype == np.float64 else (np.float64, dtype)
    conditions.require(conditions.overflows_exp(x), name, "a naive exp that overflows")
    conditions.require(conditions.maxima_spread(x) > conditions.EXP_RANGE_FLOAT64, name,
                       "row maxima spread wider than exp's range")
    conditions.require(conditions.exp_outcomes_clear(x, -1, dtypes), name,
                       "rows clearly in or out of exp's range")
    return value_case(name, "stability", x)


def _vector_stability_case(rng: np.random.Generator) -> Case:
    """A 1-D input (7 entries) at an offset in [1500, 3000], spread over 500 at most (entries
    evenly 500/6 apart, jittered less than a tenth of that, shuffled): a naive exp overflows on
    every draw, while the maximum, the minimum or one global maximum subtracted are all exact
    (the spread stays far below exp's range), so only code that skips the shift for 1-D input,
    or overflows otherwise, fails it."""
    name = "stability: a 1-D input in the thousands"
    grid = np.linspace(-250.0, 250.0, 7) + rng.uniform(-8.0, 8.0, 7)
    x = rng.uniform(1500.0, 3000.0) + rng.permutation(grid)
    largest = conditions.EXP_OVERFLOW[np.dtype(np.float64)]
    conditions.require(x.ndim == 1, name, "a 1-D input")
    conditions.require(bool(x.min() > largest + 10), name, "a naive exp that overflows everywhere")
    conditions.require(bool(np.ptp(x) < largest - 10 - np.log(x.size)), name,
                       "entries that any shift by one of them brings within exp's range")
    case = value_case(name, "stability", x)
    case.traits = case.traits | {"stable-1d"}
    return case


def _axis_stability_case(rng: np.random.Generator) -> Case:
    """A (4, 3, 5) input normalised over axis 0: each of the 15 slices along axis 0 sits at its
    own offset (the 15 offsets -3500, -3000, ..., 3500 in random order, each moved by up to 50),
    its 4 entries spread over 60 at most. Guaranteed on every draw: a naive exp overflows, the
    slices' maxima spread wider than exp's range (one global maximum leaves slices at 0/0), every
    slice's fate under either is clear-cut, a shift by the slice's minimum is exact, and the
    axis's length differs from the last one's, so code that is stable on the last axis only, or
    ignores the axis, fails it."""
    name = "stability: axis=0 on a 3-D input in the thousands"
    offsets = rng.permutation(np.arange(-3500.0, 3501.0, 500.0)) + rng.uniform(-50, 50, 15)
    x = offsets.reshape(1, 3, 5) + rng.uniform(-30.0, 30.0, (4, 3, 5))
    conditions.require(x.shape[0] != x.shape[-1], name,
                       "an axis whose length differs from the last axis's")
    conditions.require(conditions.overflows_exp(x), name, "a naive exp that overflows")
    conditions.require(conditions.maxima_spread(x, axis=0) > conditions.EXP_RANGE_FLOAT64, name,
                       "slice maxima spread wider than exp's range")
    conditions.require(conditions.exp_outcomes_clear(x, 0), name,
                       "slices clearly in or out of exp's range")
    case = value_case(name, "stability", x, axis=0)
    case.traits = case.traits | {"stable-axis"}
    return case


def _spread_case(rng: np.random.Generator) -> Case:
    """Rows at offsets -3000, 0 and 3000 (random order), each spread over 1600 (six entries
    evenly 320 apart, shuffled): every row spans more than twice the largest finite exponent
    (709.8), so subtracting the row's MINIMUM (not its maximum) overflows in every row, and so
    does subtracting its MEAN (each row is symmetric about its offset: max - mean = 800); a
    naive exp overflows, and a global maximum leaves the lower rows at 0/0."""
    name = "stability: entries spread over thousands within each row"
    rows = rng.permutation(np.array([-3000.0, 0.0, 3000.0])) + rng.uniform(-50, 50, 3)
    x = rows[:, None] + np.stack([rng.permutation(np.linspace(-800.0, 800.0, 6))
                                  for _ in range(3)])
    largest = conditions.EXP_OVERFLOW[np.dtype(np.float64)]
    conditions.require(bool((np.ptp(x, axis=-1) > 2 * largest).all()), name,
                       "every row spread over more than twice the largest finite exponent")
    conditions.require(conditions.overflows_exp(x), name, "a naive exp that overflows")
    conditions.require(conditions.maxima_spread(x) > conditions.EXP_RANGE_FLOAT64, name,
                       "row maxima spread wider than exp's range")
    case = value_case(name, "stability", x)
    case.traits = case.traits | {"wide-rows"}
    return case


def _dominant_case(rng: np.random.Generator) -> Case:
    """Each row has one entry 500 above the others (bounded by 3), in a random column: its
    weight is 1 to within exp(-494), far below the tolerance."""
    name = "properties: one dominant entry gives a one-hot row"
    x = conditions.bounded(rng, 3, 5)
    x[np.arange(3), rng.permutation(5)[:3]] += 500.0
    conditions.require(conditions.row_gaps(x).min() > 50.0, name,
                       "one entry per row at least 50 above the rest")
    return value_case(name, "properties", x)


def _float32_case(name: str, x: np.ndarray) -> Case:
    conditions.require(x.dtype == np.float32, name, "a float32 input")
    return value_case(name, "dtypes", x)


def _buggy(x, axis=-1, *, ignore_axis=False, keepdims=True, stable=True, global_max=False,
           whole_array=False, min_shift=False, mean_shift=False):
    x = np.asarray(x)
    x = x.astype(np.result_type(x.dtype, np.float32))
    axis = -1 if ignore_axis else axis
    with np.errstate(all="ignore"):
        if not stable:
            e = np.exp(x)
        elif global_max:
            e = np.exp(x - x.max())
        elif min_shift:
            e = np.exp(x - np.min(x, axis=axis, keepdims=True))
        elif mean_shift:
            e = np.exp(x - np.mean(x, axis=axis, keepdims=True))
        else:
            e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        total = e.sum() if whole_array else np.sum(e, axis=axis, keepdims=keepdims)
        return e / total


def _variant(tag, bug, message, **bug_args) -> Variant:
    return Variant(tag=tag, bug=bug, message=message,
                   fn=lambda x, axis=-1: _buggy(x, axis, **bug_args))


VARIANTS = [
    _variant("ignores_axis", "5", "The axis argument is ignored (the softmax is always taken over "
             "the last axis): pass `axis` to every max and sum.", ignore_axis=True),
    _variant("no_keepdims", "6", "The sum (or max) is taken without keepdims=True, so it "
             "broadcasts against the wrong axis: use np.sum(e, axis=axis, keepdims=True).",
             keepdims=False),
    _variant("not_stable", "7", "np.exp overflows for large entries (inf/NaN): subtract the "
             "maximum along the axis first; the softmax is unchanged by that shift.", stable=False),
    _variant("global_max", "7", "One global maximum is subtracted instead of the maximum of each "
             "slice, so slices far below it underflow to 0/0: use "
             "np.max(x, axis=axis, keepdims=True).", global_max=True),
    _variant("min_subtracted", "7", "The minimum of each slice is subtracted instead of the "
             "maximum, so np.exp still overflows for entries far above it: subtract "
             "np.max(x, axis=axis, keepdims=True), which makes every exponent 0 or less.",
             min_shift=True),
    _variant("mean_subtracted", "7", "The mean of each slice is subtracted instead of the "
             "maximum, so np.exp still overflows for entries far above the mean: subtract "
             "np.max(x, axis=axis, keepdims=True), which makes every exponent 0 or less.",
             mean_shift=True),
    _variant("whole_array", "5", "The exponentials are divided by the sum over the whole array, "
             "not along the axis: each slice along `axis` must sum to 1.", whole_array=True),
]

def describe(case: Case, values: list) -> str | None:
    """Sums along the requested axis and the NaN share of a failing case's first output."""
    args = case.calls[0][0]
    axis = args[1] if len(args) > 1 else -1
    out = as_array(values[0])
    found = output_signals(out)
    if not found and out is not None and out.shape == np.shape(args[0]):
        sums = out.sum(axis=axis)
        if np.abs(sums - 1).max() > 1e-3:
            found.append(f"slices along the axis sum to between {sums.min():.3g} and "
                         f"{sums.max():.3g} instead of 1")
    return "; ".join(found) or None


RULES = [
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
]

PROBLEM = CodeProblem(
    id="softmax", function=FUNCTION, title="Numerically stable softmax", contract=CONTRACT,
    starter=STARTER, categories=CATEGORIES, visible_cases=visible_cases,
    hidden_cases=hidden_cases, variants=VARIANTS, rules=RULES, describe=describe,
    reference=reference.softmax,
)
