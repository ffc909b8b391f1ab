"""The cases of ``linear_attention(Q, K, V, causal=False)``, each with the constructor that draws
it.

Every draw has the condition its case is named after (asserted when drawn): entries of Q and K
of both signs in every row, some below -1 (so elu(x) + 1 = exp(x) differs from x + 1, from elu(x)
and from x), Lq = L >= 4 (a prefix differs from the whole sequence from row 1 on), d_v != d_k
where named; V revealing (singular values >= 1, so any wrong weight shows) and
``causal`` given as a keyword where the name says so.
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions
from grader.problems.conditions import require
from grader.problems.spec import Inputs, draw, example, hidden, inputs


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``batched`` (leading axes), ``causal`` (causal=True)."""
    found = {"batched"} if np.ndim(args[0]) > 2 else set()
    causal = kwargs.get("causal", args[3] if len(args) > 3 else False)
    return frozenset(found | ({"causal"} if causal else set()))


def sequence(rng, batch=(), L=6, d_k=3, d_v=None, causal=False, spread=1.5,
             dtype=np.float64) -> Inputs:
    """Q, K (*batch, L, d_k) uniform in [-spread, spread] with each row holding an entry below
    -1 and one above 0.5 (placed at random columns); V (*batch, L, d_v) revealing, d_v >= L."""
    d_v = d_v or L + 1
    require(L >= 4 and d_v >= L, "L >= 4 and d_v >= L")
    QK = []
    for _ in range(2):
        x = rng.uniform(-spread, spread, (*batch, L, d_k))
        columns = rng.permuted(np.broadcast_to(np.arange(d_k), x.shape), axis=-1)
        x = np.where(columns == 0, rng.uniform(-spread, -1.0, x.shape), x)
        x = np.where(columns == 1, rng.uniform(0.5, spread, x.shape), x)
        require(bool((x.min(-1) < -1).all() and (x.max(-1) > 0.5).all()),
                "an entry below -1 and one above 0.5 in every row of Q and K")
        QK.append(x)
    V = conditions.revealing(rng, *batch, L, d_v)
    kwargs = {"causal": True} if causal else {}
    return inputs((tuple(a.astype(dtype) for a in (*QK, V)), kwargs))


_Q = np.array([[1.0, -2.0], [0.5, 0.5], [-1.0, 2.0], [0.0, -0.5]])
_K = np.array([[0.5, 1.0], [-1.5, 0.0], [2.0, -1.0], [0.0, 0.5]])
_V = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])

CASES = (
    example("example: L = 4, d_k = 2, d_v = 3", "values", ((_Q, _K, _V), {})),
    example("example: the same with causal=True", "causal", ((_Q, _K, _V), {"causal": True})),
    hidden("shapes: batch and heads axes, d_v != d_k", "shapes",
           draw(sequence, batch=(2, 3), L=5, d_k=3, d_v=6), check="shapes"),
    hidden("values: a 2-D input", "values", draw(sequence)),
    hidden("values: batch axis, d_v != d_k", "values", draw(sequence, batch=(3,), L=5, d_k=2,
                                                            d_v=7)),
    hidden("feature map: entries in [-4, 4]", "feature map",
           draw(sequence, batch=(2,), L=5, d_k=4, spread=4.0)),
    hidden("causal: prefix sums over j <= i", "causal", draw(sequence, L=6, causal=True)),
    hidden("causal: batch and heads axes", "causal",
           draw(sequence, batch=(2, 2), L=5, d_k=2, causal=True)),
    hidden("causal: a long sequence (L = 24)", "causal",
           draw(sequence, L=24, d_k=3, d_v=24, causal=True)),
    hidden("dtypes: float32 inputs", "dtypes", draw(sequence, batch=(2,), dtype=np.float32)),
    hidden("inputs: Q, K, V are not modified in place", "inputs",
           draw(sequence, batch=(2,), causal=True), check="inputs"),
)
