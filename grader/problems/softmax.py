"""Problem ``softmax(x, axis=-1)``.

Categories: ``shapes`` (shape only), ``axis`` (a non-default axis on 2-D and 3-D inputs),
``values`` (default axis), ``stability`` (values in the hundreds and thousands; rows at very
different offsets), ``properties`` (shift invariance judged on the learner's own outputs, equal
entries give a uniform row, one dominant entry gives one-hot), ``dtypes`` (float32).
Mistakes: attention-bugs.md entries 5 (wrong axis), 6 (no keepdims), 7 (no max subtraction), plus
subtracting a global maximum and normalising over the whole array.
"""
from __future__ import annotations

import numpy as np

from grader.problems import checks, inputs, reference
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
    n = lambda *s: rng.standard_normal(s)  # noqa: E731
    cases = [
        Case(name="shapes: 1-D input", category="shapes", calls=[_call(n(7), None)],
             check=checks.shapes([((7,), None)])),
        Case(name="shapes: 3-D input", category="shapes", calls=[_call(n(3, 4, 5), None)],
             check=checks.shapes([((3, 4, 5), None)])),
        value_case("axis: axis=0 on a 2-D input", "axis", n(4, 6), 0),
        value_case("axis: axis=1 on a 3-D input", "axis", n(3, 4, 5), 1),
        value_case("axis: a negative axis (-2) on a 3-D input", "axis", n(3, 5, 4), -2),
        value_case("values: default axis on a 2-D input", "values", n(5, 7)),
        value_case("values: default axis on a 3-D input", "values", n(2, 3, 4)),
        value_case("stability: entries in the thousands", "stability", 1000.0 * n(5, 6)),
        value_case("stability: rows at very different offsets", "stability",
                   n(4, 5) + np.array([[-1500.0], [0.0], [800.0], [1500.0]])),
        value_case("stability: entries in the hundreds (float32)", "stability",
                   (100.0 * n(3, 6) + 900.0).astype(np.float32)),
    ]
    x, shift = n(4, 6), 40.0 * n(4, 1)
    cases += [
        Case(name="properties: adding a constant to a row changes nothing", category="properties",
             calls=[_call(x, None), _call(x + shift, None)],
             check=checks.relation(lambda out: out, "shift invariance")),
        value_case("properties: equal entries give a uniform row", "properties",
                   np.repeat(n(3, 1), 5, axis=1)),
        value_case("properties: one dominant entry gives a one-hot row", "properties",
                   n(3, 5) + 500.0 * np.eye(3, 5)),
        value_case("dtypes: float32 input", "dtypes", n(4, 5).astype(np.float32)),
        inputs.case("inputs: x is not modified in place", _call(10.0 * n(4, 5), 0), ("x",)),
    ]
    return cases


def _buggy(x, axis=-1, *, ignore_axis=False, keepdims=True, stable=True, global_max=False,
           whole_array=False):
    x = np.asarray(x)
    x = x.astype(np.result_type(x.dtype, np.float32))
    axis = -1 if ignore_axis else axis
    with np.errstate(all="ignore"):
        if not stable:
            e = np.exp(x)
        elif global_max:
            e = np.exp(x - x.max())
        else:
            e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        total = e.sum() if whole_array else np.sum(e, axis=axis, keepdims=keepdims)
        return e / total


def _variant(kind, bug, message, **bug_args) -> Variant:
    return Variant(kind=kind, bug=bug, message=message,
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
    Rule(kind="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
]

PROBLEM = CodeProblem(
    id="softmax", function=FUNCTION, title="Numerically stable softmax", contract=CONTRACT,
    starter=STARTER, categories=CATEGORIES, visible_cases=visible_cases,
    hidden_cases=hidden_cases, variants=VARIANTS, rules=RULES, describe=describe,
    reference=reference.softmax,
)
