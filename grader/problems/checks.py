"""The checks, by name (scikit-learn's estimator checks and CodeRunner's graders work the same way):
each judges the values a learner's calls returned (in call order) against the reference's values
for the same calls and returns None (pass) or a learner-safe failure message (where and by how
much, never the inputs or expected values).

A check is ``check(got, expected, case) -> str | None``: ``got`` the learner's values, ``expected``
the reference's (one per call), ``case`` the :class:`grader.problems.base.Case` (its ``options``,
``rows`` and ``data``). Each is tagged with its *basis* (:data:`grader.problems.base.BASES`), what
it compares, which the credit rule reads; :func:`check` registers a function under a name and a
basis, so no check counts as a value test by accident. A problem adds its own checks
(``ProblemSpec.checks``) the same way.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from grader.problems.base import BASES
from grader.problems.inputs import argument_names, arguments_after
from grader.problems.compare import (ATOL, RTOL, agrees, as_array, mismatch, nonfinite, several,
                                     split_return)

Check = Callable[[list, list, Any], "str | None"]

#: The shared checks by name (:func:`check` adds to it).
CHECKS: dict[str, Check] = {}


def check(basis: str, name: str | None = None,
          table: dict[str, Check] | None = None) -> Callable[[Check], Check]:
    """Decorator: register the check under ``name`` (default: the function's name) in ``table``
    (default :data:`CHECKS`), tagged with ``basis``. ValueError for an unknown basis."""
    if basis not in BASES:
        raise ValueError(f"basis must be one of {BASES}, got {basis!r}")

    def register(fn: Check) -> Check:
        fn.basis = basis  # type: ignore[attr-defined]
        (CHECKS if table is None else table)[name or fn.__name__] = fn
        return fn

    return register


def _prefix(n_calls: int, index: int) -> str:
    return f"call {index + 1} of {n_calls}: " if n_calls > 1 else ""


def _pair(reference: Any) -> tuple[Any, Any]:
    """The reference's ``(output, weights)``; weights None for a reference returning one array."""
    if isinstance(reference, tuple) and len(reference) == 2:
        return reference
    return reference, None


def _head_mean(weights: np.ndarray) -> np.ndarray:
    """Weights (..., H, Lq, Lk) averaged over the heads, as PyTorch returns them."""
    return np.asarray(weights).mean(axis=-3)


def _result_names(case, count: int) -> tuple[str, ...]:
    """The names of a function's several results (``options["results"]``, e.g. ``("m", "l",
    "o")``), or ``result 1``, ``result 2``, ..."""
    names = tuple(case.options.get("results", ()))
    return names if len(names) == count else tuple(f"result {i + 1}" for i in range(count))


def _several_problem(value: Any, reference: tuple, case, compare) -> str | None:
    """``compare(array, expected, what)`` on each of several results, in order; the first
    failure, or a message when ``value`` is not a tuple of as many."""
    names = _result_names(case, len(reference))
    if not (isinstance(value, (tuple, list)) and len(value) == len(reference)):
        got = f"a {type(value).__name__} of {len(value)}" if isinstance(
            value, (tuple, list)) else f"a {type(value).__name__}"
        return (f"the function must return a tuple of {len(reference)} arrays "
                f"({', '.join(names)}), got {got}")
    for name, array, expected in zip(names, value, reference):
        message = compare(array, expected, name)
        if message:
            return message
    return None


@check("values")
def values(got: list, expected: list, case) -> str | None:
    """Each call's output (and its weights, when the learner returns ``(output, weights)`` and the
    reference returns weights) must equal the reference's within tolerance on the checked rows
    (``case.rows``); the weights are then checked on the rows where the reference's weights are
    finite (fully masked rows are NaN). Options: ``atol``, ``rtol``;
    ``alternative_weights: "head_mean"``
    accepts weights averaged over the heads too, when the returned weights have that shape."""
    atol, rtol = case.options.get("atol", ATOL), case.options.get("rtol", RTOL)
    for index, (value, reference) in enumerate(zip(got, expected)):
        if several(reference) is not None:  # (m, l, o), (dQ, dK, dV): each result named
            message = _several_problem(value, reference, case,
                                       lambda a, e, what: mismatch(a, e, what, None, atol, rtol))
            if message:
                return _prefix(len(expected), index) + message
            continue
        out, weights = _pair(reference)
        learner_out, learner_weights = split_return(value) if weights is not None else (value, None)
        rows = case.rows_for(index)
        message = mismatch(learner_out, out, "output", rows, atol, rtol)
        if message is None and learner_weights is not None:
            if case.options.get("alternative_weights") == "head_mean" and \
                    np.shape(learner_weights) == _head_mean(weights).shape:
                weights = _head_mean(weights)
            weight_rows = None if rows is None else np.isfinite(weights).all(axis=-1)
            message = mismatch(learner_weights, weights, "returned weights", weight_rows, atol,
                               rtol)
        if message:
            return _prefix(len(expected), index) + message
    return None


@check("shape")
def shapes(got: list, expected: list, case) -> str | None:
    """Only the output's shape (and the weights', when returned) is judged, against the
    reference's; ``alternative_weights: "head_mean"`` accepts the head-averaged weights' shape. A
    right-shaped array with NaN or inf entries fails: shape credit needs a finite output
    (``np.zeros`` earns it, all-NaN not); option ``allow_neg_inf`` accepts -inf entries (a mask's
    blocked positions, as in an additive mask), NaN and +inf still fail."""
    for index, (value, reference) in enumerate(zip(got, expected)):
        if several(reference) is not None:
            message = _several_problem(value, reference, case, lambda a, e, what: _shape_problem(
                what, a, np.shape(e), allow_inf=not np.isfinite(e).all()))
            if message:
                return _prefix(len(expected), index) + message
            continue
        out_ref, weights_ref = _pair(reference)
        out_shape = np.shape(out_ref)
        weights_shape = None if weights_ref is None else np.shape(weights_ref)
        out, weights = split_return(value) if weights_shape is not None else (value, None)
        if (weights is not None and case.options.get("alternative_weights") == "head_mean"
                and np.shape(weights) == _head_mean(weights_ref).shape):
            weights_shape = _head_mean(weights_ref).shape
        for what, array, shape in (("output", out, out_shape),
                                   ("returned weights", weights, weights_shape)):
            if array is None or shape is None:
                continue
            message = _shape_problem(what, array, shape,
                                     allow_neg_inf=bool(case.options.get("allow_neg_inf")))
            if message:
                return _prefix(len(expected), index) + message
    return None


def _shape_problem(what: str, array: Any, shape: tuple[int, ...],
                   allow_inf: bool = False, allow_neg_inf: bool = False) -> str | None:
    """``allow_inf``: -inf/inf entries are part of a right answer (the maximum of no scores is
    -inf); ``allow_neg_inf``: -inf entries are (a mask's blocked positions); NaN still fails."""
    numeric = as_array(array)
    if numeric is None:
        return f"the {what} {agrees(what, 'is')} not a numeric array"
    if numeric.shape != tuple(shape):
        return (f"the {what} {agrees(what, 'has')} shape {tuple(numeric.shape)}, expected "
                f"{tuple(shape)}")
    if (allow_inf or allow_neg_inf) and numeric.dtype.kind == "f":
        numeric = np.where(np.isinf(numeric) if allow_inf else numeric == -np.inf, 0.0, numeric)
    bad = nonfinite(numeric)
    if bad:
        return (f"the {what} {agrees(what, 'has')} the right shape but "
                f"{agrees(what, 'contains')} {bad}; a shape test counts only for a finite output")
    return None


#: How a relation check transforms the first call's output before comparing it with the second's.
RELATIONS: dict[str, Callable[[np.ndarray, Any], np.ndarray]] = {
    "same": lambda out, case: out,
    "permuted_rows": lambda out, case: out[..., case.data["perm"], :],
}


@check("property")
def relation(got: list, expected: list, case) -> str | None:
    """Two calls: the second call's output must equal the first call's output transformed by
    ``options["relation"]`` (:data:`RELATIONS`; e.g. permutation equivariance: the rows permuted
    by ``data["perm"]``). ``options["what"]`` names the law. Judges the learner against itself."""
    what = case.options["what"]
    first, second = (as_array(split_return(v)[0]) for v in got)
    if first is None or second is None:
        return "the output is not a numeric array"
    try:
        target = RELATIONS[case.options.get("relation", "same")](first, case)
    except (ValueError, IndexError):
        return f"the output has shape {tuple(first.shape)}, which the {what} check cannot use"
    message = mismatch(second, target, "output")
    return None if message is None else f"{what} does not hold: {message}"


@check("inputs", "inputs")
def inputs_unchanged(got: list, expected: list, case) -> str | None:
    """The array and dict arguments (named ``options["names"]``) must come back unchanged, bit
    for bit (a dict: the same keys, each with an unchanged value): the call goes through
    :data:`grader.problems.inputs.WRAPPER`, which returns ``(result, arrays_after)``
    (:func:`grader.problems.inputs.arguments_after`)."""
    args = case.calls[0][0]
    originals = arguments_after(args)
    names = argument_names(args, case.options["names"])
    value = got[0]
    if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], tuple)
            and len(value[1]) == len(originals)):
        return "the call did not complete normally"
    if as_array(value[0]) is None and not isinstance(value[0], tuple):
        return "the function did not return an array"
    changed = [name for name, before, after in zip(names, originals, value[1])
               if np.shape(after) != np.shape(before)
               or not np.array_equal(np.asarray(after), before, equal_nan=True)]
    if changed:
        return (f"your function modified its input{'s' if len(changed) > 1 else ''} "
                f"{', '.join(changed)} in place")
    return None
