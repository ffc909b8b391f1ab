"""The cases of ``grouped_query_attention(Q, K, V, mask=None)``, each with the constructor that
draws it.

In the ``groups`` and ``group sizes`` cases d_k = 1, where 1/sqrt(d_k) = 1, so a missing scale
does not hide behind a group mistake there; the masking, dtypes and inputs cases have d_k = 4, as
real heads have d_k > 1, so unscaled scores cost those tests too (with d_k = 1 everywhere but the
scaling case, leaving the scores unscaled kept 8.5 of 10). Every draw has the condition its case is named after (asserted
when drawn): ``1 < G < H`` in the ``groups`` cases (so consecutive and interleaved groups differ,
and so does the first group alone), G = 1 (multi-query) and G = H (multi-head) in the ``group
sizes`` cases, scores spread over [-2, 2] in the scaling case, masks that block and allow keys in
every row. Values V reveal the weights (singular values >= 1,
:func:`grader.problems.conditions.revealing`) and key/value groups differ, so a head sent to the
wrong group always shows.
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions, reference
from grader.problems.conditions import require
from grader.problems.spec import Inputs, draw, example, hidden, inputs


def call(Q, K, V, mask=None) -> tuple[tuple, dict]:
    """The call ``f(Q, K, V)`` or ``f(Q, K, V, mask)``."""
    return ((Q, K, V) if mask is None else (Q, K, V, mask)), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``batched`` (an axis before the heads), ``masked``, ``mqa`` (G = 1), ``mha`` (G = H)."""
    Q, K = args[0], args[1]
    found = {"batched"} if Q.ndim > 3 else set()
    if len(args) > 3 and args[3] is not None:
        found.add("masked")
    found |= {"mqa"} if K.shape[-3] == 1 else set()
    found |= {"mha"} if K.shape[-3] == Q.shape[-3] else set()
    return frozenset(found)


def named_sizes(name: str, args: tuple, kwargs: dict) -> None:
    """What a case's name states of the head counts holds: "1 < G < H", "G = 1", "G = H"."""
    H, G = args[0].shape[-3], args[1].shape[-3]
    require(H % G == 0, "G dividing H")
    for phrase, holds in (("1 < G < H", 1 < G < H), ("G = 1", G == 1), ("G = H", G == H)):
        if phrase in name:
            require(holds, phrase)


def grouped(rng, batch=(), H=6, G=2, Lq=4, Lk=5, d_k=1, d_v=5, mask=None,
            dtype=np.float64) -> Inputs:
    """Q (*batch, H, Lq, d_k), K (*batch, G, Lk, d_k) bounded normal; V (*batch, G, Lk, d_v),
    d_v >= Lk, revealing; ``mask`` ``"causal"`` (Lq, Lk) with Lq = Lk, ``"padding"`` (B, 1, 1, Lk)
    or None."""
    Q = conditions.bounded(rng, *batch, H, Lq, d_k)
    K = conditions.bounded(rng, *batch, G, Lk, d_k)
    V = conditions.revealing(rng, *batch, G, Lk, d_v)
    if mask == "causal":
        require(Lq == Lk, "Lq = Lk for a causal mask")
        mask = reference.causal_mask(Lq)
    elif mask == "padding":
        lengths = rng.permutation(np.resize(np.arange(2, Lk), batch[0]))
        mask = (np.arange(Lk)[None, :] < lengths[:, None])[:, None, None, :]
    if mask is not None:
        require(conditions.rows_mixed(mask[..., :-1, :] if mask.shape[-2] > 1 else mask)
                and bool(np.asarray(mask).any(-1).all()),
                "a mask that allows a key in every row and blocks one in all rows but the last")
    cast = tuple(a.astype(dtype) for a in (Q, K, V))
    return inputs(call(*cast, mask))


def scaled(rng, batch=(2,), H=4, G=2, Lq=3, Lk=4, d_k=6) -> Inputs:
    """Keys sqrt(d_k) times orthonormal rows per group and queries whose scaled scores
    Q K^T / sqrt(d_k) against their own group's keys are, in every row, Lk values spread over
    exactly [-2, 2] at least 0.5 apart: every wrong scale (1, 1 / sqrt(H d_k)) then moves some
    weight of every row by at least 0.01 (asserted)."""
    keys = conditions.orthonormal_rows(rng, Lk, d_k, (*batch, G))
    Z = conditions.spaced(rng, Lk, -2.0, 2.0, 0.5, (*batch, H, Lq))
    Q = Z @ np.repeat(keys, H // G, axis=-3)
    K = np.sqrt(d_k) * keys
    V = conditions.revealing(rng, *batch, G, Lk, Lk)
    product = Q @ np.swapaxes(reference.repeat_kv(K, H), -1, -2)
    weights = [reference.softmax(product * s) for s in (1 / np.sqrt(d_k), 1.0,
                                                         1 / np.sqrt(H * d_k))]
    for wrong in weights[1:]:
        require(bool(np.abs(wrong - weights[0]).max(axis=-1).min() >= 0.01),
                "weights that change in every row with every wrong scale")
    return inputs(call(Q, K, V))


def head_to_group() -> tuple:
    """Q (6, 1, 2), K (3, 1, 2), V (3, 1, 3) with V[g] = e_g: one key per group, so each head's
    output row is the one-hot vector of the group it uses."""
    Q = np.array([[[1.0, 0.0]], [[0.0, 1.0]], [[1.0, 1.0]], [[-1.0, 0.0]], [[0.5, 0.5]],
                  [[0.0, -1.0]]])
    K = np.array([[[1.0, 2.0]], [[0.0, 1.0]], [[2.0, -1.0]]])
    V = np.eye(3)[:, None, :]
    return call(Q, K, V)


CASES = (
    example("example: 6 query heads, 3 key/value heads (the head-to-group map)", "groups",
            head_to_group()),
    example("example: 2 query heads sharing one key/value head (G = 1)", "group sizes",
            call(np.array([[[1.0], [0.5]], [[-1.0], [2.0]]]),
                 np.array([[[1.0], [0.0], [-1.0]]]),
                 np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]]))),
    hidden("shapes: batch axis, H = 4, G = 2, Lq != Lk, d_v != d_k", "shapes",
           draw(grouped, batch=(2,), H=4, G=2, Lq=3, Lk=5, d_k=3, d_v=6), check="shapes"),
    hidden("groups: H = 6, G = 2 (1 < G < H)", "groups", draw(grouped)),
    hidden("groups: H = 8, G = 4 with a batch axis (1 < G < H)", "groups",
           draw(grouped, batch=(2,), H=8, G=4, Lq=3, Lk=4, d_v=4)),
    hidden("group sizes: multi-query attention (G = 1)", "group sizes",
           draw(grouped, batch=(2,), H=4, G=1, Lq=3, Lk=4, d_v=4)),
    hidden("group sizes: multi-head attention (G = H)", "group sizes",
           draw(grouped, H=3, G=3, Lq=4, Lk=4, d_v=5)),
    hidden("scaling: d_k = 6, scores spread over [-2, 2] (1 < G < H)", "scaling", draw(scaled)),
    hidden("masking: a causal mask (L, L) shared by every head (1 < G < H)", "masking",
           draw(grouped, H=4, G=2, Lq=5, Lk=5, d_k=4, d_v=5, mask="causal")),
    hidden("masking: a padding mask (B, 1, 1, Lk) (1 < G < H)", "masking",
           draw(grouped, batch=(4,), H=4, G=2, Lq=3, Lk=5, d_k=4, d_v=5, mask="padding")),
    hidden("dtypes: float32 inputs", "dtypes",
           draw(grouped, batch=(2,), H=4, G=2, Lq=3, Lk=4, d_k=4, d_v=5,
                dtype=np.float32)),
    hidden("inputs: Q, K, V are not modified in place", "inputs",
           draw(grouped, H=4, G=2, Lq=3, Lk=4, d_k=4, d_v=4), check="inputs"),
)
