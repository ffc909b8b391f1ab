"""The cases of ``attention_backward(Q, K, V, dO, mask=None)``, each with the constructor that
draws it.

What isolates the categories: outside ``scaling`` every case has d_k = 1, where 1/sqrt(d_k) =
1/d_k = 1, so a mistake in the scale costs the scaling points only (the scaling cases have d_k
3, 5 or 6); the mask mistakes need a mask, so they cost the masking points only. What every
draw guarantees (asserted when it is drawn): with d_k = 1 the keys of each example are spread
over [-1.5, 1.5] at least 1.5 / (Lk - 1) apart and |q| is in [0.5, 1.5], so every row's scores
span at least 0.75 and every weight is at least e^-4.5 / Lk (a blocked key carries real weight
when it is not blocked); every mask allows some key in every query row (no row is fully
blocked) and blocks some key in some row; Lq != Lk and d_v != d_k except in the causal
(self-attention) case; the stability case's scores reach the thousands, where an unshifted exp
overflows, each row's largest 44 or more above the rest (one-hot weights: float32 code is judged
on what it can represent).
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions
from grader.problems.checks import check
from grader.problems.compare import as_array, mismatch
from grader.problems.conditions import require
from grader.problems.spec import Inputs, draw, example, hidden, inputs

#: The results' names, for the checks' messages.
RESULTS = ("dQ", "dK", "dV")

#: This problem's own checks.
CHECKS: dict = {}


def call(Q, K, V, dO, mask=None) -> tuple[tuple, dict]:
    """The call ``f(Q, K, V, dO)`` or ``f(Q, K, V, dO, mask)``."""
    return ((Q, K, V, dO) if mask is None else (Q, K, V, dO, mask)), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``masked`` (a mask is given), ``batched`` (a leading axis), ``cross`` (Lq != Lk)."""
    Q, K = args[0], args[1]
    found = {"masked"} if len(args) > 4 and args[4] is not None else set()
    if Q.ndim > 2:
        found.add("batched")
    if Q.shape[-2] != K.shape[-2]:
        found.add("cross")
    return frozenset(found)


def _mask(rng, kind, batch, Lq, Lk) -> np.ndarray | None:
    """``"causal"`` (Lq, Lk) lower-triangular (Lq = Lk), ``"mixed"`` a mask per example whose
    every row allows and blocks keys, ``"padding"`` (B, 1, Lk): each example blocks its last
    1 to Lk - 2 keys, for every query."""
    if kind is None:
        return None
    if kind == "causal":
        require(Lq == Lk, "Lq == Lk for a causal mask")
        return np.tril(np.ones((Lq, Lk), dtype=bool))
    if kind == "mixed":
        return conditions.mixed_mask(rng, (*batch, Lq, Lk))
    kept = rng.integers(2, Lk, batch[0])
    return (np.arange(Lk)[None, :] < kept[:, None])[:, None, :]


def unit_inputs(rng, batch=(), Lq=4, Lk=5, d_v=3, mask=None, dtype=np.float64) -> Inputs:
    """d_k = 1: |q| in [0.5, 1.5], keys spread over [-1.5, 1.5]; V and dO bounded normal;
    ``mask`` a kind of :func:`_mask`."""
    batch = tuple(batch)
    Q = conditions.away_from_zero(rng, *batch, Lq, 1)
    K = conditions.spaced(rng, Lk, -1.5, 1.5, 1.5 / (Lk - 1), batch)[..., None]
    V = conditions.bounded(rng, *batch, Lk, d_v)
    dO = conditions.bounded(rng, *batch, Lq, d_v)
    found = _mask(rng, mask, batch, Lq, Lk)
    if found is not None:
        full = np.broadcast_to(found, (*batch, Lq, Lk))
        require(bool(full.any(axis=-1).all()), "every query row allows some key")
        require(bool((~full).any()), "a mask that blocks some key")
    if mask != "causal":
        require(Lq != Lk, "Lq != Lk")
    require(d_v != 1, "d_v != d_k")
    return inputs(call(*(a.astype(dtype) for a in (Q, K, V, dO)), found))


def scaled_inputs(rng, batch=(), Lq=4, Lk=6, d_k=5, d_v=3) -> Inputs:
    """d_k > 1 (so every wrong scale differs from 1/sqrt(d_k)): Q, K, V, dO bounded normal."""
    batch = tuple(batch)
    require(d_k > 2 and int(np.sqrt(d_k)) ** 2 != d_k, "d_k > 2, not a perfect square")
    Q, K = conditions.bounded(rng, *batch, Lq, d_k), conditions.bounded(rng, *batch, Lk, d_k)
    V, dO = conditions.bounded(rng, *batch, Lk, d_v), conditions.bounded(rng, *batch, Lq, d_v)
    require(Lq != Lk and d_v != d_k, "Lq != Lk and d_v != d_k")
    return inputs(call(Q, K, V, dO))


def large_scores(rng, batch=(2,), Lq=4, Lk=5, d_v=3) -> Inputs:
    """d_k = 1, |q| in [22, 30], keys spread over [-40, 40] at least 2 apart: scores up to 1200,
    above exp's overflow (709.8) in every example, and each row's largest score at least 44
    above the next, so the weights are one-hot to within e^-44 (the gradient through the
    scores vanishes; dV takes each query's dO to its key)."""
    batch = tuple(batch)
    Q = conditions.away_from_zero(rng, *batch, Lq, 1, low=22.0, high=30.0)
    K = conditions.spaced(rng, Lk, -40.0, 40.0, 2.0, batch)[..., None]
    V = conditions.bounded(rng, *batch, Lk, d_v)
    dO = conditions.bounded(rng, *batch, Lq, d_v)
    scores = Q @ np.swapaxes(K, -1, -2)
    require(bool((scores.max(axis=(-1, -2)) > 709.8).all()),
            "scores above exp's overflow in every example")
    require(bool(conditions.row_gaps(scores).min() >= 44.0),
            "each row's largest score at least 44 above the next")
    return inputs(call(Q, K, V, dO))


@check("property", "key_gradients_sum_to_zero", table=CHECKS)
def key_gradients_sum_to_zero(got: list, expected: list, case) -> str | None:
    """The learner's dK sums to 0 over the keys: adding one vector to every key shifts each row of
    scores by a constant, which the softmax ignores (judged on the learner's own output)."""
    value = got[0]
    if not (isinstance(value, (tuple, list)) and len(value) == 3):
        return "the function must return a tuple of 3 arrays (dQ, dK, dV)"
    dK = as_array(value[1])
    K = case.calls[0][0][1]
    if dK is None or dK.shape != np.shape(K):
        return "dK is not an array of K's shape"
    sums = dK.sum(axis=-2)
    message = mismatch(sums, np.zeros(sums.shape), "sum of dK over the keys")
    return None if message is None else f"dK must sum to 0 over the keys: {message}"


def _example() -> tuple[tuple, dict]:
    """Two queries, three keys, d_k = 2, d_v = 2."""
    Q = np.array([[1.0, 0.0], [0.5, -1.0]])
    K = np.array([[1.0, 1.0], [0.0, -1.0], [-1.0, 0.5]])
    V = np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, 1.0]])
    dO = np.array([[1.0, -1.0], [0.5, 0.5]])
    return call(Q, K, V, dO)


def _masked_example() -> tuple[tuple, dict]:
    """d_k = 1 (as every masking case, so the scale is 1), two queries, three keys, d_v = 2:
    query 0 sees key 0, query 1 keys 0 and 1."""
    _, _, V, dO = _example()[0]
    Q, K = np.array([[1.0], [-0.5]]), np.array([[1.0], [0.0], [-1.5]])
    return call(Q, K, V, dO, np.array([[True, False, False], [True, True, False]]))


def _unit(name, category, **params):
    return hidden(name, category, draw(unit_inputs, **params), results=RESULTS)


CASES = (
    example("example: Lq=2, Lk=3, d_k=2, d_v=2, no mask", "scaling", _example(),
            results=RESULTS),
    example("example: d_k=1 with a mask, query 0 sees key 0 only", "masking", _masked_example(),
            results=RESULTS),
    hidden("shapes: batch axis, Lq != Lk, d_v != d_k", "shapes",
           draw(scaled_inputs, batch=(2,), Lq=3, Lk=5, d_k=3, d_v=4), check="shapes",
           results=RESULTS),
    _unit("gradients: one example (d_k = 1)", "gradients", Lq=4, Lk=6, d_v=3),
    _unit("gradients: a batch axis (d_k = 1)", "gradients", batch=(3,), Lq=5, Lk=3, d_v=2),
    _unit("gradients: batch and head axes (d_k = 1)", "gradients", batch=(2, 2), Lq=3, Lk=4,
          d_v=5),
    hidden("scaling: d_k = 5", "scaling", draw(scaled_inputs, Lq=4, Lk=6, d_k=5, d_v=3),
           results=RESULTS),
    hidden("scaling: a batch axis, d_k = 6", "scaling",
           draw(scaled_inputs, batch=(2,), Lq=5, Lk=3, d_k=6, d_v=2), results=RESULTS),
    _unit("masking: a causal mask (Lq = Lk, d_k = 1)", "masking", batch=(2,), Lq=5, Lk=5,
          d_v=3, mask="causal"),
    _unit("masking: a mask per example (d_k = 1)", "masking", batch=(3,), Lq=4, Lk=6, d_v=2,
          mask="mixed"),
    _unit("masking: padded keys, mask (B, 1, Lk) (d_k = 1)", "masking", batch=(3,), Lq=3,
          Lk=6, d_v=4, mask="padding"),
    hidden("stability: scores in the thousands, one-hot weights (d_k = 1)", "stability",
           draw(large_scores),
           results=RESULTS),
    hidden("properties: dK sums to 0 over the keys", "properties",
           draw(scaled_inputs, batch=(2,), Lq=4, Lk=5, d_k=3, d_v=2),
           check="key_gradients_sum_to_zero"),
    _unit("dtypes: float32 inputs (d_k = 1)", "dtypes", batch=(2,), Lq=4, Lk=5, d_v=3,
          dtype=np.float32),
    hidden("inputs: Q, K, V and dO are not modified in place", "inputs",
           draw(scaled_inputs, batch=(2,), Lq=3, Lk=4, d_k=3, d_v=2), check="inputs"),
)
