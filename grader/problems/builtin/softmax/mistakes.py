"""The mistakes ``softmax`` is checked for (docs/references.md, "Attention mistakes", entries 5
(wrong axis), 6 (no keepdims), 7 (no max subtraction), plus subtracting a global maximum, the
minimum or the mean, and normalising over the whole array), its cross-case rules and the signals
read off a failing case."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.base import Case, Rule
from grader.problems.compare import as_array
from grader.problems.rules import failed_in_category
from grader.problems.signals import output_signals
from grader.problems.spec import mistake


def buggy_softmax(x, axis=-1, *, ignore_axis=False, keepdims=True, shift="max",
                  whole_array=False, force_axis=None):
    """Softmax with optional mistakes, in the input's floating dtype (at least float32):
    ``ignore_axis`` always uses the last axis, ``keepdims=False`` divides by a sum without
    keepdims, ``shift`` is what is subtracted before exp (``"max"`` of each slice, correct;
    ``"none"``; ``"global"``, one global maximum; each slice's ``"min"`` or ``"mean"``),
    ``whole_array`` divides by the sum over every entry; ``force_axis`` takes the softmax over a
    fixed axis whatever ``axis`` says: an int, or ``"first_non_singleton"`` (the first axis longer
    than 1, as ``np.squeeze``-style code finds it; the last axis when there is none)."""
    x = np.asarray(x)
    x = x.astype(np.result_type(x.dtype, np.float32))
    axis = -1 if ignore_axis else axis
    if force_axis == "first_non_singleton":
        axis = next((i for i, n in enumerate(x.shape) if n > 1), -1)
    elif force_axis is not None:
        axis = force_axis
    shifts = {"max": lambda: np.max(x, axis=axis, keepdims=True), "none": lambda: 0,
              "global": lambda: x.max(), "min": lambda: np.min(x, axis=axis, keepdims=True),
              "mean": lambda: np.mean(x, axis=axis, keepdims=True)}
    with np.errstate(all="ignore"):
        e = np.exp(x - shifts[shift]())
        total = e.sum() if whole_array else np.sum(e, axis=axis, keepdims=keepdims)
        return e / total


MISTAKES = (
    mistake("ignores_axis", "The axis argument is ignored (the softmax is always taken over the "
            "last axis): pass `axis` to every max and sum.", {"ignore_axis": True}, bug="5"),
    mistake("no_keepdims", "The sum (or max) is taken without keepdims=True, so it broadcasts "
            "against the wrong axis: use np.sum(e, axis=axis, keepdims=True).",
            {"keepdims": False}, bug="6"),
    mistake("not_stable", "np.exp overflows for large entries (inf/NaN): subtract the maximum "
            "along the axis first; the softmax is unchanged by that shift.", {"shift": "none"},
            bug="7"),
    mistake("global_max", "One global maximum is subtracted instead of the maximum of each slice, "
            "so slices far below it underflow to 0/0: use np.max(x, axis=axis, keepdims=True).",
            {"shift": "global"}, bug="7"),
    mistake("min_subtracted", "The minimum of each slice is subtracted instead of the maximum, so "
            "np.exp still overflows for entries far above it: subtract "
            "np.max(x, axis=axis, keepdims=True), which makes every exponent 0 or less.",
            {"shift": "min"}, bug="7"),
    mistake("mean_subtracted", "The mean of each slice is subtracted instead of the maximum, so "
            "np.exp still overflows for entries far above the mean: subtract "
            "np.max(x, axis=axis, keepdims=True), which makes every exponent 0 or less.",
            {"shift": "mean"}, bug="7"),
    mistake("whole_array", "The exponentials are divided by the sum over the whole array, not "
            "along the axis: each slice along `axis` must sum to 1.", {"whole_array": True},
            {"whole_array": True, "shift": "global"},
            bug="5"),
    mistake("fixed_axis", "The softmax is always taken over axis 1, whatever `axis` says: axis 1 "
            "is the right axis only for some inputs. Pass `axis` to every max and sum.",
            {"force_axis": 1}, bug="5"),
    mistake("first_non_singleton_axis", "The softmax is taken over the first axis longer than 1, "
            "not over `axis`: that is the requested axis only when every axis before it has "
            "length 1. Pass `axis` to every max and sum.",
            {"force_axis": "first_non_singleton"}, bug="5"),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
)


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
