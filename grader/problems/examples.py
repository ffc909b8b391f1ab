"""The visible examples as learners see them: each example's inputs, named by the contract's
parameters, and the reference's expected output (and weights, where the problem shows them),
rounded to 6 decimals. Only visible examples are ever rendered here; their inputs are public.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from grader.problems.base import REFERENCE, Case, CodeProblem
from grader.problems.compare import split_return


def _plain(value: Any) -> Any:
    if isinstance(value, dict):  # e.g. an encoder block's params
        return {k: _plain(v) for k, v in value.items()}
    return np.asarray(value).tolist() if isinstance(value, np.ndarray) else value


def _rounded(value: Any) -> Any:
    if isinstance(value, tuple):  # several results (a decoding step's output and caches)
        return [_rounded(v) for v in value]
    array = np.asarray(value)
    if np.issubdtype(array.dtype, np.floating):
        array = np.round(array, 6)
    return array.tolist()


def public(problem: CodeProblem, case: Case, expected: list[Any]) -> dict[str, Any]:
    """``{"inputs": {name: value}, "expected_output": ..., ["expected_weights": ...]}`` of the
    visible example ``case`` (one call), ``expected`` being the reference's values. Under a
    course's ``contract:`` options the inputs are the course's call (names, order, mask
    convention) and the expected output is written the course's way."""
    args, kwargs = case.calls[0]
    names = problem.parameter_names
    course = problem.course
    if course is not None:  # the course's call: its order, its mask convention
        sent, _ = course.call(args, kwargs)
        names = tuple(course.names[i] for i in course.order)
        args, kwargs = sent, {}
    shown = {names[i]: _plain(a) for i, a in enumerate(args) if a is not None}
    shown.update({k: _plain(v) for k, v in kwargs.items() if v is not None})
    out, weights = split_return(expected[0]) if problem.spec.returns_weights else (expected[0],
                                                                                   None)
    if course is not None and course.kind in ("causal_mask", "encoding"):
        out = course.shown(out, *case.calls[0])
    found = {"inputs": shown, "expected_output": _rounded(out)}
    if weights is not None and problem.spec.show_weights:
        found["expected_weights"] = _rounded(weights)
    return found


def public_examples(problem: CodeProblem) -> list[dict[str, Any]]:
    """Every visible example as :func:`public` renders it, with its name and category."""
    return [{"name": case.name, "category": case.category,
             **public(problem, case, [v for v, _ in problem.executor.values(REFERENCE, case)])}
            for case in problem.visible_cases()]
