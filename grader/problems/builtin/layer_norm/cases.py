"""The cases of ``layer_norm(x, gamma, beta, eps=1e-5)``, each with the constructor that draws
it.

Every x has rows that are not centred (offsets up to twice their spread) and not standardised
(standard deviations 30 to 60, where eps = 1e-5 changes nothing the tolerance sees), gamma
entries of magnitude 0.5 to 1.5 and random sign, beta bounded normal; every 2-D x has more rows
than columns or fewer, never as many (so a mean without keepdims raises). The eps cases: rows
whose variance is near the default eps (deviations 2.5e-3 to 4e-3, about small offsets), where
sqrt(var + eps) differs from sqrt(var) + eps and from sqrt(var) by a quarter or more; an eps of 0.1;
rows with all entries equal (variance 0), whose output is beta. The property cases judge the
learner's own outputs: shifting every row by its own constant changes nothing; with gamma = 1
and beta = 0 every row has mean 0 and variance 1 (to within var / (var + eps)).
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions
from grader.problems.checks import check
from grader.problems.compare import as_array, mismatch
from grader.problems.conditions import require
from grader.problems.spec import Inputs, draw, example, hidden, inputs

#: This problem's own checks.
CHECKS: dict = {}


def call(x, gamma, beta, eps=None) -> tuple[tuple, dict]:
    """The call ``f(x, gamma, beta)`` or ``f(x, gamma, beta, eps)``."""
    return ((x, gamma, beta) if eps is None else (x, gamma, beta, eps)), {}


#: The rows' standard deviations: variances of 900 or more, where eps = 1e-5 moves the output by
#: less than 1e-8 (far below the tolerance), so only the eps cases judge what is done with eps.
SPREAD = (30.0, 60.0)


def rows(rng, shape, spread=SPREAD) -> np.ndarray:
    """x of ``shape``: each row an offset in [-2, 2] times the spread plus normal entries
    standardised over the row (mean 0, standard deviation 1) times a spread drawn from
    ``spread``: every row's standard deviation is its spread."""
    offsets = rng.uniform(-2.0, 2.0, (*shape[:-1], 1)) * np.mean(spread)
    scales = rng.uniform(*spread, (*shape[:-1], 1))
    return offsets + scales * standardised(rng, shape)


def standardised(rng, shape) -> np.ndarray:
    """Bounded normal draws of ``shape``, each row moved and scaled to mean 0, deviation 1."""
    z = conditions.bounded(rng, *shape)
    return (z - z.mean(axis=-1, keepdims=True)) / z.std(axis=-1, keepdims=True)


def affine(rng, d) -> tuple[np.ndarray, np.ndarray]:
    """gamma (magnitudes 0.5 to 1.5, random signs) and beta (bounded normal), of size d; gamma
    and beta differ by at least 0.5 somewhere (swapping them shows)."""
    gamma, beta = conditions.away_from_zero(rng, d), conditions.bounded(rng, d)
    require(bool(np.abs(gamma - beta).max() >= 0.5), "gamma and beta that differ")
    return gamma, beta


def _not_square(x) -> None:
    if x.ndim == 2:
        require(x.shape[0] != x.shape[1], "a 2-D x that is not square")


def normal(rng, shape, eps=None, spread=SPREAD, dtype=np.float64) -> Inputs:
    """x of :func:`rows` (``spread``), gamma and beta of :func:`affine`, ``eps`` given when not
    None."""
    x = rows(rng, shape, spread)
    _not_square(x)
    gamma, beta = affine(rng, shape[-1])
    require(bool(x.std(axis=-1).min() >= 0.99 * spread[0]), "rows with a clear spread")
    return inputs(call(*(a.astype(dtype) for a in (x, gamma, beta)), eps))


def near_eps(rng, shape) -> Inputs:
    """Rows of standard deviation 2.5e-3 to 4e-3 (variance 6e-6 to 1.6e-5, about the default
    eps) about offsets of magnitude 5e-3 to 1e-2 (small, so float32 code represents the rows as
    finely as float64 code, relative to their spread)."""
    offsets = conditions.away_from_zero(rng, *shape[:-1], 1, low=5e-3, high=1e-2)
    x = offsets + standardised(rng, shape) * rng.uniform(2.5e-3, 4e-3, (*shape[:-1], 1))
    _not_square(x)
    var = x.var(axis=-1)
    require(bool((var > 2e-6).all() and (var < 3e-5).all()), "row variances near 1e-5")
    gamma, beta = affine(rng, shape[-1])
    return inputs(call(x, gamma, beta))


def constant_rows(rng, shape) -> Inputs:
    """Every other row has all entries equal to a multiple of 1/8 in [-3, 3] (its mean is then
    exact: x - mean is exactly 0, the variance exactly 0, the output beta); the others are
    :func:`rows`."""
    x = rows(rng, shape)
    x[::2] = np.round(8 * rng.uniform(-3.0, 3.0, (x[::2].shape[0], 1))) / 8
    _not_square(x)
    require(bool((x[::2] - x[::2].mean(axis=-1, keepdims=True) == 0).all()),
            "rows of equal entries whose mean is exact")
    gamma, beta = affine(rng, shape[-1])
    return inputs(call(x, gamma, beta))


def shifted(rng, shape) -> Inputs:
    """Two calls: x, then x with each row shifted by its own constant in [-20, 20] (at least 5
    apart)."""
    x = rows(rng, shape)
    _not_square(x)
    gamma, beta = affine(rng, shape[-1])
    shift = conditions.spaced(rng, shape[0], -20.0, 20.0, 5.0)[:, None]
    return inputs(call(x, gamma, beta), call(x + shift, gamma, beta))


def standard(rng, shape) -> Inputs:
    """gamma = 1 and beta = 0."""
    x = rows(rng, shape)
    _not_square(x)
    return inputs(call(x, np.ones(shape[-1]), np.zeros(shape[-1])))


@check("property", "standardised_rows", table=CHECKS)
def standardised_rows(got: list, expected: list, case) -> str | None:
    """With gamma = 1 and beta = 0, each row of the learner's output has mean 0 and biased
    variance var / (var + eps) of its x row (1 to within 1e-5 / var)."""
    x = np.asarray(case.calls[0][0][0], dtype=np.float64)
    out = as_array(got[0])
    if out is None or out.shape != x.shape:
        return "the output is not an array of x's shape"
    var = x.var(axis=-1)
    for what, found, target in (("mean of each row", out.mean(axis=-1), np.zeros(var.shape)),
                                ("variance of each row", out.var(axis=-1), var / (var + 1e-5))):
        message = mismatch(found, target, what)
        if message:
            return f"with gamma = 1 and beta = 0: {message}"
    return None


CASES = (
    example("example: two rows of 4", "values",
            call(np.array([[1.0, 2.0, 3.0, 4.0], [2.0, -2.0, 0.0, 4.0]]),
                 np.array([1.0, 0.5, -1.0, 2.0]), np.array([0.0, 1.0, 0.0, -1.0]))),
    hidden("shapes: a 3-D input", "shapes", draw(normal, shape=(2, 3, 6)), check="shapes"),
    hidden("values: a 2-D input, d = 6", "values", draw(normal, shape=(4, 6))),
    hidden("values: a 3-D input, d = 5", "values", draw(normal, shape=(2, 3, 5))),
    hidden("values: one vector, d = 8", "values", draw(normal, shape=(8,))),
    hidden("eps: rows whose variance is near eps", "eps", draw(near_eps, shape=(3, 6))),
    hidden("eps: eps given (0.1), rows of variance 0.25 to 1", "eps",
           draw(normal, shape=(5, 4), eps=0.1, spread=(0.5, 1.0))),
    hidden("eps: rows of equal entries give beta", "eps", draw(constant_rows, shape=(4, 5))),
    hidden("properties: shifting each row by a constant changes nothing", "properties",
           draw(shifted, shape=(4, 6)), check="relation", what="shift invariance"),
    hidden("properties: gamma = 1, beta = 0 give rows of mean 0, variance 1", "properties",
           draw(standard, shape=(5, 7)), check="standardised_rows"),
    hidden("dtypes: float32 inputs", "dtypes",
           draw(normal, shape=(3, 5), dtype=np.float32)),
    hidden("inputs: x, gamma and beta are not modified in place", "inputs",
           draw(normal, shape=(3, 4)), check="inputs"),
)
