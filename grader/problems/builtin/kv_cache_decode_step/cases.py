"""The cases of ``kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v)``, each with the
constructor that draws it.

What isolates the categories: ``output`` cases check the output only, with d_k = 1 (so a missing
scale costs the scaling points only), ``caches`` cases the new caches only, ``scaling`` has
d_k = 6 and scores spread so that leaving them unscaled moves every row; T >= 3 wherever the name
says nothing (so the cache, the new key and key 0 are all different sets), T = 0 in ``empty
cache``. The new key scores 0.1 to 0.5 above every cached key (so its weight exceeds
1 / (T + 1)) and V reveals the weights, so attending without it always shows. Every condition is asserted when
drawn.
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions, reference
from grader.problems.conditions import require
from grader.problems.spec import Inputs, draw, example, hidden, inputs


def call(q, k_new, v_new, cache_k, cache_v) -> tuple[tuple, dict]:
    return (q, k_new, v_new, cache_k, cache_v), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``batched`` (leading axes), ``empty`` (T = 0)."""
    found = {"batched"} if np.ndim(args[0]) > 2 else set()
    return frozenset(found | ({"empty"} if np.shape(args[3])[-2] == 0 else set()))


def step(rng, batch=(2, 3), T=5, d_k=1, d_v=None, dtype=np.float64) -> Inputs:
    """q, k_new (*batch, 1, d_k), v_new (*batch, 1, d_v), caches (*batch, T, ·); d_v defaults to
    T + 1 (V revealing over the T + 1 keys, :func:`grader.problems.conditions.revealing`)."""
    d_v = d_v or T + 1
    require(d_v >= T + 1 or T == 0, "d_v >= T + 1, so the values reveal the weights")
    q = conditions.away_from_zero(rng, *batch, 1, d_k)
    keys = conditions.bounded(rng, *batch, T + 1, d_k)
    values = conditions.revealing(rng, *batch, T + 1, d_v)
    if T:  # the new key scores 0.1 .. 0.5 above the best cached key: weight > 1 / (T + 1)
        top = (q @ np.swapaxes(keys[..., :-1, :], -1, -2)).max(axis=-1, keepdims=True)
        target = top + rng.uniform(0.1, 0.5, top.shape)
        new = keys[..., -1:, :]
        keys[..., -1:, :] = new + q * (target - q @ np.swapaxes(new, -1, -2)) / (q * q).sum(
            -1, keepdims=True)
        weights = reference.attention(q, keys, values)[1]
        require(bool(weights[..., -1].min() > 1 / (T + 1)),
                "a new key with more weight than 1 / (T + 1)")
    arrays = (q, keys[..., -1:, :], values[..., -1:, :], keys[..., :-1, :], values[..., :-1, :])
    return inputs(call(*(np.ascontiguousarray(a, dtype=dtype) for a in arrays)))


def scaled(rng, batch=(2,), T=4, d_k=6) -> Inputs:
    """Keys sqrt(d_k) times orthonormal rows and a query whose scaled scores are T + 1 values
    spread over exactly [-2, 2] at least 0.5 apart: no scaling moves some weight of every row by
    at least 0.01 (asserted)."""
    keys = conditions.orthonormal_rows(rng, T + 1, d_k, batch)
    Z = conditions.spaced(rng, T + 1, -2.0, 2.0, 0.5, (*batch, 1))
    q, K = Z @ keys, np.sqrt(d_k) * keys
    V = conditions.revealing(rng, *batch, T + 1, T + 1)
    weights = [reference.attention(q, K, V, scale=s)[1] for s in (1 / np.sqrt(d_k), 1.0)]
    require(bool(np.abs(weights[1] - weights[0]).max(axis=-1).min() >= 0.01),
            "weights that change in every row without the scale")
    return inputs(call(q, K[..., -1:, :], V[..., -1:, :], K[..., :-1, :], V[..., :-1, :]))


def _step_example():
    q = np.array([[[1.0]], [[-1.0]], [[0.5]], [[2.0]]])
    cache_k = np.array([[[1.0], [0.0]], [[2.0], [1.0]], [[-1.0], [1.0]], [[0.0], [0.5]]])
    cache_v = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 4)
    k_new = np.array([[[0.5]], [[0.0]], [[1.0]], [[1.0]]])
    v_new = np.array([[[0.0, 0.0, 1.0]]] * 4)
    return call(q, k_new, v_new, cache_k, cache_v)


CASES = (
    example("example: 4 heads, T = 2 cached keys (value i = e_i: the output is the weights)",
            "output", _step_example(), check="decode_step"),
    example("example: an empty cache (T = 0)", "empty cache",
            call(np.array([[1.0, 2.0]]), np.array([[0.5, -1.0]]), np.array([[3.0, 4.0, 5.0]]),
                 np.zeros((0, 2)), np.zeros((0, 3))), check="decode_step"),
    hidden("shapes: output (B, H, 1, d_v) and caches (B, H, T + 1, ·), d_v != d_k", "shapes",
           draw(step, d_k=3), check="decode_shapes"),
    hidden("output: T = 5, batch and heads", "output", draw(step), check="decode_step",
           parts=("output",)),
    hidden("output: T = 9 without leading axes", "output", draw(step, batch=(), T=9),
           check="decode_step", parts=("output",)),
    hidden("caches: T = 4, d_v != d_k", "caches", draw(step, batch=(3,), T=4, d_k=3, d_v=7),
           check="decode_step", parts=("new_cache_k", "new_cache_v")),
    hidden("caches: T = 6, batch and heads", "caches", draw(step, T=6, d_k=2),
           check="decode_step", parts=("new_cache_k", "new_cache_v")),
    hidden("empty cache: T = 0, batch and heads", "empty cache", draw(step, T=0, d_v=4),
           check="decode_step"),
    hidden("scaling: d_k = 6, scores spread over [-2, 2]", "scaling", draw(scaled),
           check="decode_step", parts=("output",)),
    hidden("dtypes: float32 inputs", "dtypes", draw(step, batch=(2,), T=4, dtype=np.float32),
           check="decode_step"),
    hidden("inputs: q, k_new, v_new and the caches are not modified", "inputs",
           draw(step, batch=(2,), T=3, d_k=2), check="inputs"),
)
