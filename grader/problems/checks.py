"""Check factories shared by the problems: each returns a :data:`grader.problems.base.Check`, a
function from the values the learner's calls returned (in call order) to None (pass) or a
learner-safe failure message (where and by how much, never the inputs or expected values).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from grader.problems.base import Check
from grader.problems.compare import ATOL, as_array, mismatch, nonfinite, split_return


def tagged(basis: str, check: Check) -> Check:
    """``check`` tagged with what it compares (see :data:`grader.problems.base.BASES`)."""
    check.basis = basis  # type: ignore[attr-defined]
    return check


def _prefix(n_calls: int, index: int) -> str:
    return f"call {index + 1} of {n_calls}: " if n_calls > 1 else ""


def values(expected: Sequence[tuple[np.ndarray, np.ndarray | None]],
           rows: Sequence[np.ndarray | None] | None = None, atol: float = ATOL,
           alternative_weights: Sequence[np.ndarray | None] | None = None) -> Check:
    """Each call's output (and its weights, when the learner returns ``(output, weights)`` and the
    problem has weights) must equal the expected pair within tolerance on the checked rows.
    ``rows[i]`` selects the output rows of call i; the weights are then checked on the rows where
    the expected weights are finite (the reference leaves fully masked rows NaN).
    ``alternative_weights[i]``, when given, is another accepted form of call i's weights (e.g.
    averaged over heads, as PyTorch returns them), used when the returned weights have its shape."""
    alternatives = list(alternative_weights or [None] * len(expected))
    rows = list(rows) if rows is not None else [None] * len(expected)

    def check(got: list[Any]) -> str | None:
        for index, (value, (out, weights)) in enumerate(zip(got, expected)):
            learner_out, learner_weights = split_return(value)
            if weights is None:
                learner_out, learner_weights = value, None
            message = mismatch(learner_out, out, "output", rows[index], atol)
            if message is None and learner_weights is not None:
                alternative = alternatives[index]
                if alternative is not None and np.shape(learner_weights) == alternative.shape:
                    weights = alternative
                weight_rows = None if rows[index] is None else np.isfinite(weights).all(axis=-1)
                message = mismatch(learner_weights, weights, "returned weights", weight_rows, atol)
            if message:
                return _prefix(len(expected), index) + message
        return None

    return tagged("values", check)


def shapes(expected: Sequence[tuple[tuple[int, ...], tuple[int, ...] | None]],
           alternative_weight_shapes: Sequence[tuple[int, ...]] = ()) -> Check:
    """Only the output shape (and the weights' shape, when returned) is judged; a weights shape in
    ``alternative_weight_shapes`` (one per call) is accepted too. A right-shaped array with NaN or
    inf entries fails: shape credit needs a finite output (``np.zeros`` earns it, all-NaN not)."""

    def check(got: list[Any]) -> str | None:
        for index, (value, (out_shape, weights_shape)) in enumerate(zip(got, expected)):
            out, weights = split_return(value) if weights_shape is not None else (value, None)
            if (weights is not None and index < len(alternative_weight_shapes)
                    and np.shape(weights) == tuple(alternative_weight_shapes[index])):
                weights_shape = alternative_weight_shapes[index]
            for what, array, shape in (("output", out, out_shape),
                                       ("returned weights", weights, weights_shape)):
                if array is None or shape is None:
                    continue
                numeric = as_array(array)
                if numeric is None:
                    return _prefix(len(expected), index) + f"the {what} is not a numeric array"
                if numeric.shape != tuple(shape):
                    return (_prefix(len(expected), index) + f"the {what} has shape "
                            f"{tuple(numeric.shape)}, expected {tuple(shape)}")
                bad = nonfinite(numeric)
                if bad:
                    return (_prefix(len(expected), index) + f"the {what} has the right shape but "
                            f"contains {bad}; a shape test counts only for a finite output")
        return None

    return tagged("shape", check)


def relation(transform: Callable[[np.ndarray], np.ndarray], what: str,
             rows: np.ndarray | None = None) -> Check:
    """Two calls: the second call's output must equal ``transform`` of the first call's output
    (e.g. permutation equivariance). Judges the learner against itself, not the reference."""

    def check(got: list[Any]) -> str | None:
        first, second = (as_array(split_return(v)[0]) for v in got)
        if first is None or second is None:
            return "the output is not a numeric array"
        try:
            target = transform(first)
        except (ValueError, IndexError):
            return f"the output has shape {tuple(first.shape)}, which the {what} check cannot use"
        message = mismatch(second, target, "output", rows)
        return None if message is None else f"{what} does not hold: {message}"

    return tagged("property", check)


def all_of(*checks: Check) -> Check:
    """Every check must pass; the first failure is reported. The combination counts as a value
    test only if every part does, else as a property test."""

    def check(got: list[Any]) -> str | None:
        for one in checks:
            message = one(got)
            if message:
                return message
        return None

    bases = {getattr(one, "basis", "") for one in checks}
    return tagged("values" if bases == {"values"} else "property", check)
