"""The cases of ``sliding_window_attention(Q, K, V, window)``, each with the constructor that
draws it.

What isolates the categories: outside ``scaling``, d_k = 1 (1/sqrt(d_k) = 1, so a missing scale
costs the scaling points only); ``band`` has 1 < window < L - 1 (so the window's both edges fall
inside the sequence), ``window 1`` the token alone, ``long window`` window >= L (plain causal
attention: only mistakes that see the future fail it). Scores of every row span at most 4.5
(|q| <= 1.5, keys within [-1.5, 1.5]) so every key carries weight at least e^-4.5 / L, and V
reveals the weights (singular values >= 1): a key wrongly in or out of the band always shows.
Every condition is asserted when drawn.
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions
from grader.problems.conditions import require
from grader.problems.spec import Inputs, draw, example, hidden, inputs


def call(Q, K, V, window) -> tuple[tuple, dict]:
    return (Q, K, V, window), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``batched`` (leading axes)."""
    return frozenset({"batched"} if np.ndim(args[0]) > 2 else ())


def named_window(name: str, args: tuple, kwargs: dict) -> None:
    """What a case's name states of the window holds: "1 < window < L - 1", "window = 1",
    "window >= L"."""
    L, window = np.shape(args[0])[-2], args[3]
    for phrase, holds in (("1 < window < L - 1", 1 < window < L - 1),
                          ("window = 1", window == 1), ("window >= L", window >= L)):
        if phrase in name:
            require(holds, phrase)


def local(rng, batch=(), L=(6, 10), window=(2, 4), d_k=1, dtype=np.float64) -> Inputs:
    """Q (*batch, L, 1) with |q| in [0.5, 1.5] and K (*batch, L, 1) with keys spread over
    [-1.5, 1.5]; for d_k > 1 both along one random unit vector u, Q = q u and
    K = sqrt(d_k) k u, so the scaled scores are q k as for d_k = 1 and unscaled ones sqrt(d_k)
    times larger. V revealing (d_v = L + 1); L and window drawn from [low, high) when given as
    pairs."""
    n = int(rng.integers(*L)) if isinstance(L, tuple) else L
    w = int(rng.integers(*window)) if isinstance(window, tuple) else window
    Q = conditions.away_from_zero(rng, *batch, n, 1)
    K = conditions.spaced(rng, n, -1.5, 1.5, 1.5 / (n - 1), tuple(batch))[..., None]
    if d_k > 1:
        u = conditions.orthonormal_rows(rng, 1, d_k, tuple(batch))
        Q, K = Q * u, np.sqrt(d_k) * K * u
    V = conditions.revealing(rng, *batch, n, n + 1)
    return inputs(call(*(a.astype(dtype) for a in (Q, K, V)), w))


CASES = (
    example("example: L = 5, window = 2 (the band)", "band",
            call(np.array([[1.0], [0.5], [-1.0], [1.5], [0.0]]),
                 np.array([[1.0], [0.0], [-1.0], [0.5], [1.0]]),
                 np.arange(15.0).reshape(5, 3) / 10, 2)),
    hidden("shapes: batch axis, d_v != d_k", "shapes", draw(local, batch=(2, 3)),
           check="shapes"),
    hidden("band: 1 < window < L - 1", "band", draw(local)),
    hidden("band: batch and heads axes (1 < window < L - 1)", "band",
           draw(local, batch=(2, 3), L=(7, 9), window=(3, 5))),
    hidden("band: window = 2 on a long sequence (1 < window < L - 1)", "band",
           draw(local, batch=(2,), L=(14, 18), window=2)),
    hidden("window 1: the token alone (window = 1)", "window 1", draw(local, batch=(2,),
                                                                       window=1)),
    hidden("long window: window >= L is causal attention", "long window",
           draw(local, batch=(2,), L=(5, 8), window=9)),
    hidden("scaling: d_k = 4", "scaling", draw(local, batch=(2,), d_k=4)),
    hidden("dtypes: float32 inputs (1 < window < L - 1)", "dtypes",
           draw(local, batch=(2,), dtype=np.float32)),
    hidden("inputs: Q, K, V are not modified in place", "inputs", draw(local, batch=(2,), d_k=4),
           check="inputs"),
)
